"""The resolve's fast paths (docs/benchmarks.md, the peer comparison) answer exactly as the
general paths they skip: the same random games, played once as shipped and once with every
skip turned off (the per-ruleset plan saying "everything may happen", nobody's statuses taken
as a reason to skip, the steps' fingerprints not chained), give the same events and the same
state, in every ruleset."""

from __future__ import annotations

import random

import pytest

from config import load_ruleset, load_ruleset_file
from engine.resolve import effects, notices, order, pipeline, swaps, targeting
from engine.world import World

from .test_random_play import RULESETS, new_game, random_turn


def _play(rules, seed: int, turns: int = 40) -> tuple[list[tuple], dict]:
    g = new_game(rules, seed)
    rnd = random.Random(seed)
    for _ in range(turns):
        if g.state.over:
            break
        random_turn(g, rnd)
        g.resolve()
    events = [(e.tick, e.key, e.audience, list(e.ids), e.args) for e in g.state.events]
    return events, g.to_dict()


def _everything(monkeypatch) -> None:
    """Turn every skip off: the general path runs wherever a fast path would skip it."""

    def plan(rules):
        return pipeline.Plan(stats=True, step_clamp=True, step_stats=True, unreachable=True,
                             thresholds=frozenset(rules.steps), orders_known=False,
                             stat_ids=tuple(s.id for s in rules.stats),
                             secret_ids=tuple(s.id for s in rules.stats if s.visibility == "secret"))

    monkeypatch.setattr(pipeline, "plan", plan)
    monkeypatch.setattr(pipeline, "_holds_kind", lambda st, kind: True)
    monkeypatch.setattr(pipeline, "CHAIN", "unchained")  # notices.tracked never sees its CHAIN set
    for mod in (swaps, order, targeting):
        monkeypatch.setattr(mod, "swaps_maybe", lambda ctx: True)
    # the own stats: everyone worked out again after every change, stat by stat, never
    # started from the resolve's snapshot
    monkeypatch.setattr(notices, "_changed", lambda game, old, new: None)
    monkeypatch.setattr(pipeline, "seed_own", lambda ctx, own: None)
    monkeypatch.setattr(World, "true_stats", lambda self, p, ids: {sid: self.true_stat(p, sid) for sid in ids})
    # every action by the general path: its effects and handlers looked up as it runs, every
    # spend through upkeep._spend (no pipeline.AbilityRun is made)
    monkeypatch.setattr(pipeline, "ability_run", lambda game, key, ab: pipeline.AbilityRun(ab=ab, effects=None, lane_only=False))
    monkeypatch.setattr(effects, "_blocks_all_now", lambda slots, until, tick: False)  # Ctx.is_blocked asked


@pytest.mark.parametrize("rid", sorted(RULESETS))
@pytest.mark.parametrize("seed", [1, 2, 5])  # seed 5: stats_mafia's random player once drew a spent (target, option) pair
def test_fast_paths_change_nothing(rid, seed, monkeypatch):
    rules = load_ruleset_file(RULESETS[rid])
    fast = _play(rules, seed)
    rules.derived_cache.pop(("ability_runs",), None)  # (the fast game's AbilityRuns, made once per ruleset)
    _everything(monkeypatch)
    slow = _play(rules, seed)
    assert fast[0] == slow[0]
    assert fast[1] == slow[1]


def test_the_plan_of_each_shipped_ruleset():
    classic = pipeline.plan(load_ruleset("classic"))
    assert not classic.stats and not classic.step_clamp and not classic.step_stats and not classic.unreachable
    godfather = pipeline.plan(load_ruleset("godfather"))
    assert godfather.stats and godfather.step_clamp and godfather.unreachable  # «на крещении индейцев»
    council = pipeline.plan(load_ruleset("council"))
    assert council.thresholds == {"day", "night"}  # the ±15 thresholds «тут же»
    assert notices._reads(type("G", (), {"rules": load_ruleset("stats_mafia")})())[1] >= {"hospital"}


@pytest.mark.parametrize("rid", sorted(RULESETS))
def test_true_stats_is_true_stat_of_each(rid):
    """``World.true_stats`` (one pass over a player's bonuses) gives each stat's ``true_stat``,
    for every player after every resolve of a random game (modifiers, statuses that move a
    stat, faction bonuses as they come)."""
    rules = load_ruleset_file(RULESETS[rid])
    ids = [s.id for s in rules.stats]
    seen = 0
    for g, p in _each_player_after_each_resolve(rules, 3):
        assert g.true_stats(p, ids) == {sid: g.true_stat(p, sid) for sid in ids}
        seen += bool(p.modifiers or p.statuses)
    assert seen or not ids


def _each_player_after_each_resolve(rules, seed: int):
    """(the game, a player) for every player after every resolve of a random game (up to 40)."""
    g = new_game(rules, seed)
    rnd = random.Random(seed)
    for _ in range(40):
        if g.state.over:
            break
        random_turn(g, rnd)
        g.resolve()
        for p in g.state.players:
            yield g, p



@pytest.mark.parametrize("rid", sorted(RULESETS))
def test_message_mode_is_that_of_the_statuses_in_force(rid):
    """``notices.message_mode`` (only the ruleset's statuses with a mode of their own read)
    gives the mode of every status in force (``World.status_flags``), for every player after
    every resolve of a random game."""
    seen = 0
    for g, p in _each_player_after_each_resolve(load_ruleset_file(RULESETS[rid]), 4):
        have = {f.messages for f in g.status_flags(p)}
        general = "drop" if "drop" in have else "hold" if "hold" in have else "deliver"
        assert notices.message_mode(g, p.pid) == general, (rid, p.pid, sorted(p.statuses))
        seen += bool(p.statuses)
    assert seen  # somebody held a status: more than the status-less answer was read
