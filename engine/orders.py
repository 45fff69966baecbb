"""Moves: how an action gets into the game, by its player, a teammate's order, a blackmailer's
forced move or the inactivity rule's random draw. Each is a function of the world with its
checks (:class:`engine.legality.Legality`); :class:`engine.game.Game` delegates its commands
here, and :func:`moves_due` runs, just before a tick resolves, the moves the rules make for the
players (orders given for it, forced moves, random actions).

Orders: an action a teammate gives for another member of their faction (seed 002's «приказ»;
``FactionRules.orders``), for this phase or a later one. The shape of an order for a later phase
is checked when it is given, the rest when its phase is resolved (:func:`settle_orders`)."""

from __future__ import annotations

from .errors import ActionError
from .legality import Legality
from .resolve.upkeep import owes_turn, record_able
from .ruleset import AbilityDef
from .state import VIAS, EndNow, Intent, Player
from .votes import announce_open_action
from .world import World, blocked_by_status


def submit(lg: Legality, pid: int, ability: str, targets: list[int] | None = None, option: str | None = None, via: str | None = None,
           *, by: int | None = None, tick: int | None = None) -> Intent:
    """Submit or replace an action (:meth:`engine.game.Game.submit`). Raises :class:`ActionError` when refused."""
    p = lg.world.player(pid)
    by = None if by == pid else by
    if by is not None:
        check_order(lg.world, by, p)
    if tick is not None and tick != lg.world.state.tick:
        return order_ahead(lg, p, ability, list(targets or []), option, by, tick)
    if via not in VIAS:  # a borrowing ability, by key or name
        via = lg.find_ability(p, via)
        if via not in lg.borrowers(p):
            raise ActionError("unknown_ability", ability=via)
    key = lg.find_ability(p, ability, via)
    targets = list(targets or [])
    ab = lg.check_submission(p, key, targets, option, via)
    x = lg._bound_target(p, ab, via)
    if x is not None and ab.targets > 1 and x not in targets:
        targets = [x, *targets[1:]]  # blackmailed: one of the targets is the one imposed
    lane = lg.lane_for(key, ab, via)
    st = lg.world.state
    mine = [i for i in st.intents if i.pid == pid and i.lane == lane and i.tick == st.tick]
    if by is not None and any(i.by is None for i in mine):
        raise ActionError("own_action")
    st.intents = [i for i in st.intents if not (i.pid == pid and i.lane == lane and i.tick == st.tick)]
    intent = Intent(seq=lg.world.next_seq(), pid=pid, ability=key, targets=targets, option=option, tick=st.tick, lane=lane, via=via, by=by)
    st.intents.append(intent)
    announce_open_action(lg.world, intent)  # «нужно писать открыто» (settings.public_slots)
    if any(e.op == "end_phase" for e in ab.all_effects(option)):
        _request_end_now(lg.world, p, intent, ab)
    return intent


def same_submission(world: World, pid: int, ability: str, targets: list[int], option: str | None = None,
                    via: str | None = None, by: int | None = None) -> Intent | None:
    """The intent of this phase that a submission of exactly these (the ability, its targets in
    order, the option, the way and who gives it) would repeat, or None. A repeat is a retry
    after a lost reply: it is answered with what is recorded and changes nothing."""
    by = None if by == pid else by
    tick = world.state.tick
    return next((i for i in world.state.intents if i.pid == pid and i.tick == tick and i.ability == ability
                 and i.targets == targets and i.option == option and i.via == via and i.by == by), None)


def _request_end_now(world: World, p: Player, intent: Intent, ab: AbilityDef) -> None:
    tick = world.state.tick
    if blocked_by_status(world, p, intent.ability, ab.slot, tick):
        return  # a block already in force when it is announced: the announcement has no force
    cut = world.state.core.end_now
    if cut is not None and cut.tick == tick:
        return  # ended already
    last = tick
    while world.clock.info(last + 1).turn == world.clock.info(tick).turn:
        last += 1
    world.state.core.end_now = EndNow(seq=intent.seq, by=p.pid, tick=tick, last=last)
    world.emit("phase.end_now", "gm", by=p.pid, phase=world.info.turn)


# ---- orders -----------------------------------------------------------------------------
def check_order(world: World, by: int, p: Player) -> None:
    """Raise unless ``by`` may give ``p`` an order now."""
    if not world.rules.factions.orders:
        raise ActionError("orders_not_allowed")
    if world.state.over:
        raise ActionError("game_over")
    if not world.alive(world.player(by)):
        raise ActionError("not_alive")
    if p.pid not in world.teammates(by):
        raise ActionError("not_teammate", target=p.pid)


def order_ahead(lg: Legality, p: Player, ability: str, targets: list[int], option: str | None, by: int | None, tick: int) -> Intent:
    """An order for a later phase: its shape is checked now, the rest when it resolves."""
    if by is None or tick < lg.world.state.tick:
        raise ActionError("wrong_phase", ability=ability, phase=lg.world.clock.info(max(tick, 0)).kind)
    key = lg.find_ability(p, ability)
    ab = lg.world.ability_def(key)
    kind = lg.world.clock.info(tick).kind
    if lg.world.slot_of(ab).phase not in (kind, "any"):
        raise ActionError("wrong_phase", ability=key, phase=lg.world.slot_of(ab).phase)
    if not ab.takes_targets(len(targets)):
        raise ActionError("wrong_target_count", need=ab.targets)
    if len(set(targets)) != len(targets) and not ab.repeat_targets:
        raise ActionError("duplicate_target")
    if any(not 0 <= t < len(lg.world.state.players) for t in targets):
        raise ActionError("unknown_player")
    if ab.options and option not in ab.options:
        raise ActionError("bad_option", options=list(ab.options))
    lane = lg.world.lane_of(key, ab)
    lg.world.state.intents = [i for i in lg.world.state.intents if not (i.pid == p.pid and i.lane == lane and i.tick == tick)]
    intent = Intent(seq=lg.world.next_seq(), pid=p.pid, ability=key, targets=targets, option=option, tick=tick, lane=lane, by=by)
    lg.world.state.intents.append(intent)
    return intent


def settle_orders(lg: Legality) -> None:
    """The orders given for this tick are checked as if their actor submitted them now; one
    that no longer holds (the actor is in hospital, the target died) lapses, and the
    teammate who gave it is told."""
    tick = lg.world.state.tick
    for i in [i for i in lg.world.state.intents if i.tick == tick and i.by is not None]:
        lg.world.state.intents.remove(i)
        try:
            lg.check_submission(lg.world.player(i.pid), i.ability, list(i.targets), i.option, i.via)
        except ActionError as err:
            lg.world.emit("gm.order_lapsed", "gm", player=i.pid, by=i.by, ability=i.ability, reason=err.key)
            lg.world.emit("private.order_lapsed", "players", [i.by], player=i.pid, ability=i.ability)
            continue
        lg.world.state.intents.append(i)


# ---- the moves the rules make before a tick resolves ---------------------------------------
def moves_due(lg: Legality) -> None:
    """What the rules submit for the players as the current tick is resolved, in this order:
    who could act in it is noted (the turn's inactivity reads the whole turn), the orders given
    for it are settled, a blackmailed player's forced move is made, and the random actions of
    ``inactivity.mode: random_action`` are drawn. Then :func:`engine.resolve.pipeline.resolve_tick`."""
    record_able(lg.world, lg.world.info.turn)
    settle_orders(lg)
    if any(s.kind == "obliged" for p in lg.world.state.players for s in p.statuses.values()):
        submit_forced(lg)
    random_actions(lg)


def submit_forced(lg: Legality) -> None:
    """A blackmailed player who has not made the forced move by the last tick of the bound
    turn makes it now: at the blackmailer's target when it takes targets, the rest of the
    targets and an option from the game's generator (sorted first)."""
    st = lg.world.state
    tick = st.tick
    if st.over or not lg.world.clock.is_turn_end(tick):
        return
    for p in lg.world.living():
        ob = lg.obligation(p)
        if not ob or not ob.get("force") or not ob.get("key"):
            continue
        if any(i.pid == p.pid and i.lane == "action" and i.tick == tick for i in st.intents):
            continue
        key = ob["key"]
        ab = lg.world.ability_def(key)
        pool = sorted(t.pid for t in st.players if ab.targets and lg._target_ok(p, ab, t) is None)
        x = ob.get("target")
        targets = [x] if ab.targets and x in pool else []
        rest = [t for t in pool if t not in targets]
        need = ab.targets - len(targets)
        try:
            if lg.borrow_params(ab) is not None or need > len(rest):
                raise ActionError("wrong_target_count", need=ab.targets)
            targets += lg.world.rng.sample(rest, need) if need else []
            option = lg.world.rng.choice(sorted(ab.options)) if ab.options else None
            submit(lg, p.pid, key, targets, option)
        except ActionError:
            lg.world.emit("gm.forced_lapsed", "gm", player=p.pid, ability=key)
            continue
        lg.world.emit("gm.forced_action", "gm", player=p.pid, ability=key, targets=targets)
        lg.world.emit("private.forced_action", "players", [p.pid], ability=key, targets=targets)


def random_actions(lg: Legality) -> None:
    """``inactivity.mode: random_action`` (seed 001: «В случае отсутствия заявки на ход
    выполняется случайное действие на случайного игрока»): in the last period of a day or a
    night, every living player who has not used the turn's action gets one, drawn with the
    game's generator from what they may do now (their own actions; legal targets and option),
    and is told which; no penalty. A day ended early («Спровоцировать бунт») ends with the period
    it was ended in: the actions are drawn there. An ability that ends the phase is left out:
    ending it at its end would tell the public a false early end."""
    if lg.world.rules.inactivity.mode != "random_action":
        return
    st = lg.world.state
    cut = st.core.end_now
    last = lg.world.clock.is_turn_end(st.tick) or bool(cut and cut.tick == st.tick)
    if st.over or not last:
        return
    turn = lg.world.info.turn
    for p in lg.world.living():
        if not owes_turn(lg.world, p):
            continue
        pool = sorted(
            (a for a in lg.legal_actions(p.pid)
             if a.via is None and lg.world.counts_as_action(a.ability)
             and not any(e.op == "end_phase" for effs in [a.ability.effects, *a.ability.options.values()] for e in effs)),
            key=lambda a: a.key,
        )
        if not pool:  # owed, but nothing can be done now (jailed since, every action on cooldown)
            lg.world.emit("gm.random_action_none", "gm", player=p.pid, turn=turn)
            continue
        a = lg.world.rng.choice(pool)
        targets = lg.world.rng.sample(sorted(a.targets), a.ability.targets) if a.ability.targets else []
        option = a.any_option(lg.world.rng, targets)
        try:
            intent = submit(lg, p.pid, a.key, targets, option)
        except ActionError as err:
            lg.world.emit("gm.random_action_failed", "gm", player=p.pid, ability=a.key, reason=err.key)
            continue
        lg.world.emit("gm.random_action", "gm", player=p.pid, ability=a.key, targets=list(intent.targets), option=option)
        told = "private.random_action" if intent.targets else "private.random_action_untargeted"
        lg.world.emit(told, "players", [p.pid], ability=a.key, targets=list(intent.targets))
