"""Resolving one tick: every action of a day period (or a night) at once, step by step.

The step order is ruleset data (``steps.day`` / ``steps.night``). A step of kind ``actions``
runs the submitted actions whose ability belongs to it, by seat; any other kind is a built-in
step from :data:`engine.registry.STEPS`. Modifiers (protections, blocks, redirects) come first
in every shipped ruleset so they settle before the effects they touch; conflicts between two
modifiers settle by that order and then by seat, never by chance."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..errors import ActionError, GameError
from ..registry import EFFECTS, IMPLS, STEPS, VICTORIES, VOTES
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
from .order import ORDERS, run_in_order
from .swaps import MAYBE
from .targeting import recipients
from .upkeep import _cooldown, _spend, apply_bands, clamp, owes_turn, record_able

if TYPE_CHECKING:
    from ..game import Game


@dataclass(frozen=True)
class Plan:
    """What a resolve of this ruleset can have to do, derived once from the ruleset alone, so
    that a resolve skips the work that can do nothing in it (a clamp of no stat, the snapshot
    of the stats a filter reads where no filter reads one, a status nobody can have)."""

    stats: bool  # the ruleset has stats (clamps, the report's stat lines, the notices' ledger)
    step_clamp: bool  # some stat is clamped after every step
    step_stats: bool  # some effect filters its recipients by a stat (``where.stat``)
    unreachable: bool  # some secret status keeps everyone off its holder
    thresholds: frozenset[str]  # the kinds of phase with an ``every_tick`` prison threshold
    orders_known: bool  # every ``actions`` step names a known order (else each is asked, to refuse it)
    stat_ids: tuple[str, ...] = ()  # every stat, in the ruleset's order
    secret_ids: tuple[str, ...] = ()  # the secret ones (``private.stat``), in that order


def plan(rules: Any) -> Plan:
    cache = rules.derived_cache
    found = cache.get(("resolve_plan",))
    if found is None:
        effects = [e for src in [*rules.roles, *rules.characters] for ab in src.abilities
                   for e in [*ab.effects, *(x for effs in ab.options.values() for x in effs)]]
        found = cache[("resolve_plan",)] = Plan(
            stats=bool(rules.stats),
            step_clamp=any(s.clamp == "step" for s in rules.stats),
            step_stats=any(e.where is not None and e.where.stat for e in effects),
            unreachable=any(not s.public and not s.can_be_targeted for s in rules.statuses),
            thresholds=frozenset(kind for kind, steps in rules.steps.items()
                                 if any(sd.kind == "prison_thresholds" and sd.params.get("every_tick") for sd in steps)),
            orders_known=all(sd.params.get("order") in (None, "", *ORDERS) for steps in rules.steps.values()
                             for sd in steps if sd.kind == "actions"),
            stat_ids=tuple(s.id for s in rules.stats),
            secret_ids=tuple(s.id for s in rules.stats if s.visibility == "secret"),
        )
    return found


def resolve_tick(game: Game) -> list[Event]:
    st = game.state
    if st.over:
        raise GameError("the game is over")
    first_event = len(st.events)
    info = game.info
    record_able(game, info.turn)  # who could act in this period: the turn's inactivity reads the whole turn
    game.settle_orders()  # actions teammates gave for this tick (FactionRules.orders)
    if _holds_kind(st, "obliged"):
        game.submit_forced()  # a blackmailed player's forced move, if not made by the turn's end
    _random_actions(game)  # inactivity.mode random_action: a missing action is drawn at the turn's end
    tick = st.tick
    how = plan(game.rules)
    intents = sorted([i for i in st.intents if i.tick == tick], key=_by_seat)
    runs = game.rules.derived_cache.get(("ability_runs",))
    if runs is None:
        runs = game.rules.derived_cache[("ability_runs",)] = {}
    ctx = Ctx(game=game, tick=tick, intents=intents, first_event=first_event, runs=runs)
    before = _snapshot(game, how)
    if not before and not how.stats:  # nobody holds a status: nobody holds a swap (swaps.swaps_maybe's answer)
        ctx.scratch[MAYBE] = False
    if how.stats and game.private_notices:  # the own stats as the resolve begins are the snapshot's (notices.OWN)
        seed_own(ctx, {pid: row[1] for pid, row in before.items()})
    if how.unreachable:
        _secretly_unreachable(ctx)

    run = _run_tracked if how.stats else run_intent  # without stats there is nothing to credit
    # the steps: tracked work back to back (actions, steps, clamps); the step's stats snapshot
    # and the order of its actions change nothing the own stats read (notices.CHAIN)
    ctx.scratch[CHAIN] = True
    by_step: dict[str, list[Intent]] = {}
    step_cache = game.rules.step_cache  # (Ctx.step_of's own table)
    for i in intents:
        sid = step_cache.get((i.ability, i.option))
        by_step.setdefault(sid if sid is not None else ctx.step_of(i), []).append(i)
    known = how.orders_known  # (then no step's order can be refused: the settings' is of the set)
    for step in game.rules.steps[info.kind]:
        if step.kind == "actions":
            if how.step_stats:
                ctx.step_stats = {p.pid: dict(p.stats) for p in st.players}
            todo = by_step.get(step.id)
            if todo is not None and len(todo) == 1 and known:
                run(ctx, todo[0])  # one action runs alike in every order (run_in_order)
            elif todo or not known:
                run_in_order(ctx, step, todo or [], run)
        elif how.stats:
            tracked(ctx, step_cause(game, step), lambda step=step: STEPS[step.kind](ctx, step))
        else:  # nothing to credit (notices.tracked)
            STEPS[step.kind](ctx, step)
        if how.step_clamp:
            tracked(ctx, "limit", lambda: clamp(game, "step"))

    ctx.scratch[CHAIN] = False
    ctx.scratch.pop(FRESH, None)

    settings = game.settings
    outcome = ctx.outcome
    reasons = ctx.reasons
    emit = game.emit
    turn = info.turn
    spends, tell_blocked = settings.blocked_spends, settings.tell_blocked
    results = settings.tell_results and game.private_notices  # else action_result tells nothing
    events = st.events
    players = st.players
    for intent in intents:
        # setting ``blocked_spends: false`` (seed 003: the blocked actions «не учитываются»): a
        # blocked action spends no use, cooldown or lane, as if it had not been submitted
        result = outcome.setdefault(intent.seq, "applied")
        if result != "blocked" or spends:
            run = runs.get(intent.ability) or _make_run(ctx, intent.ability)
            if run.lane_only and intent.via is None:
                spent = players[intent.pid].spent  # upkeep._spend where it spends the lane alone
                lanes = spent.get(turn)
                if lanes is None:
                    spent[turn] = [intent.lane]
                elif intent.lane not in lanes:
                    lanes.append(intent.lane)
            else:
                _spend(game, intent, turn, run.ab)
        # (World.emit's event, built here: a GM event names nobody)
        events.append(Event(st.tick, "trace.action", {
            "actor": intent.pid, "ability": intent.ability, "targets": list(intent.targets), "option": intent.option,
            "result": result, "reasons": reasons.get(intent.seq, [])}, "gm", []))
        if result == "blocked" and tell_blocked:
            emit("private.no_effect", "players", [intent.pid], ability=intent.ability)
        if results:
            action_result(game, intent, result)
    st.history.extend(ctx.acted)

    if game.clock.is_turn_end(tick) and game.rules.inactivity.mode == "penalty":
        tracked(ctx, "inactive", lambda: _inactivity(ctx))
    if how.stats:
        tracked(ctx, "limit", lambda: clamp(game, "resolve"))
        apply_bands(game, announce=False)
    if st.anons:
        _publish_anons(game)
    check = info.kind in how.thresholds
    if not how.stats and not check and not st.core.pm_waiting:
        _settle_and_report(game, before, tick + 1)  # the four below in one walk of the seats
    else:
        restored = {p.pid: dict(p.stats) for p in st.players} if check else {}
        held = _new_kinds(st, before)
        if how.stats:
            tracked(ctx, "expired", lambda: _expire(game, tick + 1))
        else:
            _expire(game, tick + 1)
        if check and any(p.stats != restored[p.pid] for p in st.players):
            tracked(ctx, "prison_thresholds", lambda: _thresholds_at_once(ctx))
        _deliver_waiting_pms(game)
        _report(ctx, before, held, how)

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


def _holds_kind(st: Any, kind: str) -> bool:
    """Whether any player holds a status of ``kind`` (none: the work that reads them has none
    to read)."""
    for p in st.players:
        if p.statuses:
            for s in p.statuses.values():
                if s.kind == kind:
                    return True
    return False


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


def _deliver_waiting_pms(game: Game) -> None:
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


def run_start(game: Game) -> None:
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
    run = ctx.runs.get(key) or _make_run(ctx, key)
    ab = run.ab
    players = game.state.players
    # (Ctx.is_blocked: an actor without any status is never blocked)
    if ctx.outcome.get(intent.seq) == "blocked" or (players[intent.pid].statuses and ctx.is_blocked(intent, ab)):
        ctx.outcome[intent.seq] = "blocked"
        ctx.note(intent, "blocked")
        for t in intent.targets or [None]:  # a targetless action: target None
            ctx.acted.append({"tick": ctx.tick, "actor": intent.pid, "target": t, "ability": key, "blocked": True})
        return
    ctx.current = intent
    ctx.ran.add(intent.seq)
    acted = ctx.acted
    for t in intent.targets or [None]:
        acted.append({"tick": ctx.tick, "actor": intent.pid, "target": t, "ability": key, "blocked": False})
    if run.effects is None:  # (an ability with options, or an op unknown here: the general path)
        for eff in ab.all_effects(intent.option):
            handler = EFFECTS.get(eff.op)
            if handler is None:
                raise GameError(f"unknown effect op {eff.op!r}")
            handler(ctx, intent, eff, recipients(ctx, intent, eff))
    else:
        scratch = ctx.scratch
        for handler, eff, direct in run.effects:
            targets = intent.targets
            if direct and len(targets) == 1 and type(targets[0]) is int:
                # targeting.recipients' own first case, answered here where it is certain:
                # nobody may hold a swap (looked at), and the target holds no status that
                # reroutes it (targeting.reroute)
                target = players[targets[0]]
                people = [target]
                if scratch.get(MAYBE) is not False:
                    people = recipients(ctx, intent, eff)
                elif target.statuses:
                    for s in target.statuses.values():
                        if s.kind == "rerouted":
                            people = recipients(ctx, intent, eff)
                            break
            else:
                people = recipients(ctx, intent, eff)
            handler(ctx, intent, eff, people)
    ctx.current = None


@dataclass(frozen=True, slots=True)
class AbilityRun:
    """What running and spending one ability comes to, worked out once per ruleset and ability
    (:func:`ability_run`, kept beside ``World.ability_def``'s own table): its effects' handlers
    looked up (a book's ``impl`` named directly), whether each reaches the action's one
    target as it stands, and whether spending it is only its lane of the turn."""

    ab: Any  # the AbilityDef (World.ability_def of its key)
    # (handler, effect, to its one target with no filter); None: the general path runs it
    effects: tuple[tuple[Any, Any, bool], ...] | None
    lane_only: bool  # no cooldown, no count of uses, no once-per mark (upkeep._spend's lane alone)


def ability_run(game: Game, key: str, ab: Any) -> AbilityRun:
    """The :class:`AbilityRun` of ability ``key`` (``ab``). Its effects are left to the general
    path (None) for an ability with options (their effects depend on the option) and where
    an effect's op (or impl) is not registered (the general path refuses it)."""
    effects: list[tuple[Any, Any, bool]] | None = None
    if not ab.options:
        effects = []
        for eff in ab.effects:
            handler = EFFECTS.get(eff.op)
            if handler is not None and eff.op == "impl":
                handler = IMPLS.get(eff.impl or "")  # effects.op_impl's own lookup, made once
            if handler is None:
                effects = None
                break
            effects.append((handler, eff, eff.to == "target" and eff.where is None))
    lane_only = not _cooldown(game, key, ab) and ab.uses_per_game is None and not ab.once_per
    return AbilityRun(ab=ab, effects=None if effects is None else tuple(effects), lane_only=lane_only)


def _make_run(ctx: Ctx, key: str) -> AbilityRun:
    """The ability's run, made at its first use in the ruleset (:func:`ability_run`)."""
    run = ctx.runs[key] = ability_run(ctx.game, key, ctx.game.ability_def(key))
    return run


def _random_actions(game: Game) -> None:
    """``inactivity.mode: random_action`` (seed 001: «В случае отсутствия заявки на ход
    выполняется случайное действие на случайного игрока»): in the last period of a day or a
    night, every living player who has not used the turn's action gets one, drawn with the
    game's generator from what they may do now (their own actions; legal targets and option),
    and is told which; no penalty. A day ended early («Спровоцировать бунт») ends with the period
    it was ended in: the actions are drawn there. An ability that ends the phase is left out:
    ending it at its end would tell the public a false early end."""
    if game.rules.inactivity.mode != "random_action":
        return
    st = game.state
    cut = st.core.end_now
    last = game.clock.is_turn_end(st.tick) or bool(cut and cut.tick == st.tick)
    if st.over or not last:
        return
    turn = game.info.turn
    for p in game.living():
        if not owes_turn(game, p):
            continue
        pool = sorted(
            (a for a in game.legal_actions(p.pid)
             if a.via is None and game.counts_as_action(a.ability)
             and not any(e.op == "end_phase" for effs in [a.ability.effects, *a.ability.options.values()] for e in effs)),
            key=lambda a: a.key,
        )
        if not pool:  # owed, but nothing can be done now (jailed since, every action on cooldown)
            game.emit("gm.random_action_none", "gm", player=p.pid, turn=turn)
            continue
        a = game.rng.choice(pool)
        targets = game.rng.sample(sorted(a.targets), a.ability.targets) if a.ability.targets else []
        option = a.any_option(game.rng, targets)
        try:
            intent = game.submit(p.pid, a.key, targets, option)
        except ActionError as err:
            game.emit("gm.random_action_failed", "gm", player=p.pid, ability=a.key, reason=err.key)
            continue
        game.emit("gm.random_action", "gm", player=p.pid, ability=a.key, targets=list(intent.targets), option=option)
        told = "private.random_action" if intent.targets else "private.random_action_untargeted"
        game.emit(told, "players", [p.pid], ability=a.key, targets=list(intent.targets))


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


def _publish_anons(game: Game) -> None:
    st = game.state
    # published posts are numbered for the game; authors are kept for abilities that reveal them
    log = st.core.anons
    for a in sorted(st.anons, key=lambda a: a.seq):
        log.append(PublishedAnon(n=len(log) + 1, pid=a.pid, tick=a.tick, published=st.tick, seq=a.seq))
        game.emit("anon.post", "public", text=a.text, n=len(log))
        game.emit("gm.anon_author", "gm", player=a.pid, text=a.text, n=len(log))
    st.anons = []


def _expire(game: Game, next_tick: int) -> None:
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


def _settle_and_report(game: Game, before: dict[int, tuple[dict[str, int], dict[str, int], set[str]]],
                       next_tick: int) -> None:
    """:func:`_new_kinds`, :func:`_expire`, :func:`_deliver_waiting_pms` and :func:`_report`
    in one walk of the seats, where they come to the same: a ruleset without stats (nothing
    given back as a status runs out is read by a later seat's lines, and no threshold reads
    it), no PM waiting (nothing is delivered between the statuses running out and the
    report). Each seat's kinds are read before its statuses run out, its lines written after,
    by seat, as :func:`_report` writes them."""
    for p in game.state.players:
        statuses = p.statuses
        old = before.get(p.pid)
        if p.modifiers:
            p.modifiers = [m for m in p.modifiers if m.until is None or m.until > next_tick]
        if statuses:
            # the report reads of the new kinds only whether a block is among them
            # (status_notices): that is looked at as the statuses run out, in one pass
            held = old[2] if old is not None else NONE
            blocked = False
            for sid, s in list(statuses.items()):
                if not blocked and s.kind == "blocked" and sid not in held:
                    blocked = True
                if s.until is not None and s.until <= next_tick:
                    del statuses[sid]
                    restore = s.data.get("restore")
                    if restore:  # a change «на сутки» is given back when its status runs out
                        for stat, delta in restore.items():
                            p.stats[stat] = p.stats.get(stat, 0) + delta
            kinds = BLOCKED if blocked else NONE
        elif old is None:
            continue  # held none, got none: no line
        else:
            held, kinds = old[2], NONE
        if not statuses and not held:
            if kinds is BLOCKED:  # nothing gained or lost, nothing held: only the block's notice
                status_notices(game, p.pid, [], [], kinds)
            continue
        stat1 = set(statuses)
        if stat1 == held and kinds is NONE:
            continue  # as before, and no block got on the way (status_notices tells nothing else)
        _report_statuses(game, p, held, stat1, kinds, [])


BLOCKED: Any = frozenset({"blocked"})  # new kinds that hold a block (all the report reads of them)


def _snapshot(game: Game, how: Plan) -> dict[int, tuple[dict[str, int], dict[str, int], set[str]]]:
    """Each player's base stats, own stats and status ids as the resolve begins. Without stats,
    only the players who hold a status (the others: none, :data:`BARE`)."""
    if not how.stats:
        return {p.pid: (p.stats, NONE, set(p.statuses)) for p in game.state.players if p.statuses}
    # the own values: of every stat for the notices; without them only the secret stats'
    # (``private.stat`` tells their own value; a public one's is told only by a notice)
    ids = how.stat_ids if game.private_notices else how.secret_ids
    true_stats = game.true_stats
    return {p.pid: (dict(p.stats), true_stats(p, ids), set(p.statuses)) for p in game.state.players}


NONE: Any = frozenset()  # a snapshot's part that is empty (never written: read only)
BARE: Any = ({}, NONE, NONE)  # the snapshot of a player with no status, in a ruleset without stats


def _report(ctx: Ctx, before: dict[int, tuple[dict[str, int], dict[str, int], set[str]]],
            new_kinds: dict[int, set[str]], how: Plan) -> None:
    """The public report (public stats, public statuses) and each player's private news: their
    own changes with their causes (:mod:`engine.resolve.notices`). ``new_kinds``: the kinds of
    the statuses each player got in this resolve, those that ran out at its end included.
    Without stats only statuses can change: only the players who held one as the resolve
    began or got one on the way are looked at, by seat."""
    game = ctx.game
    st = game.state
    if not how.stats:
        players = st.players
        for pid in sorted(before.keys() | new_kinds.keys()):
            p = players[pid]
            stat0 = before.get(pid, BARE)[2]
            kinds = new_kinds.get(pid, NONE)
            stat1 = set(p.statuses)
            if stat1 == stat0:
                if "blocked" not in kinds:
                    continue  # as before, and no block got on the way (status_notices tells nothing else)
                if not stat0:  # nothing gained or lost, nothing held: only the block's notice
                    status_notices(game, pid, [], [], kinds)
                    continue
            _report_statuses(game, p, stat0, stat1, kinds, [])
        return
    st.tick += 1  # bonuses read at the start of the next tick
    try:
        after = _snapshot(game, how)
    finally:
        st.tick -= 1
    for p in st.players:
        base0, true0, stat0 = before[p.pid]
        base1, true1, stat1 = after[p.pid]
        _report_statuses(game, p, stat0, stat1, new_kinds.get(p.pid, NONE), game.rules.stats,
                         ctx, base0, true0, base1, true1)


def _report_statuses(game: Game, p: Any, stat0: Any, stat1: set[str], kinds: Any, stats: list[Any],
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


def _after_resolve(game: Game) -> None:
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
    g.emit("game.over", "public", winners=list(st.winner))
