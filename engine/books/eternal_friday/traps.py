"""Eternal Friday's traps and revenge marks."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ...registry import impl
from ...state import Status
from .core import _each, hurt, memo, next_night, owns_impl, scratch, will_die

if TYPE_CHECKING:
    from ...resolve.context import Ctx
    from ...state import Intent, Player


@impl("friday_trap")
def friday_trap(ctx: Ctx, intent: Intent, eff: Any, people: list[Player]) -> None:
    """«Ловушка»: armed for the target's next night only («действует только на следующую ночь»)."""
    g = ctx.game
    nxt = next_night(g, ctx.tick)
    for tid in _each(intent):
        sid = f"friday_trap:{intent.seq}"
        g.player(tid).statuses[sid] = Status(id=sid, since=ctx.tick, until=nxt + 1,
                                             data={"night": nxt, "damage": int(eff.params["damage"]), "by": intent.pid}, kind="trap")


@impl("friday_trap_trigger")
def friday_trap_trigger(ctx: Ctx, intent: Intent | None, sd: Any, people: list[Player]) -> None:
    """A trapped player who tries any night action on the trap's night takes its damage; not an
    attack: neither self-defence, protection nor the paratrooper touch it."""
    g = ctx.game
    acting = {i.pid for i in ctx.intents if "toggle" not in g.ability_def(i.ability).labels}
    for p in g.state.players:
        for sid, s in sorted(p.statuses.items()):
            if s.kind == "trap" and s.data.get("night") == ctx.tick:
                if p.pid in acting:
                    dealt = hurt(ctx, p, int(s.data["damage"]), by=s.data["by"], labels=["trap"], ability="character:ninja:trap")
                    ctx.emit("gm.trap", "gm", player=p.pid, damage=dealt, by=s.data["by"])
                del p.statuses[sid]


def activate_marks(ctx: Ctx, by: int, tell: bool) -> None:
    """«Месть – активирует все метки в игре. Каждая метка наносит 45 урона.» Marks on the dead
    are not activated; all marks are gone afterwards."""
    g = ctx.game
    marks = memo(g).marks
    p = g.player(by)
    damage = next((int(e.params.get("damage", 45)) for ab in g.rules.character(p.character).abilities
                   for e in ab.effects if e.impl == "friday_revenge"), 45) if p.character else 45
    hit = False
    for pid_s, n in sorted(marks.items(), key=lambda kv: int(kv[0])):
        t = g.player(int(pid_s))
        if not g.alive(t):
            continue
        for _ in range(int(n)):
            hurt(ctx, t, damage, by=by, labels=["revenge"], ability="character:sensei:revenge")
        hit = hit or n > 0
    memo(g).marks = {}
    scratch(ctx)["auto_used"].add("character:sensei:revenge")
    if tell:
        ctx.emit("friday.revenge", "players", [by], value=hit)
    else:
        ctx.emit("friday.gm_revenge", "gm", player=by, value=hit)


@impl("friday_revenge")
def friday_revenge(ctx: Ctx, intent: Intent, eff: Any, people: list[Player]) -> None:
    activate_marks(ctx, intent.pid, tell=True)


@impl("friday_dying_revenge")
def friday_dying_revenge(ctx: Ctx, intent: Intent | None, sd: Any, people: list[Player]) -> None:
    """«Используется автоматически, если сэнсей погибает (в этом случае урон пройдёт после всех
    ночных способностей, даже если сэнсэй умрёт днём)»."""
    g = ctx.game
    m = memo(g)
    due, m.revenge_due = list(m.revenge_due), []
    for p in g.state.players:
        if owns_impl(g, p, "friday_revenge") and will_die(ctx, p):
            due.append(p.pid)
    for pid in due:
        m.revenged[str(pid)] = ctx.tick
        activate_marks(ctx, pid, tell=False)
