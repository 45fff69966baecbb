"""Ticks, periods, days and turns.

Every period of the ruleset's calendar (a day period or a night) is one tick; a cycle is one
game day and night. Tick 0 is the first period of day 1. A turn is all the ticks of one kind
within a cycle (both day periods of day 1 are one turn; night 1 is another): the book's "one
action per game day and one per night".
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

from .ruleset import Calendar


@dataclass(frozen=True)
class TickInfo:
    tick: int
    day: int  # 1-based cycle number
    index: int  # position in the cycle
    period_id: str
    kind: str  # "day" or "night"
    sub: int  # 1-based number among the cycle's periods of the same kind
    subs: int  # how many periods of that kind the cycle has

    # computed once: a tick's info is shared (Clock.info) and asked for these many times
    @cached_property
    def label(self) -> str:
        if self.subs > 1:
            return f"{self.kind} {self.day}.{self.sub}"
        return f"{self.kind} {self.day}"

    @cached_property
    def turn(self) -> str:
        return f"{self.kind} {self.day}"


class Clock:
    def __init__(self, calendar: Calendar) -> None:
        self.calendar = calendar
        self.per_cycle = len(calendar.periods)
        # a tick's facts never change: computed once each (asked ~15 times a resolve)
        self._info: dict[int, TickInfo] = {}
        self._turn_end: dict[int, bool] = {}

    def info(self, tick: int) -> TickInfo:
        try:
            return self._info[tick]
        except KeyError:
            found = self._info[tick] = self._compute_info(tick)
            return found

    def _compute_info(self, tick: int) -> TickInfo:
        day, index = divmod(tick, self.per_cycle)
        period = self.calendar.periods[index]
        same = [p for p in self.calendar.periods if p.kind == period.kind]
        return TickInfo(
            tick=tick,
            day=day + 1,
            index=index,
            period_id=period.id,
            kind=period.kind,
            sub=same.index(period) + 1,
            subs=len(same),
        )

    def parse(self, label: str) -> int:
        """The tick of a label such as ``day 2.1``, ``night 3`` or ``day 4``."""
        kind, _, rest = label.strip().partition(" ")
        day_s, _, sub_s = rest.partition(".")
        day, sub = int(day_s), int(sub_s or 1)
        n = 0
        for index, p in enumerate(self.calendar.periods):
            if p.kind == kind:
                n += 1
                if n == sub:
                    return (day - 1) * self.per_cycle + index
        raise ValueError(f"no period {label!r} in this calendar")

    def cycles(self, n: int) -> int:
        """``n`` cycles in ticks: for waits and cooldowns counted from a use («раз в трое суток
        … не ранее чем через 72 часа»: used in day 1.1, again from day 4.1) and for the poison's
        death time («отравлен в 15:00 4-го дня … умирает он в 15:00 6-го дня»)."""
        return n * self.per_cycle

    def lasts_until(self, tick: int, n: int = 1) -> int:
        """The first tick at which an effect that took hold at the resolve of ``tick`` and lasts
        ``n`` cycles («на сутки», «на ближайшие 2 суток») is over.

        The book's clock: a cycle is 24 hours from the moment of the resolve («отравлен в
        15:00 4-го дня … умирает он в 15:00 6-го дня»). The effect is in force in every tick
        after ``tick`` up to and including ``tick + n`` cycles, whose resolve (the same hour
        ``n`` days later) is the last it covers and removes it: ``n * per_cycle`` resolves in
        all. Every duration counted in cycles asks here (``end_of(..., "cycle")``, masks,
        grants, GM statuses)."""
        return tick + self.cycles(n) + 1

    def is_turn_end(self, tick: int) -> bool:
        """True when the next tick starts another turn (or another cycle)."""
        found = self._turn_end.get(tick)
        if found is None:
            found = self._turn_end[tick] = self.info(tick).turn != self.info(tick + 1).turn
        return found

    def end_of(self, tick: int, until: str, cycles: int | None = None) -> int | None:
        """The first tick at which an effect applied at ``tick`` with ``until`` is over."""
        info = self.info(tick)
        if until == "tick":
            return tick + 1
        if until == "cycle":
            return self.lasts_until(tick, cycles or 1)
        if until == "game":
            return None
        if until in ("day", "night"):
            # to the end of the current turn (the rest of this day, or this night)
            t = tick
            while self.info(t).turn == info.turn:
                t += 1
            if until == "night" and info.kind == "day":
                # protection "this night" given in the day lasts through the coming night
                while self.info(t).kind != "night":
                    t += 1
                while self.info(t).kind == "night":
                    t += 1
            return t
        raise ValueError(until)
