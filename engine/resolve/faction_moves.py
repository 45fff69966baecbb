"""Resolving the night's faction moves in the book's order: invitations, overthrow, leaving, kicks, acceptance."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ..factions import (
    ORDER,
    _too_soon,
    faction_limit,
    frozen,
    invite_faction,
    max_size,
    may_be_excluded,
    remove_member,
    rule,
)
from ..state import Faction, FactionOp, Player

if TYPE_CHECKING:
    from ..game import Game
    from .context import Ctx


@dataclass
class _Night:
    """What the faction moves of one night have settled so far."""

    valid: dict[tuple[int, int], str | None] = field(default_factory=dict)  # (inviter, invitee) -> faction (None: new)
    left: set[int] = field(default_factory=set)
    leaving: set[int] = field(default_factory=set)
    created: dict[int, str] = field(default_factory=dict)  # inviter -> the faction founded tonight
    # (inviter, invitee) invitations declined by themselves, the invitee told so: their accept
    # is not told a second time that it failed
    declined: set[tuple[int, int]] = field(default_factory=set)


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
        night.declined.add((o.pid, t.pid))
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


def _do_accept(g: Game, o: FactionOp, night: _Night) -> None:
    inviter, me = o.target, o.pid
    key = (inviter, me)
    p = g.player(me)
    if key in night.declined:
        return  # told once already (faction.invite_auto_declined): one event, one notice
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
