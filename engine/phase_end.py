"""Phase end: whom the current phase still waits for, and who owes an action or a vote.

The one place the bot's reminders, its early end of a phase and the GM's ``/gm status`` ask.

- A living player **owes the action** of this turn when they are not declared idle, may still
  act (a legal action exists now) and have submitted nothing that uses it. When the player's
  abilities have a turn's action (lane ``action``: one action per day and one per night), the
  action is owed while that lane is neither spent this turn nor submitted. When they have none
  (seed 003: «может применять любое количество способностей»), it is owed while they have
  submitted nothing this phase.
- A living player **owes a vote** in each open vote they may vote in (no status forbids it)
  and have not voted in, unless the book excuses them (seed 003: an ability used instead of
  the vote).
- Every living player is in exactly one of :meth:`PhaseEnd.phase_roll`'s groups: ``owed``
  (they owe the action), ``done`` (they submitted it or spent the turn), ``idle`` (declared
  idle by the GM), ``none`` (nothing to do now).
- A ruleset with an early end (``settings.early_end`` names an
  :class:`engine.registry.EarlyEnd`) **waits** by day for the votes still owed, by night for
  the actions still owed, of the players its hooks let hold the phase up; the phase may end
  early when it waits for nobody (:meth:`PhaseEnd.may_end_early`).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from .legality import Legality
from .registry import EARLY_ENDS, EarlyEnd
from .state import Intent, Player
from .world import World


@dataclass(frozen=True)
class Owed:
    """What one living player still owes this phase."""

    pid: int
    action: bool
    votes: tuple[str, ...] = ()


@dataclass(frozen=True)
class PhaseRoll:
    """The living players, each in exactly one group, and what was submitted (by pid, this tick)."""

    done: list[int] = field(default_factory=list)
    owed: list[int] = field(default_factory=list)
    idle: list[int] = field(default_factory=list)
    none: list[int] = field(default_factory=list)
    submitted: dict[int, list[Intent]] = field(default_factory=dict)
    voted: list[int] = field(default_factory=list)
    not_voted: list[int] = field(default_factory=list)


class PhaseEnd:
    """Whom the phase waits for: a job over one :class:`World`, asking its :class:`Legality`
    what a player may still do."""

    def __init__(self, world: World, legality: Legality) -> None:
        self.world = world
        self.legality = legality

    # ---- declared idle ------------------------------------------------------------------
    def declared_idle(self) -> set[int]:
        """Who the GM declared idle for the current tick (``GameState.idle``)."""
        return set(self.world.state.idle)

    # ---- owed actions and votes ---------------------------------------------------------
    def submitted(self, pid: int) -> list[Intent]:
        """What ``pid`` submitted for the current tick, in order."""
        return [i for i in self.world.state.intents if i.pid == pid and i.tick == self.world.state.tick]

    def has_turn_action(self, p: Player) -> bool:
        """Whether the player's abilities include a turn's action (lane ``action``)."""
        return any(self.world.lane_of(k, ab) == "action" for k, ab in self.world.abilities(p))

    def turn_done(self, p: Player) -> bool:
        """Whether the player has used (or submitted) what this turn asks of them."""
        if self.has_turn_action(p):
            return "action" in p.spent.get(self.world.info.turn, []) or any(i.lane == "action" for i in self.submitted(p.pid))
        return bool(self.submitted(p.pid))

    def owes_action(self, p: Player) -> bool:
        if self.world.state.over or not self.world.alive(p) or p.pid in self.world.state.idle or self.turn_done(p):
            return False
        legal = self.legality.legal_actions(p.pid)
        if self.has_turn_action(p):
            return any(self.legality.lane_for(la.key, la.ability, la.via) == "action" for la in legal)
        return bool(legal)

    def may_vote(self, p: Player) -> bool:
        return self.world.alive(p) and all(f.can_vote for f in self.world.status_flags(p))

    def owes_votes(self, p: Player) -> list[str]:
        """The open votes ``p`` may vote in and has not (none once declared idle or excused)."""
        if self.world.state.over or p.pid in self.world.state.idle or not self.may_vote(p):
            return []
        rule = self.early_end_rule()
        if rule is not None and rule.excused_vote(self.world, p):
            return []
        cast = {v.vote for v in self.world.state.votes if v.pid == p.pid}
        return [vd.id for vd in self.world.open_votes() if vd.id not in cast]

    def owed(self) -> list[Owed]:
        """Every living player who owes this turn's action or a vote: whom reminders reach."""
        out = []
        for p in self.world.living():
            action, votes = self.owes_action(p), tuple(self.owes_votes(p))
            if action or votes:
                out.append(Owed(p.pid, action, votes))
        return out

    def phase_roll(self) -> PhaseRoll:
        """The living players in exactly one group each, for the GM's status."""
        roll = PhaseRoll()
        open_ids = [vd.id for vd in self.world.open_votes()]
        for p in self.world.living():
            subs = self.submitted(p.pid)
            if subs:
                roll.submitted[p.pid] = subs
            if p.pid in self.world.state.idle:
                roll.idle.append(p.pid)
            elif self.owes_action(p):
                roll.owed.append(p.pid)
            elif self.turn_done(p) or subs:
                roll.done.append(p.pid)
            else:
                roll.none.append(p.pid)
            if open_ids:
                if self.owes_votes(p):
                    roll.not_voted.append(p.pid)
                elif any(v.pid == p.pid and v.vote in open_ids for v in self.world.state.votes):
                    roll.voted.append(p.pid)
        return roll

    # ---- the early end ------------------------------------------------------------------
    def early_end_rule(self) -> type[EarlyEnd] | None:
        name = self.world.settings.early_end
        return EARLY_ENDS[name] if name else None

    def waiting_for(self, declared: Iterable[int] = ()) -> list[int] | None:
        """Whom the phase still waits for, when the ruleset lets a phase end early (None when it
        does not): by day who owes a vote, by night who owes the action, among those the book
        lets hold the phase up; ``declared`` are idle too, besides ``GameState.idle``."""
        rule = self.early_end_rule()
        if rule is None or self.world.state.over:
            return None
        extra = set(declared)
        out = []
        for p in self.world.living():
            if p.pid in extra or p.pid in self.world.state.idle or not rule.holds_up(self.world, p):
                continue
            if self.owes_votes(p) if self.world.info.kind == "day" else self.owes_action(p):
                out.append(p.pid)
        return out

    def held_up_by_nobody(self) -> list[int]:
        """Those who owe what the phase waits for but whom the book lets hold up nobody (seed
        003: a Слоупок by night); empty without an early end."""
        rule = self.early_end_rule()
        if rule is None or self.world.state.over:
            return []
        day = self.world.info.kind == "day"
        return [p.pid for p in self.world.living()
                if p.pid not in self.world.state.idle and not rule.holds_up(self.world, p) and (self.owes_votes(p) if day else self.owes_action(p))]

    def may_end_early(self) -> bool:
        """The ruleset ends a phase early and the current one waits for nobody."""
        return self.waiting_for() == []

    def can_declare_idle(self, p: Player) -> str | None:
        """Why the GM may not declare ``p`` idle now (a message key), or None."""
        if self.world.state.over:
            return "game_over"
        if self.early_end_rule() is None:
            return "idle_no_early_end"
        if not self.world.alive(p):
            return "idle_not_alive"
        if p.pid in self.world.state.idle:
            return "idle_already"
        if p.pid not in (self.waiting_for() or []):
            return "idle_owes_nothing"
        return None
