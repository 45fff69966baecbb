"""Seed 000 (Godfather's Legacy): unique abilities on stats, factions and their members.

Each is a small registered implementation that the ruleset names (``op: impl``). The
decisions where the book is terse are in docs/rules/godfather.md («Stat effects, factions and
victory»). Timed hidden changes are modifiers (only their owner knows them); timed public
changes are base changes that a status gives back when it runs out (``restore``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ...factions import dissolve, frozen, may_be_excluded, remove_member
from ...registry import impl
from ...resolve.effects import _stopped, change_stat, reflect
from ...resolve.targeting import recipients
from ...state import Intent, Modifier, Player, Status

if TYPE_CHECKING:
    from ...resolve.context import Ctx


def _until(ctx: Ctx, eff: Any, default: str = "cycle") -> int | None:
    return ctx.game.clock.end_of(ctx.tick, eff.until or default, eff.cycles)


def _sid(ctx: Ctx, eff: Any, default: str = "vo") -> str:
    return ctx.rules.stat(eff.stat or eff.params.get("stat", default)).id


def _hidden(ctx: Ctx, intent: Intent, p: Player, sid: str, amount: int, eff: Any) -> None:
    """A timed hidden change of ``p``'s stat. A secret stat's change reaches its owner with the
    report; a public stat's hidden change is told here (the public sees none of it)."""
    p.modifiers.append(Modifier(stat=sid, amount=amount, source=intent.ability, until=_until(ctx, eff)))
    if ctx.rules.stat(sid).visibility == "public":
        ctx.emit("factions.hidden_stat", "players", [p.pid], stat=sid, delta=amount)


def _no_effect(ctx: Ctx, intent: Intent, why: str) -> None:
    ctx.note(intent, why)
    ctx.outcome[intent.seq] = "no_effect"


def _labels(sid: str, extra: list[str]) -> list[str]:
    return ["stat", "negative", f"stat:{sid}", f"negative:{sid}", *extra]


@impl("swap_stat_changes")
def swap_stat_changes(ctx: Ctx, intent: Intent, eff: Any, people: list[Player]) -> None:
    """«Угостить вином с французских плантаций»: the net changes of a public stat of the two
    targets over the past cycle (the resolves before this one) change places."""
    g = ctx.game
    sid = _sid(ctx, eff)
    if len(people) != 2:
        return
    first = ctx.tick - g.clock.cycles(eff.cycles or 1)
    net = {p.pid: 0 for p in people}
    for ev in g.state.events:
        if ev.key == "report.stat" and ev.audience == "public" and first <= ev.tick < ctx.tick and ev.args.get("stat") == sid and ev.args.get("player") in net:
            net[ev.args["player"]] += int(ev.args.get("delta", 0))
    a, b = people
    for t, d in ((a, net[b.pid] - net[a.pid]), (b, net[a.pid] - net[b.pid])):
        if d:
            change_stat(ctx, intent, t, sid, d, eff.labels)
    ctx.emit("factions.swapped", "players", [intent.pid], player=a.pid, target=b.pid, stat=sid, first=f"{net[a.pid]:+d}", second=f"{net[b.pid]:+d}")


@impl("reflect_for_faction")
def reflect_for_faction(ctx: Ctx, intent: Intent, eff: Any, people: list[Player]) -> None:
    """«Божья кара»: until the end of this day (or night) whoever lowers a member's watched
    stat loses the same stat, ``1/divisor`` of it rounded down (engine/resolve/effects.py: reflect)."""
    until = _until(ctx, eff, "day")
    stats = [ctx.rules.stat(s).id for s in eff.params.get("stats", ["vo", "tv"])]
    for t in people:
        sid = f"reflect:{intent.seq}:{t.pid}"
        data = {"by": intent.pid, "seq": intent.seq, "ability": intent.ability, "stats": stats, "divisor": int(eff.params.get("divisor", 2))}
        t.statuses[sid] = Status(id=sid, since=ctx.tick, until=until, data=data, kind="reflect")
    ctx.outcome.setdefault(intent.seq, "applied")


def _acted_on(ctx: Ctx, other: Intent, t: Player) -> bool:
    """Whether ``other`` acts on ``t``: aimed at it (a redirect acts on the watched player, not
    on the new target), or reaching it as one of many (``to: all``, a faction...)."""
    effs = ctx.ability(other).all_effects(other.option)
    aimed = other.targets[:1] if effs and effs[0].op == "redirect" else other.targets
    if t.pid in aimed:
        return True
    return any(e.to not in ("target", "self") and any(p.pid == t.pid for p in recipients(ctx, other, e)) for e in effs)


@impl("punish_actors")
def punish_actors(ctx: Ctx, intent: Intent, eff: Any, people: list[Player]) -> None:
    """«Приказ ночному гарнизону»: everyone whose action of this tick reached the target (not
    blocked; after redirects) loses ``delta`` of the stat; the commander and the target
    themselves are not among them."""
    g = ctx.game
    sid = _sid(ctx, eff, "tv")
    delta = eff.delta if eff.delta is not None else -1
    for t in people:
        hit: set[int] = set()
        for other in ctx.intents:
            if other.seq == intent.seq or other.pid in (intent.pid, t.pid):
                continue
            if ctx.outcome.get(other.seq) == "blocked" or ctx.is_blocked(other):
                continue
            if _acted_on(ctx, other, t):
                hit.add(other.pid)
        for pid in sorted(hit):
            change_stat(ctx, intent, g.player(pid), sid, delta, eff.labels)
        ctx.emit("factions.gm_garrison", "gm", target=t.pid, players=sorted(hit))


@impl("faction_share")
def faction_share(ctx: Ctx, intent: Intent, eff: Any, people: list[Player]) -> None:
    """«Авторитет фракции»: a hidden bonus of ``percent`` % of the faction's summed base ВО
    (rounded down, never negative) to the chosen stat, for a cycle."""
    g = ctx.game
    sid = _sid(ctx, eff)
    of = ctx.rules.stat(eff.params.get("of", "vo")).id
    f = g.faction_of(intent.pid)
    if f is None:
        _no_effect(ctx, intent, "not_in_faction")
        return
    total = sum(g.player(m).stats.get(of, 0) for m in f.members)
    amount = max(0, total) * int(eff.params.get("percent", 50)) // 100
    for t in people:
        if amount:
            _hidden(ctx, intent, t, sid, amount, eff)


@impl("double_stat")
def double_stat(ctx: Ctx, intent: Intent, eff: Any, people: list[Player]) -> None:
    """«Усилить влияние»: a hidden bonus equal to the stat's true value (so it doubles; a value
    of zero or below is not «усилено»), for a cycle."""
    g = ctx.game
    sid = _sid(ctx, eff)
    for t in people:
        amount = max(0, g.true_stat(t, sid))
        if amount:
            _hidden(ctx, intent, t, sid, amount, eff)


@impl("take_faction_stat")
def take_faction_stat(ctx: Ctx, intent: Intent, eff: Any, people: list[Player]) -> None:
    """«Подорвать авторитет фракции» / «Спутать взгляды»: for a cycle the actor takes the whole
    stat (without the faction bonus; never a negative one) of every other member of their
    faction — with a target, of the faction they share with that target."""
    g = ctx.game
    sid = _sid(ctx, eff)
    actor = g.player(intent.pid)
    fs = g.factions_of(actor.pid)
    if intent.targets:
        fs = [f for f in fs if intent.targets[0] in f.members][:1]
    victims = sorted({m for f in fs for m in f.members} - {actor.pid})
    if not victims:
        _no_effect(ctx, intent, "not_in_faction")
        return
    total, taken = 0, []
    for m in victims:
        v = g.player(m)
        amount = g.true_stat(v, sid) - g.faction_bonus(v, sid)
        if amount <= 0 or _stopped(ctx, intent, v, _labels(sid, eff.labels), amount):
            continue
        _hidden(ctx, intent, v, sid, -amount, eff)
        reflect(ctx, intent, v, sid, -amount)
        total += amount
        taken.append(m)
    if total:
        _hidden(ctx, intent, actor, sid, total, eff)
    ctx.emit("factions.gm_taken", "gm", player=actor.pid, players=taken, stat=sid, amount=total)


@impl("timed_stat")
def timed_stat(ctx: Ctx, intent: Intent, eff: Any, people: list[Player]) -> None:
    """«Подкинуть награбленное»: a public change of the base stat that is given back when the
    time runs out (a status ``timed:*`` with ``restore``, engine/resolve/pipeline.py: _expire)."""
    sid = _sid(ctx, eff)
    delta = eff.delta or 0
    for t in people:
        if change_stat(ctx, intent, t, sid, delta, eff.labels):
            key = f"timed:{intent.seq}:{t.pid}"
            t.statuses[key] = Status(id=key, since=ctx.tick, until=_until(ctx, eff), data={"by": intent.pid, "restore": {sid: -delta}}, kind="timed")


@impl("dissolve_faction")
def dissolve_faction(ctx: Ctx, intent: Intent, eff: Any, people: list[Player]) -> None:
    """«Разгневать рабов на плантации чужой гильдии»: the target's faction is dissolved; a
    target in none: a random existing faction; never one of the actor's own."""
    g = ctx.game
    if frozen(g, ctx.tick):
        _no_effect(ctx, intent, "factions_frozen")
        return
    own = {f.fid for f in g.factions_of(intent.pid)}
    for t in people:
        theirs = g.factions_of(t.pid)
        pool = [f for f in (theirs or sorted(g.state.factions.values(), key=lambda f: f.fid)) if f.fid not in own]
        if not pool:
            _no_effect(ctx, intent, "no_faction")
            continue
        if theirs and _stopped(ctx, intent, t, ["faction", "negative", *eff.labels]):
            continue
        f = pool[0] if len(pool) == 1 else g.rng.choice(pool)
        dissolve(g, f, reason=intent.ability)


@impl("exclude_from_faction")
def exclude_from_faction(ctx: Ctx, intent: Intent, eff: Any, people: list[Player]) -> None:
    """«Философские изучения»: the target leaves every faction they are in (a leader's faction
    gets a successor; one member left dissolves it). Преданный's first 3 cycles hold."""
    g = ctx.game
    if frozen(g, ctx.tick):
        _no_effect(ctx, intent, "factions_frozen")
        return
    for t in people:
        fs = g.factions_of(t.pid)
        if not fs:
            _no_effect(ctx, intent, "not_in_faction")
            continue
        if _stopped(ctx, intent, t, ["faction", "negative", *eff.labels]):
            continue
        for f in fs:
            if may_be_excluded(g, f, t, by=None):
                remove_member(g, f, t.pid, reason="excluded")
                ctx.emit("faction.kicked", "players", [t.pid], fid=f.fid)


@impl("freeze_factions")
def freeze_factions(ctx: Ctx, intent: Intent, eff: Any, people: list[Player]) -> None:
    """«Стратегический триумф»: no faction changes but overthrows until the end of the night
    (engine/factions.py: frozen): no invitation, acceptance, leaving, kick, exclusion."""
    g = ctx.game
    until = _until(ctx, eff, "night") or 0
    g.state.core.faction_freeze_until = max(g.state.core.faction_freeze_until, until)
    ctx.emit("factions.gm_frozen", "gm", player=intent.pid)
