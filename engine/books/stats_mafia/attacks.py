"""The stats mafia's attacks: initiative − defense."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ...registry import impl
from ...resolve.guards import intercept
from ...state import Modifier, Player
from .core import die, hospitalize, in_prison, next_day, parts, seen_role, stat, team
from .start import random_bonus

if TYPE_CHECKING:
    from ...resolve.context import Ctx
    from ...state import Intent


# ---- attacks -------------------------------------------------------------------------------
def attack(ctx: Ctx, intent: Intent, t: Player, *, initiative: int | None = None, defense: int | None = None) -> None:
    """≥ kill_at: death; 1 … kill_at − 1: that many сутки of Hospital from the next day; ≤ 0: nothing."""
    g = ctx.game
    actor = g.player(intent.pid)
    if not g.alive(t) or in_prison(g, t):
        ctx.note(intent, f"unreachable:{t.pid}")
        return
    hit = intercept(ctx, actor.pid, t, ["attack", *g.ability_def(intent.ability).labels], _strike)  # a bodyguard (op guard)
    if hit is None:
        ctx.note(intent, f"guarded:{t.pid}")
        return
    if hit is not t and in_prison(g, hit):
        ctx.note(intent, f"unreachable:{hit.pid}")
        return
    t = hit
    a = stat(g, actor, "initiative") if initiative is None else initiative
    d = stat(g, t, "defense") if defense is None else defense
    diff = a - d
    ctx.emit("sm.gm_attack", "gm", actor=actor.pid, target=t.pid, ability=intent.ability, count=diff)
    if diff >= g.settings.kill_at:
        die(ctx, t, intent.ability)
    elif diff >= 1:
        hospitalize(ctx, t, diff, next_day(g, ctx.tick))
    else:
        ctx.note(intent, f"no_effect:{t.pid}")


def _strike(ctx: Ctx, attacker: Player, guard: int) -> None:
    """A bodyguard strikes the attacker down (``op: guard``, mode ``strike`` or ``both``)."""
    die(ctx, attacker, "guard")


@impl("sm_attack")
def attack_ability(ctx: Ctx, intent: Intent, eff: Any, people: list[Player]) -> None:
    for t in people:
        attack(ctx, intent, t)


@impl("sm_punish")
def punish(ctx: Ctx, intent: Intent, eff: Any, people: list[Player]) -> None:
    """«Кара - ... выбрать цель и Тайную роль. Если цель является Законом или имеет эту Тайную
    роль, атакует её.»"""
    g = ctx.game
    for t in people:
        role = seen_role(g, t, "guess")
        if team(g, role) in eff.params.get("teams", ["law"]) or role == intent.option:
            attack(ctx, intent, t)
        else:
            ctx.note(intent, f"spared:{t.pid}")


@impl("sm_bloodbath")
def bloodbath(ctx: Ctx, intent: Intent, eff: Any, people: list[Player]) -> None:
    """«Кровавая баня»: a guessed unique secret role dies; a guessed Гражданский or Криминалист
    is attacked without any plus to defense and any minus to the attack."""
    g = ctx.game
    actor = g.player(intent.pid)
    for t in people:
        if seen_role(g, t, "guess") != intent.option:
            ctx.note(intent, f"wrong_guess:{t.pid}")
            continue
        if not g.alive(t) or in_prison(g, t):
            ctx.note(intent, f"unreachable:{t.pid}")
        elif g.rules.character(intent.option).copies == 1:
            ctx.emit("sm.gm_attack", "gm", actor=actor.pid, target=t.pid, ability=intent.ability, count="∞")
            die(ctx, t, intent.ability)
        else:
            a = sum(x for x in parts(g, actor, "initiative", ctx.tick) if x > 0)
            d = sum(x for x in parts(g, t, "defense", ctx.tick) if x < 0)
            attack(ctx, intent, t, initiative=a, defense=d)


@impl("sm_shotgun")
def shotgun(ctx: Ctx, intent: Intent, eff: Any, people: list[Player]) -> None:
    """«Обрез под столом»: attacks everyone who used an ability on the Boss this night, except
    the Mafia."""
    g = ctx.game
    boss = intent.pid
    shot: list[int] = []
    for i in ctx.intents:
        if i.pid == boss or boss not in i.targets or ctx.outcome.get(i.seq) == "blocked" or i.pid in shot:
            continue
        if team(g, seen_role(g, g.player(i.pid), "guess")) in eff.params.get("spare_teams", ["mafia"]):
            continue
        shot.append(i.pid)
    for pid in sorted(shot):
        attack(ctx, intent, g.player(pid))
    if not shot:
        ctx.note(intent, "nobody_came")


@impl("sm_poison")
def poison(ctx: Ctx, intent: Intent, eff: Any, people: list[Player]) -> None:
    """«Отравление»: «На следующий день и ночь цель ложится в Госпиталь вне зависимости от
    жизней» — one сутки from the next day, added to any stay, whatever the defense."""
    g = ctx.game
    for t in people:
        if g.alive(t):
            hospitalize(ctx, t, int(eff.params.get("days", 1)), next_day(g, ctx.tick))


@impl("sm_loot")
def loot(ctx: Ctx, intent: Intent, eff: Any, people: list[Player]) -> None:
    """«Мародёрство»: from the morning, for the rest of the game, every ability of the dead
    target's open role: its actions, its features, its stat bonuses."""
    g = ctx.game
    actor = g.player(intent.pid)
    since = ctx.tick + 1
    for t in people:
        role = g.rules.role(t.role)
        for ab in role.abilities:
            actor.grants.append({"key": f"role:{role.id}:{ab.id}", "since": since, "until": None, "by": intent.ability})
        actor.grants.append({"passives": role.id, "since": since, "until": None, "by": intent.ability})
        for sid, v in role.stats.items():
            actor.modifiers.append(Modifier(stat=sid, amount=v - g.rules.stat(sid).default, source=intent.ability))
        for pas in role.passives:
            if pas.kind == "hidden_bonus":
                actor.modifiers.append(Modifier(stat=pas.params["stat"], amount=int(pas.params["amount"]), source=intent.ability))
            elif pas.kind == "random_bonus":
                random_bonus(g, actor, pas.params)
        ctx.emit("sm.loot", "public", actor=actor.pid, target=t.pid, value=role.id)
