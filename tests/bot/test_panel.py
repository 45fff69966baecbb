"""The action panel in each hidden channel (altmafia/bot/panel.py): the ability, its targets and
options by selects, a submit button, the ballot by a select and «снять голос» where the ruleset
allows it, PMs and anonymous posts in a form; refusals of the wrong person and of an old phase;
the panel answers after a restart."""

from __future__ import annotations

from altmafia.bot.bot import create_bot

from .helpers import Table, force_resolve, gather, start


def ids(message) -> list[str]:
    return [c.custom_id for row in message.components for c in row.children if getattr(c, "custom_id", None)]


def panels(t: Table, pid: int) -> list:
    """The panels in a seat's hidden channel, oldest first (SimCord's users read English)."""
    return [m for m in t.hidden(pid).history() if m.components and any(i.startswith("amy:") for i in ids(m))]


def panel(t: Table, pid: int):
    """The newest panel in a seat's hidden channel."""
    found = panels(t, pid)
    assert found, [m.content[:80] for m in t.hidden(pid).history()]
    return found[-1]


def cid(message, prefix: str) -> str:
    """The custom id of the panel's control whose id starts with ``prefix`` (``amx:ab`` …)."""
    found = [i for i in ids(message) if i.startswith(prefix)]
    assert found, (prefix, ids(message))
    return found[0]


def one_target_ability(t: Table, pid: int):
    return next(la for la in t.game.legal_actions(pid) if la.ability.targets == 1 and not la.ability.options
                and la.ability.number is None and not la.via and la.targets)


async def restart(env, settings):
    old = env.bot
    old.scheduler.stop()
    await old.store.close()
    await env.restart_bot(create_bot(settings))


async def test_each_living_seat_gets_one_panel_a_phase(env):
    t = await start(await gather(env, 6, spectators=1))
    for p in t.game.state.players:
        assert len(panels(t, p.pid)) == 1, p.pid
        assert "Action panel** — day 1.1" in panel(t, p.pid).content and "Your submissions: —" in panel(t, p.pid).content
    await force_resolve(t)
    for p in t.game.living():
        assert len(panels(t, p.pid)) == 2
        assert "day 1.2" in panel(t, p.pid).content


async def test_submit_through_the_panel_is_the_slash_command(env):
    t = await start(await gather(env, 6, spectators=1))
    m, la = t.member(0), one_target_ability(t, 0)
    target = str(la.targets[0])
    msg = panel(t, 0)
    r = await m.select(msg, [la.key], custom_id=cid(msg, "amx:ab"))
    assert r.response is None or not r.ephemeral
    msg = panel(t, 0)
    assert "Chosen:" in msg.content, msg.content
    await m.select(msg, [target], custom_id=cid(msg, "amx:t0"))
    msg = panel(t, 0)
    r = await m.click(msg, custom_id=cid(msg, "amy:go"))
    assert r.ephemeral and r.response.content.startswith("✅"), r.response
    by_panel = (await t.store.games.journal(t.game_id))[-1]
    assert "→" in panel(t, 0).content.split("\n")[1]  # the submission is shown on the panel
    # the same submission again would be taken for a retry (answered with what is recorded):
    # take it back first, then make it by the slash command
    await m.slash(t.hidden(0), "action cancel")
    r = await m.slash(t.hidden(0), "action submit", ability=la.key, target=target)
    assert r.response and r.response.content.startswith("✅"), r.response
    by_slash = (await t.store.games.journal(t.game_id))[-1]
    assert by_panel["seq"] != by_slash["seq"]
    assert (by_panel["kind"], by_panel["args"], by_panel["user_id"]) == (by_slash["kind"], by_slash["args"], by_slash["user_id"])
    assert by_panel["kind"] == "submit" and by_panel["args"]["targets"] == [int(target)]
    # and taken back by the panel's cancel button, as by /action cancel
    msg = panel(t, 0)
    r = await m.click(msg, custom_id=cid(msg, "amy:cx"))
    assert r.ephemeral and not t.game.pending(0), r.response.content
    assert (await t.store.games.journal(t.game_id))[-1]["kind"] == "cancel"
    assert not [i for i in ids(panel(t, 0)) if i.startswith("amy:cx")]


async def test_the_panel_answers_after_a_restart(env, settings):
    t = await start(await gather(env, 6, spectators=1))
    m, la = t.member(0), one_target_ability(t, 0)
    msg = panel(t, 0)
    await m.select(msg, [la.key], custom_id=cid(msg, "amx:ab"))  # chosen before the restart
    await restart(env, settings)
    msg = panel(t, 0)
    r = await m.select(msg, [str(la.targets[0])], custom_id=cid(msg, "amx:t0"))
    assert r.acknowledged and "Chosen:" in panel(t, 0).content
    msg = panel(t, 0)
    r = await m.click(msg, custom_id=cid(msg, "amy:go"))
    assert r.response.content.startswith("✅"), r.response.content
    assert [(i.pid, i.ability, i.targets) for i in t.game.state.intents] == [(0, la.key, [la.targets[0]])]
    assert len(panels(t, 0)) == 1  # the restart posted no second panel


async def test_wrong_person_and_old_phase_are_refused(env):
    t = await start(await gather(env, 6, spectators=1))
    old = panel(t, 0)
    la = one_target_ability(t, 0)
    r = await t.gm.select(old, [la.key], custom_id=cid(old, "amx:ab"))  # the GM sees every hidden channel
    assert r.ephemeral and "another player's panel" in r.response.content, r.response
    r = await t.gm.click(old, custom_id=cid(old, "amy:pm"))
    assert r.ephemeral and "another player's panel" in r.response.content and r.modal is None
    await force_resolve(t)
    r = await t.member(0).select(old, [la.key], custom_id=cid(old, "amx:ab"))
    now = panel(t, 0)
    assert r.ephemeral and "past phase" in r.response.content and str(now.id) in r.response.content, r.response.content
    assert not t.game.state.intents
    # in Russian for a Russian client
    from .conftest import LOCALES

    LOCALES[t.member(0).id] = "ru"
    r = await t.member(0).click(old, custom_id=cid(old, "amy:go"))
    assert "прошлой фазы" in r.response.content, r.response.content


async def test_a_pm_in_a_form_keeps_its_lines(env):
    t = await start(await gather(env, 6, spectators=1))
    msg = panel(t, 1)
    r = await t.member(1).click(msg, custom_id=cid(msg, "amy:pm"))
    assert r.modal is not None, r
    r = await t.member(1).submit_modal(r, {"to": ["2"], "text": "встретимся ночью\nу старой мельницы"})
    assert r.ephemeral and "PM" in r.response.content, r.response.content
    got = [m.content for m in t.hidden(2).history() if "встретимся ночью" in m.content]
    # its lines quoted, each on its own (altmafia.text.safe): readable, never the bot's
    assert len(got) == 1 and got[0].endswith(":\n> встретимся ночью\n> у старой мельницы"), got
    cmd = (await t.store.games.journal(t.game_id))[-1]
    assert cmd["kind"] == "send_pm" and cmd["args"] == {"sender": 1, "recipient": 2, "text": "встретимся ночью\nу старой мельницы"}
    # the same form by the slash command
    r = await t.member(1).slash(t.hidden(1), "pm form")
    assert r.modal is not None


async def test_an_anonymous_post_in_a_form(env):
    t = await start(await gather(env, 6, spectators=1))
    msg = panel(t, 3)
    r = await t.member(3).click(msg, custom_id=cid(msg, "amy:an"))
    r = await t.member(3).submit_modal(r, {"text": "ветер меняется\nберегитесь"})
    assert r.ephemeral, r
    assert [a.text for a in t.game.state.anons] == ["ветер меняется\nберегитесь"]


async def classic_day(env):
    """A classic table in its first day (the lynch is open; the ballot may be taken back)."""
    guild = env.create_guild("Мафия")
    lobby = guild.create_text_channel("набор")
    gm = guild.add_member(env.create_user("ведущий"))
    players = [guild.add_member(env.create_user(f"p{i}", global_name=n)) for i, n in enumerate(["Аня", "Борис", "Вера", "Глеб", "Даша", "Егор", "Жанна"])]
    await gm.slash(lobby, "lobby create", ruleset="classic")
    for p in players:
        await p.slash(lobby, "lobby join")
    t = await start(Table(env, guild, lobby, gm, players))
    while t.game.info.kind != "day":
        await force_resolve(t)
    return t


async def test_vote_by_select_and_take_it_back(env):
    t = await classic_day(env)
    voter = next(p.pid for p in t.game.living())
    target = next(p.pid for p in t.game.living() if p.pid != voter)
    msg = panel(t, voter)
    vote = cid(msg, "amx:v0")
    r = await t.member(voter).select(msg, [str(target)], custom_id=vote)
    assert r.ephemeral and "Your vote" in r.response.content, r.response.content
    assert [(v.pid, v.choice) for v in t.game.state.votes] == [(voter, target)]
    assert t.game.player(target).name in t.channel("votes").history()[-1].content
    msg = panel(t, voter)
    r = await t.member(voter).click(msg, custom_id=cid(msg, "amy:u0"))
    assert r.ephemeral and "taken back" in r.response.content, r.response.content
    assert t.game.state.votes == []
    assert "снимает голос" in t.channel("votes").history()[-1].content
    assert (await t.store.games.journal(t.game_id))[-1]["kind"] == "unvote"
    assert not [i for i in ids(panel(t, voter)) if i.startswith("amy:u")]  # nothing left to take back
    r = await t.member(voter).slash(t.hidden(voter), "vote remove")
    assert r.ephemeral and "not voted" in r.response.content, r.response.content


async def test_no_remove_button_where_the_book_forbids_it(env):
    t = await start(await gather(env, 6, spectators=1))
    g = t.game
    assert not g.vote_withdrawable("prison")
    r = await t.member(0).slash(t.hidden(0), "vote remove", ballot="prison")
    assert r.ephemeral and "cannot be taken back" in r.response.content, r.response.content
    assert not [i for i in ids(panel(t, 0)) if i.startswith("amy:u")]


async def test_an_option_is_chosen_on_the_panel(env):
    t = await start(await gather(env, 6, spectators=1))
    pid, la = next((p.pid, la) for p in t.game.living() for la in t.game.legal_actions(p.pid)
                   if la.options and not la.via and la.ability.targets <= 1 and (la.targets or not la.ability.targets))
    m = t.member(pid)
    msg = panel(t, pid)
    await m.select(msg, [la.key], custom_id=cid(msg, "amx:ab"))
    args = {"ability": la.key}
    if la.ability.targets:
        msg = panel(t, pid)
        await m.select(msg, [str(la.targets[0])], custom_id=cid(msg, "amx:t0"))
        args["target"] = str(la.targets[0])
    msg = panel(t, pid)
    offered = [o.value for row in msg.components for c in row.children if c.custom_id.startswith("amx:op") for o in c.options]
    assert offered == la.options[:25]
    await m.select(msg, [la.options[-1]], custom_id=cid(msg, "amx:op"))
    msg = panel(t, pid)
    r = await m.click(msg, custom_id=cid(msg, "amy:go"))
    assert r.response.content.startswith("✅"), r.response.content
    assert [(i.ability, i.option) for i in t.game.pending(pid)] == [(la.key, la.options[-1])]


async def test_a_seat_out_of_the_game_is_refused(env):
    t = await start(await gather(env, 6, spectators=1))
    old = panel(t, 4)
    r = await t.gm.slash(t.channel("gm"), "gm remove", player="4", mode="modkill")
    assert r.response is not None, r
    assert not t.game.alive(t.game.player(4))
    r = await t.member(4).click(old, custom_id=cid(old, "amy:pm"))
    assert r.ephemeral and r.modal is None and "out of the game" in r.response.content, r.response.content
    await force_resolve(t)
    assert len(panels(t, 4)) == 1  # no new panel for a seat out of the game
