"""Eternal Friday's submission checks: what may be submitted."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ...errors import ActionError
from ...registry import check
from .core import team_of

if TYPE_CHECKING:
    from ...ruleset import AbilityDef
    from ...state import Player
    from ...world import World


# ---- what may be submitted ------------------------------------------------------------------
@check("friday_not_roles")
def not_roles(g: World, p: Player, ab: AbilityDef, params: dict[str, Any], targets: list[int] | None, option: str | None) -> ActionError | None:
    """«Нельзя применить к здоровяку, каскадёру, амбалу, мародёру» (by the open role)."""
    for t in targets or []:
        if g.player(t).role in params.get("roles", []):
            return ActionError("illegal_target", target=t)
    return None


@check("friday_not_characters")
def not_characters(g: World, p: Player, ab: AbilityDef, params: dict[str, Any], targets: list[int] | None, option: str | None) -> ActionError | None:
    """«Нельзя замаскировать ниндзя или сэнсэя» (by the true secret role)."""
    for t in targets or []:
        if g.player(t).character in params.get("characters", []):
            return ActionError("illegal_target", target=t)
    return None


@check("friday_shot_count")
def shot_count(g: World, p: Player, ab: AbilityDef, params: dict[str, Any], targets: list[int] | None, option: str | None) -> ActionError | None:
    """How many shots may be fired: 1 + the saved shots (pistol: «максимальное количество не
    ограничено», no other cap), 1 + the dead of the team (shuriken). Fewer is always fine
    («можно бросить только часть»). The refusal names the ability and what it allows now."""
    if targets is None or option is not None:
        return None
    most = int(params.get("base", 1))
    if params.get("stat"):
        most += p.stats.get(params["stat"], 0)
    if params.get("dead_of_team"):
        most += sum(1 for q in g.state.players if team_of(g, q) == params["dead_of_team"] and not g.alive(q))
    if len(targets) > most:
        key = next((k for k, a in g.abilities(p) if a is ab), f"character:{p.character}:{ab.id}")
        return ActionError("too_many_shots", most=most, ability=key)
    return None


@check("friday_rest")
def rest_check(g: World, p: Player, ab: AbilityDef, params: dict[str, Any], targets: list[int] | None, option: str | None) -> ActionError | None:
    """«Отдых не может быть использован, если у мирного жителя потрачено менее 2 способностей»;
    the option must name a spent one."""
    limited = [(f"character:{p.character}:{a.id}", a.uses_per_game) for a in g.rules.character(p.character).abilities if a.uses_per_game] if p.character else []
    spent = {k for k, n in limited if p.uses.get(k, 0) >= n}
    if len(spent) < int(params.get("at_least", 2)):
        return ActionError("rest_too_early", need=int(params.get("at_least", 2)))
    if option is not None:
        effs = ab.options.get(option) or []
        if not effs or effs[0].params.get("ability") not in spent:
            return ActionError("rest_not_spent", ability=effs[0].params.get("ability", option) if effs else option)
    return None
