"""Resolving one tick: every action of a day period (or a night) at once, step by step.

The step order is ruleset data (``steps.day`` / ``steps.night``). A step of kind ``actions``
runs the submitted actions whose ability belongs to it, by seat; any other kind is a built-in
step from :data:`engine.registry.STEPS`. Modifiers (protections, blocks, redirects) come first
in every shipped ruleset so they settle before the effects they touch; conflicts between two
modifiers settle by that order and then by seat, never by chance.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from . import effects as _effects  # noqa: F401  (registers the primitives)
from . import steps as _steps  # noqa: F401  (registers the built-in steps)
from .errors import GameError
from .order import run_in_order
from .registry import EFFECTS
from .ruleset import AbilityDef, default_step
from .state import Event, Intent, Player
from .swaps import swap_targets

if TYPE_CHECKING:
    from .game import Game


@dataclass
class Ctx:
    game: Game
    tick: int
    intents: list[Intent]
    outcome: dict[int, str] = field(default_factory=dict)  # intent seq -> applied/blocked/...
    reasons: dict[int, list[str]] = field(default_factory=dict)
    acted: list[dict[str, Any]] = field(default_factory=list)  # who acted on whom this tick
    current: Intent | None = None
    scratch: dict[str, Any] = field(default_factory=dict)  # per-resolve memory for impls
    # everyone's base stats as the current step began: what filters such as "all with ТВ < 10"
    # read, so the actions of one step are simultaneous whatever the seat order
    step_stats: dict[int, dict[str, int]] = field(default_factory=dict)
    first_event: int = 0  # the index of this resolve's first event in the game's log

    @property
    def rules(self):
        return self.game.rules

    def ability(self, intent: Intent) -> AbilityDef:
        return self.game.ability_def(intent.ability)

    def step_of(self, intent: Intent) -> str:
        ab = self.ability(intent)
        return ab.step or default_step(ab, intent.option)

    def is_blocked(self, intent: Intent) -> bool:
        ab = self.ability(intent)
        if ab.unblockable or intent.via == "leader":
            return False
        return blocked_by_status(self.game, self.game.player(intent.pid), intent.ability, ab.slot, self.tick)

    def protection(self, target: Player, labels: list[str], actor: int | None, amount: int | None = None) -> dict[str, Any] | None:
        """The first active protection of ``target`` that stops an effect with ``labels``.

        Protections are timed statuses ``protected:*`` and lasting passives ``protection``
        (a character's immunity). ``over``: only changes bigger than that (``amount``) stop.
        """
        g = self.game
        found = [s.data for sid, s in sorted(target.statuses.items()) if sid.startswith("protected") and g.active(target, sid, self.tick)]
        found += [{"by": target.pid, **x} for x in g.passives(target, "protection")]
        for data in found:
            against = data.get("against", [])
            if "*" not in against and not set(against) & set(labels):
                continue
            if data.get("while") and not g.active(target, data["while"], self.tick):
                continue  # a protection that holds only while its holder has a status
            if data.get("over") is not None and (amount is None or amount <= data["over"]):
                continue
            if data.get("except_own_faction") and actor is not None:
                fs = {f.fid for f in g.factions_of(target.pid)}
                if actor == target.pid or fs & {f.fid for f in g.factions_of(actor)}:
                    continue
            return data
        return None

    def note(self, intent: Intent | None, reason: str) -> None:
        if intent is not None:
            self.reasons.setdefault(intent.seq, []).append(reason)

    def emit(self, key: str, audience: str = "gm", ids: list[Any] | None = None, **args: Any) -> Event:
        return self.game.emit(key, audience, ids, **args)


def blocked_by_status(game: Game, p: Player, key: str, slot: str, tick: int) -> bool:
    """Whether a block status of ``p`` in force at ``tick`` covers ability ``key`` (of ``slot``):
    a block's ``slots`` scope lists slots, or ``character`` / ``role`` for all of that kind."""
    for sid, s in p.statuses.items():
        if not sid.startswith("blocked") or not game.active(p, sid, tick):
            continue
        scope = s.data.get("slots") or []
        if not scope or slot in scope or ("character" in scope and key.startswith("character:")) or ("role" in scope and key.startswith("role:")):
            return True
    return False


def resolve_tick(game: Game) -> list[Event]:
    st = game.state
    if st.over:
        raise GameError("the game is over")
    first_event = len(st.events)
    record_able(game)  # who could act in this period: the turn's inactivity reads the whole turn
    game.settle_orders()  # actions teammates gave for this tick (FactionRules.orders)
    game.submit_forced()  # a blackmailed player's forced move, if not made by the turn's end
    _random_actions(game)  # inactivity.mode random_action: a missing action is drawn at the turn's end
    info = game.info
    tick = st.tick
    intents = sorted((i for i in st.intents if i.tick == tick), key=lambda i: (i.pid, i.lane != "action", i.seq))
    ctx = Ctx(game=game, tick=tick, intents=intents, first_event=first_event)
    before = _snapshot(game)
    _secretly_unreachable(ctx)

    for step in game.rules.steps[info.kind]:
        if step.kind == "actions":
            ctx.step_stats = {p.pid: dict(p.stats) for p in st.players}
            run_in_order(ctx, step, [i for i in intents if ctx.step_of(i) == step.id], run_intent)
        else:
            from .registry import STEPS

            STEPS[step.kind](ctx, step)
        clamp(game, "step")

    for intent in intents:
        # setting ``blocked_spends: false`` (seed 003: the blocked actions «не учитываются»): a
        # blocked action spends no use, cooldown or lane, as if it had not been submitted
        if ctx.outcome.get(intent.seq) != "blocked" or st.settings.get("blocked_spends", True):
            _spend(game, intent)
        ctx.outcome.setdefault(intent.seq, "applied")
        game.emit(
            "trace.action", "gm",
            actor=intent.pid, ability=intent.ability, targets=list(intent.targets), option=intent.option,
            result=ctx.outcome[intent.seq], reasons=ctx.reasons.get(intent.seq, []),
        )
        if ctx.outcome[intent.seq] == "blocked" and st.settings.get("tell_blocked", True):
            game.emit("private.no_effect", "players", [intent.pid], ability=intent.ability)
    st.history.extend(ctx.acted)

    if game.clock.is_turn_end(tick):
        _inactivity(ctx)
    clamp(game, "resolve")
    apply_bands(game, announce=False)
    _publish_anons(game)
    restored = {p.pid: dict(p.stats) for p in st.players}
    _expire(game, tick + 1)
    if any(p.stats != restored[p.pid] for p in st.players):
        _thresholds_at_once(ctx)
    _deliver_waiting_pms(game)
    _report(game, before)

    st.intents = [i for i in st.intents if i.tick != tick]
    st.tick += 1
    if st.memo.get("end_now") and st.tick > st.memo["end_now"]["last"]:
        del st.memo["end_now"]  # the turn a riot ended early is over
    _check_end(ctx)
    _after_resolve(game)
    game.sync_rng()
    return st.events[first_event:]


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
    from .registry import STEPS

    g = ctx.game
    for sd in g.rules.steps[g.info.kind]:
        if sd.kind == "prison_thresholds" and sd.params.get("every_tick"):
            STEPS[sd.kind](ctx, sd)


def _deliver_waiting_pms(game: Game) -> None:
    """PMs sent to a player secretly cut off (``Game.send_pm``) reach them with the resolve after
    which they are back; one whose recipient is out of the game by then is lost."""
    from .game import PM_WAITING

    waiting = game.state.memo.get(PM_WAITING)
    if not waiting:
        return
    keep = []
    for w in waiting:
        r = game.player(w["recipient"])
        if not game.alive(r):
            game.emit("gm.pm_lost", "gm", player=r.pid, sender=w["sender"])
        elif game.cut_off_secretly(r):
            keep.append(w)
        else:
            game.emit("pm.received", "players", [r.pid], sender=w["sender"], text=w["text"])
    game.state.memo[PM_WAITING] = keep


def run_start(game: Game) -> None:
    """The ruleset's ``start`` steps, once, when the game is created (seed 003: Контакты, the
    Гик's hidden stat); their events are the game's first."""
    from .registry import STEPS

    ctx = Ctx(game=game, tick=game.state.tick, intents=[])
    for step in game.rules.steps.get("start", []):
        STEPS[step.kind](ctx, step)
    clamp(game, "resolve")


def run_intent(ctx: Ctx, intent: Intent) -> None:
    """Apply one submitted action: its effects on its targets, unless its actor is blocked."""
    g = ctx.game
    if intent.via:
        ctx.note(intent, f"via:{intent.via}")
    if ctx.outcome.get(intent.seq) == "blocked" or ctx.is_blocked(intent):
        ctx.outcome[intent.seq] = "blocked"
        ctx.note(intent, "blocked")
        for t in intent.targets or [None]:  # a targetless action: target None
            ctx.acted.append({"tick": ctx.tick, "actor": intent.pid, "target": t, "ability": intent.ability, "blocked": True})
        return
    ab = ctx.ability(intent)
    ctx.current = intent
    ctx.scratch.setdefault("ran", set()).add(intent.seq)
    for t in intent.targets or [None]:
        ctx.acted.append({"tick": ctx.tick, "actor": intent.pid, "target": t, "ability": intent.ability, "blocked": False})
    for eff in ab.all_effects(intent.option):
        handler = EFFECTS.get(eff.op)
        if handler is None:
            raise GameError(f"unknown effect op {eff.op!r}")
        handler(ctx, intent, eff, recipients(ctx, intent, eff))
    ctx.current = None
    _ = g


def recipients(ctx: Ctx, intent: Intent, eff: Any) -> list[Player]:
    g = ctx.game
    actor = g.player(intent.pid)
    to = eff.to
    if to == "target":
        people = [g.player(t) for t in intent.targets]
    elif to == "self":
        people = [actor]
    elif to in ("all", "others"):
        people = [p for p in g.living() if to == "all" or p.pid != actor.pid]
    elif to == "own_faction":
        people = [g.player(m) for f in g.factions_of(actor.pid) for m in sorted(f.members)]
    elif to == "target_faction":
        people = []
        for t in intent.targets:
            fs = g.factions_of(t)
            people += [g.player(m) for f in fs for m in sorted(f.members)] if fs else [g.player(t)]
    else:
        raise GameError(f"unknown recipients {to!r}")
    if eff.where:
        people = [p for p in people if g.matches(p, eff.where, ctx.step_stats.get(p.pid), actor=intent.pid)]
    seen: set[int] = set()
    people = [p for p in people if not (p.pid in seen or seen.add(p.pid))]
    return reroute(ctx, intent, swap_targets(ctx, intent, people))


def reroute(ctx: Ctx, intent: Intent, people: list[Player]) -> list[Player]:
    """Effects aimed at a holder of a ``rerouted:*`` status («Пожар на маяке») go to a random
    reachable living player outside the status's ``exclude`` list (the faction) instead, one
    not already reached by the effect (none left: the effect on that player is lost). One's effects on oneself stay.
    The choice is drawn once per action and player, so all its effects go the same way."""
    g = ctx.game
    if not any(sid.startswith("rerouted") for p in people for sid in p.statuses):
        return people
    memo = ctx.scratch.setdefault("rerouted", {})
    out: list[Player] = []
    for p in people:
        data = next((s.data for sid, s in sorted(p.statuses.items()) if sid.startswith("rerouted") and g.active(p, sid, ctx.tick)), None)
        if data is None or p.pid == intent.pid:
            out.append(p)
            continue
        k = f"{intent.seq}:{p.pid}"
        if k not in memo:
            members = set(data.get("exclude", [])) | {p.pid}
            taken = {q.pid for q in people} | {q.pid for q in out}
            pool = sorted(
                q.pid for q in g.living()
                if q.pid not in members and q.pid not in taken and all(f.can_be_targeted for f in g.status_flags(q))
            )
            memo[k] = g.rng.choice(pool) if pool else None
            ctx.note(intent, "rerouted")
            if memo[k] is None:
                ctx.emit("gm.rerouted_lost", "gm", actor=intent.pid, ability=intent.ability, player=p.pid)
            else:
                ctx.emit("gm.rerouted", "gm", actor=intent.pid, ability=intent.ability, player=p.pid, target=memo[k])
        if memo[k] is not None and all(q.pid != memo[k] for q in out):
            out.append(g.player(memo[k]))
    return out


def clamp(game: Game, when: str) -> None:
    for s in game.rules.stats:
        if s.clamp != when and when != "resolve":
            continue
        for p in game.state.players:
            v = p.stats.get(s.id, 0)
            if s.min is not None and v < s.min:
                v = s.min
            if s.max is not None and v > s.max:
                v = s.max
            p.stats[s.id] = v


def apply_bands(game: Game, announce: bool = True) -> None:
    """Put the band status of each banded stat (seed 002's health words) on every player."""
    for s in game.rules.stats:
        if not s.bands:
            continue
        band_ids = {b.status for b in s.bands}
        for p in game.state.players:
            dead = {x for x in band_ids & set(p.statuses) if game.rules.status(x).dead}
            if dead:  # death is final, and a dead player keeps no other word of the band
                for b in band_ids - dead:
                    p.statuses.pop(b, None)
                continue
            v = p.stats.get(s.id, 0)
            want = None
            for b in s.bands:
                if (b.min is None or v >= b.min) and (b.max is None or v <= b.max):
                    want = b.status
                    break
            for b in band_ids:
                if b != want and b in p.statuses:
                    del p.statuses[b]
            if want and want not in p.statuses:
                from .state import Status

                p.statuses[want] = Status(id=want, since=game.state.tick)


def _spend(game: Game, intent: Intent) -> None:
    p = game.player(intent.pid)
    ab = game.ability_def(intent.ability)
    turn = game.info.turn
    p.spent.setdefault(turn, [])
    if intent.lane not in p.spent[turn]:
        p.spent[turn].append(intent.lane)
    if intent.via == "leader":  # the leader action: once a cycle, on nobody's own counter
        p.ready_at["leader"] = game.state.tick + game.clock.cycles(1)
        return
    if intent.via not in game.VIAS:  # performed through a borrowing ability: its counters too
        vab = game.ability_def(intent.via)
        if game.cooldown_ticks(vab):
            p.ready_at[intent.via] = game.state.tick + game.cooldown_ticks(vab)
        if vab.uses_per_game is not None:
            p.uses[intent.via] = p.uses.get(intent.via, 0) + 1
    cd = game.cooldown_ticks(ab)
    if cd:
        p.ready_at[intent.ability] = game.state.tick + cd
    if ab.uses_per_game is not None:
        p.uses[intent.ability] = p.uses.get(intent.ability, 0) + 1
    if ab.once_per:  # never again on these targets (with this option)
        for t in intent.targets:
            p.uses[f"once:{ab.id}:{t}" + (f":{intent.option}" if ab.once_per == "target_option" else "")] = 1


def able_now(game: Game, p: Player) -> bool:
    """Whether ``p`` may act in the current period: alive, and under no status that forbids
    every action (prison, away at the baptism, barracks, «лишён действий») unless a passive lets
    them act under it (Бывалый in prison)."""
    if not game.alive(p):
        return False
    return not any("*" in f.blocks_slots and not game.passives(p, f"acts_in_{f.id}") for f in game.status_flags(p))


def record_able(game: Game) -> None:
    """Note, as the period is resolved, who could act in it (engine memo ``able``: the turn and
    its pids). A period after a riot ended the day early («Спровоцировать бунт») is nobody's."""
    st = game.state
    turn = game.info.turn
    memo = st.memo.get("able")
    if not memo or memo.get("turn") != turn:
        memo = st.memo["able"] = {"turn": turn, "pids": []}
    cut = st.memo.get("end_now")
    if cut and cut["tick"] < st.tick <= cut["last"]:
        return
    memo["pids"] = sorted(set(memo["pids"]) | {p.pid for p in st.players if able_now(game, p)})


def owes_turn(game: Game, p: Player) -> bool:
    """Whether ``p`` owes the current turn's action: alive now, able to act in at least one
    period of the turn (recorded as each was resolved), and no action submitted in it. A
    player who spent the whole day in prison and is freed at 21:00 owes nothing; one free all
    day and jailed by the 21:00 vote owes the day's action (docs/rules/godfather.md)."""
    st = game.state
    turn = game.info.turn
    if not game.alive(p) or "action" in p.spent.get(turn, []):
        return False
    if any(i.pid == p.pid and i.lane == "action" and i.tick == st.tick for i in st.intents):
        return False
    memo = st.memo.get("able") or {}
    if memo.get("turn") != turn:
        return able_now(game, p)
    return p.pid in memo["pids"]


def _random_actions(game: Game) -> None:
    """``inactivity.mode: random_action`` (seed 001: «В случае отсутствия заявки на ход
    выполняется случайное действие на случайного игрока»): in the last period of a day or a
    night, every living player who has not used the turn's action gets one, drawn with the
    game's generator from what they may do now (their own actions; legal targets and option),
    and is told which; no penalty. A day ended early («Спровоцировать бунт») ends with the period
    it was ended in: the actions are drawn there. An ability that ends the phase is left out:
    ending it at its end would tell the public a false early end."""
    from .errors import ActionError

    st = game.state
    cut = st.memo.get("end_now")
    last = game.clock.is_turn_end(st.tick) or bool(cut and cut["tick"] == st.tick)
    if game.rules.inactivity.mode != "random_action" or st.over or not last:
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
        option = a.any_option(game.rng)
        try:
            intent = game.submit(p.pid, a.key, targets, option)
        except ActionError as err:
            game.emit("gm.random_action_failed", "gm", player=p.pid, ability=a.key, reason=err.key)
            continue
        game.emit("gm.random_action", "gm", player=p.pid, ability=a.key, targets=list(intent.targets), option=option)
        told = "private.random_action" if intent.targets else "private.random_action_untargeted"
        game.emit(told, "players", [p.pid], ability=a.key, targets=list(intent.targets))
    game.sync_rng()


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
    log = st.memo.setdefault("anons", [])
    for a in sorted(st.anons, key=lambda a: a.seq):
        log.append({"n": len(log) + 1, "pid": a.pid, "tick": a.tick, "published": st.tick, "seq": a.seq})
        game.emit("anon.post", "public", text=a.text, n=len(log))
        game.emit("gm.anon_author", "gm", player=a.pid, text=a.text, n=len(log))
    st.anons = []


def _expire(game: Game, next_tick: int) -> None:
    for p in game.state.players:
        for sid in list(p.statuses):
            s = p.statuses[sid]
            if s.until is not None and s.until <= next_tick:
                del p.statuses[sid]
                # a change «на сутки» is given back when its status runs out
                for stat, delta in s.data.get("restore", {}).items():
                    p.stats[stat] = p.stats.get(stat, 0) + delta
        p.modifiers = [m for m in p.modifiers if m.until is None or m.until > next_tick]


def _snapshot(game: Game) -> dict[int, tuple[dict[str, int], dict[str, int], set[str]]]:
    out = {}
    for p in game.state.players:
        true = {s.id: game.true_stat(p, s.id) for s in game.rules.stats}
        out[p.pid] = (dict(p.stats), true, set(p.statuses))
    return out


def _report(game: Game, before: dict[int, tuple[dict[str, int], dict[str, int], set[str]]]) -> None:
    """The public report (public stats, public statuses) and each player's private news."""
    known = {s.id: s for s in game.rules.statuses}
    st = game.state
    st.tick += 1  # bonuses read at the start of the next tick
    try:
        after = _snapshot(game)
    finally:
        st.tick -= 1
    for p in st.players:
        base0, true0, stat0 = before[p.pid]
        base1, true1, stat1 = after[p.pid]
        for s in game.rules.stats:
            if s.visibility == "public" and base1[s.id] != base0[s.id]:
                game.emit("report.stat", "public", player=p.pid, stat=s.id, delta=base1[s.id] - base0[s.id], value=base1[s.id])
            elif s.visibility == "secret" and true1[s.id] != true0[s.id]:
                game.emit("private.stat", "players", [p.pid], stat=s.id, delta=true1[s.id] - true0[s.id], value=true1[s.id])
            elif s.visibility == "hidden" and base1[s.id] != base0[s.id]:
                game.emit("gm.stat", "gm", player=p.pid, stat=s.id, delta=base1[s.id] - base0[s.id], value=base1[s.id])
        for sid in sorted(stat1 - stat0):
            if sid in known:
                pub = known[sid].public
                game.emit("report.status_on", "public" if pub else "players", [] if pub else [p.pid], player=p.pid, status=sid)
        died = any(known[sid].dead for sid in stat1 - stat0 if sid in known)
        for sid in sorted(stat0 - stat1):
            if sid in known and not died:  # death says it all: no "no longer poisoned"
                pub = known[sid].public
                game.emit("report.status_off", "public" if pub else "players", [] if pub else [p.pid], player=p.pid, status=sid)


def _after_resolve(game: Game) -> None:
    """Let votes watch the new state (seed 000's prison list grows after every period)."""
    from .registry import VOTES

    for vdef in game.rules.votes:
        hook = getattr(VOTES[vdef.kind], "watch", None)
        if hook:
            hook(game, vdef)


def _check_end(ctx: Ctx) -> None:
    from .registry import VICTORIES

    g = ctx.game
    st = g.state
    vdef = g.rules.victory
    checker = VICTORIES[vdef.kind]
    result = checker(g, vdef.params, final=st.tick >= g.end_tick)
    if result is None and st.tick < g.end_tick:
        return
    st.over = True
    st.winner = list(result or [])
    g.emit("game.over", "public", winners=list(st.winner))
