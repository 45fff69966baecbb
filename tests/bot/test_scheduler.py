"""Deadlines from the ruleset's calendar in Moscow time, one loop, reminders, pause, moves."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from altmafia.bot.deadlines import period_end
from config import load_ruleset

from .conftest import LOCALES
from .helpers import gather, start


def test_period_ends_in_the_games_time_zone():
    rules = load_ruleset("godfather")
    at = datetime(2026, 1, 1, 0, 0, tzinfo=UTC)  # 03:00 in Moscow
    assert period_end(rules, 0, "Europe/Moscow", at) == datetime(2026, 1, 1, 12, 0, tzinfo=UTC)  # 15:00 MSK
    assert period_end(rules, 1, "Europe/Moscow", at) == datetime(2026, 1, 1, 18, 0, tzinfo=UTC)  # 21:00 MSK
    assert period_end(rules, 2, "Europe/Moscow", at) == datetime(2026, 1, 1, 6, 0, tzinfo=UTC)  # 09:00 MSK
    assert period_end(rules, 0, "Europe/London", at) == datetime(2026, 1, 1, 15, 0, tzinfo=UTC)
    # never sooner than the minimum phase: at 14:45 MSK day 1.1 ends tomorrow
    late = datetime(2026, 1, 1, 11, 45, tzinfo=UTC)
    assert period_end(rules, 0, "Europe/Moscow", late, 30) == datetime(2026, 1, 2, 12, 0, tzinfo=UTC)


async def test_deadlines_reminders_and_the_clock(env):
    t = await start(await gather(env, 4, spectators=0))
    for m in t.players:
        LOCALES[m.id] = "ru"
    assert env.now() < datetime(2026, 1, 1, 1, 0, tzinfo=UTC)
    assert t.info.deadline == datetime(2026, 1, 1, 12, 0, tzinfo=UTC)
    # Аня acts in day 1.1; nobody else acts all day
    g = t.game
    la = next(la for la in g.legal_actions(0) if la.ability.slot == "day" and not la.via)
    await t.member(0).slash(t.hidden(0), "action submit", ability=la.key, target=str(la.targets[0]))
    await env.advance_time((datetime(2026, 1, 1, 12, 0, 30, tzinfo=UTC) - env.now()).total_seconds())
    assert t.info.tick == 1, "day 1.1 resolved at its deadline"
    assert t.info.deadline == datetime(2026, 1, 1, 18, 0, tzinfo=UTC)
    # an hour before the end of the day's turn, those who have not acted are reminded
    await env.advance_time((datetime(2026, 1, 1, 17, 0, 30, tzinfo=UTC) - env.now()).total_seconds())
    for pid in range(4):
        reminders = [m for m in t.hidden(pid).history() if "⏰" in m.content]
        assert len(reminders) == (0 if pid == 0 else 1), (pid, [m.content for m in t.hidden(pid).history()])
    await env.advance_time(3600)
    assert t.info.tick == 2
    # the missed turn cost them: the private penalty news arrived
    assert any("penalised" in m.content for m in t.hidden(1).history())  # signed up with an English locale
    assert not any("penalised" in m.content for m in t.hidden(0).history())


async def test_pause_resume_extend_shorten(env):
    t = await start(await gather(env, 3, spectators=0))
    LOCALES[t.gm.id] = "ru"
    gm = t.channel("gm")
    dl = t.info.deadline
    r = await t.gm.slash(gm, "gm extend", minutes=90)
    assert t.info.deadline == dl + timedelta(minutes=90)
    assert r.response.ephemeral
    await t.gm.slash(gm, "gm shorten", minutes=30)
    assert t.info.deadline == dl + timedelta(minutes=60)
    left = t.info.deadline - env.now()
    await t.gm.slash(gm, "gm pause")
    assert t.info.deadline is None and t.info.meta["paused"]
    await env.advance_time(2 * 86400)
    assert t.info.tick == 0, "a paused game does not move"
    await t.gm.slash(gm, "gm resume")
    assert abs((t.info.deadline - env.now()) - left) < timedelta(seconds=5)
    log = "\n".join(m.content for m in gm.history())
    for what in ("мин", "пауза", "продолжена"):
        assert what in log, log
    public = "\n".join(m.content for m in t.channel("public").history())
    assert "паузу" in public and "продолжается" in public


@pytest.mark.settings(remind_minutes=0)
async def test_no_reminders_when_turned_off(env):
    t = await start(await gather(env, 3, spectators=0))
    await env.advance_time((t.info.deadline - env.now()).total_seconds() + 60)
    await env.advance_time((t.info.deadline - env.now()).total_seconds() + 60)
    assert t.info.tick == 2
    assert not any("⏰" in m.content for pid in range(3) for m in t.hidden(pid).history())
