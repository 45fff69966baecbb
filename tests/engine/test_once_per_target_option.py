"""``once_per: target_option`` (stats_mafia's «Приказ» and «В свои руки»: «Не может увеличить
один и тот же стат одному и тому же персонажу дважды»): ``legal_actions`` says which (target,
option) pairs a player has used already (``LegalAction.spent``) and leaves out a target whose
every option is used; ``submit`` still refuses a used pair typed by hand; the random players
draw only pairs the engine accepts.
"""

from __future__ import annotations

import random

import pytest

from altmafia.tools.simulate.table import Table, View, draw, new_table
from config import load_ruleset
from engine import ActionError, Game, LegalAction, PlayerSpec
from engine.legality import LegalActionOnce

ANYA, BORIS, VERA, GLEB, DIMA, EVA = range(6)
OWN_HANDS = "character:civilian:own_hands"  # «В свои руки», Ева's (a civilian)
ORDER = "character:boss:order"  # «Приказ», Глеб's (the boss)
STATS = ["initiative", "defense", "stealth"]


def new_game() -> Game:
    return Game.new(load_ruleset("stats_mafia"), 4, [
        PlayerSpec("Аня", "politician", "killer"), PlayerSpec("Борис", "millionaire", "civilian"),
        PlayerSpec("Вера", "strongman", "policeman"), PlayerSpec("Глеб", "prosecutor", "boss"),
        PlayerSpec("Дима", "marauder", "killer"), PlayerSpec("Ева", "doctor", "civilian"),
    ])


def legal(g: Game, pid: int, key: str) -> LegalAction:
    found = [a for a in g.legal_actions(pid) if a.key == key and a.via is None]
    assert len(found) == 1, [a.key for a in g.legal_actions(pid)]
    return found[0]


def next_night(g: Game) -> None:
    """Resolve this night and the day after it: the next night begins."""
    g.resolve()
    while g.info.kind != "night":
        g.resolve()
    assert not g.state.over


def test_a_used_pair_is_spent_and_refused_another_option_is_left():
    g = new_game()
    assert g.info.kind == "night"
    first = legal(g, EVA, OWN_HANDS)
    assert first.spent == frozenset() and first.options == STATS and BORIS in first.targets
    g.submit(EVA, OWN_HANDS, [BORIS], "defense")
    g.submit(GLEB, ORDER, [GLEB], "stealth")
    next_night(g)

    a = legal(g, EVA, OWN_HANDS)
    assert a.spent == frozenset({(BORIS, "defense")})
    assert BORIS in a.targets  # two stats are left for him
    assert a.options == STATS  # the options of the ability; those left for a target:
    assert a.options_for([BORIS]) == ["initiative", "stealth"]
    assert a.options_for([ANYA]) == STATS
    assert BORIS not in a.targets_for("defense") and BORIS in a.targets_for("stealth")
    assert legal(g, GLEB, ORDER).spent == frozenset({(GLEB, "stealth")})
    assert legal(g, VERA, "character:policeman:nagant").spent == frozenset()  # no such rule: nothing to say
    assert type(legal(g, VERA, "character:policeman:nagant")) is LegalAction

    with pytest.raises(ActionError) as err:  # typed by hand: still the clear refusal
        g.submit(EVA, OWN_HANDS, [BORIS], "defense")
    assert err.value.key == "once_per_target_option" and err.value.args_ == {"target": BORIS, "options": ["defense"]}
    g.submit(EVA, OWN_HANDS, [BORIS], "stealth")  # another stat of the same player: accepted
    g.submit(EVA, OWN_HANDS, [ANYA], "defense")  # the same stat of another player: accepted (replaces it)


def test_a_target_whose_every_option_is_spent_is_not_offered():
    g = new_game()
    for stat in STATS:
        assert BORIS in legal(g, EVA, OWN_HANDS).targets
        g.submit(EVA, OWN_HANDS, [BORIS], stat)
        next_night(g)
    a = legal(g, EVA, OWN_HANDS)
    assert BORIS not in a.targets
    assert a.targets == [ANYA, VERA, GLEB, DIMA, EVA]
    assert all(t != BORIS for t, _ in a.spent)  # only pairs of the targets listed
    for stat in STATS:
        with pytest.raises(ActionError) as err:
            g.submit(EVA, OWN_HANDS, [BORIS], stat)
        assert err.value.key == "once_per_target"  # no stat left for him: the target itself is refused


def test_random_players_draw_only_pairs_left():
    g = new_game()
    for stat in ("defense", "stealth"):
        g.submit(EVA, OWN_HANDS, [BORIS], stat)
        next_night(g)
    a = legal(g, EVA, OWN_HANDS)
    rnd = random.Random(5)
    drawn = set()
    for _ in range(300):
        targets, option = draw(rnd, a, fewest=True)
        assert (targets[0], option) not in a.spent
        drawn.add((targets[0], option))
        g.copy().submit(EVA, OWN_HANDS, targets, option)  # the engine accepts every draw
    assert (BORIS, "initiative") in drawn and len(drawn) == 6 * 3 - 2
    view = View(g)
    assert view.options(a, rnd) == STATS  # every stat is left on some target
    for o in STATS:
        _, targets = view.score(g.player(EVA), a, o)
        assert (targets[0], o) not in a.spent


def test_a_stat_spent_on_every_target_is_not_a_greedy_choice():
    g = new_game()
    spent = frozenset((t, "defense") for t in range(6))
    a = legal(g, EVA, OWN_HANDS)
    full = LegalActionOnce(key=a.key, ability=a.ability, targets=a.targets, options=a.options, lane=a.lane, spent=spent)
    assert View(g).options(full, random.Random(1)) == ["initiative", "stealth"]
    assert full.targets_for("defense") == [] and full.options_for([BORIS]) == ["initiative", "stealth"]


@pytest.mark.parametrize("index", range(3))
def test_spent_is_what_submit_refuses_in_random_games(index):
    """Simulated stats_mafia games (random and greedy players): at the start of every tick, for
    every boost of every living player, each pair ``legal_actions`` leaves is accepted by
    ``check_submission`` and each pair it lists as spent is refused; a target it leaves out has
    no stat left."""
    rules = load_ruleset("stats_mafia")
    g, policies, rnd = new_table(rules, 3, index, None, "mixed")
    table = Table(g, policies, rnd)
    checked = spent_seen = gone_seen = 0
    while not g.state.over and g.state.tick < 30:
        for p in g.living():
            for a in g.legal_actions(p.pid):
                if a.ability.once_per != "target_option":
                    continue
                for t in range(len(g.state.players)):
                    if t not in a.targets:
                        if g.alive(g.player(t)) and all(p.uses.get(f"once:{a.ability.id}:{t}:{o}") for o in a.options):
                            gone_seen += 1
                        continue
                    for o in a.options:
                        if (t, o) in a.spent:
                            spent_seen += 1
                            with pytest.raises(ActionError):
                                g.check_submission(p, a.key, [t], o, a.via)
                        else:
                            g.check_submission(p, a.key, [t], o, a.via)
                        checked += 1
                    assert a.options_for([t]), (t, a.spent)
        table.tick()
        g.resolve()
    assert checked and spent_seen, (checked, spent_seen, gone_seen)
