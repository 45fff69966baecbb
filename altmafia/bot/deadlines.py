"""When a phase ends: the end of the current period of the ruleset's calendar in the game's
time zone, and the bot's clock. Shared by the scheduler (which keeps the deadlines) and the
lobbies (which set the first one at the start).

A game's own times (``/lobby times``) are kept as ``times`` in the lobby and then
in the game's meta: ``ends`` (the end, "HH:MM" local, of each period of the calendar's cycle,
in order; the ruleset's calendar when absent), ``first`` (when the first phase may end from:
an aware ISO time; none: the start), ``min_phase`` (minutes: no phase is shorter; the bot's
``ALTMAFIA_MIN_PHASE_MINUTES`` when absent). :func:`times_lines` says them in words (the lobby,
``/lobby times``), :func:`card_times_line` in one line (the role card)."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

import discord

from altmafia.text.i18n import catalog, count, text
from engine import Ruleset

HHMM = re.compile(r"^([01]?\d|2[0-3])[:.]([0-5]\d)$")


class TimesError(Exception):
    """A game time the GM gave that cannot be: ``key`` and ``args`` of the refusal."""

    def __init__(self, key: str, **args: Any) -> None:
        super().__init__(key)
        self.key, self.args_ = key, args


def period_ends(rules: Ruleset, times: dict[str, Any] | None = None) -> list[str]:
    """The end ("HH:MM") of each period of one cycle: the game's own, else the calendar's."""
    own = (times or {}).get("ends")
    return list(own) if own else [p.end for p in rules.calendar.periods]


def period_end(rules: Ruleset, tick: int, tz: str, after: datetime, min_minutes: int = 0,
               ends: list[str] | None = None) -> datetime:
    """The first end of tick ``tick``'s period (its ``end`` time in zone ``tz``; ``ends``: the
    game's own ends of the cycle's periods) at least ``min_minutes`` after ``after``; in UTC."""
    periods = rules.calendar.periods
    end = (ends or [p.end for p in periods])[tick % len(periods)]
    hh, mm = (int(x) for x in end.split(":"))
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


def period_length(rules: Ruleset, tick: int, ends: list[str] | None = None) -> timedelta:
    """How long tick ``tick``'s period lasts in the cycle: from the end of the period before it
    to its own end (``ends``: the game's own); the same end twice (Eternal Friday's 04:00 and
    04:00) is a whole day."""
    periods = rules.calendar.periods
    ends = ends or [p.end for p in periods]
    n = len(periods)

    def minutes(hhmm: str) -> int:
        hh, mm = (int(x) for x in hhmm.split(":"))
        return hh * 60 + mm

    gap = (minutes(ends[tick % n]) - minutes(ends[(tick - 1) % n])) % (24 * 60)
    return timedelta(minutes=gap or 24 * 60)


def first_deadline(rules: Ruleset, times: dict[str, Any] | None, tz: str, at: datetime, least: int) -> datetime:
    """The deadline of the game's first phase, started at ``at``: its period's end, at least
    ``least`` minutes after the later of ``at`` and the game's ``first`` time."""
    first = (times or {}).get("first")
    start = max(at, datetime.fromisoformat(first)) if first else at
    return period_end(rules, 0, tz, start, least, (times or {}).get("ends"))


def min_minutes(times: dict[str, Any] | None, default: int) -> int:
    own = (times or {}).get("min_phase")
    return default if own is None else int(own)


# ---- what the GM gives --------------------------------------------------------------------
def parse_ends(rules: Ruleset, value: str) -> list[str]:
    """«15:00 21:00 09:00»: one end per period of the cycle, in order."""
    found = value.replace(",", " ").split()
    n = len(rules.calendar.periods)
    out = []
    for item in found:
        m = HHMM.match(item)
        if m is None:
            raise TimesError("err.times_bad_time", value=item)
        out.append(f"{int(m.group(1)):02d}:{m.group(2)}")
    if len(out) != n:
        raise TimesError("err.times_ends_count", n=n, got=len(out))
    return out


def lengths_allowed(rules: Ruleset) -> bool:
    """A day's and a night's length can be chosen where the cycle is one day period and one
    night, within one calendar day (the night's end and the day's end then say both)."""
    periods = rules.calendar.periods
    return sorted(p.kind for p in periods) == ["day", "night"] and all(p.start != p.end for p in periods)


def with_lengths(rules: Ruleset, ends: list[str], day_hours: int | None, night_hours: int | None) -> list[str]:
    """``ends`` changed so that the day lasts ``day_hours`` and the night ``night_hours`` (one
    given: the other is the rest of the 24 hours); the night's end (the morning) stays."""
    if day_hours is None:
        if night_hours is None:
            return ends
        day_hours = 24 - night_hours
    night_hours = 24 - day_hours if night_hours is None else night_hours
    if not lengths_allowed(rules):
        raise TimesError("err.times_no_lengths")
    if day_hours + night_hours != 24 or not (1 <= day_hours <= 23):
        raise TimesError("err.times_lengths_sum", day=day_hours, night=night_hours)
    kinds = [p.kind for p in rules.calendar.periods]
    night, day = kinds.index("night"), kinds.index("day")
    hh, mm = (int(x) for x in ends[night].split(":"))
    out = list(ends)
    out[day] = f"{(hh + day_hours) % 24:02d}:{mm:02d}"
    return out


def parse_first(value: str, tz: str, at: datetime) -> datetime:
    """«2026-12-05 10:00», «05.12.2026 10:00» or «05.12 10:00» in zone ``tz``; in the future."""
    value = " ".join(value.split())
    zone = ZoneInfo(tz)
    local_now = at.astimezone(zone)
    for fmt in ("%Y-%m-%d %H:%M", "%d.%m.%Y %H:%M", "%d.%m %H:%M"):
        try:
            parsed = datetime.strptime(value, fmt)
        except ValueError:
            continue
        if fmt == "%d.%m %H:%M":
            parsed = parsed.replace(year=local_now.year)
            if parsed.replace(tzinfo=zone) <= local_now:
                parsed = parsed.replace(year=local_now.year + 1)
        when = parsed.replace(tzinfo=zone).astimezone(UTC)
        if when <= at:
            raise TimesError("err.times_first_past", value=value)
        return when
    raise TimesError("err.times_bad_first", value=value)


# ---- in words -------------------------------------------------------------------------------
def period_names(rules: Ruleset, lang: str) -> list[str]:
    """«день 1», «день 2», «ночь»: the periods of one cycle in words."""
    words = catalog(lang).get("words", {})
    periods = rules.calendar.periods
    out = []
    for p in periods:
        same = [q for q in periods if q.kind == p.kind]
        name = words.get(p.kind, p.kind)
        out.append(f"{name} {same.index(p) + 1}" if len(same) > 1 else name)
    return out


def _minutes(n: int, lang: str) -> str:
    return count(n, "minute_gen", lang)


def times_lines(rules: Ruleset, times: dict[str, Any] | None, tz: str, lang: str, default_min: int) -> list[str]:
    """The game's times in words, one line each: the ends, the first phase, the minimum."""
    ends = period_ends(rules, times)
    pairs = ", ".join(text(lang, "times.end", period=n, end=e) for n, e in zip(period_names(rules, lang), ends, strict=True))
    lines = [text(lang, "times.ends", ends=pairs, tz=tz)]
    first = (times or {}).get("first")
    if first:
        stamp = int(datetime.fromisoformat(first).timestamp())
        lines.append(text(lang, "times.first", at=f"<t:{stamp}:f>"))
    else:
        lines.append(text(lang, "times.first_now"))
    lines.append(text(lang, "times.min", minutes=_minutes(min_minutes(times, default_min), lang)))
    return lines


def card_times_line(rules: Ruleset, meta: dict[str, Any], lang: str, default_min: int) -> str:
    """One line for the role card: when this game's phases end and the shortest phase."""
    ends = period_ends(rules, meta.get("times"))
    pairs = ", ".join(text(lang, "times.end", period=n, end=e) for n, e in zip(period_names(rules, lang), ends, strict=True))
    minutes = int(meta.get("min_phase_minutes", min_minutes(meta.get("times"), default_min)))
    return text(lang, "times.card", ends=pairs, tz=meta.get("tz") or rules.calendar.timezone, minutes=_minutes(minutes, lang))


def now() -> datetime:
    return discord.utils.utcnow()
