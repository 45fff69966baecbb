"""The classic night of mafia communities (ruleset ``classic``): teams that know each other,
the team's one kill a night, the alignment check, a plurality lynch with no lynch on a tie,
and the parity victory. Decisions: docs/rules/classic.md."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ...registry import VOTES, impl, victory
from ...resolve.appearance import seen_team
from ...resolve.effects import kill, strike_kill
from ...resolve.guards import intercept
from ...state import Intent, Player
from ...votes import Lynch, lynch_tally, tally_number

if TYPE_CHECKING:
    from ...resolve.context import Ctx
    from ...world import World


_UNKNOWN: Any = object()  # not in World.team's table yet


def team(g: World, p: Player) -> str | None:
    """A player's team (:meth:`engine.world.World.team`)."""
    return g.team(p)


def _superseded(ctx: Ctx, intent: Intent) -> Intent | None:
    """The later team kill of a living teammate that replaces ``intent`` this night, if any
    (the first such in the night's order). The night's actions are indexed once by ability id
    (they do not change while it resolves): only the other submissions of the same ability
    are looked at, and their teams only then."""
    g = ctx.game
    ability_def = g.ability_def  # (called directly: Ctx.ability's own answer)
    index = ctx.scratch.get("classic_by_ability_id")
    if index is None:
        index = ctx.scratch["classic_by_ability_id"] = {}
        for other in ctx.intents:  # in the night's order, kept in each list
            index.setdefault(ability_def(other.ability).id, []).append(other)
    mine = index.get(ability_def(intent.ability).id, ())
    if not mine or (len(mine) == 1 and mine[0] is intent):
        return None  # nobody else submitted it
    players = g.state.players
    own = team(g, players[intent.pid])
    for other in mine:
        if other.seq > intent.seq and other.pid != intent.pid and team(g, players[other.pid]) == own:
            return other
    return None


@impl("classic_kill")
def classic_kill(ctx: Ctx, intent: Intent, eff: Any, people: list[Player]) -> None:
    """A night kill. ``team: true``: the team's one kill of the night; a teammate's later
    submission replaces an earlier one (the last order counts), whoever performs it. A kill
    stops at a protection against ``kill``, unless ``unprotectable`` (the peer's hitman); a
    target already dead is not killed twice."""
    g = ctx.game
    if eff.params.get("team"):
        later = _superseded(ctx, intent)
        if later is not None:
            ctx.outcome[intent.seq] = "superseded"
            ctx.note(intent, f"superseded_by:{later.pid}")
            return
    for t in people:
        t = intercept(ctx, intent.pid, t, ["kill", "negative", *eff.labels], strike_kill)  # a bodyguard (op guard) first
        if t is None:
            ctx.outcome[intent.seq] = "protected"
            continue
        if not g.alive(t):
            ctx.note(intent, f"already_dead:{t.pid}")
            continue
        if not eff.params.get("unprotectable") and ctx.protection(t, ["kill", "negative", *eff.labels], intent.pid) is not None:
            ctx.note(intent, f"protected:{t.pid}")
            ctx.outcome[intent.seq] = "protected"
            ctx.emit("gm.saved", "gm", player=t.pid, actor=intent.pid)
            continue
        kill(ctx, t, intent.ability)


@impl("classic_check")
def classic_check(ctx: Ctx, intent: Intent, eff: Any, people: list[Player]) -> None:
    """The cop learns whether the target is mafia: a member of ``guilty`` teams as the check
    sees them (:func:`engine.resolve.appearance.seen_team`: a frame, a miller), unless their role
    ``appears_innocent``. A cop who died this night learns nothing (setting
    ``dead_learn_nothing``, the classic's)."""
    g = ctx.game
    guilty = eff.params.get("guilty", ["mafia"])
    innocent = eff.params.get("appears_innocent", [])
    for t in people:
        role = t.character or t.role
        value = seen_team(g, t) in guilty and role not in innocent
        ctx.emit("classic.check_guilty" if value else "classic.check_innocent", "players", [intent.pid], target=t.pid)


class PluralityLynch(Lynch):
    """The day lynch (:class:`engine.votes.Lynch`, its tally): the most votes is lynched; a tie
    for the most lynches nobody. With ``majority`` the base's count decides (a tie is no
    majority)."""

    @classmethod
    def count(cls, ctx: Ctx, vdef: Any, ballots: list[Any]) -> None:
        g = ctx.game
        tally = lynch_tally(ctx, vdef, ballots)
        top = max(tally.values(), default=0)
        leaders = sorted((c for c, n in tally.items() if n == top), key=str)
        if top > 0 and len(leaders) > 1 and vdef.params.get("majority", "none") == "none":
            g.emit("vote.tally", "public", vote=vdef.id, tally=[[k, tally_number(n)] for k, n in sorted(tally.items(), key=lambda kv: (-kv[1], str(kv[0])))])
            g.emit("classic.no_lynch_tie", "public", vote=vdef.id, players=[c for c in leaders if c != "peace"])
            return
        super().count(ctx, vdef, ballots)


VOTES["plurality_lynch"] = PluralityLynch


@victory("parity")
def parity(g: World, params: dict[str, Any], final: bool) -> list[int] | None:
    """The ``town`` team wins once no player of the ``threat`` teams is alive; a threat team
    wins once its living members are at least half of the living (``share``, default 1/2).
    Everybody dead, or the time out: nobody wins."""
    town, threats, share = _parity_params(g, params)
    # one pass over the seats: the team of each living player (World.team's own table, as far as
    # it is filled; the winners' list only once somebody wins)
    is_alive, team_of = g.alive, g.team
    known = g.rules.derived_cache.get(("teams",)) or {}
    players = g.state.players
    teams = [known.get(p.role if p.character is None else (p.role, p.character), _UNKNOWN)
             for p in players if not p.statuses or is_alive(p)]
    if _UNKNOWN in teams:
        teams = [team_of(p) for p in players if not p.statuses or is_alive(p)]
    living = len(teams)
    if not living:
        return []
    some = False
    for t in threats:
        n = teams.count(t)
        if n and n >= share * living:
            return [p.pid for p in players if team_of(p) == t]
        some = some or bool(n)
    if not some:
        return [p.pid for p in players if team_of(p) == town]
    return [] if final else None


def _parity_params(g: World, params: dict[str, Any]) -> tuple[str, list[str], float]:
    """``parity``'s parameters with their defaults (read once per ruleset and parameters)."""
    cache = g.rules.derived_cache
    found = cache.get(("parity_params",))
    if found is None or found[0] is not params:
        found = cache[("parity_params",)] = (params, (
            params.get("town", "town"), list(params.get("threats", ["mafia"])), float(params.get("share", 0.5))))
    return found[1]
