"""When a phase ends: the end of the current period of the ruleset's calendar in the game's
time zone, and the bot's clock. Shared by the scheduler (which keeps the deadlines) and the
lobbies (which set the first one at the start)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import discord

from engine import Ruleset


def period_end(rules: Ruleset, tick: int, tz: str, after: datetime, min_minutes: int = 0) -> datetime:
    """The first end of tick ``tick``'s period (its ``end`` time in zone ``tz``) at least
    ``min_minutes`` after ``after``; in UTC."""
    periods = rules.calendar.periods
    period = periods[tick % len(periods)]
    hh, mm = (int(x) for x in period.end.split(":"))
    zone = ZoneInfo(tz)
    earliest = after + timedelta(minutes=min_minutes)
    local = earliest.astimezone(zone)
    day = local.date()
    for _ in range(3):
        cand = datetime(day.year, day.month, day.day, hh, mm, tzinfo=zone)
        if cand > local:
            return cand.astimezone(UTC)
        day += timedelta(days=1)
    raise AssertionError("unreachable")


def now() -> datetime:
    return discord.utils.utcnow()
