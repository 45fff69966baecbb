"""What ``Game.vote_choices`` lists is exactly what ``Game.vote`` accepts, in every ruleset and
in every phase of a few random games: the bot offers that list and nothing else."""

from __future__ import annotations

import contextlib
import random

import pytest

from config import available_rulesets, load_ruleset_file
from engine import ActionError, Game
from engine.registry import VOTES

from .test_random_play import new_game, random_turn

RULESETS = available_rulesets(include_tests=True)


def every_choice(g: Game, vdef) -> list[int | str]:
    """Every player and every named choice any vote of the game has, and two that none has."""
    named = {c for v in g.rules.votes for c in VOTES[v.kind].named_choices(g, v)} | {"peace", "nobody"}
    return [q.pid for q in g.state.players] + sorted(named) + [len(g.state.players)]


def accepted(g: Game, pid: int, vote_id: str, choice) -> bool:
    trial = Game.from_dict(g.rules, g.to_dict())
    trial.state.votes = [v for v in trial.state.votes if v.pid != pid or v.vote != vote_id]  # a first ballot
    try:
        trial.vote(pid, vote_id, choice)
    except ActionError:
        return False
    return True


@pytest.mark.parametrize("rid", sorted(RULESETS))
def test_the_choices_are_what_a_vote_accepts(rid):
    rules = load_ruleset_file(RULESETS[rid])
    rnd = random.Random(5)
    g = new_game(rules, 5)
    checked = 0
    for _ in range(6):
        if g.state.over:
            break
        for vdef in g.open_votes():
            for p in g.state.players[:8]:
                try:
                    offered = g.vote_choices(p.pid, vdef.id)
                except ActionError as err:
                    assert err.key in ("cannot_vote", "vote_closed", "game_over"), err
                    assert not accepted(g, p.pid, vdef.id, p.pid)
                    continue
                assert len(set(map(str, offered))) == len(offered), offered
                for c in every_choice(g, vdef):
                    assert accepted(g, p.pid, vdef.id, c) == (c in offered), (rid, g.info.label, p.pid, vdef.id, c, offered)
                    checked += 1
        random_turn(g, rnd)
        with contextlib.suppress(ActionError):
            g.resolve()
    if rid in ("classic", "council", "eternal_friday", "godfather", "stats_mafia"):  # the books' votes open early
        assert checked, f"{rid}: no vote was open in six phases"
