"""Seed 000's modifiers family, engine side: the riot's request to end the turn now, actions
performed through a borrowing ability, and a blackmailed player's allowance."""

from __future__ import annotations

import json

import pytest

from engine import ActionError, Game

from ...conftest import make_game


def test_riot_asks_the_scheduler_to_end_the_day_now(godfather):
    g = make_game(godfather, [
        {"name": "Аня", "role": "tavern_keeper", "stats": {"vo": 8}},
        {"name": "Борис", "role": "moneylender"},
        {"name": "Вера", "role": "moneylender"},
    ])
    assert not g.end_now_requested()
    g.submit(1, "day", [2])
    g.submit(0, "Спровоцировать бунт")
    assert g.end_now_requested()
    assert g.state.to_dict()["memo"]["end_now"] == {"seq": 2, "by": 0, "tick": 0, "last": 1}
    assert [e.key for e in g.state.events][-1] == "phase.end_now"
    assert not g.cancel(0)  # announced: cannot be taken back
    with pytest.raises(ActionError) as e:
        g.submit(0, "day", [1])
    assert e.value.key == "turn_used"
    g.submit(2, "day", [1])  # the others may still act until the resolve
    events = g.resolve()
    assert any(e.key == "phase.ended_early" and e.audience == "public" for e in events)
    # day 1.2: the rest of the cut day, resolved at once by the scheduler; nobody may act
    assert g.info.label == "day 1.2" and g.end_now_requested() and g.phase_cut()
    assert all(g.legal_actions(p.pid) == [] for p in g.state.players)
    with pytest.raises(ActionError) as e:
        g.submit(2, "day", [1])
    assert e.value.key == "phase_ended"
    data = json.loads(json.dumps(g.to_dict()))
    assert Game.from_dict(godfather, data).end_now_requested()
    g.resolve()
    assert g.info.label == "night 1" and not g.end_now_requested() and "end_now" not in g.state.to_dict()["memo"]
    assert g.legal_actions(1)


def test_riot_at_night_ends_only_the_night(godfather):
    g = make_game(godfather, [
        {"name": "Аня", "role": "tavern_keeper", "stats": {"vo": 12}},  # 8 after the idle day
        {"name": "Борис", "role": "moneylender"},
    ])
    g.resolve()
    g.resolve()
    assert g.info.label == "night 1"
    g.submit(0, "Спровоцировать бунт")
    assert g.state.to_dict()["memo"]["end_now"]["last"] == g.state.tick
    g.resolve()
    assert g.info.label == "day 2.1" and not g.end_now_requested()


def test_borrowed_actions_are_offered_with_their_way_and_survive_a_restore(godfather):
    g = make_game(godfather, [
        {"name": "Аня", "role": "shipwright_master", "faction": "f1", "leader": True},
        {"name": "Борис", "role": "moneylender", "character": "strategist", "faction": "f1"},
        {"name": "Вера", "role": "moneylender"},
    ])
    cabin = "role:shipwright_master:captains_cabin"
    legal = {(a.key, a.via) for a in g.legal_actions(0)}
    assert ("character:strategist:preempt", cabin) in legal
    assert ("character:strategist:strategic_triumph", cabin) not in legal  # a night action, in the day
    assert all(k != cabin for k, _ in legal)  # never on its own
    i = g.submit(0, "Ставка на опережение", [2], via="Ремонт каюты капитана")
    assert (i.ability, i.via, i.lane) == ("character:strategist:preempt", cabin, "action")
    data = json.loads(json.dumps(g.to_dict()))
    h = Game.from_dict(godfather, data)
    h.resolve()
    assert h.player(0).ready_at[cabin] == 9  # the cabin's 3 cycles
    assert not any(a.via == cabin for a in h.legal_actions(0))


def test_a_blackmailed_player_may_only_make_the_forced_move_at_the_imposed_target(godfather):
    g = make_game(godfather, [
        {"name": "Аня", "role": "courtier", "stats": {"vo": 8}},
        {"name": "Борис", "role": "commoner_captain"},
        {"name": "Вера", "role": "moneylender"},
        {"name": "Глеб", "role": "moneylender"},
    ])
    g.submit(0, "Шантаж", [1, 2], option="day")
    g.resolve()
    legal = g.legal_actions(1)
    assert [(a.key, a.targets) for a in legal if g.counts_as_action(a.ability)] == [("role:commoner_captain:angry_speech", [2])]
    with pytest.raises(ActionError) as e:
        g.submit(1, "Гневная речь", [3])
    assert e.value.key == "blackmailed_target"
    g.resolve()  # day 1.2 ends: the move is made for him (his turn: no inactivity penalty)
    assert g.player(2).stats["vo"] == -5  # −3, and −2 for Вера's own idle day
    assert g.player(1).stats["vo"] == 0
    assert g.info.label == "night 1"
    assert any(a.key == "role:commoner_captain:navigation_critique" and len(a.targets) == 3 for a in g.legal_actions(1))
