"""Bookkeeping around a resolve: stat clamps, bands, spent uses, who was able to act."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..state import VIAS, Able, Intent, Player, Status

if TYPE_CHECKING:
    from ..world import World


def clamp(game: World, when: str) -> None:
    """Every player's stats clamped at ``when`` (``step``: those clamped after each step;
    ``resolve``: all) into their bounds; a stat a player lacks is set, clamped from 0. A value
    within its bounds is left as it is (the same dict, the same order)."""
    cache = game.rules.derived_cache
    bounds = cache.get(("clamp", when))
    if bounds is None:
        bounds = cache[("clamp", when)] = tuple(
            (s.id, s.min, s.max) for s in game.rules.stats if s.clamp == when or when == "resolve")
    players = game.state.players
    for sid, lo, hi in bounds:
        for p in players:
            stats = p.stats
            v = stats.get(sid)
            if v is None:
                v = 0
            elif (lo is None or v >= lo) and (hi is None or v <= hi):
                continue
            if lo is not None and v < lo:
                v = lo
            if hi is not None and v > hi:
                v = hi
            stats[sid] = v


def apply_bands(game: World, announce: bool = True) -> None:
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
                p.statuses[want] = Status(id=want, since=game.state.tick)


def _spend(game: World, intent: Intent, turn: str | None = None, ab: Any = None) -> None:
    """Spend what ``intent`` uses: its lane of the turn (``turn``: the current one, given by a
    caller that knows it), its cooldown, a use, its once-per-target marks. ``ab``: the
    intent's ability, given by a caller that has it."""
    p = game.state.players[intent.pid]
    if ab is None:
        ab = game.ability_def(intent.ability)
    if turn is None:
        turn = game.info.turn
    lanes = p.spent.get(turn)
    if lanes is None:
        # only the current turn's lanes are ever asked; the one before is kept for a caller that
        # spends the closing turn's intents after the next turn began, older ones are dropped so
        # that a snapshot does not grow with the game
        while len(p.spent) > 1:
            del p.spent[next(iter(p.spent))]
        lanes = p.spent[turn] = []
    if intent.lane not in lanes:
        lanes.append(intent.lane)
    via = intent.via
    if via == "leader":  # the leader action: once a cycle, on nobody's own counter
        p.ready_at["leader"] = game.state.tick + game.clock.cycles(1)
        return
    if via is not None and via not in VIAS:  # performed through a borrowing ability: its counters too
        vab = game.ability_def(via)
        if game.cooldown_ticks(vab):
            p.ready_at[via] = game.state.tick + game.cooldown_ticks(vab)
        if vab.uses_per_game is not None:
            p.uses[via] = p.uses.get(via, 0) + 1
    cd = _cooldown(game, intent.ability, ab)
    if cd:
        p.ready_at[intent.ability] = game.state.tick + cd
    if ab.uses_per_game is not None:
        p.uses[intent.ability] = p.uses.get(intent.ability, 0) + 1
    if ab.once_per:  # never again on these targets (with this option)
        for t in intent.targets:
            p.uses[f"once:{ab.id}:{t}" + (f":{intent.option}" if ab.once_per == "target_option" else "")] = 1


def _cooldown(game: World, key: str, ab: Any) -> int:
    """:meth:`World.cooldown_ticks` of the ability ``key`` (once per ruleset and key: it reads
    the ability, its slot and the calendar alone)."""
    cache = game.rules.derived_cache
    found = cache.get(("cooldown", key))
    if found is None or found[0] is not ab:
        found = cache[("cooldown", key)] = (ab, game.cooldown_ticks(ab))
    return found[1]


def able_now(game: World, p: Player) -> bool:
    """Whether ``p`` may act in the current period: alive, and under no status that forbids
    every action (prison, away at the baptism, barracks, «лишён действий») unless a passive lets
    them act under it (Бывалый in prison)."""
    if not game.alive(p):
        return False
    return not any("*" in f.blocks_slots and not game.passives(p, f"acts_in_{f.id}") for f in game.status_flags(p))


def record_able(game: World, turn: str | None = None) -> None:
    """Note, as the period is resolved, who could act in it (``GameState.core.able``: the turn
    and its pids). A period after a riot ended the day early («Спровоцировать бунт») is nobody's.
    ``turn``: the current one, given by a caller that knows it."""
    st = game.state
    if turn is None:
        turn = game.info.turn
    able = st.core.able
    if able is None or able.turn != turn:
        able = st.core.able = Able(turn=turn)
    cut = st.core.end_now
    if cut and cut.tick < st.tick <= cut.last:
        return
    # a player under no status at all is alive and free to act (``able_now`` without asking)
    now = [p.pid for p in st.players if not p.statuses or able_now(game, p)]  # by seat (players[pid])
    able.pids = sorted(set(able.pids).union(now)) if able.pids else now  # each seat once already


def owes_turn(game: World, p: Player) -> bool:
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
    able = st.core.able
    if able is None or able.turn != turn:
        return able_now(game, p)
    return p.pid in able.pids
