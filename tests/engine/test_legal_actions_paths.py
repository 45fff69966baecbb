"""``legal_actions`` and ``Game.vote`` take short cuts (for the simulator's speed):
the ways a player's period rules out at once are skipped without building their refusal,
targets are decided from facts found once per call, a ballot checks its one choice. These
tests hold the short cuts to the one rule: in many random games of every shipped and test
ruleset, at the start of each tick and again after the automatic players have acted,

- every move ``legal_actions`` lists is what ``check_available`` and ``_target_ok`` accept,
  asked one way and one target at a time, and nothing they accept is left out;
- ``Game.vote`` accepts a choice exactly when ``vote_choices`` lists it (or refuses it only
  because the voter may not change their ballot again).
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from altmafia.tools.simulate.table import Table, new_table
from config import load_ruleset
from engine import ActionError, Game

RULESETS = ["godfather", "council", "eternal_friday", "stats_mafia", "classic", "eternal_friday_mini", "stats_mafia_mini",
            "council_own_table"]


def one_at_a_time(g: Game, pid: int) -> list[tuple[Any, ...]]:
    """What ``pid`` may do now, from the plain checks: every way asked of ``check_available``
    on its own, every target of ``_target_ok`` on its own."""
    p = g.player(pid)
    if g.state.over or not g.alive(p) or g.phase_cut():
        return []
    own = g.abilities(p)
    extra = g.extra_slots(p)
    ways = [(k, None) for k, _ in own] + [(k, "leader") for k in g.leader_keys(p)]
    ways += [(k, "extra") for k, ab in own if ab.slot in extra]
    ways += [(k, b) for b in g.borrowers(p) for k in g.borrow_keys(p, b)]
    out = []
    for key, via in ways:
        try:
            ab = g.check_available(p, key, via)
        except ActionError:
            continue
        targets = [t.pid for t in g.state.players if g.legality._target_ok(p, ab, t, via) is None] if ab.targets else []
        if ab.targets and len(targets) < ab.targets:
            continue
        options = [o for o in ab.options if not ab.checks or g.run_checks(p, ab, None, o) is None]
        if ab.options and not options:
            continue
        out.append((key, via, targets, options, g.lane_for(key, ab, via)))
    return out


def listed(g: Game, pid: int) -> list[tuple[Any, ...]]:
    return [(a.key, a.via, a.targets, a.options, a.lane) for a in g.legal_actions(pid)]


def ballots_agree(g: Game, pid: int) -> int:
    """For each open vote: every seat, «за мир», the named choices and a few that are never
    valid, cast on a copy of the game: accepted exactly when ``vote_choices`` lists them."""
    checked = 0
    for v in g.open_votes():
        try:
            choices = g.vote_choices(pid, v.id)
        except ActionError:
            choices = []
        for c in [*range(len(g.state.players)), "peace", "against_all", "amnesty", "execution", -1, len(g.state.players), None]:
            copy = g.copy()
            try:
                copy.vote(pid, v.id, c)
                accepted = True
            except ActionError as exc:  # a ballot that may not be changed again refuses a listed choice
                accepted = exc.key == "vote_change_limit"
            assert accepted == (c in choices), (g.rules.id, g.state.tick, pid, v.id, c, choices)
            checked += 1
    return checked


@pytest.mark.parametrize("ruleset", RULESETS)
def test_legal_actions_are_the_plain_checks(ruleset: str) -> None:
    rules = load_ruleset(ruleset, include_tests=True)
    compared = moves = ballots = 0
    for index in range(2):
        game, policies, rnd = new_table(rules, 17, index, None, "random")
        table = Table(game, policies, rnd)
        pick = random.Random(index)
        voted = 0
        while not game.state.over and game.state.tick <= table.max_ticks:
            for stage in ("start", "acted"):
                for p in game.state.players:
                    got = listed(game, p.pid)
                    assert got == one_at_a_time(game, p.pid), (ruleset, index, game.state.tick, stage, p.pid)
                    compared += 1
                    moves += len(got)
                if stage == "start":
                    table.tick()
            living = [p.pid for p in game.living()]
            if living and game.open_votes() and voted < 3:  # ballots, each on a copy: three ticks a game, one voter
                ballots += ballots_agree(game, pick.choice(living))
                voted += 1
            game.resolve()
    assert compared and moves  # the walk saw players with moves to compare
    if any(v for v in rules.votes):
        assert ballots  # and ballots
