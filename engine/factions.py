"""Player-made factions: invitations, acceptance, leaving, kicks and overthrowing the leader.

Faction moves are not the player's turn and happen only at night; they resolve in the night's
``factions`` step in the book's order: invitations, overthrow, leaving, kicks, acceptance.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .errors import ActionError
from .state import Faction, FactionOp, Player

if TYPE_CHECKING:
    from .game import Game
    from .resolver import Ctx

ORDER = {"invite": 0, "overthrow": 1, "leave": 2, "kick": 3, "accept": 4, "decline": 5}


def max_size(g: Game, f: Faction) -> int:
    extra = g.passives(g.player(f.leader), "faction_max")
    return max([g.rules.factions.max_size, *[int(x["size"]) for x in extra]])


def invites_allowed(g: Game, p: Player) -> int:
    extra = g.passives(p, "invites_per_night")
    return max([g.rules.factions.invites_per_night, *[int(x["count"]) for x in extra]])


def _member_for(g: Game, f: Faction, pid: int) -> int:
    """Ticks since ``pid`` joined ``f``."""
    return g.state.tick - f.members[pid]


def check_op(g: Game, p: Player, op: str, target: int | None, fid: str | None) -> None:
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
            err = g._meets(p, req)
            if err:
                raise err
        if own and (not fr.leader_invites or not any(f.leader == p.pid for f in own)):
            raise ActionError("in_faction" if not fr.leader_invites else "not_leader")
        for f in own:
            if len(f.members) >= max_size(g, f):
                raise ActionError("faction_full")
        sent = [o for o in mine if o.op == "invite"]
        if any(o.target == target for o in sent):
            raise ActionError("duplicate_target")
        if len(sent) >= invites_allowed(g, p):
            raise ActionError("invite_quota", quota=invites_allowed(g, p))
        g.emit("faction.invited", "players", [target], inviter=p.pid)
        return
    if op in ("accept", "decline"):
        invites = [o for o in g.state.faction_ops if o.tick == g.state.tick and o.op == "invite" and o.target == p.pid and o.pid == target]
        if not invites:
            raise ActionError("no_invitation")
        return
    if not own:
        raise ActionError("not_in_faction")
    f = g.state.factions[fid] if fid in g.state.factions else own[0]
    if p.pid not in f.members:
        raise ActionError("not_in_faction")
    if op == "leave":
        if _member_for(g, f, p.pid) < g.clock.cycles(fr.leave_after_cycles) and f.members[p.pid] >= 0:
            raise ActionError("too_soon", cycles=fr.leave_after_cycles)
    elif op == "kick":
        if f.leader != p.pid:
            raise ActionError("not_leader")
        if target is None or target not in f.members or target == p.pid:
            raise ActionError("illegal_target", target=target)
        if _member_for(g, f, target) < g.clock.cycles(fr.leave_after_cycles) and f.members[target] >= 0:
            raise ActionError("too_soon", cycles=fr.leave_after_cycles)
        if any(o.op == "kick" for o in mine):
            raise ActionError("kick_quota")
    elif op == "overthrow":
        if f.leader == p.pid:
            raise ActionError("already_leader")
        if g.active(p, "prison") and not g.passives(p, "acts_in_prison"):
            raise ActionError("status_forbids", status="prison")


def resolve_ops(ctx: Ctx) -> None:
    g = ctx.game
    ops = sorted((o for o in g.state.faction_ops if o.tick == ctx.tick), key=lambda o: (ORDER[o.op], o.seq))
    if g.state.settings.get("faction_changes_blocked_until", -1) > ctx.tick:
        ops = [o for o in ops if o.op == "overthrow"]
    valid_invites: set[tuple[int, int]] = set()
    left_tonight: set[int] = set()
    for o in ops:
        handler = globals()[f"_do_{o.op}"]
        handler(g, o, valid_invites, left_tonight)
    g.state.faction_ops = [o for o in g.state.faction_ops if o.tick != ctx.tick]


def _do_invite(g: Game, o: FactionOp, valid: set[tuple[int, int]], left: set[int]) -> None:
    t = g.player(o.target)
    if g.factions_of(t.pid) and not g.passives(t, "two_factions"):
        g.emit("faction.invite_auto_declined", "players", [t.pid], inviter=o.pid)
        g.emit("faction.declined", "players", [o.pid], target=t.pid)
        return
    valid.add((o.pid, t.pid))


def _do_overthrow(g: Game, o: FactionOp, valid: set[tuple[int, int]], left: set[int]) -> None:
    f = next((f for f in g.factions_of(o.pid) if o.fid in (None, f.fid)), None)
    if f is None or f.leader == o.pid:
        return
    fr = g.rules.factions
    leader, me = g.player(f.leader), g.player(o.pid)
    # a passive "may compare by" another stat adds a way to win, it takes none away (Умный)
    by = [fr.overthrow_stat, *[x.get("stat") for x in g.passives(me, "overthrow_by")]]
    stats = [g.rules.stat(s).id for s in by if s]
    if all(g.true_stat(leader, s) > g.true_stat(me, s) for s in stats):
        _bump(g, me, fr.overthrow_fail)
        g.emit("faction.overthrow_failed", "players", [me.pid])
    else:
        f.leader = me.pid
        _bump(g, me, fr.overthrow_win)
        _bump(g, leader, fr.overthrow_lose)
        g.emit("faction.new_leader", "faction", [f.fid], leader=me.pid)


def _bump(g: Game, p: Player, deltas: dict[str, int]) -> None:
    for stat, n in deltas.items():
        sid = g.rules.stat(stat).id
        p.stats[sid] = p.stats.get(sid, 0) + n


def _do_leave(g: Game, o: FactionOp, valid: set[tuple[int, int]], left: set[int]) -> None:
    for f in g.factions_of(o.pid):
        if o.fid in (None, f.fid):
            remove_member(g, f, o.pid, reason="left")
            left.add(o.pid)
            return


def _do_kick(g: Game, o: FactionOp, valid: set[tuple[int, int]], left: set[int]) -> None:
    for f in g.factions_of(o.pid):
        if f.leader == o.pid and o.target in f.members:
            remove_member(g, f, o.target, reason="kicked")
            g.emit("faction.kicked", "players", [o.target], fid=f.fid)
            return


def _do_accept(g: Game, o: FactionOp, valid: set[tuple[int, int]], left: set[int]) -> None:
    inviter, me = o.target, o.pid
    if (inviter, me) not in valid or (me in left and not g.passives(g.player(me), "leave_and_join")):
        g.emit("faction.join_failed", "players", [me], inviter=inviter)
        return
    own = [f for f in g.factions_of(inviter) if f.leader == inviter]
    if own:
        f = own[0]
        if len(f.members) >= max_size(g, f):
            g.emit("faction.join_failed", "players", [me], inviter=inviter)
            return
    else:
        fid = f"f{g.state.next_faction}"
        while fid in g.state.factions:  # a starting faction may hold the name already
            g.state.next_faction += 1
            fid = f"f{g.state.next_faction}"
        g.state.next_faction += 1
        f = g.state.factions[fid] = Faction(fid=fid, leader=inviter, members={inviter: g.state.tick})
    f.members[me] = g.state.tick
    g.emit("faction.joined", "faction", [f.fid], player=me, fid=f.fid)


def _do_decline(g: Game, o: FactionOp, valid: set[tuple[int, int]], left: set[int]) -> None:
    g.emit("faction.declined", "players", [o.target], target=o.pid)


def remove_member(g: Game, f: Faction, pid: int, reason: str) -> None:
    f.members.pop(pid, None)
    g.emit("faction.member_left", "gm", fid=f.fid, player=pid, reason=reason)
    if len(f.members) < g.rules.factions.min_size:
        for m in list(f.members):
            g.emit("faction.dissolved", "players", [m], fid=f.fid)
        del g.state.factions[f.fid]
        return
    if f.leader == pid:
        f.leader = pick_leader(g, f)
        g.emit("faction.new_leader", "faction", [f.fid], leader=f.leader)


def pick_leader(g: Game, f: Faction, among: list[int] | None = None) -> int:
    """The member with the most ТВ, then ВО, then by the game's random generator."""
    members = sorted(among if among is not None else f.members)
    stats = [g.rules.stat(s).id for s in g.rules.factions.rank_stats]

    def rank(m: int) -> tuple[int, ...]:
        return tuple(g.true_stat(g.player(m), s) for s in stats)

    best = max(rank(m) for m in members)
    tied = [m for m in members if rank(m) == best]
    return tied[0] if len(tied) == 1 else g.rng.choice(tied)
