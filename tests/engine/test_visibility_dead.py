"""engine/visibility.py: the channel of the dead and the spectators. It exists where the game
has ``settings.dead_channel`` and the book lets the dead talk (``settings.dead_talk``: false in
seed 003, «Участие мертвых персонажей в дальнейшей игре и ее обсуждении категорически
порицается»); the dead read and write there, spectators too, the living see nothing."""

from __future__ import annotations

from config import load_ruleset
from engine import DEAL, Game, PlayerSpec
from engine.visibility import NONE, RW, channel

from .test_visibility import stats_game


def godfather_game(settings: dict | None = None) -> Game:
    rules = load_ruleset("godfather")
    return Game.new(rules, 3, [PlayerSpec(f"P{i}", DEAL) for i in range(6)], settings)


def test_the_dead_and_the_spectators_talk_there():
    g = godfather_game({"dead_channel": True})
    dead = channel(g, "dead")
    assert dead is not None and not dead.readers and dead.spectators and dead.spectators_write
    g.gm_remove(2)
    dead = channel(g, "dead")
    assert dead.access(2) == RW and dead.access(0) == NONE and dead.readers == frozenset({2})


def test_no_channel_unless_the_gm_asks_or_where_the_book_forbids():
    assert channel(godfather_game(), "dead") is None
    assert load_ruleset("stats_mafia").settings["dead_talk"] is False
    assert channel(stats_game({"dead_channel": True}), "dead") is None
