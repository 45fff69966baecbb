"""Eternal Friday's day abilities: extra votes, day healing and damage, squeezing, cultists, copied roles."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

from ...registry import impl
from .core import HP, HP_MAX, _each, heal, hurt, is_vip, next_night, scratch

if TYPE_CHECKING:
    from ...resolve.context import Ctx
    from ...state import Intent, Player


# ---- the day ------------------------------------------------------------------------------
@impl("friday_extra_votes")
def friday_extra_votes(ctx: Ctx, intent: Intent, eff: Any, people: list[Player]) -> None:
    """«Вечером после казни получает 20 урона за каждый дополнительный голос» (those counted)."""
    g = ctx.game
    n = ctx.extra_votes.get(intent.pid, 0)
    if n:
        hurt(ctx, g.player(intent.pid), int(eff.params["damage"]) * n, by=intent.pid, labels=["day"], ability=intent.ability)


@impl("friday_day_heal")
def friday_day_heal(ctx: Ctx, intent: Intent, eff: Any, people: list[Player]) -> None:
    """«Лечение подействует сразу после дневной казни (если цель останется в живых) и восстановит
    10 хп (15 хп, если цель днём находилась в больнице)»."""
    g = ctx.game
    for tid in _each(intent):
        t = g.player(tid)
        if tid in ctx.hanged or t.stats.get(HP, 0) <= 0:
            ctx.note(intent, f"not_alive:{tid}")
            continue
        amount = eff.params["hospital_amount"] if g.active(t, "hospital") else eff.params["amount"]
        heal(ctx, t, int(amount), ability=intent.ability)


@impl("friday_day_damage")
def friday_day_damage(ctx: Ctx, intent: Intent, eff: Any, people: list[Player]) -> None:
    g = ctx.game
    for tid in _each(intent):
        t = g.player(tid)
        if is_vip(g, t):
            ctx.note(intent, f"immune:{tid}")
            continue
        hurt(ctx, t, int(eff.params["damage"]), by=intent.pid, labels=["day"], ability=intent.ability)


@impl("friday_squeeze")
def friday_squeeze(ctx: Ctx, intent: Intent, eff: Any, people: list[Player]) -> None:
    """«отжать у цели 5 хп и восстановить их себе. Если у цели было меньше 5 хп, всё равно
    восстанавливает себе 5 хп»; nothing from the VIP."""
    g = ctx.game
    amount = int(eff.params["amount"])
    for tid in _each(intent):
        t = g.player(tid)
        if is_vip(g, t):
            ctx.note(intent, f"immune:{tid}")
            continue
        hurt(ctx, t, amount, by=intent.pid, labels=["day"], ability=intent.ability)
        heal(ctx, g.player(intent.pid), amount, ability=intent.ability)


@impl("friday_cultist")
def friday_cultist(ctx: Ctx, intent: Intent, eff: Any, people: list[Player]) -> None:
    """A third of the cultist's own missing HP as the day began, rounded up, at most 33."""
    g = ctx.game
    actor = g.player(intent.pid)
    missing = max(0, actor.stats.get(HP_MAX, 100) - scratch(ctx)["hp0"].get(actor.pid, 0))
    amount = min(int(eff.params.get("max", 33)), math.ceil(missing / int(eff.params.get("share", 3))))
    for tid in _each(intent):
        t = g.player(tid)
        if is_vip(g, t):
            ctx.note(intent, f"immune:{tid}")
            continue
        if amount:
            hurt(ctx, t, amount, by=intent.pid, labels=["day"], ability=intent.ability)


@impl("friday_copy_role")
def friday_copy_role(ctx: Ctx, intent: Intent, eff: Any, people: list[Player]) -> None:
    """The target's open role, its abilities and features, from the next night: for good (the
    marauder, who also takes a larger maximum HP, never the HP itself) or for the next night
    and day (the plagiarist)."""
    g = ctx.game
    p = g.player(intent.pid)
    since = next_night(g, ctx.tick)
    until = None if eff.params.get("permanent") else since + 2
    for tid in _each(intent):
        role = g.rules.role(g.player(tid).role)
        for ab in role.abilities:
            p.grants.append({"key": f"role:{role.id}:{ab.id}", "since": since, "until": until})
        if role.passives:
            p.grants.append({"passives": role.id, "since": since, "until": until})
        for stat in eff.params.get("raise", []):
            if stat in role.stats:
                p.stats[stat] = max(p.stats.get(stat, 0), role.stats[stat])
        ctx.emit("friday.copied", "players", [p.pid], target=tid, value=role.id)
