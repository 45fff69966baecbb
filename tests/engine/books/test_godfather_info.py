"""Godfather's information family: the state queries the Discord layer calls directly."""

from __future__ import annotations

from engine.books.godfather.info import faction_acts, hidden_action, sealed_pm

from ...conftest import make_game

TABLE = [
    {"name": "Аня", "role": "moneylender"},
    {"name": "Борис", "role": "plantation_owner"},
    {"name": "Вера", "role": "commoner_captain", "character": "attentive", "faction": "f1", "leader": True},
    {"name": "Глеб", "role": "tavern_keeper", "faction": "f1"},
    {"name": "Жанна", "role": "tavern_keeper", "character": "cunning", "faction": "f1"},
]


def test_faction_acts_answers_on_request_without_a_resolve(godfather):
    g = make_game(godfather, TABLE)
    g.submit(3, "day", [0])  # Глеб → Аня, day 1.1
    g.resolve()
    assert faction_acts(g, 2) == {3: [0], 4: []}
    g.resolve()  # day 1.2
    g.submit(3, "night", [1])  # Глеб → Борис
    g.submit(4, "night", [1])  # Жанна is a Хитрец: undetectable, by her faction's Внимательный too
    g.resolve()  # night 1
    assert faction_acts(g, 2) == {3: [0, 1], 4: []}
    g.resolve()  # day 2.1: day 1.1 is now more than 24 hours back
    assert faction_acts(g, 2) == {3: [1], 4: []}
    assert faction_acts(g, 0) == {}  # outside a faction: nothing to know
    # the query reads the state only: nothing was emitted for it
    assert not [e for e in g.state.events if e.key.startswith("info.")]


def test_secrecy_helpers(godfather):
    g = make_game(godfather, TABLE)
    assert hidden_action(g, 4, 0, viewer=2) and not hidden_action(g, 4, 0, viewer=4)
    assert not hidden_action(g, 3, 0, viewer=2)
    pm = g.send_pm(0, 4, "тайна")
    assert sealed_pm(g, pm, viewer=2) and not sealed_pm(g, pm, viewer=4)
    assert not sealed_pm(g, g.send_pm(0, 1, "не тайна"), viewer=2)
