"""Built-in resolution steps: the parts of a resolve that are not somebody's action."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..factions import remove_member
from ..registry import IMPLS, VOTES, step
from ..state import Event, Faction
from .effects import kill
from .faction_moves import resolve_ops
from .upkeep import apply_bands, clamp

if TYPE_CHECKING:
    from ..ruleset import StepDef
    from .context import Ctx


@step("poison_death")
def poison_death(ctx: Ctx, sd: StepDef) -> None:
    """Seed 000: a poisoned player dies two cycles after the poisoning, to the tick."""
    g = ctx.game
    for p in g.state.players:
        s = p.statuses.get(g.rules.status_of_kind("poison") or "")
        if s is not None and s.data.get("dies_at", 10**9) <= ctx.tick and g.alive(p):
            kill(ctx, p, "poison")


@step("vote")
def vote_step(ctx: Ctx, sd: StepDef) -> None:
    g = ctx.game
    for vdef in g.rules.votes:
        if vdef.step != sd.id:
            continue
        counter = VOTES[vdef.kind]
        if not counter.due(ctx, vdef):
            continue
        ballots = [v for v in g.state.votes if v.vote == vdef.id]
        VOTES[vdef.kind].count(ctx, vdef, ballots)
        g.state.votes = [v for v in g.state.votes if v.vote != vdef.id]


@step("factions")
def faction_step(ctx: Ctx, sd: StepDef) -> None:
    resolve_ops(ctx)


@step("regen")
def regen(ctx: Ctx, sd: StepDef) -> None:
    """Passive recovery of a stat for holders of a status (seed 002's hospital: +15 HP a night)."""
    g = ctx.game
    stat, amount, status = sd.params["stat"], int(sd.params["amount"]), sd.params.get("status")
    for p in g.living():
        if status is None or (g.active(p, status) and p.statuses[status].since < ctx.tick):
            bonus = [x for x in g.passives(p, "regen") if x.get("status") == status]
            p.stats[stat] = p.stats.get(stat, 0) + (int(bonus[0]["amount"]) if bonus else amount)


@step("bands")
def bands_step(ctx: Ctx, sd: StepDef) -> None:
    """Health words from HP, then death for whoever is at or below zero after every step."""
    clamp(ctx.game, "resolve")
    apply_bands(ctx.game)
    g = ctx.game
    for p in g.state.players:
        if any(f.dead for f in g.status_flags(p)):
            for f in list(g.factions_of(p.pid)):
                remove_member(g, f, p.pid, reason="death")


@step("team_factions")
def team_factions(ctx: Ctx, sd: StepDef) -> None:
    """At the start, each team of ``params.teams`` becomes a faction: its members know each
    other and share a channel (seed 002's Mafia and Yakuza, the classic Mafia; with
    ``factions.orders`` one may give another's action). The lowest seat leads. Each member is
    told by the event ``params.event`` (default ``faction.team``) with the members' names."""
    g = ctx.game
    key = sd.params.get("event", "faction.team")
    for t in sd.params.get("teams", []):
        members = [p.pid for p in g.state.players if g.team(p) == t]
        if not members or t in g.state.factions:
            continue
        g.state.factions[t] = Faction(fid=t, leader=members[0], members={m: -1 for m in members}, name=t)
        ctx.emit(key, "faction", [t], players=members)


@step("impl")
def impl_step(ctx: Ctx, sd: StepDef) -> None:
    IMPLS[sd.params["impl"]](ctx, None, sd, [])


@step("messages")
def messages_step(ctx: Ctx, sd: StepDef) -> None:
    """Private news and statuses with ``messages`` (seed 002): a player who holds a ``drop``
    status (the dead) gets nothing of this resolve; one who holds a ``hold`` status (the coma)
    gets it later: it is kept and delivered, oldest first, in the resolve after which no such
    status holds (before that resolve's own news). Run it last: it reads the statuses as the
    next phase will have them."""
    g = ctx.game
    st = g.state
    modes = {s.id: s.messages for s in g.rules.statuses if s.messages != "deliver"}
    if not modes:
        return

    def mode(pid: int) -> str:
        p = g.player(pid)
        have = {modes[sid] for sid in p.statuses if sid in modes and g.active(p, sid, ctx.tick)}
        return "drop" if "drop" in have else "hold" if have else "deliver"

    kept: dict[int, int] = {}
    for ev in st.events[ctx.first_event:]:
        if ev.audience != "players":
            continue
        stay = []
        for pid in ev.ids:
            m = mode(pid)
            if m == "deliver":
                stay.append(pid)
                continue
            if m == "hold":
                st.held.setdefault(str(pid), []).append({"key": ev.key, "args": dict(ev.args)})
            kept[pid] = kept.get(pid, 0) + 1
        ev.ids = stay
    for pid, n in sorted(kept.items()):
        g.emit("gm.messages_held" if mode(pid) == "hold" else "gm.messages_dropped", "gm", player=pid, count=n)
    due: list[Event] = []
    for key in sorted(st.held, key=int):
        pid = int(key)
        m = mode(pid)
        if m == "drop":  # «Умершие в коме сообщений не получают»
            del st.held[key]
        elif m == "deliver":
            due += [Event(tick=ctx.tick, key=x["key"], args=x["args"], audience="players", ids=[pid]) for x in st.held.pop(key)]
    st.events[ctx.first_event:ctx.first_event] = due
