"""Every refusal answers: ephemerally, with a reason from the catalog."""

from __future__ import annotations

from .conftest import LOCALES
from .helpers import force_resolve, gather, start


def refused(r, *words: str) -> str:
    assert r.acknowledged, r
    msg = r.response
    assert msg is not None, r
    assert msg.ephemeral, msg.content
    assert msg.content.startswith("⛔"), msg.content
    for w in words:
        assert w in msg.content, (w, msg.content)
    return msg.content


async def test_lobby_refusals(env):
    guild = env.create_guild("Мафия")
    ch = guild.create_text_channel("набор")
    gm = guild.add_member(env.create_user("gm"))
    a = guild.add_member(env.create_user("a", global_name="Аня"))
    b = guild.add_member(env.create_user("b", global_name="Борис"))
    for m in (gm, a, b):
        LOCALES[m.id] = "ru"
    refused(await a.slash(ch, "lobby join"), "нет открытого набора")
    refused(await a.slash(ch, "lobby start"), "нет открытого набора")
    refused(await gm.slash(ch, "lobby create", ruleset="нет-такого"), "нет-такого")
    refused(await gm.slash(ch, "lobby create", timezone="Марс/Олимп"), "часовой пояс")
    refused(await gm.slash(ch, "lobby create", days=60), "от 1 до 30")
    await gm.slash(ch, "lobby create")
    refused(await gm.slash(ch, "lobby join"), "Ведущий не может")
    await a.slash(ch, "lobby join")
    refused(await a.slash(ch, "lobby join"), "уже записаны")
    refused(await a.slash(ch, "lobby spectate"), "не могут быть зрителями")
    refused(await b.slash(ch, "lobby leave"), "Вас нет")
    refused(await a.slash(ch, "lobby start"), "только ведущий")
    refused(await gm.slash(ch, "lobby start"), "от 2 до 16", "1")
    refused(await a.slash(ch, "lobby end"), "только ведущий")
    # nobody but a player can act: no game here yet
    refused(await b.slash(ch, "action me"), "нет вашей игры")


async def test_game_refusals(env):
    t = await start(await gather(env, 4, spectators=1, others=1))
    for m in [t.gm, *t.players, *t.spectators, *t.others]:
        LOCALES[m.id] = "ru"
    p0, p1 = t.member(0), t.member(1)
    h0 = t.hidden(0)
    pub = t.channel("public")
    gm_ch = t.channel("gm")
    spectator, outsider = t.spectators[0], t.others[0]

    refused(await spectator.slash(pub, "action me"), "не играете")
    refused(await spectator.slash(pub, "gm status"), "только ведущий")
    refused(await outsider.slash(t.lobby, "action me"), "нет вашей игры")
    refused(await p0.slash(h0, "action submit", ability="нет такого"), "нет такого действия")
    g = t.game
    one = next(la for la in g.legal_actions(0) if la.ability.targets == 1 and not la.via)
    refused(await p0.slash(h0, "action submit", ability=one.key), "целей: 1")
    refused(await p0.slash(h0, "action submit", ability=one.key, target="Никто"), "Никто")
    night = next(k for k, ab in g.abilities(g.player(0)) if ab.slot == "night")
    refused(await p0.slash(h0, "action submit", ability=night, target="1"), "нельзя совершить сейчас")
    refused(await p0.slash(h0, "action cancel"), "нечего отменять")
    refused(await p0.slash(h0, "vote cast", candidate="1"), "закрыто")
    refused(await p0.slash(h0, "vote show"), "закрыто")
    refused(await p0.slash(h0, "pm send", to="0", message="себе"), "на себя")
    await t.gm.slash(gm_ch, "gm setstatus", player="1", status="no_pm")
    refused(await p1.slash(t.hidden(1), "pm send", to="0", message="привет"), "лишены")
    for n in range(4):  # 1 a day, 2 for a Smart or a Strategist
        r = await p0.slash(h0, "anon post", message=f"анонимка {n}")
        if r.response.content.startswith("⛔"):
            break
    refused(r, "Лимит анонимок")
    assert n in (1, 2)
    refused(await p0.slash(h0, "faction invite", player="1"), "нужна фаза")
    refused(await p0.slash(h0, "faction leave"), "нужна фаза")
    refused(await t.gm.slash(gm_ch, "gm setstat", player="0", stat="xx", value=1), "xx")
    refused(await t.gm.slash(gm_ch, "gm setstat", player="Никто", stat="vo", value=1), "Никто")
    refused(await t.gm.slash(gm_ch, "gm setstatus", player="0", status="летает"), "летает")
    refused(await t.gm.slash(gm_ch, "gm settle", task=3), "№3")
    refused(await t.gm.slash(gm_ch, "gm resume"), "не на паузе")
    refused(await t.gm.slash(gm_ch, "gm endday", day=99), "99")
    await t.gm.slash(gm_ch, "gm pause")
    refused(await t.gm.slash(gm_ch, "gm pause"), "на паузе")
    refused(await t.gm.slash(gm_ch, "gm extend", minutes=10), "на паузе")
    await t.gm.slash(gm_ch, "gm resume")
    # a stale confirmation: the phase was resolved meanwhile
    r = await t.gm.slash(gm_ch, "gm resolve")
    await force_resolve(t, label="Подсчитать")
    r2 = await t.gm.click(r.response, label="Подсчитать")
    assert r2.acknowledged and "уже подсчитана" in (await _original(r2, r)).content
    # GM commands refuse players
    refused(await p0.slash(h0, "gm resolve"), "только ведущий")
    # every refusal so far was ephemeral: nothing leaked into the shared channels
    for m in pub.history():
        assert not m.content.startswith("⛔"), m.content


async def _original(result, first):
    """The message a component interaction edited (the GM's ephemeral confirmation)."""
    return first.response
