"""Eternal Friday's night medicine: rest, healing, regeneration, diagnostics."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ...registry import impl
from .core import WOUND, _each, _fog, effective_hp, heal

if TYPE_CHECKING:
    from ...resolve.context import Ctx
    from ...state import Intent, Player


@impl("friday_rest")
def friday_rest(ctx: Ctx, intent: Intent, eff: Any, people: list[Player]) -> None:
    """The named spent ability may be used once more."""
    p = ctx.game.player(intent.pid)
    key = eff.params["ability"]
    if p.uses.get(key, 0) > 0:
        p.uses[key] -= 1
        ctx.emit("friday.rested", "players", [p.pid], ability=key)


@impl("friday_heal")
def friday_heal(ctx: Ctx, intent: Intent, eff: Any, people: list[Player]) -> None:
    g = ctx.game
    for tid in _each(intent):
        heal(ctx, g.player(tid), int(eff.params["amount"]), ability=intent.ability)


@impl("friday_regen")
def friday_regen(ctx: Ctx, intent: Intent | None, sd: Any, people: list[Player]) -> None:
    """28) Any passive recovery: the hospital's and the coma's 15 (the chief doctor's 20 in
    hospital) from the night after entering it, and the monk's 10."""
    g = ctx.game
    for p in g.living():
        if g.active(p, WOUND):
            continue
        for status in ("hospital", "coma"):
            s = g.active(p, status)
            if s is not None and s.since < ctx.tick:
                own = [x for x in g.passives(p, "regen") if x.get("status") == status]
                heal(ctx, p, int(own[0]["amount"]) if own else int(sd.params.get(status, 15)), ability=status, regen=True)
        for x in g.passives(p, "regen"):
            if not x.get("status"):
                heal(ctx, p, int(x["amount"]), ability="regen")


@impl("friday_diagnostics")
def friday_diagnostics(ctx: Ctx, intent: Intent, eff: Any, people: list[Player]) -> None:
    """29) The morning HP (after the cap), or the false HP while «Помутнение разума» holds."""
    g = ctx.game
    p = g.player(intent.pid)
    fog = _fog(g, p, ctx.tick, "diagnostics")
    ctx.emit("friday.diagnostics", "players", [p.pid], value=fog.data["fake"] if fog is not None else effective_hp(g, p))
