"""The resolve context: what one resolve knows while it runs."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..ruleset import AbilityDef, default_step
from ..state import Event, Intent, Player
from ..world import blocked_by_status

if TYPE_CHECKING:
    from ..world import World


@dataclass(slots=True)  # (no attribute but its fields: built once a resolve, read all through it)
class Ctx:
    game: World
    tick: int
    intents: list[Intent]
    outcome: dict[int, str] = field(default_factory=dict)  # intent seq -> applied/blocked/...
    reasons: dict[int, list[str]] = field(default_factory=dict)
    acted: list[dict[str, Any]] = field(default_factory=list)  # who acted on whom this tick
    current: Intent | None = None
    scratch: dict[str, Any] = field(default_factory=dict)  # per-resolve memory for impls
    # everyone's base stats as the current step began: what filters such as "all with ТВ < 10"
    # read, so the actions of one step are simultaneous whatever the seat order
    step_stats: dict[int, dict[str, int]] = field(default_factory=dict)
    first_event: int = 0  # the index of this resolve's first event in the game's log
    ran: set[int] = field(default_factory=set)  # the seqs of the actions that took effect so far
    hanged: set[int] = field(default_factory=set)  # who was hanged by a lynch this resolve (engine.votes.Lynch)
    extra_votes: dict[int, int] = field(default_factory=dict)  # pid -> the extra votes a lynch counted for them

    def intents_of(self, pid: int) -> list[Intent]:
        """This tick's actions of ``pid``, in the resolve's order (an index built once: the
        list of the tick's actions does not change while it resolves)."""
        index = self.scratch.get("intents_by_pid")
        if index is None:
            index = self.scratch["intents_by_pid"] = {}
            for i in self.intents:
                index.setdefault(i.pid, []).append(i)
        return index.get(pid, [])

    @property
    def rules(self):
        return self.game.rules

    def ability(self, intent: Intent) -> AbilityDef:
        return self.game.ability_def(intent.ability)

    def step_of(self, intent: Intent) -> str:
        cache = self.game.rules.step_cache
        key = (intent.ability, intent.option)
        found = cache.get(key)
        if found is None:
            ab = self.ability(intent)
            found = cache[key] = ab.step or default_step(ab, intent.option)
        return found

    def is_blocked(self, intent: Intent, ab: AbilityDef | None = None) -> bool:
        if ab is None:
            ab = self.ability(intent)
        if ab.unblockable or intent.via == "leader":
            return False
        p = self.game.state.players[intent.pid]
        if not p.statuses:
            return False  # no block without a status (blocked_by_status)
        return blocked_by_status(self.game, p, intent.ability, ab.slot, self.tick)

    def protection(self, target: Player, labels: list[str], actor: int | None, amount: int | None = None) -> dict[str, Any] | None:
        """The first active protection of ``target`` that stops an effect with ``labels``.

        Protections are timed statuses ``protected:*`` and lasting passives ``protection``
        (a character's immunity). ``over``: only changes bigger than that (``amount``) stop.
        """
        g = self.game
        if not target.statuses and not target.grants:
            # only their own lasting protections (World.passives' own table, not copied)
            own = g.rules.derived_cache.get(("passives", target.role, target.character, "protection"))
            if own is None:
                own = g.passives(target, "protection")
            if not own:
                return None  # nothing that could stop it
        lasting = g.passives(target, "protection")
        if not target.statuses and not lasting:
            return None  # nothing that could stop it
        found = [s.data for sid, s in sorted(target.statuses.items())
                 if s.kind == "protected" and g.active(target, sid, self.tick)] if target.statuses else []
        found += [{"by": target.pid, **x} for x in lasting]
        for data in found:
            against = data.get("against", [])
            if "*" not in against and not set(against) & set(labels):
                continue
            if data.get("while") and not g.active(target, data["while"], self.tick):
                continue  # a protection that holds only while its holder has a status
            if data.get("over") is not None and (amount is None or amount <= data["over"]):
                continue
            if data.get("except_own_faction") and actor is not None:
                fs = {f.fid for f in g.factions_of(target.pid)}
                if actor == target.pid or fs & {f.fid for f in g.factions_of(actor)}:
                    continue
            return data
        return None

    def note(self, intent: Intent | None, reason: str) -> None:
        if intent is not None:
            self.reasons.setdefault(intent.seq, []).append(reason)

    @property
    def emit(self) -> Callable[..., Event]:
        """The game's :meth:`engine.world.World.emit` itself (``ctx.emit(key, audience, ids,
        **args)``), without a second call to pass the arguments on."""
        return self.game.emit
