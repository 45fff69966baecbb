"""Victory checks, registered by kind. Each returns the winners' pids, or None to go on."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .registry import victory

if TYPE_CHECKING:
    from .world import World


@victory("none")
def no_victory(g: World, params: dict[str, Any], final: bool) -> list[int] | None:
    return [] if final else None


@victory("highest_stat")
def highest_stat(g: World, params: dict[str, Any], final: bool) -> list[int] | None:
    """Godfather's Legacy: at the end, the highest ВО among faction sums and free players.

    A faction's claim is the sum of its living members' true stat; only its leader wins. Ties:
    the smaller faction (a free player is a faction of one), then more total ТВ, then the
    game's random generator. Who may win at all (docs/rules/godfather.md):

    - a holder of a ``no_win_status`` (prison) cannot, unless a passive ``wins_in_<status>``
      says otherwise (Бывалый: «Может победить, находясь в тюрьме»);
    - a passive ``victory`` limits it: ``factions`` (how many factions the player may be in:
      Одиночка and Подлый ``[0]``, Двойной игрок ``[1]``), ``as_member`` (wins with the
      faction without leading it: Преданный);
    - a claim nobody of it may win is void: the next best claim wins.

    ``members_win: lesser`` (seed 001: «ее члены становятся победителями, но в меньшей
    степени»): the winning faction's other living members who may win are its lesser winners,
    announced and kept in ``GameState.core.lesser_winners``; the winners stay the claim's.
    """
    if not final:
        return None
    stat, tie_stat = params.get("stat", "vo"), params.get("tie_stat", "tv")
    barred = params.get("no_win_status", [])

    def may_win(pid: int, leads: bool) -> str | None:
        """None when ``pid`` may win this claim, else why not."""
        p = g.player(pid)
        for s in barred:
            if g.active(p, s) and not g.passives(p, f"wins_in_{s}"):
                return s
        rules = g.passives(p, "victory")
        for x in rules:
            if "factions" in x and len(g.factions_of(pid)) not in x["factions"]:
                return "factions"
        if not leads and not any(x.get("as_member") for x in rules):
            return "member"
        return None

    claims = []  # (score, -size, tie sum, winner pids)
    for f in sorted(g.state.factions.values(), key=lambda f: f.fid):
        members = [g.player(m) for m in sorted(f.members) if g.alive(g.player(m))]
        if not members:
            continue
        winners = []
        for p in members:
            why = may_win(p.pid, p.pid == f.leader)
            if why is None:
                winners.append(p.pid)
            elif p.pid == f.leader or any(x.get("as_member") for x in g.passives(p, "victory")):
                g.emit("factions.gm_cannot_win", "gm", player=p.pid, reason=why)
        score = sum(g.true_stat(p, stat) for p in members)
        if winners:
            claims.append((score, -len(members), sum(g.true_stat(p, tie_stat) for p in members), winners, f.fid))
    for p in g.living():
        if not g.factions_of(p.pid):
            why = may_win(p.pid, True)
            if why is None:
                claims.append((g.true_stat(p, stat), -1, g.true_stat(p, tie_stat), [p.pid], None))
            else:
                g.emit("factions.gm_cannot_win", "gm", player=p.pid, reason=why)
    if not claims:
        return []
    best = max(c[:3] for c in claims)
    tied = sorted(c[3] for c in claims if c[:3] == best)
    won = sorted(tied[0] if len(tied) == 1 else g.rng.choice(tied))
    fid = next(c[4] for c in claims if sorted(c[3]) == won)
    if params.get("members_win") == "lesser" and fid is not None:
        f = g.state.factions[fid]
        lesser = [m for m in sorted(f.members) if m not in won and g.alive(g.player(m)) and may_win(m, True) is None]
        g.state.core.lesser_winners = lesser
        if lesser:
            g.emit("game.lesser_winners", "public", players=lesser)
    return won


@victory("last_team")
def last_team(g: World, params: dict[str, Any], final: bool) -> list[int] | None:
    """Eternal Friday: a team wins once no living player of any other team remains.

    ``ignore_teams``: teams that neither win this way nor keep the others from winning (seed
    003's neutrals, who win by abilities of their own). ``solo_teams``: each member of such a
    team plays for themself (seed 002, as a setting: the maniac and the psycho as rivals).
    """
    source = params.get("team_from", "character")
    ignored = set(params.get("ignore_teams", []))
    solo = set(params.get("solo_teams", []))

    def team(pid: int) -> str | None:
        p = g.player(pid)
        src = g.rules.character(p.character) if source == "character" and p.character else g.rules.role(p.role)
        return f"{src.team}:{pid}" if src.team in solo else src.team

    alive_teams = {team(p.pid) for p in g.living()} - ignored
    if not alive_teams:
        return []  # everybody died: a draw
    if len(alive_teams) == 1:
        (t,) = alive_teams
        return [p.pid for p in g.state.players if team(p.pid) == t]
    return [] if final else None
