"""engine/phase_end.py: whom a phase waits for, who owes an action or a vote.

Over seeded random games of every shipped ruleset: each living player is in exactly one group
of the GM's roll (done, owed, idle, none), the owed ones are exactly those the reminders reach,
nobody is both; the GM's ``declare_idle`` is state (it survives a snapshot and a journal
replay, is cleared when the tick advances) and is refused where it has no effect.
"""

from __future__ import annotations

import contextlib
import random
from types import SimpleNamespace

import pytest

from config import load_ruleset
from engine import DEAL, ActionError, Game, GameError, PlayerSpec
from engine.registry import EARLY_ENDS, EarlyEnd
from storage.commands import Command, is_gm_kind, replay

from ..players import submit_drawn

RULESETS = ["godfather", "council", "eternal_friday", "stats_mafia", "classic"]


SIZES = {"eternal_friday": 18}


def new_game(ruleset: str, seed: int, n: int = 8) -> Game:
    n = max(n, SIZES.get(ruleset, 0))
    return Game.new(load_ruleset(ruleset), seed, [PlayerSpec(f"P{i}", DEAL, DEAL) for i in range(n)])


def check_roll(g: Game) -> None:
    roll = g.phase_roll()
    groups = [set(roll.done), set(roll.owed), set(roll.idle), set(roll.none)]
    living = {p.pid for p in g.living()}
    assert set().union(*groups) == living
    assert sum(len(x) for x in groups) == len(living), "a player in two groups"
    owed = g.owed()
    assert {o.pid for o in owed if o.action} == set(roll.owed)
    assert {o.pid for o in owed if o.votes} == set(roll.not_voted)
    assert not set(roll.voted) & set(roll.not_voted)
    for pid, subs in roll.submitted.items():
        assert subs and all(i.pid == pid and i.tick == g.state.tick for i in subs)
    waiting = g.waiting_for()
    if waiting is not None:
        assert set(waiting) <= {o.pid for o in owed}, "the phase waits only for someone who owes something"


@pytest.mark.parametrize("ruleset", RULESETS)
def test_roll_partitions_the_living_players(ruleset):
    for seed in range(3):
        rnd = random.Random(seed)
        g = new_game(ruleset, seed, 9)
        for _ in range(3 * g.clock.per_cycle):
            if g.state.over:
                break
            check_roll(g)
            for p in g.living():
                legal = g.legal_actions(p.pid)
                if legal and rnd.random() < 0.5:
                    with contextlib.suppress(ActionError):
                        submit_drawn(g, p.pid, rnd, rnd.choice(legal))
                check_roll(g)
                for v in g.open_votes():
                    if rnd.random() < 0.5:
                        with contextlib.suppress(ActionError):
                            g.vote(p.pid, v.id, rnd.choice([q.pid for q in g.living()]))
            check_roll(g)
            before = {o.pid for o in g.owed() if o.action}
            acted = set(g.phase_roll().done)
            assert not before & acted
            g.resolve()


def test_a_submission_pays_the_turn_and_leaves_the_owed():
    g = new_game("godfather", 3, 6)
    assert g.info.kind == "day"
    first = next(p for p in g.living() if g.owes_action(p))
    legal = [a for a in g.legal_actions(first.pid) if g.lane_for(a.key, a.ability, a.via) == "action"]
    submit_drawn(g, first.pid, random.Random(1), legal[0])
    assert not g.owes_action(first)
    assert first.pid in g.phase_roll().done
    assert first.pid not in {o.pid for o in g.owed()}


def stats_game() -> Game:
    rules = load_ruleset("stats_mafia")
    ps = [("Аня", "Политик", "Киллер"), ("Борис", "Миллионер", "Мирный житель"), ("Вера", "Здоровяк", "Мирный житель")]
    return Game.new(rules, 1, [PlayerSpec(n, r, c) for n, r, c in ps])


def test_declare_idle_is_state_and_ends_with_the_tick():
    g = stats_game()
    assert g.waiting_for() == [0, 1, 2]
    g.declare_idle(1)
    assert g.state.idle == [1] and g.waiting_for() == [0, 2]
    assert 1 in g.phase_roll().idle and 1 not in {o.pid for o in g.owed()}
    assert [e.key for e in g.state.events[-1:]] == ["gm.declared_idle"]
    restored = Game.from_dict(g.rules, g.to_dict())
    assert restored.state.idle == [1] and restored.waiting_for() == [0, 2]
    g.resolve()
    assert g.state.idle == [] and g.info.kind == "day"


def test_declare_idle_replays_from_the_journal():
    g = stats_game()
    info = SimpleNamespace(seed=1, players=[{"name": p.name, "role": p.role, "character": p.character} for p in g.state.players],
                           settings={})
    cmd = Command.declare_idle(2)
    assert cmd.is_gm and is_gm_kind("declare_idle")
    journal = [{"kind": cmd.kind, "args": cmd.args}]
    games = list(replay(g, info, journal))
    assert games[-1].state.idle == [2]
    assert games[-1].waiting_for() == [0, 1]


def test_declare_idle_is_refused_where_it_has_no_effect():
    g = stats_game()
    g.declare_idle(0)
    with pytest.raises(ActionError) as err:
        g.declare_idle(0)
    assert err.value.key == "idle_already"
    g.submit(1, "own_hands", [2], "defense")
    with pytest.raises(ActionError) as err:
        g.declare_idle(1)
    assert err.value.key == "idle_owes_nothing"
    gf = new_game("godfather", 1, 6)
    with pytest.raises(ActionError) as err:
        gf.declare_idle(0)
    assert err.value.key == "idle_no_early_end"
    g.gm_remove(2)
    with pytest.raises(ActionError) as err:
        g.declare_idle(2)
    assert err.value.key == "idle_not_alive"


def test_early_end_is_a_typed_hook():
    assert issubclass(EARLY_ENDS["stats_mafia_full"], EarlyEnd)
    with pytest.raises(GameError, match="early_end"):
        Game.new(load_ruleset("stats_mafia"), 1, [PlayerSpec(f"P{i}", DEAL, DEAL) for i in range(6)],
                 settings={"early_end": "no_such_rule"})
    with pytest.raises(GameError, match="min_next_phase_minutes"):
        Game.new(load_ruleset("stats_mafia"), 1, [PlayerSpec(f"P{i}", DEAL, DEAL) for i in range(6)],
                 settings={"min_next_phase_minutes": -5})


def test_a_slowpoke_holds_up_no_night_but_every_day():
    g = stats_game()
    g.gm_set_status(2, "slowpoke")
    assert g.waiting_for() == [0, 1] and g.held_up_by_nobody() == [2]
    assert 2 in {o.pid for o in g.owed()}, "still reminded"
    g.resolve()
    assert g.info.kind == "day"
    assert 2 in g.waiting_for() and g.held_up_by_nobody() == []
