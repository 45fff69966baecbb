"""Seed 002 (Eternal Friday) abilities that are not plain primitives."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ...registry import impl
from ...resolve.effects import deal_damage
from ...state import Intent, Player, Status

if TYPE_CHECKING:
    from ...resolve.context import Ctx


@impl("trap_set")
def trap_set(ctx: Ctx, intent: Intent, eff: Any, people: list[Player]) -> None:
    """«Ловушка»: armed for the target's next night only; not an attack."""
    g = ctx.game
    nxt = ctx.tick + 1
    while g.clock.info(nxt).kind != "night":
        nxt += 1
    for t in people:
        sid = f"trap:{intent.seq}"
        t.statuses[sid] = Status(id=sid, since=ctx.tick, until=nxt + 1, data={"night": nxt, "damage": int(eff.params.get("damage", 95)), "by": intent.pid})


@impl("trap_trigger")
def trap_trigger(ctx: Ctx, intent: Intent | None, sd: Any, people: list[Player]) -> None:
    """A trapped player who tries any night action on the trap's night takes its damage."""
    g = ctx.game
    acting = {i.pid for i in ctx.intents}
    for p in g.state.players:
        for sid, s in sorted(p.statuses.items()):
            if sid.startswith("trap:") and s.data.get("night") == ctx.tick and p.pid in acting:
                dealt = deal_damage(ctx, None, p, s.data["damage"])
                ctx.emit("gm.trap", "gm", player=p.pid, damage=dealt, by=s.data["by"])
                del p.statuses[sid]


@impl("medic_heal")
def medic_heal(ctx: Ctx, intent: Intent, eff: Any, people: list[Player]) -> None:
    """«Медик»: heals after the hanging, more if the target spent the day in hospital.

    «если цель останется в живых»: a target the hanging left at 0 HP or below (a tie's
    damage) died of it and is not healed back.
    """
    g = ctx.game
    hp = g.settings.hp_stat or "hp"
    for t in people:
        if not g.alive(t) or t.stats.get(hp, 0) <= 0:
            continue
        in_hospital = g.active(t, eff.params.get("status", "hospital")) is not None
        t.stats[hp] += int(eff.params["hospital_amount"] if in_hospital else eff.params["amount"])
