"""The stats mafia's victory: kind ``stats_mafia``."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ...registry import victory as register_victory
from .core import free, in_prison, memo, out_of_play, team

if TYPE_CHECKING:
    from ...world import World


# ---- victory -------------------------------------------------------------------------------
@register_victory("stats_mafia")
def victory(g: World, params: dict[str, Any], final: bool) -> list[int] | None:
    """«Мафия достигает победы, если мертв весь Закон и Маньяк. Закон достигает победы, если
    мертва вся Мафия и Маньяк.» «Я легенда! - если остался единственным живым персонажем,
    побеждает.» After day 12 nobody wins; a living Злой Гений takes half a win. Winners are the
    team's members who may win: alive and not in Prison."""
    players = g.state.players
    for p in g.living():
        last = all(q.pid == p.pid or not g.alive(q) for q in players)
        if last and any(x.get("last_alive") for x in g.passives(p, "victory")) and not in_prison(g, p):
            return [p.pid]
    teams = params.get("teams", {"mafia": ["law", "maniac"], "law": ["mafia", "maniac"]})

    def gone(t: str) -> bool:
        return all(out_of_play(g, q) for q in players if team(g, q.character) == t)

    won = [t for t, rivals in teams.items() if all(gone(r) for r in rivals)]
    if len(won) == len(teams) or (won and all(gone(t) for t in won)):
        return []  # nobody is left to win
    for t in won:
        winners = [q.pid for q in players if team(g, q.character) == t and free(g, q)]
        if winners:
            return winners
    if not final:
        return None
    for p in g.living():
        if any(x.get("half_at_end") for x in g.passives(p, "victory")) and not in_prison(g, p):
            g.emit("sm.half_win", "public", player=p.pid, day=g.state.end_day)  # the last day: 12 unless the GM set another
            memo(g).half_winners.append(p.pid)
    return []
