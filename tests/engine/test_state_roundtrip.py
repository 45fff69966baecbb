"""The whole game state round-trips losslessly through JSON, random generator included."""

from __future__ import annotations

import json

from engine import Game

from ..conftest import TABLE, make_game


def play(game: Game, ticks: int) -> None:
    for _ in range(ticks):
        for p in game.living():
            legal = [a for a in game.legal_actions(p.pid) if game.counts_as_action(a.ability)]
            if not legal:
                continue
            a = game.rng.choice(legal)
            targets = game.rng.sample(a.targets, a.ability.targets) if a.ability.targets else []
            option = a.any_option(game.rng)
            game.submit(p.pid, a.key, targets, option, via=a.via)
        game.resolve()


def test_round_trip_is_lossless_midgame(godfather):
    game = make_game(godfather, TABLE, seed=11, settings={"hidden_bonus_choice": {"Даша": "tv"}})
    play(game, 5)
    game.submit(0, "day", [1]) if game.info.kind == "day" else None
    game.send_pm(1, 2, "тайная встреча")
    game.post_anon(3, "кто-то лжёт")
    data = game.to_dict()
    text = json.dumps(data, ensure_ascii=False)
    again = Game.from_dict(godfather, json.loads(text))
    assert again.to_dict() == data
    assert json.dumps(again.to_dict(), ensure_ascii=False) == text


def test_restored_game_continues_identically(godfather):
    """The random generator's state is part of the game: both copies play on the same."""
    game = make_game(godfather, TABLE, seed=5)
    play(game, 4)
    copy = Game.from_dict(godfather, json.loads(json.dumps(game.to_dict())))
    play(game, 6)
    play(copy, 6)
    assert copy.to_dict() == game.to_dict()
    assert game.state.tick == 10


def test_every_field_survives(godfather):
    game = make_game(
        godfather,
        [
            {"name": "А", "role": "tavern_keeper", "character": "smart", "faction": "f1", "leader": True},
            {"name": "Б", "role": "moneylender", "character": "strategist", "faction": "f1"},
            {"name": "В", "role": "courtier", "statuses": ["poisoned"], "stats": {"tv": 13}},
        ],
    )
    game.gm_set_status(2, "prison", cycles=2)
    data = json.loads(json.dumps(game.to_dict()))
    back = Game.from_dict(godfather, data)
    assert back.state.factions["f1"].members == {0: -1, 1: -1}
    assert back.player(2).statuses["prison"].until == 6
    assert back.player(1).modifiers[0].amount == 2
    assert back.rng.random() == game.rng.random()


def test_a_snapshot_from_before_status_kinds_loads(godfather):
    """Statuses stored before ``Status.kind`` get their kind from the id's prefix, and the
    game plays on the same as the one that stored them."""
    game = make_game(godfather, TABLE, seed=3)
    play(game, 4)
    data = json.loads(json.dumps(game.to_dict(), ensure_ascii=False))
    kinds = {s["id"]: s["kind"] for p in data["players"] for s in p["statuses"]}
    assert any(k for k in kinds.values()), "the play put no effect status: nothing to test"
    old = json.loads(json.dumps(data))
    for p in old["players"]:
        for s in p["statuses"]:
            del s["kind"]
    again = Game.from_dict(godfather, old)
    assert {s.id: s.kind for p in again.state.players for s in p.statuses.values()} == kinds
    assert again.to_dict() == data


def test_every_event_names_a_known_audience(godfather):
    """``emit`` takes no default audience, and refuses one that is not a reader."""
    import pytest

    from engine import GameError

    game = make_game(godfather, TABLE, seed=2)
    with pytest.raises(TypeError):
        game.emit("gm.note")  # type: ignore[call-arg]
    with pytest.raises(GameError, match="audience 'everyone'"):
        game.emit("gm.note", "everyone")  # type: ignore[arg-type]
    with pytest.raises(GameError, match="names its faction"):
        game.emit("faction.note", "faction")
    play(game, 3)
    assert game.state.events and {e.audience for e in game.state.events} <= {"public", "players", "faction", "gm"}
