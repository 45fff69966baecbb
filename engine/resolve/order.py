"""The order in which the actions of one resolution step run.

A step's ``params.order`` (or the game setting ``action_order``, which wins, so that a GM or
a scenario can switch a ruleset's rule) says how the actions of an ``actions`` step are
ordered; they arrive by seat.

- ``seat`` (the default): by seat. In a block loop (A blocks B, B blocks A) the lower seat's
  block lands and the other fails.
- ``ops``: by the first effect's op in the order ``params.ops`` lists (``[swap, block]``: every
  swap before every block), then by seat.
- ``dependencies`` (natural action resolution): an action waits for every action not yet run
  that may change it: a block aimed at its actor, a swap of one of its targets (targets as the
  swaps already made have moved them). The first action (by seat) that waits for nothing runs
  next; when every action waits (a loop), the lowest seat's runs.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..state import Intent
from .swaps import swap_pid, swaps_maybe

if TYPE_CHECKING:
    from ..ruleset import StepDef
    from .context import Ctx

ORDERS = ("seat", "ops", "dependencies")


def mode(ctx: Ctx, step: StepDef) -> str:
    m = ctx.game.settings.action_order or step.params.get("order") or "seat"
    if m not in ORDERS:
        raise ValueError(f"unknown action order {m!r}; known: {', '.join(ORDERS)}")
    return m


def first_op(ctx: Ctx, intent: Intent) -> str:
    effs = ctx.ability(intent).all_effects(intent.option)
    return effs[0].op if effs else ""


def by_ops(ctx: Ctx, step: StepDef, intents: list[Intent]) -> list[Intent]:
    ops = list(step.params.get("ops", []))
    return sorted(intents, key=lambda i: ops.index(first_op(ctx, i)) if first_op(ctx, i) in ops else len(ops))


def run_in_order(ctx: Ctx, step: StepDef, intents: list[Intent], run) -> None:
    """Run ``intents`` (the actions of ``step``, by seat) with ``run`` in the step's order."""
    m = mode(ctx, step)
    if m == "seat" or len(intents) < 2:  # one action (or none) runs alike in every order
        for i in intents:
            run(ctx, i)
        return
    if m == "ops":
        for i in by_ops(ctx, step, intents):
            run(ctx, i)
        return
    # dependencies: only blocks and swaps make another action wait, so each round looks at the
    # waiting blocks and swaps alone (a table of 64 has a handful), by seat
    ops = {i.seq: first_op(ctx, i) for i in intents}
    if not any(op in ("block", "swap") for op in ops.values()):
        for i in intents:  # nothing here can make another wait: by seat
            run(ctx, i)
        return
    waiting = list(intents)
    while waiting:
        movers = [y for y in waiting if ops[y.seq] in ("block", "swap") and ctx.outcome.get(y.seq) != "blocked"]

        # while nobody holds a swap, every target lands where it is aimed (swap_pid is the
        # identity): the same questions without asking it
        moved = swaps_maybe(ctx)

        def waits(x: Intent, movers: list[Intent] = movers, moved: bool = moved) -> bool:
            for y in movers:
                if y.seq == x.seq:
                    continue
                if ops[y.seq] == "block":
                    if (any(swap_pid(ctx, y, t) == x.pid for t in y.targets) if moved else x.pid in y.targets):
                        return True
                elif moved:
                    if {swap_pid(ctx, x, t) for t in x.targets} & {swap_pid(ctx, y, t) for t in y.targets}:
                        return True
                elif not set(x.targets).isdisjoint(y.targets):
                    return True
            return False

        nxt = next((x for x in waiting if not waits(x)), None)
        if nxt is None:  # every action waits: a loop
            nxt = waiting[0]
            ctx.note(nxt, "loop_lowest_seat")
        waiting.remove(nxt)
        run(ctx, nxt)
