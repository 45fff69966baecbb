"""A deck's «one of these» cards (``table.decks[].one_of``): each list gives one card, drawn by the
game's seeded generator: the same seed deals the same roles, other seeds the others of a list."""

from __future__ import annotations

from config import load_ruleset
from engine import Game, PlayerSpec

NAMES = ["Аня", "Борис", "Вера", "Глеб", "Дина", "Егор", "Жанна"]


def dealt(seed: int) -> list[str]:
    rules = load_ruleset("classic_staples", include_tests=True)
    return sorted(p.role for p in Game.new(rules, seed, [PlayerSpec(n, "?") for n in NAMES]).state.players)


def test_each_list_gives_one_card_of_its_roles():
    for seed in range(1, 30):
        roles = dealt(seed)
        assert roles.count("mafioso") == 1 and roles.count("doctor") == 1
        assert sum(roles.count(r) for r in ("cop", "seer")) == 1
        assert sum(roles.count(r) for r in ("jester", "miller", "bodyguard")) == 1
        assert roles.count("villager") == 3


def test_the_draw_is_the_seeds():
    assert dealt(5) == dealt(5)
    seen = {r for seed in range(1, 30) for r in dealt(seed)}
    assert {"cop", "seer", "jester", "miller", "bodyguard"} <= seen
