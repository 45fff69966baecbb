"""Swapping two players as targets (the bus driver): the primitive ``op: swap``.

An action with two targets puts a ``swapped:<seq>:*`` status on each of them for ``until``
(default: this tick). From then on every effect aimed at one of them reaches the other instead,
whoever aims it (:func:`swap_targets`, asked by the resolver for every effect's recipients).
The swapping action's own targets are not swapped. Several swaps compose in the order they
were put: a target goes through each of them in turn. A swap carries its action's ``seq``, so
a block that lands on its giver later in the same tick withdraws it
(:func:`engine.resolve.effects.put_block`); what was already aimed through it stays.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..registry import effect
from ..state import Intent, Player, Status

if TYPE_CHECKING:
    from .context import Ctx

KIND = "swapped"  # the kind of the swap statuses (Status.kind): what readers ask, never the id


@effect("swap")
def op_swap(ctx: Ctx, intent: Intent, eff: Any, people: list[Player]) -> None:
    ctx.outcome.setdefault(intent.seq, "applied")
    if len(people) != 2 or people[0].pid == people[1].pid:
        ctx.note(intent, "nothing_to_swap")
        return
    a, b = people
    for p in (a, b):
        labels = ["swap", *eff.labels]
        prot = ctx.protection(p, labels, intent.pid)
        if prot is not None:
            ctx.note(intent, f"protected:{p.pid}")
            ctx.outcome[intent.seq] = "protected"
            return
    until = ctx.game.clock.end_of(ctx.tick, eff.until or "tick", eff.cycles)
    ctx.scratch[MAYBE] = True
    order = ctx.scratch.setdefault("swap_order", 0)
    ctx.scratch["swap_order"] = order + 1
    for p, other in ((a, b), (b, a)):
        sid = f"swapped:{intent.seq}:{p.pid}"
        p.statuses[sid] = Status(id=sid, since=ctx.tick, until=until, data={"by": intent.pid, "seq": intent.seq, "with": other.pid, "order": order}, kind=KIND)
    ctx.emit("gm.swapped", "gm", actor=intent.pid, player=a.pid, target=b.pid)


MAYBE = "swaps_maybe"  # Ctx.scratch key: whether any player may hold a swap status now


def swaps_maybe(ctx: Ctx) -> bool:
    """False when no player holds a swap status: looked at once a resolve, and True again as
    soon as a swap is put (a swap taken back leaves it True: the full look then finds none)."""
    found = ctx.scratch.get(MAYBE)
    if found is None:
        found = False
        for p in ctx.game.state.players:
            if p.statuses:
                for s in p.statuses.values():
                    if s.kind == KIND:
                        found = True
                        break
                if found:
                    break
        ctx.scratch[MAYBE] = found
    return found


def _swaps(ctx: Ctx) -> list[tuple[int, int, int, int]]:
    """Active swaps as (order, seq, pid, other), in the order they were put."""
    g = ctx.game
    if not swaps_maybe(ctx):
        return []
    out = []
    for p in g.state.players:
        for sid, s in p.statuses.items():
            if s.kind == KIND and g.active(p, sid, ctx.tick):
                out.append((s.data.get("order", 0), s.data.get("seq", 0), p.pid, int(s.data["with"])))
    return sorted(out)


def swap_pid(ctx: Ctx, intent: Intent, pid: int) -> int:
    """Where an effect of ``intent`` aimed at ``pid`` lands once every swap is applied."""
    seen: set[int] = set()
    for _, seq, a, b in _swaps(ctx):
        if seq == intent.seq or seq in seen:
            continue  # a swap never moves its own targets
        if pid == a:
            pid = b
            seen.add(seq)
        elif pid == b:
            pid = a
            seen.add(seq)
    return pid


def swap_targets(ctx: Ctx, intent: Intent, people: list[Player]) -> list[Player]:
    """``people`` (the recipients of an effect of ``intent``) with every swap applied."""
    if not swaps_maybe(ctx) or not any(s.kind == KIND for p in ctx.game.state.players for s in p.statuses.values()):
        return people
    out = []
    for p in people:
        q = swap_pid(ctx, intent, p.pid)
        if q != p.pid:
            ctx.note(intent, f"swapped:{p.pid}>{q}")
        out.append(ctx.game.player(q))
    return out
