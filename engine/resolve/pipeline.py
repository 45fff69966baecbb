"""Resolving one tick: every action of a day period (or a night) at once, step by step.

The step order is ruleset data (``steps.day`` / ``steps.night``). A step of kind ``actions``
runs the submitted actions whose ability belongs to it, by seat; any other kind is a built-in
step from :data:`engine.registry.STEPS`. Modifiers (protections, blocks, redirects) come first
in every shipped ruleset so they settle before the effects they touch; conflicts between two
modifiers settle by that order and then by seat, never by chance."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..errors import GameError
from ..registry import EFFECTS, STEPS, VICTORIES, VOTES
from ..state import Event, Intent, PublishedAnon
from . import effects as _effects  # noqa: F401  (registers the primitives)
from . import steps as _steps  # noqa: F401  (registers the built-in steps)
from .context import Ctx
from .notices import (
    CHAIN,
    FRESH,
    action_result,
    one_fact,
    seed_own,
    stat_causes,
    status_notices,
    step_cause,
    tell,
    tracked,
)
from .order import run_in_order
from .targeting import recipients
from .upkeep import _spend, apply_bands, clamp, owes_turn

if TYPE_CHECKING:
    from ..world import World


def resolve_tick(game: World, first_event: int | None = None) -> list[Event]:
    """Resolve the current tick of ``game`` with the actions submitted for it (the moves the
    rules make for the players are made before: :func:`engine.orders.moves_due`); returns the
    events from ``first_event`` on (default: this call's first), the resolve's own."""
    st = game.state
    if st.over:
        raise GameError("the game is over")
    if first_event is None:
        first_event = len(st.events)
    info = game.info
    tick = st.tick
    rules = game.rules
    intents = sorted([i for i in st.intents if i.tick == tick], key=_by_seat)
    ctx = Ctx(game=game, tick=tick, intents=intents, first_event=first_event)
    before = _snapshot(game)
    if game.private_notices:  # the own stats as the resolve begins are the snapshot's (notices.OWN)
        seed_own(ctx, {pid: row[1] for pid, row in before.items()})
    _secretly_unreachable(ctx)

    # the steps: tracked work back to back (actions, steps, clamps); the step's stats snapshot
    # and the order of its actions change nothing the own stats read (notices.CHAIN)
    ctx.scratch[CHAIN] = True
    by_step: dict[str, list[Intent]] = {}
    for i in intents:
        by_step.setdefault(ctx.step_of(i), []).append(i)
    for step in rules.steps[info.kind]:
        if step.kind == "actions":
            todo = by_step.get(step.id, [])
            if todo:  # the stats as the step begins, which its actions' effects read (``where``)
                ctx.step_stats = {p.pid: p.stats.copy() for p in st.players}
            run_in_order(ctx, step, todo, _run_tracked)
        else:
            tracked(ctx, step_cause(game, step), lambda step=step: STEPS[step.kind](ctx, step))
        tracked(ctx, "limit", lambda: clamp(game, "step"))

    ctx.scratch[CHAIN] = False
    ctx.scratch.pop(FRESH, None)

    settings = game.settings
    turn = info.turn
    results = settings.tell_results and game.private_notices  # else action_result tells nothing
    for intent in intents:
        # setting ``blocked_spends: false`` (seed 003: the blocked actions «не учитываются»): a
        # blocked action spends no use, cooldown or lane, as if it had not been submitted
        result = ctx.outcome.setdefault(intent.seq, "applied")
        if result != "blocked" or settings.blocked_spends:
            _spend(game, intent, turn, game.ability_def(intent.ability))
        game.emit("trace.action", "gm", actor=intent.pid, ability=intent.ability, targets=list(intent.targets),
                  option=intent.option, result=result, reasons=ctx.reasons.get(intent.seq, []))
        if result == "blocked" and settings.tell_blocked:
            game.emit("private.no_effect", "players", [intent.pid], ability=intent.ability)
        if results:
            action_result(game, intent, result)
    st.history.extend(ctx.acted)

    if game.clock.is_turn_end(tick) and game.rules.inactivity.mode == "penalty":
        tracked(ctx, "inactive", lambda: _inactivity(ctx))
    tracked(ctx, "limit", lambda: clamp(game, "resolve"))
    apply_bands(game, announce=False)
    if st.anons:
        _publish_anons(game)
    check = any(sd.kind == "prison_thresholds" and sd.params.get("every_tick") for sd in rules.steps[info.kind])
    restored = {p.pid: dict(p.stats) for p in st.players} if check else {}
    held = _new_kinds(st, before)
    tracked(ctx, "expired", lambda: _expire(game, tick + 1))
    if check and any(p.stats != restored[p.pid] for p in st.players):
        tracked(ctx, "prison_thresholds", lambda: _thresholds_at_once(ctx))
    _deliver_waiting_pms(game)
    _report(ctx, before, held)

    st.intents = [i for i in st.intents if i.tick != tick]
    st.tick += 1
    if st.core.end_now and st.tick > st.core.end_now.last:
        st.core.end_now = None  # the turn a riot ended early is over
    _check_end(ctx)
    _after_resolve(game)
    if not st.over:
        # what comes now, in the public report (the bot adds the deadline it keeps)
        game.emit("notice.phase", "public", phase=game.info.label, tick=st.tick).tick = tick
    return st.events[first_event:]


def _by_seat(i: Intent) -> tuple[int, bool, int]:
    """The order of a tick's actions: by seat, the turn's action first, then as submitted."""
    return (i.pid, i.lane != "action", i.seq)


def _new_kinds(st: Any, before: dict[int, tuple[dict[str, int], dict[str, int], set[str]]]) -> dict[int, set[str]]:
    """The kinds of the statuses each player got in this resolve (read before the timed ones
    run out at its end), for every player who holds a status now; a player who holds none
    got none that is still to run out."""
    out: dict[int, set[str]] = {}
    for p in st.players:
        statuses = p.statuses
        if statuses:
            old = before.get(p.pid)
            if old is None:  # held none as the resolve began: every status is new
                out[p.pid] = {s.kind for s in statuses.values()}
                continue
            new = statuses.keys() - old[2]
            out[p.pid] = {statuses[sid].kind for sid in new} if new else set()
    return out


def _secretly_unreachable(ctx: Ctx) -> None:
    """An action aimed at a player under a secret status that keeps everyone off them (seed 000's
    «на крещении индейцев»: «нельзя воздействовать на них») was accepted like any other, since
    a refusal would tell the status; it fails now the way a blocked action does (the private
    notice under ``tell_blocked``, spent as a blocked one), and the GM trace says why."""
    g = ctx.game
    for i in ctx.intents:
        hits = [(t, sid) for t in i.targets if (sid := g.secret_unreachable(g.player(t), ctx.tick))]
        if not hits:
            continue
        ctx.outcome[i.seq] = "blocked"
        for t, sid in hits:
            ctx.note(i, f"unreachable:{t}:{sid}")
            ctx.emit("gm.target_unreachable", "gm", actor=i.pid, ability=i.ability, target=t, status=sid)


def _thresholds_at_once(ctx: Ctx) -> None:
    """A change «на сутки» given back as its status runs out (``_expire``) moves a stat after the
    steps: thresholds that hold «тут же» (seed 001's ±15, ``every_tick``) apply to it in the same
    resolve, as they would to any other change of it."""
    g = ctx.game
    for sd in g.rules.steps[g.info.kind]:
        if sd.kind == "prison_thresholds" and sd.params.get("every_tick"):
            STEPS[sd.kind](ctx, sd)


def _deliver_waiting_pms(game: World) -> None:
    """PMs sent to a player secretly cut off (``Game.send_pm``) reach them with the resolve after
    which they are back; one whose recipient is out of the game by then is lost."""
    waiting = game.state.core.pm_waiting
    if not waiting:
        return
    keep = []
    for w in waiting:
        r = game.player(w.recipient)
        if not game.alive(r):
            game.emit("gm.pm_lost", "gm", player=r.pid, sender=w.sender)
        elif game.cut_off_secretly(r):
            keep.append(w)
        else:
            game.emit("pm.received", "players", [r.pid], sender=w.sender, text=w.text)
    game.state.core.pm_waiting = keep


def run_start(game: World) -> None:
    """The ruleset's ``start`` steps, once, when the game is created (seed 003: Контакты, the
    Гик's hidden stat); their events are the game's first."""
    ctx = Ctx(game=game, tick=game.state.tick, intents=[])
    for step in game.rules.steps.get("start", []):
        STEPS[step.kind](ctx, step)
    clamp(game, "resolve")


def _run_tracked(ctx: Ctx, intent: Intent) -> None:
    """:func:`run_intent`, its stat changes credited to its ability and actor."""
    tracked(ctx, intent.ability, lambda: run_intent(ctx, intent), intent.pid)


def run_intent(ctx: Ctx, intent: Intent) -> None:
    """Apply one submitted action: its effects on its targets, unless its actor is blocked."""
    if intent.via:
        ctx.note(intent, f"via:{intent.via}")
    game = ctx.game
    key = intent.ability
    ab = game.ability_def(key)
    if ctx.outcome.get(intent.seq) == "blocked" or ctx.is_blocked(intent, ab):
        ctx.outcome[intent.seq] = "blocked"
        ctx.note(intent, "blocked")
        for t in intent.targets or [None]:  # a targetless action: target None
            ctx.acted.append({"tick": ctx.tick, "actor": intent.pid, "target": t, "ability": key, "blocked": True})
        return
    ctx.current = intent
    ctx.ran.add(intent.seq)
    for t in intent.targets or [None]:
        ctx.acted.append({"tick": ctx.tick, "actor": intent.pid, "target": t, "ability": key, "blocked": False})
    # setting ``dead_learn_nothing``: an actor who died earlier in this resolve learns nothing of it
    deaf = game.settings.dead_learn_nothing and not game.alive(game.state.players[intent.pid])
    first = len(game.state.events)
    for eff in ab.all_effects(intent.option):
        handler = EFFECTS.get(eff.op)
        if handler is None:
            raise GameError(f"unknown effect op {eff.op!r}")
        handler(ctx, intent, eff, recipients(ctx, intent, eff))
    if deaf:
        _untell(ctx, intent, first)
    ctx.current = None


def _untell(ctx: Ctx, intent: Intent, first: int) -> None:
    """Take the actor of ``intent`` off the private news its effects gave from event ``first``
    on (the actor died earlier in the resolve: setting ``dead_learn_nothing``)."""
    events = ctx.game.state.events
    kept = events[:first]
    for ev in events[first:]:
        if ev.audience == "players" and intent.pid in ev.ids:
            ev.ids = [i for i in ev.ids if i != intent.pid]
            ctx.note(intent, "actor_dead")
            if not ev.ids:
                continue
        kept.append(ev)
    events[:] = kept


def _inactivity(ctx: Ctx) -> None:
    g = ctx.game
    rule = g.rules.inactivity
    if rule.mode != "penalty":
        return
    turn = g.info.turn
    for p in g.living():
        # whoever could act in at least one period of the turn and did not; a player who could
        # act in none of them (in prison, away, in barracks all along) owes nothing
        if not owes_turn(g, p):
            continue
        for stat, delta in rule.stats.items():
            sid = g.rules.stat(stat).id
            p.stats[sid] = p.stats.get(sid, 0) + delta
        g.emit("gm.inactive", "gm", player=p.pid, turn=turn)
        g.emit("private.inactive", "players", [p.pid], penalty=dict(rule.stats))
    clamp(g, "step")


def _publish_anons(game: World) -> None:
    st = game.state
    # published posts are numbered for the game; authors are kept for abilities that reveal them
    log = st.core.anons
    for a in sorted(st.anons, key=lambda a: a.seq):
        log.append(PublishedAnon(n=len(log) + 1, pid=a.pid, tick=a.tick, published=st.tick, seq=a.seq))
        game.emit("anon.post", "public", text=a.text, n=len(log))
        game.emit("gm.anon_author", "gm", player=a.pid, text=a.text, n=len(log))
    st.anons = []


def _expire(game: World, next_tick: int) -> None:
    for p in game.state.players:
        if p.statuses:
            for sid, s in list(p.statuses.items()):
                if s.until is not None and s.until <= next_tick:
                    del p.statuses[sid]
                    # a change «на сутки» is given back when its status runs out
                    for stat, delta in s.data.get("restore", {}).items():
                        p.stats[stat] = p.stats.get(stat, 0) + delta
        if p.modifiers:
            p.modifiers = [m for m in p.modifiers if m.until is None or m.until > next_tick]


def _snapshot(game: World) -> dict[int, tuple[dict[str, int], dict[str, int], set[str]]]:
    """Each player's base stats, own stats and status ids as the resolve begins. The own
    values: of every stat for the notices; without them only the secret stats' (``private.stat``
    tells their own value; a public one's is told only by a notice)."""
    rules = game.rules
    ids = [s.id for s in rules.stats if game.private_notices or s.visibility == "secret"]
    return {p.pid: (dict(p.stats), game.true_stats(p, ids), set(p.statuses)) for p in game.state.players}


NONE: Any = frozenset()  # a snapshot's part that is empty (never written: read only)


def _report(ctx: Ctx, before: dict[int, tuple[dict[str, int], dict[str, int], set[str]]],
            new_kinds: dict[int, set[str]]) -> None:
    """The public report (public stats, public statuses) and each player's private news: their
    own changes with their causes (:mod:`engine.resolve.notices`). ``new_kinds``: the kinds of
    the statuses each player got in this resolve, those that ran out at its end included."""
    game = ctx.game
    st = game.state
    st.tick += 1  # bonuses read at the start of the next tick
    try:
        after = _snapshot(game)
    finally:
        st.tick -= 1
    for p in st.players:
        base0, true0, stat0 = before[p.pid]
        base1, true1, stat1 = after[p.pid]
        _report_statuses(game, p, stat0, stat1, new_kinds.get(p.pid, NONE), game.rules.stats,
                         ctx, base0, true0, base1, true1)


def _report_statuses(game: World, p: Any, stat0: Any, stat1: set[str], kinds: Any, stats: list[Any],
                     ctx: Ctx | None = None, base0: Any = None, true0: Any = None, base1: Any = None,
                     true1: Any = None) -> None:
    """One player's lines of the report: their ``stats`` (with the snapshots), then their
    statuses gained and lost, then their own notices."""
    known = game.rules.status_by_id
    gained, lost = stat1 - stat0, stat0 - stat1
    was_out = bool(stat0) and any(known[sid].dead or known[sid].out_of_play for sid in stat0 if sid in known)
    notes = game.private_notices  # else no causes (the ledger was not kept) and no notice.*
    for s in stats:
        delta = true1[s.id] - true0[s.id] if notes or s.visibility == "secret" else 0  # (_snapshot)
        causes = stat_causes(ctx, p.pid, s.id, delta, gained, lost) if notes and s.visibility != "hidden" and delta else []
        if s.visibility == "public" and base1[s.id] != base0[s.id]:
            game.emit("report.stat", "public", player=p.pid, stat=s.id, delta=base1[s.id] - base0[s.id], value=base1[s.id])
        if s.visibility == "secret" and delta:
            if notes:
                game.emit("private.stat", "players", [p.pid], stat=s.id, delta=delta, value=true1[s.id], causes=causes)
            else:
                game.emit("private.stat", "players", [p.pid], stat=s.id, delta=delta, value=true1[s.id])
        elif s.visibility == "public" and delta and base1[s.id] != base0[s.id] and not was_out:
            # the report above tells everyone the base change; the player learns why, and
            # their own value (with every hidden bonus; a change of the bonus alone stays
            # as silent as before)
            tell(game, p.pid, "notice.stat", stat=s.id, delta=delta, value=true1[s.id], causes=causes)
        if s.visibility == "hidden" and base1[s.id] != base0[s.id]:
            game.emit("gm.stat", "gm", player=p.pid, stat=s.id, delta=base1[s.id] - base0[s.id], value=base1[s.id])
    on = sorted(gained) if gained else []
    off = sorted(lost) if lost else []
    died = bool(on) and any(known[sid].dead for sid in on if sid in known)
    on, off = one_fact(known, on, off)  # «в Тюрьме до конца игры» alone, not «в Тюрьме» too
    for sid in on:
        if sid in known:
            pub = known[sid].public
            held = p.statuses.get(sid)
            # one in force only from the nearest night («в ближайшую ночь»), not from the next tick
            later = {"reason": "night"} if held is not None and held.since > game.state.tick + 1 else {}
            game.emit("report.status_on", "public" if pub else "players", [] if pub else [p.pid], player=p.pid, status=sid, **later)
    for sid in off:
        if sid in known and not died:  # death says it all: no "no longer poisoned"
            pub = known[sid].public
            game.emit("report.status_off", "public" if pub else "players", [] if pub else [p.pid], player=p.pid, status=sid)
    if not was_out:
        status_notices(game, p.pid, on, off, kinds)


def _after_resolve(game: World) -> None:
    """Let votes watch the new state (seed 000's prison list grows after every period)."""
    for vdef in game.rules.votes:
        VOTES[vdef.kind].watch(game, vdef)


def _check_end(ctx: Ctx) -> None:
    g = ctx.game
    st = g.state
    vdef = g.rules.victory
    checker = VICTORIES[vdef.kind]
    final = st.tick >= g.end_tick
    result = checker(g, vdef.params, final=final)
    if result is None and not final:
        return
    st.over = True
    st.winner = list(result or [])
    st.winner += [pid for pid in st.core.side_winners if pid not in st.winner]  # passive wins_if_lynched
    g.emit("game.over", "public", winners=list(st.winner))
