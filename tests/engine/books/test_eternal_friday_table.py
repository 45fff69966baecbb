"""«Вечная пятница»: the table and its deck, the practice table, the settings checked at the start.

«Для начала игры нужно минимум 18 игроков. Роли в игре: 3 мафии, 3 якудзы, 2 карателя, 1 шпион,
1 комиссар, 1 маньяк, 1 псих, 6-8 мирных жителей.» The deal is the game's seeded generator's.
"""

from __future__ import annotations

import random
from collections import Counter

import pytest

from altmafia.text.i18n import Renderer
from config import load_ruleset
from engine import DEAL, ActionError, Game, GameError, PlayerSpec

RULES = load_ruleset("eternal_friday")
SEEDS = range(40)
# the book's deck without the civilians: every other secret role, the punisher twice
OTHERS = {"sensei": 1, "ninja": 1, "shinobi": 1, "boss": 1, "thug": 1, "killer": 1, "maniac": 1, "psycho": 1,
          "spy": 1, "commissar": 1, "punisher": 2}
TEAMS = {"mafia": 3, "yakuza": 3, "neutral": 2}


def table(n: int, seed: int, *, claimed: int = 0, settings: dict | None = None, characters: dict[int, str] | None = None) -> Game:
    """``n`` seats; the first ``claimed`` claim an open role (distinct), the rest get one dealt;
    secret roles are dealt but for the seats in ``characters``."""
    roles = sorted(r.id for r in RULES.roles)
    random.Random(seed).shuffle(roles)
    chars = characters or {}
    specs = [PlayerSpec(f"P{i}", roles[i] if i < claimed else DEAL, chars.get(i, DEAL)) for i in range(n)]
    return Game.new(RULES, seed, specs, settings)


@pytest.mark.parametrize("n", [18, 19, 20])
def test_the_book_deck_at_every_allowed_size(n):
    civilians = n - 12  # 6, 7, 8
    assert 6 <= civilians <= 8
    for seed in SEEDS:
        g = table(n, seed, claimed=seed % (n + 1))
        dealt = Counter(p.character for p in g.state.players)
        assert dealt == Counter({**OTHERS, "civilian": civilians}), (n, seed, dealt)
        teams = Counter(g.rules.character(p.character).team for p in g.state.players)
        assert teams == Counter({**TEAMS, "law": 4 + civilians}), (n, seed, teams)
        assert len({p.role for p in g.state.players}) == n  # one player per open role


def test_the_deal_comes_from_the_seed():
    deals = {seed: [p.character for p in table(20, seed).state.players] for seed in SEEDS}
    assert all(deals[s] == [p.character for p in table(20, s).state.players] for s in (0, 7, 39))
    assert len({tuple(d) for d in deals.values()}) > len(SEEDS) // 2  # the seats really are shuffled
    # every secret role turns up on every seat over the seeds: no seat is fixed
    for seat in range(20):
        assert {d[seat] for d in deals.values()} >= {"civilian", "punisher"}


def test_the_gms_choices_are_taken_out_of_the_deck():
    # three civilians and the boss assigned at a 19-seat table: the deck still ends at 7 civilians
    chosen = {0: "civilian", 5: "civilian", 9: "civilian", 11: "boss"}
    for seed in SEEDS:
        g = table(19, seed, characters=chosen)
        assert Counter(p.character for p in g.state.players) == Counter({**OTHERS, "civilian": 7}), seed


@pytest.mark.parametrize("n", [17, 21, 2])
def test_outside_the_book_table_refused(n):
    with pytest.raises(GameError, match="18–20 players") as exc:
        table(n, 1)
    assert "practice_table" in str(exc.value)


@pytest.mark.parametrize("n", [2, 9, 17])
def test_a_practice_table_is_an_explicit_setting(n):
    full = Counter({**OTHERS, "civilian": 6})
    for seed in SEEDS:
        g = table(n, seed, settings={"practice_table": True})
        dealt = Counter(p.character for p in g.state.players)
        assert sum(dealt.values()) == n and not dealt - full, (n, seed, dealt)  # a part of the deck


def test_the_practice_setting_is_checked():
    with pytest.raises(GameError, match="2–20 players"):
        table(1, 0, settings={"practice_table": True})
    with pytest.raises(GameError, match="2–20 players"):
        table(21, 0, settings={"practice_table": True})  # a practice table is smaller, never larger
    with pytest.raises(GameError, match="true or false"):
        table(10, 0, settings={"practice_table": "yes"})
    table(18, 0, settings={"practice_table": False})
    godfather = load_ruleset("godfather")
    with pytest.raises(GameError, match="no practice table"):
        Game.new(godfather, 0, [PlayerSpec(f"P{i}", DEAL, DEAL) for i in range(5)], {"practice_table": True})


def test_psycho_knife_masks_setting_is_checked_at_the_start():
    assert table(18, 0).state.settings["psycho_knife_masks"] == "partial"
    table(18, 0, settings={"psycho_knife_masks": "ignore"})
    with pytest.raises(GameError, match="psycho_knife_masks"):
        table(18, 0, settings={"psycho_knife_masks": "sometimes"})


def test_too_many_shots_names_the_pistol():
    boss = {0: "boss"}
    g = table(18, 3, characters=boss)
    with pytest.raises(ActionError) as exc:
        g.submit(0, "character:boss:pistol", [1, 2])
    assert exc.value.key == "too_many_shots"
    assert Renderer(g, "ru").error(exc.value) == "«Пистолет»: столько выстрелов этой ночью нельзя — не больше 1."
    assert Renderer(g, "en").error(exc.value) == "«Pistol»: that many shots are not possible tonight — at most 1."
    g.player(0).stats["shots"] = 40  # no cap of its own: 41 shots may be fired
    g.submit(0, "character:boss:pistol", [1 + i % 17 for i in range(41)])
    with pytest.raises(ActionError) as exc:
        g.submit(0, "character:boss:pistol", [1 + i % 17 for i in range(42)])
    assert exc.value.key == "too_many_shots" and exc.value.args_["most"] == 41
