from __future__ import annotations

import pytest

from config import load_ruleset
from engine import Game, PlayerSpec


@pytest.fixture
def godfather():
    return load_ruleset("godfather")


def make_game(ruleset, people, seed=1, settings=None):
    """people: (name, role, character) tuples or dicts of PlayerSpec fields."""
    specs = [PlayerSpec(**p) if isinstance(p, dict) else PlayerSpec(*p) for p in people]
    return Game.new(ruleset, seed, specs, settings)


TABLE = [
    ("Аня", "Хозяин трактира", "Умный"),
    ("Борис", "Ростовщик", "Тактик"),
    ("Вера", "commoner_captain", "attentive"),
    ("Глеб", "plantation_owner", "loner"),
    ("Даша", "whaling_captain", "strategist"),
    ("Егор", "privateer_seller", "vile"),
    ("Жанна", "learned_pirate", "influential"),
    ("Зоя", "courtier", None),
]
