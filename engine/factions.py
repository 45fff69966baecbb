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
  are settled at the resolve, so a refusal at submission never reveals them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

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


def faction_limit(g: Game, p: Player) -> int:
    """How many factions ``p`` may be in at once."""
    return 2 if g.passives(p, "two_factions") else 1


def rule(g: Game, p: Player, key: str, default: Any = None) -> Any:
    """A character's exception to the faction rules (passive ``faction_rules``)."""
    for x in g.passives(p, "faction_rules"):
        if key in x:
            return x[key]
    return default


def frozen(g: Game, tick: int) -> bool:
    """Whether faction membership is frozen at ``tick`` (Стратег's «Стратегический триумф»)."""
    until = max(int(g.state.memo.get("faction_freeze_until", -1)), int(g.state.settings.get("faction_changes_blocked_until", -1)))
    return until > tick


def _member_for(g: Game, f: Faction, pid: int) -> int:
    """Ticks since ``pid`` joined ``f``."""
    return g.state.tick - f.members[pid]


def _too_soon(g: Game, f: Faction, pid: int, cycles: int) -> bool:
    """Members set up before the game (joined at -1) have no joining night to wait from."""
    return f.members[pid] >= 0 and _member_for(g, f, pid) < g.clock.cycles(int(cycles))


def invite_faction(g: Game, p: Player, fid: str | None) -> str | None | bool:
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
        if g.active(p, "prison") and not g.passives(p, "acts_in_prison"):
            raise ActionError("status_forbids", status="prison")


@dataclass
class _Night:
    """What the faction moves of one night have settled so far."""

    valid: dict[tuple[int, int], str | None] = field(default_factory=dict)  # (inviter, invitee) -> faction (None: new)
    left: set[int] = field(default_factory=set)
    leaving: set[int] = field(default_factory=set)
    created: dict[int, str] = field(default_factory=dict)  # inviter -> the faction founded tonight


def resolve_ops(ctx: Ctx) -> None:
    g = ctx.game
    ops = sorted((o for o in g.state.faction_ops if o.tick == ctx.tick), key=lambda o: (ORDER[o.op], o.seq))
    if frozen(g, ctx.tick):
        # «Стратегический триумф»: nothing changes but the leaders; each mover is told
        for o in ops:
            if o.op not in ("overthrow", "decline"):
                g.emit("factions.frozen", "players", [o.pid])
        ops = [o for o in ops if o.op == "overthrow"]
    night = _Night(leaving={o.pid for o in ops if o.op == "leave"})
    for o in ops:
        globals()[f"_do_{o.op}"](g, o, night)
    g.state.faction_ops = [o for o in g.state.faction_ops if o.tick != ctx.tick]


def _do_invite(g: Game, o: FactionOp, night: _Night) -> None:
    inviter, t = g.player(o.pid), g.player(o.target)
    into = invite_faction(g, inviter, o.fid)
    if into is False:
        g.emit("faction.declined", "players", [o.pid], target=t.pid)
        return
    already = into is not None and t.pid in g.state.factions[into].members
    full = len(g.factions_of(t.pid)) >= faction_limit(g, t)
    if already or (full and not (t.pid in night.leaving and g.passives(t, "leave_and_join"))):
        g.emit("faction.invite_auto_declined", "players", [t.pid], inviter=o.pid)
        g.emit("faction.declined", "players", [o.pid], target=t.pid)
        return
    night.valid[(o.pid, t.pid)] = into


def _do_overthrow(g: Game, o: FactionOp, night: _Night) -> None:
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


def _do_leave(g: Game, o: FactionOp, night: _Night) -> None:
    me = g.player(o.pid)
    for f in g.factions_of(o.pid):
        if o.fid not in (None, f.fid):
            continue
        leader = g.player(f.leader)
        wait = rule(g, leader, "led_wait") if leader.pid != me.pid else None
        if wait is not None and _too_soon(g, f, me.pid, wait):
            # «Возглавляемую Преданным фракцию нельзя покинуть в течение 3 суток»
            g.emit("factions.leave_failed", "players", [me.pid])
            if rule(g, leader, "tell_attempts"):
                g.emit("factions.leave_attempt", "players", [leader.pid], player=me.pid)
            return
        remove_member(g, f, me.pid, reason="left")
        night.left.add(me.pid)
        _bump(g, me, rule(g, me, "leave_bonus", {}))
        return


def _do_kick(g: Game, o: FactionOp, night: _Night) -> None:
    for f in g.factions_of(o.pid):
        if f.leader != o.pid or o.target not in f.members:
            continue
        t = g.player(o.target)
        if not may_be_excluded(g, f, t, by=o.pid):
            g.emit("factions.kick_failed", "players", [o.pid], target=t.pid)
            return
        remove_member(g, f, t.pid, reason="kicked")
        g.emit("faction.kicked", "players", [t.pid], fid=f.fid)
        # Подлый: «За каждого исключенного из своей фракции получает +3 ВО и +3 ТВ»
        for m in sorted(f.members):  # the faction's members, even if it just dissolved
            _bump(g, g.player(m), rule(g, g.player(m), "kick_bonus", {}))
        return


def may_be_excluded(g: Game, f: Faction, t: Player, by: int | None) -> bool:
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


def _do_accept(g: Game, o: FactionOp, night: _Night) -> None:
    inviter, me = o.target, o.pid
    key = (inviter, me)
    p = g.player(me)
    if (
        key not in night.valid
        or (me in night.left and not g.passives(p, "leave_and_join"))
        or len(g.factions_of(me)) >= faction_limit(g, p)
    ):
        g.emit("faction.join_failed", "players", [me], inviter=inviter)
        return
    fid = night.valid[key]
    if fid is None:
        fid = night.created.get(inviter)
    if fid is not None:
        f = g.state.factions.get(fid)
        if f is None or me in f.members or len(f.members) >= max_size(g, f):
            g.emit("faction.join_failed", "players", [me], inviter=inviter)
            return
    else:
        if len(g.factions_of(inviter)) >= faction_limit(g, g.player(inviter)):
            g.emit("faction.join_failed", "players", [me], inviter=inviter)
            return
        fid = f"f{g.state.next_faction}"
        while fid in g.state.factions:  # a starting faction may hold the name already
            g.state.next_faction += 1
            fid = f"f{g.state.next_faction}"
        g.state.next_faction += 1
        f = g.state.factions[fid] = Faction(fid=fid, leader=inviter, members={inviter: g.state.tick})
        night.created[inviter] = fid
    f.members[me] = g.state.tick
    g.emit("faction.joined", "faction", [f.fid], player=me, fid=f.fid)


def _do_decline(g: Game, o: FactionOp, night: _Night) -> None:
    g.emit("faction.declined", "players", [o.target], target=o.pid)


def remove_member(g: Game, f: Faction, pid: int, reason: str) -> None:
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


def dissolve(g: Game, f: Faction, reason: str) -> None:
    """Break a faction up at once: every member is free again (and told so)."""
    for m in sorted(f.members):
        g.emit("faction.dissolved", "players", [m], fid=f.fid)
    g.emit("factions.gm_dissolved", "gm", fid=f.fid, players=sorted(f.members), ability=reason)
    del g.state.factions[f.fid]


def pick_leader(g: Game, f: Faction, among: list[int] | None = None) -> int:
    """The member with the most ТВ, then ВО, then by the game's random generator."""
    members = sorted(among if among is not None else f.members)
    stats = [g.rules.stat(s).id for s in g.rules.factions.rank_stats]

    def rank(m: int) -> tuple[int, ...]:
        return tuple(g.true_stat(g.player(m), s) for s in stats)

    best = max(rank(m) for m in members)
    tied = [m for m in members if rank(m) == best]
    return tied[0] if len(tied) == 1 else g.rng.choice(tied)
