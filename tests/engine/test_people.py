"""The GM's people commands in the engine: a substitution keeps everything the seat
holds; a removal takes the seat out with its pending actions; both refuse what makes no sense."""

from __future__ import annotations

import pytest

from config.loader import load_ruleset
from engine import ActionError, Game, PlayerSpec

SEATS = [
    PlayerSpec(name="Аня", role="tavern_keeper", character="smart", user_id=1),
    PlayerSpec(name="Борис", role="moneylender", character="tactician", user_id=2),
    PlayerSpec(name="Вера", role="plantation_owner", character="loner", user_id=3),
]


def game() -> Game:
    return Game.new(load_ruleset("godfather"), 7, SEATS)


def test_a_substitution_keeps_the_seat_and_its_pending_action():
    g = game()
    g.submit(0, "day", [1])
    before = (dict(g.player(0).stats), g.player(0).role, g.player(0).character, [i.seq for i in g.pending(0)])
    g.gm_substitute(0, 9)
    p = g.player(0)
    assert (p.user_id, p.name) == (9, "Аня")
    assert (dict(p.stats), p.role, p.character, [i.seq for i in g.pending(0)]) == before
    g.gm_substitute(0, 10, "Алиса")
    assert g.player("Алиса").pid == 0 and g.player(0).user_id == 10


@pytest.mark.parametrize(("args", "key"), [((0, 2), "already_seated"), ((0, 9, "Борис"), "name_taken")])
def test_a_substitution_refuses(args, key):
    g = game()
    with pytest.raises(ActionError) as err:
        g.gm_substitute(*args)
    assert err.value.key == key
    assert g.player(0).user_id == 1


def test_a_removal_drops_pending_actions_and_refuses_twice():
    g = game()
    g.submit(0, "day", [1])
    g.gm_remove(0, "modkill")
    assert not g.alive(g.player(0)) and not g.pending(0)
    for call, key in ((lambda: g.gm_remove(0, "left"), "seat_out"), (lambda: g.gm_substitute(0, 9), "seat_out"),
                      (lambda: g.gm_remove(1, "banned"), "bad_remove_mode")):
        with pytest.raises(ActionError) as err:
            call()
        assert err.value.key == key
