"""A game whose private notices are not worked out (``World.private_notices = False``, set by
``altmafia simulate`` for its bulk runs: its report never reads them) plays exactly as one
that works them out: over random games of every ruleset (shipped and test-only), the final
state and every event but the notices (the ``notice.*`` events told to one player, and the causes of ``private.stat``,
which come from the notices' ledger) are identical, and the simulate report is the same byte
for byte. A replayed game (``--game``) still tells them."""

from __future__ import annotations

import random

import pytest

from altmafia.tools.simulate import table as table_mod
from altmafia.tools.simulate.table import (
    Run,
    Table,
    format_report,
    new_table,
    play_game,
    replay,
    run_games,
    summarize,
)
from config import load_ruleset, load_ruleset_file

from ..engine.test_random_play import RULESETS, new_game, random_turn

SHIPPED = ["godfather", "council", "eternal_friday", "stats_mafia", "classic"]
# the private notices (engine.resolve.notices.tell): the only events a game without them lacks
NOTICES = {"notice.stat", "notice.status_on", "notice.status_off", "notice.blocked", "notice.action_done"}


def _without_notices(events: list[tuple]) -> list[tuple]:
    out = []
    for tick, key, audience, ids, args in events:
        if key in NOTICES:
            continue
        if key == "private.stat":
            args = {k: v for k, v in args.items() if k != "causes"}
        out.append((tick, key, audience, ids, args))
    return out


def _events(game) -> list[tuple]:
    return [(e.tick, e.key, e.audience, list(e.ids), e.args) for e in game.state.events]


def _random_play(rules, seed: int, notices: bool) -> tuple[list[tuple], dict]:
    g = new_game(rules, seed)
    g.private_notices = notices
    rnd = random.Random(seed)
    for _ in range(40):
        if g.state.over:
            break
        random_turn(g, rnd)
        g.resolve()
    return _events(g), g.to_dict()


def _table_play(rules, index: int, policy: str, notices: bool) -> tuple[list[tuple], dict]:
    game, policies, rnd = new_table(rules, 11, index, None, policy)
    game.private_notices = notices
    Table(game, policies, rnd).play()
    return _events(game), game.to_dict()


def _same_but_notices(with_: tuple[list[tuple], dict], without: tuple[list[tuple], dict]) -> None:
    assert _without_notices(with_[0]) == without[0]
    assert not [e for e in without[0] if e[1] in NOTICES]
    with_state, without_state = dict(with_[1]), dict(without[1])
    del with_state["events"], without_state["events"]  # compared above
    assert with_state == without_state


@pytest.mark.parametrize("rid", sorted(RULESETS))
@pytest.mark.parametrize("seed", [1, 2])
def test_random_play_the_same_without_notices(rid, seed):
    rules = load_ruleset_file(RULESETS[rid])
    _same_but_notices(_random_play(rules, seed, True), _random_play(rules, seed, False))


@pytest.mark.parametrize("rid", SHIPPED)
def test_the_simulators_games_the_same_without_notices(rid):
    rules = load_ruleset(rid, include_tests=True, files=True)
    told = 0
    for index in range(3):
        for policy in ("random", "greedy", "mixed"):
            with_ = _table_play(rules, index, policy, True)
            _same_but_notices(with_, _table_play(rules, index, policy, False))
            told += sum(e[1] in NOTICES for e in with_[0])
    assert told  # the games with notices did tell some


@pytest.mark.parametrize("rid", SHIPPED)
def test_the_simulate_report_the_same_byte_for_byte(rid):
    run = Run(ruleset=rid, games=6, seed=1, policy="mixed")
    rules = load_ruleset(rid, include_tests=True, files=True)
    told = [{"index": i, **play_game(rules, run.seed, i, run.players, run.policy, notices=True)} for i in range(run.games)]
    bulk = run_games(run)
    assert bulk == told
    assert format_report(summarize(run, bulk)) == format_report(summarize(run, told))


def test_a_replayed_game_tells_its_notices(monkeypatch):
    """``--game INDEX`` (its log and its HTML review read the notices): they are worked out."""
    tables = []

    class Seen(table_mod.Table):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            tables.append(self)

    monkeypatch.setattr(table_mod, "Table", Seen)
    rec, log = replay(Run(ruleset="godfather", games=1, seed=1), 0, "ru")
    (table,) = tables
    assert table.g.private_notices
    assert any(e.key in NOTICES for e in table.g.state.events)
    assert rec["index"] == 0 and log
