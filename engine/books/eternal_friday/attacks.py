"""Eternal Friday's night attacks and their answers: notes, shields, shots, knives."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

from ...registry import impl
from .core import (
    _each,
    hurt,
    memo,
    only_civilians_left,
    psycho_knife_masks,
    scratch,
    seen_character,
)

if TYPE_CHECKING:
    from ...resolve.context import Ctx
    from ...state import Intent, Player


@impl("friday_note")
def friday_note(ctx: Ctx, intent: Intent, eff: Any, people: list[Player]) -> None:
    """A choice read by another step (the auto-meditation switched off)."""
    ctx.note(intent, "noted")


@impl("friday_shield")
def friday_shield(ctx: Ctx, intent: Intent, eff: Any, people: list[Player]) -> None:
    """Самозащита (on oneself) and Защита: 25 % of each attack tonight; they do not add up."""
    to = [intent.pid] if eff.params.get("to") == "self" else _each(intent)
    scratch(ctx)["shields"].update(to)


@impl("friday_attack")
def friday_attack(ctx: Ctx, intent: Intent, eff: Any, people: list[Player]) -> None:
    """An attack on each target: a fixed damage, half of the target's HP as the night began
    (Нападение), or by the number of shots fired so far (Револьвер). The revolver of a message
    is remembered for the boss's report."""
    g = ctx.game
    prm = eff.params
    ab = g.ability_def(intent.ability)
    s = scratch(ctx)
    for tid in _each(intent):
        t = g.player(tid)
        if prm.get("share_of_hp"):
            amount = max(0, math.ceil(s["hp0"].get(tid, 0) / int(prm["share_of_hp"])))
        elif prm.get("damage_by_use"):
            shots = memo(g).shots_fired
            n = shots.get(f"{intent.pid}:{intent.ability}", 0)
            table = prm["damage_by_use"]
            amount = int(table[min(n, len(table) - 1)])
            shots[f"{intent.pid}:{intent.ability}"] = n + 1
        else:
            amount = int(prm["damage"])
        hurt(ctx, t, amount, by=intent.pid, labels=ab.labels, ability=intent.ability)
        if prm.get("nagan"):
            s["nagan_shots"][intent.pid] = tid


@impl("friday_shots")
def friday_shots(ctx: Ctx, intent: Intent, eff: Any, people: list[Player]) -> None:
    """The pistol and the shuriken: each shot (target, repeats allowed) is a separate attack.
    The pistol's extra shots are spent from the saved ones; «Если за ночь делается больше
    одного выстрела из пистолета, урон пистолета в эту ночь не может быть уменьшен»."""
    g = ctx.game
    prm = eff.params
    ab = g.ability_def(intent.ability)
    actor = g.player(intent.pid)
    shots = _each(intent)
    if ab.checks and any(c.params.get("stat") for c in ab.checks):
        stat = next(c.params["stat"] for c in ab.checks if c.params.get("stat"))
        actor.stats[stat] = max(0, actor.stats.get(stat, 0) - (len(shots) - 1))
    if prm.get("unreducible_over") is not None:
        scratch(ctx)["pistol_used"].add(intent.pid)
    firm = prm.get("unreducible_over") is not None and len(shots) > int(prm["unreducible_over"])
    for tid in shots:
        hurt(ctx, g.player(tid), int(prm["damage"]), by=intent.pid, labels=ab.labels, ability=intent.ability, unreducible=firm)


@impl("friday_maniac_knife")
def friday_maniac_knife(ctx: Ctx, intent: Intent, eff: Any, people: list[Player]) -> None:
    """95 damage; 45 from hospital unless only civilians are left of the others; the maniac
    learns whether he attacked the psycho, masks or not."""
    g = ctx.game
    prm = eff.params
    actor = g.player(intent.pid)
    ab = g.ability_def(intent.ability)
    weak = g.active(actor, "hospital") is not None and not only_civilians_left(g)
    for tid in _each(intent):
        t = g.player(tid)
        hurt(ctx, t, int(prm["hospital_damage"] if weak else prm["damage"]), by=actor.pid, labels=ab.labels, ability=intent.ability)
        if t.character == prm.get("notice"):
            ctx.emit("friday.knife_found", "players", [actor.pid], target=tid, value=t.character)


@impl("friday_psycho_knife")
def friday_psycho_knife(ctx: Ctx, intent: Intent, eff: Any, people: list[Player]) -> None:
    """Any damage 1–5000 and half of it to himself (a quarter on a hunted target, none when only
    civilians are left of the others); on a hunted target he learns its secret role and the
    maniac learns the target and the role.

    Masks (setting ``psycho_knife_masks``): ``partial``, the book's change 33 («частично
    игнорирует маскировку: игнорирует маскировку, если цель маньяк»): the true maniac is seen
    through any mask, anyone else is seen as their mask, so one masked as the maniac gives the
    notice too; ``ignore``: the knife reads true roles only."""
    g = ctx.game
    prm = eff.params
    actor = g.player(intent.pid)
    ab = g.ability_def(intent.ability)
    amount = int(intent.option or 1)
    masks = psycho_knife_masks(g)
    for tid in _each(intent):
        t = g.player(tid)
        hunted = g.active(t, "hunted")
        hunted = hunted is not None and hunted.since < ctx.tick  # «Начиная со следующей ночи»
        hurt(ctx, t, amount, by=actor.pid, labels=ab.labels, ability=intent.ability)
        if not only_civilians_left(g):
            share = float(prm["hunted_share"] if hunted else prm["self_share"])
            hurt(ctx, actor, math.ceil(amount * share), by=actor.pid, labels=["self"], ability=intent.ability)
        maniac = t.character == prm.get("notice")
        seen = t.character if maniac or masks == "ignore" else seen_character(g, t)
        if seen == prm.get("notice"):  # «Если атаковал маньяка, узнаёт об этом»
            ctx.emit("friday.knife_found", "players", [actor.pid], target=tid, value=seen)
        if hunted:
            ctx.emit("friday.hunt_role", "players", [actor.pid], target=tid, value=seen)
            hunters = [q.pid for q in g.living() if q.character == prm.get("notice")]
            if hunters:
                ctx.emit("friday.hunt_report", "players", hunters, target=tid, value=seen)
