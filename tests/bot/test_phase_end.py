"""Whom a phase waits for, through the simulated Discord: the reminders reach everyone the engine
says owes an action or a vote (stats mafia too, where no ability is "the turn's action"),
`/gm status` puts every living player in one group and shows what each submitted, in words, and
`/gm idle` is refused, ephemerally and in words, where it has no effect."""

from __future__ import annotations

import random
from datetime import timedelta

from .conftest import LOCALES
from .helpers import act, force_resolve, gather, start
from .test_stats_mafia_game import contents, gather_stats


def reminded(t, pid: int) -> list[str]:
    return [c for c in contents(t.hidden(pid)) if "⏰" in c]


async def test_stats_mafia_reminds_whoever_owes_an_action_or_a_vote(env):
    t = await start(await gather_stats(env, 9, spectators=0))
    g = t.game
    rnd = random.Random(3)
    able = [p.pid for p in g.living() if g.legal_actions(p.pid)]
    assert len(able) >= 3, able
    done = able[0]
    res = await act(t, done, rnd)
    assert res is not None and not res.response.content.startswith("⛔"), res.response.content
    owed = {o.pid for o in t.game.owed()}
    assert done not in owed and set(able[1:]) <= owed
    # an hour before the night's deadline: a reminder to every one who owes, none to the others
    dl = t.info.deadline
    await env.advance_time((dl - timedelta(minutes=59) - env.now()).total_seconds())
    assert t.info.tick == 0
    for p in t.game.state.players:
        assert len(reminded(t, p.pid)) == (1 if p.pid in owed else 0), (p.pid, contents(t.hidden(p.pid)))
    # the day: the vote is owed; a reminder says so
    await env.advance_time((t.info.deadline - env.now()).total_seconds() + 30)
    assert t.info.tick == 1 and t.game.info.kind == "day"
    voters = {o.pid for o in t.game.owed() if o.votes}
    assert voters
    await env.advance_time((t.info.deadline - timedelta(minutes=59) - env.now()).total_seconds())
    for pid in voters:
        assert any("проголосовали" in c for c in reminded(t, pid)), contents(t.hidden(pid))


async def test_gm_status_shows_who_submitted_what_and_nobody_twice(env):
    t = await start(await gather_stats(env, 9, spectators=0))
    LOCALES[t.gm.id] = "ru"
    g = t.game
    gm_ch = t.channel("gm")
    rnd = random.Random(4)
    able = [p.pid for p in g.living() if g.legal_actions(p.pid)]
    first = able[0]
    res = await act(t, first, rnd)
    assert not res.response.content.startswith("⛔"), res.response.content
    intent = t.game.submitted(first)[0]
    ability = t.game.ability_def(intent.ability).name.ru
    r = await t.gm.slash(gm_ch, "gm status")
    assert r.response.ephemeral
    lines = r.response.content.split("\n")
    acted = next(x for x in lines if x.startswith("Сходили:"))
    missing = next(x for x in lines if x.startswith("Ещё не сходили:"))
    name = t.game.player(first).name
    assert name in acted and f"«{ability}»" in acted, acted
    entries = acted.removeprefix("Сходили: ")
    for pid in able[1:]:
        other = t.game.player(pid).name
        assert other in missing, missing
        assert not entries.startswith(other) and f"), {other}" not in entries, (acted, missing)  # a target, not an entry
    assert name not in missing
    # the GM marks one idle: listed once, as idle, and no longer waited for
    idle = able[1]
    r = await t.gm.slash(gm_ch, "gm idle", player=t.game.player(idle).name)
    assert r.response.content == "Готово.", r.response.content
    r = await t.gm.slash(gm_ch, "gm status")
    text = r.response.content
    idle_line = next(x for x in text.split("\n") if x.startswith("Не ходят в эту фазу"))
    assert t.game.player(idle).name in idle_line
    assert sum(t.game.player(idle).name in x for x in text.split("\n") if x.startswith(("Сходили", "Ещё не сходили", "Не ходят"))) == 1


async def test_gm_idle_is_refused_where_it_has_no_effect(env):
    # godfather: no early end of a phase in the book
    t = await start(await gather(env, 4, spectators=0))
    LOCALES[t.gm.id] = "ru"
    r = await t.gm.slash(t.channel("gm"), "gm idle", player=t.game.player(1).name)
    assert r.response.ephemeral and r.response.content.startswith("⛔ В этих правилах фаза не заканчивается досрочно"), r.response.content
    assert not t.game.state.idle


async def test_gm_idle_refuses_the_dead_and_those_not_waited_for(env):
    t = await start(await gather_stats(env, 9, spectators=0))
    LOCALES[t.gm.id] = "ru"
    gm_ch = t.channel("gm")
    g = t.game
    able = [p.pid for p in g.living() if g.legal_actions(p.pid)]
    rnd = random.Random(2)
    res = await act(t, able[0], rnd)
    assert not res.response.content.startswith("⛔")
    name = t.game.player(able[0]).name
    r = await t.gm.slash(gm_ch, "gm idle", player=name)
    assert r.response.ephemeral and r.response.content == f"⛔ Фаза и так не ждёт этого игрока ({name}): отмечать бездействие незачем.", \
        r.response.content
    gone = able[1]
    r = await t.gm.slash(gm_ch, "gm remove", player=t.game.player(gone).name, mode="modkill")
    r = await t.gm.slash(gm_ch, "gm idle", player=t.game.player(gone).name)
    assert r.response.ephemeral and "уже не в игре" in r.response.content, r.response.content
    assert gone not in t.game.state.idle


async def test_a_forced_resolve_leaves_the_next_phase_its_minimum(env):
    """The night, extended to 23:40 Moscow time, is resolved by the GM at 23:20; the
    day's calendar end (00:00) is 40 minutes away — enough for the bot's own 30 — but the
    ruleset's `min_next_phase_minutes: 60` gives the day an hour."""
    t = await start(await gather_stats(env, 9, spectators=0))
    LOCALES[t.gm.id] = "ru"
    dl = t.info.deadline  # night 1 ends at 12:00 Moscow time
    assert (dl.hour, dl.minute) == (9, 0)
    await t.gm.slash(t.channel("gm"), "gm extend", minutes=11 * 60 + 40)
    assert t.info.deadline == dl + timedelta(hours=11, minutes=40)
    await env.advance_time((t.info.deadline - timedelta(minutes=20) - env.now()).total_seconds())
    assert t.info.tick == 0
    await force_resolve(t, label="Подсчитать")
    assert t.info.tick == 1
    left = t.info.deadline - env.now()
    assert timedelta(minutes=59) <= left <= timedelta(minutes=61), left
