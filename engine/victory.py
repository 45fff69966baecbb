"""Victory checks, registered by kind. Each returns the winners' pids, or None to go on."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .registry import victory

if TYPE_CHECKING:
    from .game import Game


@victory("none")
def no_victory(g: Game, params: dict[str, Any], final: bool) -> list[int] | None:
    return [] if final else None


@victory("highest_stat")
def highest_stat(g: Game, params: dict[str, Any], final: bool) -> list[int] | None:
    """Godfather's Legacy: at the end, the highest ВО among faction sums and free players.

    A faction's claim is the sum of its members' true stat; only its leader wins. Ties: the
    smaller faction, then more total ТВ, then the game's random generator.
    """
    if not final:
        return None
    stat, tie_stat = params.get("stat", "vo"), params.get("tie_stat", "tv")
    claims = []  # (score, -size, tie sum, winner pid)
    for f in sorted(g.state.factions.values(), key=lambda f: f.fid):
        members = [g.player(m) for m in sorted(f.members) if g.alive(g.player(m))]
        if not members:
            continue
        score = sum(g.true_stat(p, stat) for p in members)
        claims.append((score, -len(members), sum(g.true_stat(p, tie_stat) for p in members), f.leader))
    for p in g.living():
        if not g.factions_of(p.pid):
            claims.append((g.true_stat(p, stat), -1, g.true_stat(p, tie_stat), p.pid))
    if not claims:
        return []
    best = max(c[:3] for c in claims)
    tied = sorted(c[3] for c in claims if c[:3] == best)
    return [tied[0] if len(tied) == 1 else g.rng.choice(tied)]


@victory("last_team")
def last_team(g: Game, params: dict[str, Any], final: bool) -> list[int] | None:
    """Eternal Friday: a team wins once no living player of any other team remains.

    ``ignore_teams``: teams that neither win this way nor keep the others from winning (seed
    003's neutrals, who win by abilities of their own).
    """
    source = params.get("team_from", "character")
    ignored = set(params.get("ignore_teams", []))

    def team(pid: int) -> str | None:
        p = g.player(pid)
        src = g.rules.character(p.character) if source == "character" and p.character else g.rules.role(p.role)
        return src.team

    alive_teams = {team(p.pid) for p in g.living()} - ignored
    if not alive_teams:
        return []  # everybody died: a draw
    if len(alive_teams) == 1:
        (t,) = alive_teams
        return [p.pid for p in g.state.players if team(p.pid) == t]
    return [] if final else None
