"""Whom an effect reaches: its recipients after redirects and swaps."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..errors import GameError
from ..state import Intent, Player
from .context import Ctx
from .swaps import MAYBE, swap_targets, swaps_maybe

if TYPE_CHECKING:
    pass


def recipients(ctx: Ctx, intent: Intent, eff: Any) -> list[Player]:
    g = ctx.game
    to = eff.to
    if to == "target" and eff.where is None and len(intent.targets) == 1:  # the common case: one target
        t = intent.targets[0]
        people = [g.state.players[t] if type(t) is int else g.player(t)]  # (World.player of a seat)
        maybe = ctx.scratch.get(MAYBE)
        if maybe is None:
            maybe = swaps_maybe(ctx)
        if maybe:
            people = swap_targets(ctx, intent, people)
        return reroute(ctx, intent, people) if people[0].statuses else people
    actor = g.player(intent.pid)
    if to == "target":
        people = [g.player(t) for t in intent.targets]
    elif to == "self":
        people = [actor]
    elif to in ("all", "others"):
        people = [p for p in g.living() if to == "all" or p.pid != actor.pid]
    elif to == "own_faction":
        people = [g.player(m) for f in g.factions_of(actor.pid) for m in sorted(f.members)]
    elif to == "target_faction":
        people = []
        for t in intent.targets:
            fs = g.factions_of(t)
            people += [g.player(m) for f in fs for m in sorted(f.members)] if fs else [g.player(t)]
    else:
        raise GameError(f"unknown recipients {to!r}")
    if eff.where:
        people = [p for p in people if g.matches(p, eff.where, ctx.step_stats.get(p.pid), actor=intent.pid)]
    seen: set[int] = set()
    people = [p for p in people if not (p.pid in seen or seen.add(p.pid))]
    return reroute(ctx, intent, swap_targets(ctx, intent, people))


def reroute(ctx: Ctx, intent: Intent, people: list[Player]) -> list[Player]:
    """Effects aimed at a holder of a ``rerouted:*`` status («Пожар на маяке») go to a random
    reachable living player outside the status's ``exclude`` list (the faction) instead, one
    not already reached by the effect (none left: the effect on that player is lost). One's effects on oneself stay.
    The choice is drawn once per action and player, so all its effects go the same way."""
    g = ctx.game
    if not any(s.kind == "rerouted" for p in people if p.statuses for s in p.statuses.values()):
        return people
    memo = ctx.scratch.setdefault("rerouted", {})
    out: list[Player] = []
    for p in people:
        data = next((s.data for sid, s in sorted(p.statuses.items()) if s.kind == "rerouted" and g.active(p, sid, ctx.tick)), None)
        if data is None or p.pid == intent.pid:
            out.append(p)
            continue
        k = f"{intent.seq}:{p.pid}"
        if k not in memo:
            members = set(data.get("exclude", [])) | {p.pid}
            taken = {q.pid for q in people} | {q.pid for q in out}
            pool = sorted(
                q.pid for q in g.living()
                if q.pid not in members and q.pid not in taken and all(f.can_be_targeted for f in g.status_flags(q))
            )
            memo[k] = g.rng.choice(pool) if pool else None
            ctx.note(intent, "rerouted")
            if memo[k] is None:
                ctx.emit("gm.rerouted_lost", "gm", actor=intent.pid, ability=intent.ability, player=p.pid)
            else:
                ctx.emit("gm.rerouted", "gm", actor=intent.pid, ability=intent.ability, player=p.pid, target=memo[k])
        if memo[k] is not None and all(q.pid != memo[k] for q in out):
            out.append(g.player(memo[k]))
    return out
