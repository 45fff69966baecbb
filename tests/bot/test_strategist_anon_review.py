"""Стратег's hidden bonus chosen with buttons under the role card, and the GM's refusal of a
queued anonymous post, through SimCord (players join with an en-US client: their texts are
English; the game's own channels are Russian)."""

from __future__ import annotations

import discord

from .helpers import force_resolve, gather, start
from .test_restart import restart

STRATEGIST = 5  # the seat the fixed seed deals Стратег to at a table of six


def with_buttons(channel) -> list:
    """Messages with buttons, the action panels (altmafia/bot/panel.py, ``amx:``/``amy:``) excepted."""
    return [m for m in channel.history() if m.components
            and not any(getattr(c, "custom_id", "").startswith(("amx:", "amy:")) for row in m.components for c in row.children)]


async def test_strategist_chooses_the_bonus_with_buttons_until_the_first_resolve(env, settings):
    t = await start(await gather(env, 6, spectators=1))
    me = t.game.player(STRATEGIST)
    assert me.character == "strategist"
    base = dict(me.stats)
    # the role card carries the two choices; nobody else is asked
    (card,) = with_buttons(t.hidden(STRATEGIST))
    assert "Hidden bonus +2 to one of PI / SI" in card.content and "Now: PI" in card.content
    assert not any(with_buttons(t.hidden(pid)) for pid in range(6) if pid != STRATEGIST)
    strategist = t.member(STRATEGIST)
    r = await strategist.slash(t.hidden(STRATEGIST), "action me")
    assert "Hidden bonus: +2 PI (the default; the choice is open until the first resolve" in r.response.content
    assert t.game.true_stat(t.game.player(STRATEGIST), "vo") == base["vo"] + 2

    # another person's click is refused, ephemerally, and changes nothing
    r = await t.gm.click(card, label="+2 SI")
    assert r.response.ephemeral and r.response.content == "⛔ This button is not for you."
    assert t.game.true_stat(t.game.player(STRATEGIST), "tv") == base["tv"]

    r = await strategist.click(card, label="+2 SI")
    assert r.acknowledged and not r.followups
    g = t.game
    assert g.true_stat(g.player(STRATEGIST), "tv") == base["tv"] + 2 and g.true_stat(g.player(STRATEGIST), "vo") == base["vo"]
    assert any("Your hidden bonus: +2 SI. You may change it until the first resolve." in m.content for m in t.hidden(STRATEGIST).history())
    assert any(f"Невидимый бонус — {me.name}: +2 ТВ." in m.content for m in t.channel("gm").history())
    assert not any("бонус" in m.content.casefold() for m in t.channel("public").history())

    # the buttons still answer after a restart; the choice survived it and may still change
    await restart(env, settings)
    assert t.game.bonus_choice(t.game.player(STRATEGIST))["stat"] == "tv"
    (card,) = with_buttons(t.hidden(STRATEGIST))
    r = await strategist.click(card, label="+2 PI")
    assert r.acknowledged and not r.followups
    g = t.game
    assert g.true_stat(g.player(STRATEGIST), "vo") == base["vo"] + 2 and g.true_stat(g.player(STRATEGIST), "tv") == base["tv"]
    r = await strategist.slash(t.hidden(STRATEGIST), "action me")
    assert "Hidden bonus: +2 PI (your choice; you may change it until the first resolve)" in r.response.content

    # after the first resolve the choice is closed
    await force_resolve(t)
    r = await strategist.click(card, label="+2 SI")
    (refusal,) = r.followups
    assert refusal.ephemeral and refusal.content == "⛔ The bonus is chosen before the first resolve: the choice is closed now."
    g = t.game
    assert g.true_stat(g.player(STRATEGIST), "vo") == base["vo"] + 2 and g.true_stat(g.player(STRATEGIST), "tv") == base["tv"]
    r = await strategist.slash(t.hidden(STRATEGIST), "action me")
    assert "Hidden bonus: +2 PI\n" in r.response.content


async def test_the_gm_refuses_a_queued_anonymous_post(env, settings):
    t = await start(await gather(env, 6, spectators=1))
    author, name = t.member(2), t.game.player(2).name
    r = await author.slash(t.channel("public"), "anon post", message="Оффтоп про футбол")
    assert r.response.ephemeral and "The GM may refuse" in r.response.content
    r = await author.slash(t.channel("public"), "anon post", message="Лишняя вторая")  # over the quota
    assert r.response.content.startswith("⛔"), r.response.content
    assert [a.text for a in t.game.state.anons] == ["Оффтоп про футбол"]
    # the GM sees the queued post with its author at once, with a button to refuse it
    (queued,) = with_buttons(t.channel("gm"))
    assert f"Анонимка в очереди (автор: {name}): Оффтоп про футбол" in queued.content
    # a server admin who is not the game's GM sees the GM channel: the click is refused
    admin = t.guild.add_member(env.create_user("admin", global_name="Админ"),
                               roles=[t.guild.create_role("Админы", permissions=discord.Permissions(administrator=True))])
    r = await admin.click(queued, label="Отказать в публикации")
    assert r.response.ephemeral and r.response.content == "⛔ Only the game's GM can do that."
    assert len(t.game.state.anons) == 1

    await restart(env, settings)  # the button is persistent
    r = await t.gm.click(queued, label="Отказать в публикации")
    assert r.acknowledged and not r.followups
    assert not t.game.state.anons
    edited = next(m for m in t.channel("gm").history() if m.id == queued.id)
    assert "❌ Отклонена ведущим" in edited.content and not edited.components
    gm_text = "\n".join(m.content for m in t.channel("gm").history())
    assert f"Анонимка отклонена ведущим (автор: {name}): Оффтоп про футбол" in gm_text
    assert f"отказ в публикации анонимки (автор: {name})" in gm_text
    notice = [m.content for m in t.hidden(2).history() if "refused to publish" in m.content]
    assert notice == [f"<@{author.id}>\n**— day 1.1 —**\n• The GM refused to publish your anonymous post: “Оффтоп про футбол”. "
                      "It does not count against today's limit: you may send another."]
    assert not any("Оффтоп" in m.content for pid in range(6) if pid != 2 for m in t.hidden(pid).history())

    # the quota was given back: another post is accepted, and it alone is published
    r = await author.slash(t.channel("public"), "anon post", message="Трактир полон слухов")
    assert r.response.ephemeral and not r.response.content.startswith("⛔"), r.response.content
    later = next(m for m in with_buttons(t.channel("gm")) if "Трактир полон слухов" in m.content)
    await force_resolve(t)
    public = "\n".join(m.content for m in t.channel("public").history())
    assert "Трактир полон слухов" in public and "Оффтоп" not in public
    # once published, it is too late to refuse: an ephemeral refusal, and the button goes
    r = await t.gm.click(later, label="Отказать в публикации")
    (refusal,) = r.followups
    assert refusal.ephemeral and refusal.content == "⛔ This anonymous post is already published: too late to refuse it."
    assert not next(m for m in t.channel("gm").history() if m.id == later.id).components
