"""The interceptor (a bodyguard): ``op: guard`` puts a status of kind ``guarded`` on its target,
and every attack asks :func:`intercept` whom it reaches before it hits.

The attacks of every book ask it where they hit: the core's ``kill``, ``damage`` and
``poison``, a lowered stat (``change_stat``), the classic kill, Eternal Friday's ``hurt`` of an
attack and the stats mafia's ``attack``. A guard stops only the effects whose labels it lists
(the ability's ``labels``; none: ``kill`` and ``attack``); a vote never meets it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..state import Player
    from .context import Ctx

GUARD_AGAINST = ("kill", "attack")  # what a guard takes when its ability lists no labels
GUARD_MODES = ("take", "strike", "both")


def _has_guards(rules: Any) -> bool:
    """Whether any ability of the ruleset guards (``op: guard``), looked up once per ruleset:
    without one, no attack needs to look for a guard."""
    cache = rules.derived_cache
    found = cache.get(("has_guards",))
    if found is None:
        found = cache[("has_guards",)] = any(
            e.op == "guard" for x in [*rules.roles, *rules.characters] for ab in x.abilities
            for effs in [ab.effects, *ab.options.values()] for e in effs)
    return found


def intercept(ctx: Ctx, actor: int | None, target: Player, labels: Iterable[str],
              strike: Callable[[Ctx, Player, int], None]) -> Player | None:
    """Whom an attack of ``actor`` with ``labels``, aimed at ``target``, reaches: the target,
    its bodyguard (mode ``take``: the guard is hit in its place; ``both``: hit in its place and
    the attacker struck down) or nobody (``strike``: the attacker is struck down instead).

    ``strike(ctx, attacker, guard)`` is the book's way to strike the attacker down (the core's
    ``kill``, Eternal Friday's HP to 0). A guard who is dead, is the attacker or the target
    itself, does nothing; the first living guard in force answers (a guard is never guarded
    in turn: one interception an attack)."""
    if actor is None or not target.statuses:
        return target
    g = ctx.game
    if not _has_guards(g.rules) or not g.alive(target):
        return target  # (a dead target needs no guard: the attack finds it dead)
    wanted = set(labels)
    for sid, s in sorted(target.statuses.items()):
        if s.kind != "guarded" or not g.active(target, sid, ctx.tick):
            continue
        against = s.data.get("against") or GUARD_AGAINST
        if "*" not in against and not wanted & set(against):
            continue
        guard = g.player(s.data["by"])
        if guard.pid in (actor, target.pid) or not g.alive(guard):
            continue
        mode = s.data.get("mode", "take")
        ctx.emit(f"gm.guarded_{mode}", "gm", player=target.pid, actor=actor, by=guard.pid)
        if mode in ("strike", "both"):
            attacker = g.player(actor)
            if g.alive(attacker):
                strike(ctx, attacker, guard.pid)
        return None if mode == "strike" else guard
    return target
