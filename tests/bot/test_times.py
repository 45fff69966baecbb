"""A game's own phase times (``/lobby times``) through the simulated Discord: set by the GM
before the start (also across a restart), shown in the lobby and on the role card, read by the
first deadline and by the scheduler's next ones; the refusals of the wrong person, the wrong
values and the wrong time; a day's and a night's length where the calendar allows it."""

from __future__ import annotations

from datetime import timedelta
from zoneinfo import ZoneInfo

from altmafia.bot.deadlines import now, period_end

from .conftest import LOCALES
from .helpers import force_resolve, gather, start
from .test_restart import restart

MSK = ZoneInfo("Europe/Moscow")


async def test_times_set_before_the_start_rule_the_game(env, settings):
    t = await gather(env, 5, spectators=0)
    LOCALES[t.gm.id] = "ru"
    r = await t.gm.slash(t.lobby, "lobby times")
    assert "день 1 — в 15:00, день 2 — в 21:00, ночь — в 09:00" in r.response.content, r.response.content
    # refusals: a player, a wrong count, not a time, lengths in a calendar of three periods
    r = await t.players[0].slash(t.lobby, "lobby times", ends="14:00 20:00 08:00")
    assert r.response.ephemeral and r.response.content.startswith("⛔"), r.response.content
    r = await t.gm.slash(t.lobby, "lobby times", ends="14:00 20:00")
    assert r.response.content.startswith("⛔") and "3" in r.response.content
    r = await t.gm.slash(t.lobby, "lobby times", ends="14:00 25:00 08:00")
    assert r.response.content.startswith("⛔") and "25:00" in r.response.content
    r = await t.gm.slash(t.lobby, "lobby times", day_hours=10)
    assert r.response.content.startswith("⛔") and "концы" in r.response.content
    r = await t.gm.slash(t.lobby, "lobby times", first_phase="01.01.2020 10:00")
    assert r.response.content.startswith("⛔") and "прошло" in r.response.content
    first = (now() + timedelta(days=2)).astimezone(MSK).replace(hour=10, minute=0, second=0, microsecond=0)
    r = await t.gm.slash(t.lobby, "lobby times", ends="14:00 20:00 08:30", min_minutes=45, first_phase=first.strftime("%d.%m.%Y %H:%M"))
    assert not r.response.content.startswith("⛔"), r.response.content
    assert not r.response.ephemeral and "день 2 — в 20:00" in r.response.content and "45 минут" in r.response.content
    await restart(env, settings)  # the lobby keeps its times
    r = await t.players[1].slash(t.lobby, "lobby players")
    assert "day 1 at 14:00" in r.response.content and "night at 08:30" in r.response.content, r.response.content
    assert "45 minutes" in r.response.content, "in the reader's language"
    await start(t)
    rules = t.game.rules
    assert t.info.deadline == period_end(rules, 0, "Europe/Moscow", first, 45, ["14:00", "20:00", "08:30"])
    assert t.info.deadline.astimezone(MSK).hour == 14 and t.info.deadline > first
    cards = [m.content for m in t.hidden(0).history() if "🕒" in m.content]
    assert cards and "14:00" in cards[0] and "08:30" in cards[0], [m.content for m in t.hidden(0).history()]
    # the scheduler's next deadline reads them: day 1.2 ends at 20:00, at least 45 minutes on
    await force_resolve(t, label="Подсчитать")
    dl = t.info.deadline.astimezone(MSK)
    assert (dl.hour, dl.minute) == (20, 0) and t.info.deadline - now() >= timedelta(minutes=45)
    r = await t.gm.slash(t.lobby, "lobby times", ends="10:00 11:00 12:00")
    assert r.response.content.startswith("⛔") and "уже идёт" in r.response.content


async def test_day_and_night_lengths_where_the_calendar_allows(env):
    guild = env.create_guild("Мафия")
    lobby = guild.create_text_channel("набор")
    gm = guild.add_member(env.create_user("ведущий"))
    LOCALES[gm.id] = "ru"
    r = await gm.slash(lobby, "lobby create", ruleset="classic")
    assert "ночь — в 12:00, день — в 00:00" in r.response.content, r.response.content
    r = await gm.slash(lobby, "lobby times", day_hours=10)
    assert "ночь — в 12:00, день — в 22:00" in r.response.content, r.response.content
    r = await gm.slash(lobby, "lobby times", night_hours=6)
    assert "ночь — в 12:00, день — в 06:00" in r.response.content, r.response.content
    r = await gm.slash(lobby, "lobby times", day_hours=10, night_hours=10)
    assert r.response.content.startswith("⛔") and "24" in r.response.content
    r = await gm.slash(lobby, "lobby times", reset=True)
    assert "ночь — в 12:00, день — в 00:00" in r.response.content
