"""The stats mafia's boosts: guard, sabotage, disguise."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ...registry import impl
from ...state import Modifier, Player
from .core import STATS, memo, seen_role

if TYPE_CHECKING:
    from ...resolve.context import Ctx
    from ...state import Intent


# ---- boosts --------------------------------------------------------------------------------
def _night_mod(ctx: Ctx, intent: Intent, t: Player, sid: str, delta: int) -> None:
    t.modifiers.append(Modifier(stat=sid, amount=delta, source=intent.ability, until=ctx.tick + 1))


@impl("sm_guard")
def guard(ctx: Ctx, intent: Intent, eff: Any, people: list[Player]) -> None:
    """«Защищать и Служить - ночью может добавить 4 (или 1, если Полицейский в Госпитале) к
    защите цели на ночь»."""
    g = ctx.game
    actor = g.player(intent.pid)
    delta = int(eff.params.get("delta", 4))
    for sid, d in eff.params.get("in_status", {}).items():
        if g.active(actor, sid):
            delta = int(d)
    for t in people:
        _night_mod(ctx, intent, t, eff.params.get("stat", "defense"), delta)


@impl("sm_sabotage")
def sabotage(ctx: Ctx, intent: Intent, eff: Any, people: list[Player]) -> None:
    """«Саботаж»: a guessed secret role gives −2 to every stat for the night (−1 to the roles
    the book names)."""
    g = ctx.game
    for t in people:
        role = seen_role(g, t, "guess")
        if role != intent.option:
            ctx.note(intent, f"wrong_guess:{t.pid}")
            continue
        delta = int(eff.params.get("mild", -1)) if role in eff.params.get("mild_roles", []) else int(eff.params.get("delta", -2))
        for sid in STATS:
            _night_mod(ctx, intent, t, sid, delta)
        ctx.note(intent, f"guessed:{t.pid}")


@impl("sm_disguise")
def disguise(ctx: Ctx, intent: Intent, eff: Any, people: list[Player]) -> None:
    """«Двойная жизнь - в любой момент может выбрать Тайную роль, кроме Маньяка»."""
    memo(ctx.game).disguise[str(intent.pid)] = intent.option
    ctx.emit("sm.disguised", "players", [intent.pid], value=intent.option)
