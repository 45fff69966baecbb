"""Player-made factions: invitations, acceptance, leaving, kicks and overthrowing the leader.

Faction moves are not the player's turn and happen only at night; they resolve in the night's
``factions`` step in the book's order: invitations, overthrow, leaving, kicks, acceptance.

Character exceptions are passives (``Game.passives``):

- ``two_factions``: may be in two factions at once (Двойной игрок);
- ``leave_and_join``: may leave one faction and join another in the same night (Подлый);
- ``invites_per_night`` / ``faction_max``: more invitations, a bigger faction (Харизматичный);
- ``faction_rules`` with any of: ``leave_wait`` (cycles after joining before one may leave),
  ``own_kick_wait`` (cycles after joining before one may kick), ``kick_wait`` (the wait one's
  kicks impose on the kicked), ``unlimited_kicks``, ``protected_for`` (cycles after joining
  in which one cannot be kicked or excluded), ``led_wait`` (cycles after joining in which the
  members of a faction one leads cannot leave), ``tell_attempts`` (learns of such attempts),
  ``leave_bonus`` / ``kick_bonus`` (stat changes per own leave and per member kicked from
  one's faction). Restrictions that come from someone else's secret character (Преданный)
  are settled at the resolve, so a refusal at submission never reveals them."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .errors import ActionError
from .state import Faction, Player
from .world import meets

if TYPE_CHECKING:
    from .world import World


ORDER = {"invite": 0, "overthrow": 1, "leave": 2, "kick": 3, "accept": 4, "decline": 5}


def max_size(g: World, f: Faction) -> int:
    extra = g.passives(g.player(f.leader), "faction_max")
    return max([g.rules.factions.max_size, *[int(x["size"]) for x in extra]])


def invites_allowed(g: World, p: Player) -> int:
    extra = g.passives(p, "invites_per_night")
    return max([g.rules.factions.invites_per_night, *[int(x["count"]) for x in extra]])


def faction_limit(g: World, p: Player) -> int:
    """How many factions ``p`` may be in at once."""
    return 2 if g.passives(p, "two_factions") else 1


def rule(g: World, p: Player, key: str, default: Any = None) -> Any:
    """A character's exception to the faction rules (passive ``faction_rules``)."""
    for x in g.passives(p, "faction_rules"):
        if key in x:
            return x[key]
    return default


def frozen(g: World, tick: int) -> bool:
    """Whether faction membership is frozen at ``tick`` (Стратег's «Стратегический триумф»)."""
    until = max(g.state.core.faction_freeze_until, g.settings.faction_changes_blocked_until)
    return until > tick


def _member_for(g: World, f: Faction, pid: int) -> int:
    """Ticks since ``pid`` joined ``f``."""
    return g.state.tick - f.members[pid]


def _too_soon(g: World, f: Faction, pid: int, cycles: int) -> bool:
    """Members set up before the game (joined at -1) have no joining night to wait from."""
    return f.members[pid] >= 0 and _member_for(g, f, pid) < g.clock.cycles(int(cycles))


def invite_faction(g: World, p: Player, fid: str | None) -> str | None | bool:
    """The faction an invitation of ``p`` is for: an id, None (a new one) or False (none).

    A leader invites into the faction they lead (``leader_invites``); a free player — or a
    Двойной игрок in only one faction — founds a new one (``fid: new`` asks for it)."""
    led = [f for f in g.factions_of(p.pid) if f.leader == p.pid]
    free = len(g.factions_of(p.pid)) < faction_limit(g, p)
    if fid == "new":
        return None if free else False
    if fid is not None:
        return fid if any(f.fid == fid for f in led) and g.rules.factions.leader_invites else False
    if led and g.rules.factions.leader_invites:
        return led[0].fid
    return None if free else False


def pending_invitations(g: World, pid: int) -> list[int]:
    """Who invited ``pid`` in this phase, by seat: whose invitation ``pid`` may accept or
    decline now (an invitation lasts the night it is made)."""
    tick = g.state.tick
    return sorted({o.pid for o in g.state.faction_ops if o.op == "invite" and o.target == pid and o.tick == tick})


def check_op(g: World, p: Player, op: str, target: int | None, fid: str | None) -> None:
    fr = g.rules.factions
    if not fr.enabled:
        raise ActionError("no_factions")
    if g.state.over:
        raise ActionError("game_over")
    if op not in ORDER:
        raise ActionError("unknown_faction_op", op=op)
    if g.info.kind != "night":
        raise ActionError("wrong_phase", phase="night")
    if not g.alive(p):
        raise ActionError("not_alive")
    mine = [o for o in g.state.faction_ops if o.tick == g.state.tick and o.pid == p.pid]
    if target is not None and not g.alive(g.player(target)):
        raise ActionError("target_not_alive", target=target)
    own = g.factions_of(p.pid)
    if op == "invite":
        if target is None or target == p.pid:
            raise ActionError("self_target")
        for req in fr.invite_requires:
            err = meets(g, p, req)
            if err:
                raise err
        into = invite_faction(g, p, fid)
        if into is False:
            raise ActionError("not_leader" if fr.leader_invites else "in_faction")
        if into is not None and len(g.state.factions[into].members) >= max_size(g, g.state.factions[into]):
            raise ActionError("faction_full")
        sent = [o for o in mine if o.op == "invite"]
        if any(o.target == target for o in sent):
            raise ActionError("duplicate_target")
        quota = invites_allowed(g, p)
        if fr.invites_within_room and into is not None:
            f = g.state.factions[into]
            quota = min(quota, max_size(g, f) - len(f.members))
        if len(sent) >= quota:
            raise ActionError("invite_quota", quota=quota)
        g.emit("faction.invited", "players", [target], inviter=p.pid)
        return
    if op in ("accept", "decline"):
        if target not in pending_invitations(g, p.pid):
            raise ActionError("no_invitation")
        return
    if not own:
        raise ActionError("not_in_faction")
    f = g.state.factions[fid] if fid in g.state.factions else own[0]
    if p.pid not in f.members:
        raise ActionError("not_in_faction")
    if op == "leave":
        wait = rule(g, p, "leave_wait", fr.leave_after_cycles)
        if _too_soon(g, f, p.pid, wait):
            raise ActionError("too_soon", cycles=wait)
    elif op == "kick":
        if f.leader != p.pid:
            raise ActionError("not_leader")
        if target is None or target not in f.members or target == p.pid:
            raise ActionError("illegal_target", target=target)
        own_wait = rule(g, p, "own_kick_wait", 0)
        if _too_soon(g, f, p.pid, own_wait):
            raise ActionError("too_soon", cycles=own_wait)
        wait = rule(g, p, "kick_wait", fr.leave_after_cycles)
        if _too_soon(g, f, target, wait):
            raise ActionError("too_soon", cycles=wait)
        if any(o.op == "kick" for o in mine) and not rule(g, p, "unlimited_kicks", False):
            raise ActionError("kick_quota")
    elif op == "overthrow":
        if f.leader == p.pid:
            raise ActionError("already_leader")
        prison = g.rules.status_of_kind("prison")
        if prison and g.active(p, prison) and not g.passives(p, f"acts_in_{prison}"):
            raise ActionError("status_forbids", status=prison)


def may_be_excluded(g: World, f: Faction, t: Player, by: int | None) -> bool:
    """False while ``t`` is protected from exclusion (Преданный's first 3 cycles); they learn
    of the attempt (``by`` is named when it is their leader's kick)."""
    wait = rule(g, t, "protected_for")
    if wait is None or not _too_soon(g, f, t.pid, wait):
        return True
    if rule(g, t, "tell_attempts"):
        if by is not None:
            g.emit("factions.kick_attempt", "players", [t.pid], player=by)
        else:
            g.emit("factions.exclusion_attempt", "players", [t.pid])
    return False


def remove_member(g: World, f: Faction, pid: int, reason: str) -> None:
    f.members.pop(pid, None)
    g.emit("faction.member_left", "gm", fid=f.fid, player=pid, reason=reason)
    if reason != "death" and f.members:
        # the rest of the faction sees it in the faction's channel
        key = {"left": "factions.gone_left", "kicked": "factions.gone_kicked"}.get(reason, "factions.gone")
        g.emit(key, "players", sorted(f.members), player=pid)
    if len(f.members) < g.rules.factions.min_size:
        for m in list(f.members):
            g.emit("faction.dissolved", "players", [m], fid=f.fid)
        del g.state.factions[f.fid]
        return
    if f.leader == pid:
        f.leader = pick_leader(g, f)
        g.emit("faction.new_leader", "faction", [f.fid], leader=f.leader)


def dissolve(g: World, f: Faction, reason: str) -> None:
    """Break a faction up at once: every member is free again (and told so)."""
    for m in sorted(f.members):
        g.emit("faction.dissolved", "players", [m], fid=f.fid)
    g.emit("factions.gm_dissolved", "gm", fid=f.fid, players=sorted(f.members), ability=reason)
    del g.state.factions[f.fid]


def pick_leader(g: World, f: Faction, among: list[int] | None = None) -> int:
    """The member with the most ТВ, then ВО, then by the game's random generator."""
    members = sorted(among if among is not None else f.members)
    stats = [g.rules.stat(s).id for s in g.rules.factions.rank_stats]

    def rank(m: int) -> tuple[int, ...]:
        return tuple(g.true_stat(g.player(m), s) for s in stats)

    best = max(rank(m) for m in members)
    tied = [m for m in members if rank(m) == best]
    return tied[0] if len(tied) == 1 else g.rng.choice(tied)
