"""Seed 000 (Godfather's Legacy): information, secrecy and private messages.

Who acted on whom is read from ``GameState.history`` (one record per target of every resolved
action; a targetless action has ``target: None``) and, for the tick being resolved, from the
intents of the resolve itself (their targets are final once redirects ran, their blocks once
the blocks step ran: information abilities resolve in the ``checks`` step, after both).

Secrecy (Хитрец's feature, «Устроить бал-маскарад»): an action whose performer is hidden at its
tick cannot be detected, a PM with a hidden party at its tick cannot be read, counted or
published. Hidden things are left out silently, so a result never tells that someone is
hidden. Nobody is hidden from themself, and a masquerade does not hide its guests from each
other. Decisions: docs/rules/godfather.md.

Memory: :class:`InfoMemory` (the snapshot's ``memo["info"]``) holds the masquerades
(``masks``) and the armed PM taps (``taps``);
``GameState.core.anons`` (written by the resolver) numbers the published anonymous posts.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ...registry import book_memory, impl
from ...state import Intent, Player, Pm

if TYPE_CHECKING:
    from ...resolve.context import Ctx
    from ...world import World


# ---- memory and secrecy ------------------------------------------------------------------
@book_memory("info")
@dataclass
class InfoMemory:
    """Seed 000's information features between ticks."""

    masks: list[dict[str, Any]] = field(default_factory=list)  # «Маскарад»: pids hidden together, since, until, by
    taps: list[dict[str, Any]] = field(default_factory=list)  # armed PM taps: by, the last PM seq read, copies left


def _memo(g: World) -> InfoMemory:
    return g.state.place(InfoMemory)


def _masked(g: World, pid: int, tick: int, viewer: int | None) -> bool:
    for m in g.state.peek(InfoMemory).masks:
        if pid in m["pids"] and m["since"] <= tick < m["until"] and viewer not in m["pids"]:
            return True
    return False


def hidden_action(g: World, actor: int, tick: int, viewer: int | None) -> bool:
    """Whether ``viewer`` cannot detect what ``actor`` did at ``tick``."""
    if actor == viewer:
        return False
    return bool(g.passives(g.player(actor), "undetectable")) or _masked(g, actor, tick, viewer)


def sealed_pm(g: World, pm: Pm, viewer: int | None) -> bool:
    """Whether ``viewer`` cannot read, count or publish ``pm`` (a party's correspondence is secret)."""
    for party in (pm.sender, pm.recipient):
        if party == viewer:
            continue
        if g.passives(g.player(party), "sealed_pms") or _masked(g, party, pm.tick, viewer):
            return True
    return False


# ---- who acted on whom ---------------------------------------------------------------------
def acts(g: World, first_tick: int, ctx: Ctx | None = None) -> list[dict[str, Any]]:
    """Every action resolved from ``first_tick`` on: ``{tick, actor, ability, targets, blocked}``.

    With ``ctx``, the actions of the tick being resolved are included too."""
    out: dict[tuple[int, int, str, bool], dict[str, Any]] = {}
    for h in g.state.history:
        if h["tick"] < first_tick or (ctx is not None and h["tick"] >= ctx.tick):
            continue
        key = (h["tick"], h["actor"], h["ability"], bool(h.get("blocked")))
        rec = out.setdefault(key, {"tick": h["tick"], "actor": h["actor"], "ability": h["ability"], "targets": [], "blocked": key[3]})
        if h.get("target") is not None and h["target"] not in rec["targets"]:
            rec["targets"].append(h["target"])
    if ctx is not None and ctx.tick >= first_tick:
        for i in ctx.intents:
            blocked = ctx.outcome.get(i.seq) == "blocked" or ctx.is_blocked(i)
            key = (ctx.tick, i.pid, i.ability, blocked)
            rec = out.setdefault(key, {"tick": ctx.tick, "actor": i.pid, "ability": i.ability, "targets": [], "blocked": blocked})
            rec["targets"] += [t for t in i.targets if t not in rec["targets"]]
    return sorted(out.values(), key=lambda r: (r["tick"], r["actor"], r["ability"]))


def visible_acts(g: World, first_tick: int, viewer: int | None, ctx: Ctx | None = None) -> list[dict[str, Any]]:
    """The actions ``viewer`` may detect: performed (not blocked) and not hidden."""
    return [r for r in acts(g, first_tick, ctx) if not r["blocked"] and not hidden_action(g, r["actor"], r["tick"], viewer)]


def faction_acts(g: World, viewer: int, cycles: int = 1) -> dict[int, list[int]]:
    """Внимательный's feature as a query ("всегда знает (по запросу), на кого воздействовали
    члены его фракции"): for each other member of the viewer's factions, whom they acted on
    in the last ``cycles`` cycles of resolved ticks. Reads the state only; the Discord layer
    may call it at any time (``engine.books.godfather.info.faction_acts``)."""
    first = g.state.tick - g.clock.cycles(cycles)
    members = g.teammates(viewer)
    out: dict[int, list[int]] = {m: [] for m in members}
    for r in visible_acts(g, first, viewer):
        if r["actor"] in out:
            out[r["actor"]] += [t for t in r["targets"] if t not in out[r["actor"]]]
    return out


def _stopped(ctx: Ctx, intent: Intent, t: Player) -> bool:
    """A protection against checks stops an information ability aimed at ``t``."""
    if ctx.protection(t, ["check"], intent.pid) is None:
        return False
    ctx.note(intent, f"protected:{t.pid}")
    ctx.outcome[intent.seq] = "protected"
    return True


def _pm_copy(ctx: Ctx, pid: int, pm: Pm) -> None:
    ctx.emit("info.pm_copy", "players", [pid], sender=pm.sender, target=pm.recipient, text=pm.text)


def _first_of_window(ctx: Ctx, cycles: int = 1) -> int:
    """The first tick of the ``cycles`` × 24 hours that end with the tick being resolved."""
    return ctx.tick - ctx.game.clock.cycles(cycles) + 1


# ---- abilities -------------------------------------------------------------------------------
@impl("masquerade")
def masquerade(ctx: Ctx, intent: Intent, eff: Any, people: list[Player]) -> None:
    """«Устроить бал-маскарад»: for a cycle from this tick the members' actions cannot be
    detected and their correspondence cannot be read (by anyone outside the ball). It resolves
    with the ВО/ТВ effects: after the blocks (a blocked ball is no ball), before the checks."""
    g = ctx.game
    cycles = int(eff.params.get("cycles", 1))
    for f in g.factions_of(intent.pid):
        pids = sorted(f.members)
        _memo(g).masks.append({"pids": pids, "since": ctx.tick, "until": g.clock.lasts_until(ctx.tick, cycles), "by": intent.pid})
        ctx.emit("info.masquerade", "faction", [f.fid], by=intent.pid)


@impl("gather_gossip")
def gather_gossip(ctx: Ctx, intent: Intent, eff: Any, people: list[Player]) -> None:
    """«Собрать сплетни»: every secret (character) action performed in the last 24 hours, with
    its targets, without its performer."""
    g = ctx.game
    slots = set(eff.params.get("slots", ["character_day", "character_night"]))
    found = []
    for r in visible_acts(g, _first_of_window(ctx), intent.pid, ctx):
        if r["actor"] == intent.pid or g.ability_def(r["ability"]).slot not in slots:
            continue
        found.append(r)
    # by time, then by ability and targets: the order must not hint at the performers' seats
    found.sort(key=lambda r: (r["tick"], r["ability"], r["targets"]))
    if not found:
        ctx.emit("info.gossip_none", "players", [intent.pid])
        return
    ctx.emit("info.gossip", "players", [intent.pid], count=len(found))
    for r in found:
        phase = g.clock.info(r["tick"]).label
        if r["targets"]:
            ctx.emit("info.gossip_item", "players", [intent.pid], phase=phase, ability=r["ability"], targets=r["targets"])
        else:
            ctx.emit("info.gossip_item_untargeted", "players", [intent.pid], phase=phase, ability=r["ability"])


@impl("debtor_secrets")
def debtor_secrets(ctx: Ctx, intent: Intent, eff: Any, people: list[Player]) -> None:
    """«Выведать секреты должника»: the members of every faction."""
    g = ctx.game
    factions = sorted(g.state.factions.values(), key=lambda f: min(f.members) if f.members else 0)
    if not factions:
        ctx.emit("info.no_factions", "players", [intent.pid])
        return
    for f in factions:
        ctx.emit("info.faction_roster", "players", [intent.pid], players=sorted(f.members))


@impl("close_watch")
def close_watch(ctx: Ctx, intent: Intent, eff: Any, people: list[Player]) -> None:
    """«Пристальное наблюдение»: whom the target acted on in the night just past and this day."""
    g = ctx.game
    info = g.clock.info(ctx.tick)
    first = ctx.tick - info.index  # the first period of this cycle's day
    if info.kind == "day":
        first -= 1  # the night just past: the last tick of the previous cycle
    first = max(0, first)
    for t in people:
        if _stopped(ctx, intent, t):
            continue
        hit: list[int] = []
        for r in visible_acts(g, first, intent.pid, ctx):
            if r["actor"] == t.pid:
                hit += [x for x in r["targets"] if x not in hit]
        if hit:
            ctx.emit("info.close_watch", "players", [intent.pid], target=t.pid, players=sorted(hit))
        else:
            ctx.emit("info.close_watch_none", "players", [intent.pid], target=t.pid)


@impl("counter_strike")
def counter_strike(ctx: Ctx, intent: Intent, eff: Any, people: list[Player]) -> None:
    """«Ответный удар»: whom the target acted on tonight and who acted on the target, no actions."""
    g = ctx.game
    for t in people:
        if _stopped(ctx, intent, t):
            continue
        on: list[int] = []
        by: list[int] = []
        for r in visible_acts(g, ctx.tick, intent.pid, ctx):
            if r["actor"] == t.pid:
                on += [x for x in r["targets"] if x not in on]
            if t.pid in r["targets"] and r["actor"] not in by and r["actor"] not in (intent.pid, t.pid):
                by.append(r["actor"])
        ctx.emit("info.counter_strike", "players", [intent.pid], target=t.pid, targets=sorted(on), players=sorted(by))


@impl("faction_watch")
def faction_watch(ctx: Ctx, intent: Intent, eff: Any, people: list[Player]) -> None:
    """Внимательный's feature on request: whom each member of his factions acted on in 24 hours."""
    g = ctx.game
    members = g.teammates(intent.pid)
    found: dict[int, list[int]] = {m: [] for m in members}
    for r in visible_acts(g, _first_of_window(ctx), intent.pid, ctx):
        if r["actor"] in found:
            found[r["actor"]] += [x for x in r["targets"] if x not in found[r["actor"]]]
    for m in members:
        if found[m]:
            ctx.emit("info.faction_acts", "players", [intent.pid], player=m, players=sorted(found[m]))
        else:
            ctx.emit("info.faction_acts_none", "players", [intent.pid], player=m)


@impl("bribe_courier")
def bribe_courier(ctx: Ctx, intent: Intent, eff: Any, people: list[Player]) -> None:
    """«Подкупить почтового гонца»: to whom the target wrote PMs in the day just past, with counts."""
    g = ctx.game
    day = g.clock.info(ctx.tick).day
    for t in people:
        if _stopped(ctx, intent, t):
            continue
        counts: dict[int, int] = {}
        for pm in g.state.pms:
            info = g.clock.info(pm.tick)
            if pm.sender != t.pid or info.kind != "day" or info.day != day or sealed_pm(g, pm, intent.pid):
                continue
            counts[pm.recipient] = counts.get(pm.recipient, 0) + 1
        if counts:
            ctx.emit("info.courier", "players", [intent.pid], target=t.pid, tally=[[r, n] for r, n in sorted(counts.items())])
        else:
            ctx.emit("info.courier_none", "players", [intent.pid], target=t.pid)


@impl("open_letters")
def open_letters(ctx: Ctx, intent: Intent, eff: Any, people: list[Player]) -> None:
    """Внимательный's feature: the next ``count`` PMs relayed after this resolve are copied to
    him as they pass (delivered at each resolve by the ``info_features`` step)."""
    g = ctx.game
    count = int(eff.params.get("count", 3))
    _memo(g).taps.append({"by": intent.pid, "after": g.state.seq, "left": count})
    ctx.emit("info.letters_armed", "players", [intent.pid], count=count)


@impl("compare_views")
def compare_views(ctx: Ctx, intent: Intent, eff: Any, people: list[Player]) -> None:
    """«Сравнение взглядов»: whether the two are in one faction, and whether each is in one."""
    g = ctx.game
    if len(people) != 2 or any(_stopped(ctx, intent, t) for t in people):
        return
    a, b = people
    fa = {f.fid for f in g.factions_of(a.pid)}
    fb = {f.fid for f in g.factions_of(b.pid)}
    if fa & fb:
        ctx.emit("info.views_same", "players", [intent.pid], player=a.pid, target=b.pid)
    elif fa and fb:
        ctx.emit("info.views_apart", "players", [intent.pid], player=a.pid, target=b.pid)
    elif fa or fb:
        inside, outside = (a, b) if fa else (b, a)
        ctx.emit("info.views_one", "players", [intent.pid], player=inside.pid, target=outside.pid)
    else:
        ctx.emit("info.views_none", "players", [intent.pid], player=a.pid, target=b.pid)


@impl("agent_network")
def agent_network(ctx: Ctx, intent: Intent, eff: Any, people: list[Player]) -> None:
    """«Агентурная сеть»: everyone's current ТВ (with every hidden bonus)."""
    g = ctx.game
    stat = g.rules.stat(eff.params.get("stat", "tv")).id
    ctx.emit("info.agent_network", "players", [intent.pid], stat=stat, tally=[[p.pid, g.true_stat(p, stat)] for p in g.living()])


@impl("eavesdrop")
def eavesdrop(ctx: Ctx, intent: Intent, eff: Any, people: list[Player]) -> None:
    """Двойной игрок's feature: ``count`` random PMs the chosen member wrote in the last 24 hours."""
    g = ctx.game
    count = int(eff.params.get("count", 5))
    first = _first_of_window(ctx)
    for t in people:
        if _stopped(ctx, intent, t):
            continue
        pool = sorted(
            (pm for pm in g.state.pms if pm.sender == t.pid and pm.tick >= first and pm.recipient != intent.pid and not sealed_pm(g, pm, intent.pid)),
            key=lambda pm: pm.seq,
        )
        if not pool:
            ctx.emit("info.eavesdrop_none", "players", [intent.pid], target=t.pid)
            continue
        picked = sorted(g.rng.sample(pool, min(count, len(pool))), key=lambda pm: pm.seq)
        for pm in picked:
            _pm_copy(ctx, intent.pid, pm)


@impl("guess_author")
def guess_author(ctx: Ctx, intent: Intent, eff: Any, people: list[Player]) -> None:
    """«Догадка»: the author of the published anonymous post whose number is the option."""
    g = ctx.game
    try:
        n = int(str(intent.option))
    except ValueError:
        n = 0
    post = next((a for a in g.state.core.anons if a.n == n), None)
    if post is None:
        ctx.emit("info.guess_none", "players", [intent.pid], n=n)
    else:
        ctx.emit("info.guess", "players", [intent.pid], n=n, player=post.pid)


@impl("end_day_query")
def end_day_query(ctx: Ctx, intent: Intent, eff: Any, people: list[Player]) -> None:
    """Стратег's feature: the day on whose morning the game now ends."""
    end = ctx.game.state.end_day
    ctx.emit("info.end_day", "players", [intent.pid], day=end, morning=end + 1)


# ---- the resolve step: features that work by themselves ------------------------------------
@impl("info_features")
def info_features(ctx: Ctx, intent: Intent | None, sd: Any, people: list[Player]) -> None:
    """Every resolve: armed PM taps deliver; at the end of a day, Тактик's feature."""
    g = ctx.game
    _deliver_taps(ctx)
    info = g.clock.info(ctx.tick)
    if info.kind == "day" and g.clock.is_turn_end(ctx.tick):
        for p in g.living():
            for params in g.passives(p, "pm_leak"):
                _pm_leak(ctx, p, info.turn, params)


def _deliver_taps(ctx: Ctx) -> None:
    g = ctx.game
    memo = g.state.peek(InfoMemory)
    if not memo.taps:
        return
    kept = []
    for tap in memo.taps:
        owner = g.player(tap["by"])
        if not g.alive(owner):
            continue
        for pm in sorted((pm for pm in g.state.pms if pm.seq > tap["after"]), key=lambda pm: pm.seq):
            if tap["left"] <= 0:
                break
            tap["after"] = pm.seq
            if owner.pid in (pm.sender, pm.recipient) or sealed_pm(g, pm, owner.pid):
                continue
            _pm_copy(ctx, owner.pid, pm)
            tap["left"] -= 1
        if tap["left"] > 0:
            kept.append(tap)
    memo.taps = kept


def _pm_leak(ctx: Ctx, p: Player, turn: str, params: dict[str, Any]) -> None:
    """Тактик: one random PM of the day published for everyone (text only), and three random
    PMs of the day with senders and recipients for him. His own correspondence is left out."""
    g = ctx.game
    pool = sorted(
        (pm for pm in g.state.pms if g.clock.info(pm.tick).turn == turn and p.pid not in (pm.sender, pm.recipient) and not sealed_pm(g, pm, p.pid)),
        key=lambda pm: pm.seq,
    )
    publish, learn = int(params.get("publish", 1)), int(params.get("learn", 3))
    if not pool:
        ctx.emit("info.leak_none", "players", [p.pid])
        return
    published = g.rng.sample(pool, min(publish, len(pool)))
    for pm in published:
        ctx.emit("info.pm_published", "public", text=pm.text)
        ctx.emit("gm.pm_published", "gm", sender=pm.sender, target=pm.recipient, player=p.pid)
    rest = [pm for pm in pool if pm not in published] or pool
    for pm in sorted(g.rng.sample(rest, min(learn, len(rest))), key=lambda pm: pm.seq):
        _pm_copy(ctx, p.pid, pm)
