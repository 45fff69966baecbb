"""Texts fixed by reading whole games as people read them (task "audit"): each reads in words."""

from __future__ import annotations

import pytest

from altmafia.text.i18n import Renderer
from config import load_ruleset
from engine import Game, PlayerSpec
from engine.state import Event


@pytest.fixture(scope="module")
def game():
    return Game.new(load_ruleset("godfather"), 1, [PlayerSpec("Аня", "Хозяин трактира", "Умный"),
                                                   PlayerSpec("Глеб", "Ростовщик", "Тактик")])


def test_an_ability_without_targets_has_no_arrow_to_nobody(game):
    ru, en = Renderer(game, "ru"), Renderer(game, "en")
    ev = Event(0, "trace.action", {"actor": 0, "ability": "role:tavern_keeper:disapproval", "targets": [], "option": None,
                                   "result": "applied", "reasons": []}, "gm")
    assert ru.event(ev) == "Аня: «Вызвать неодобрение в обществе»: сработало"
    assert "→" not in en.event(ev) and "nobody" not in en.event(ev)
    lost = Event(0, "trace.action", {"actor": 0, "ability": "role:tavern_keeper:tall_tales", "targets": [], "option": None,
                                     "result": "applied", "reasons": []}, "gm")
    assert ru.event(lost) == "Аня: «Упомянуть в местных байках» → никто: сработало"  # it had a target, now none


def test_why_a_player_cannot_win_is_said_in_words(game):
    r = Renderer(game, "ru")
    said = {why: r.event(Event(0, "factions.gm_cannot_win", {"player": 1, "reason": why}, "gm"))
            for why in ("factions", "member", "prison")}
    assert said["factions"] == "Глеб не может победить: характер запрещает победу при нынешнем членстве во фракциях."
    assert said["member"] == "Глеб не может победить: побеждает лидер фракции, а не её рядовой член."
    assert said["prison"] == "Глеб не может победить (тюрьма)."
    assert Renderer(game, "en").event(Event(0, "factions.gm_cannot_win", {"player": 1, "reason": "member"}, "gm")) == \
        "Глеб cannot win: a faction's leader wins, not its ordinary members."


def test_death_by_loss_of_health_and_the_undertakers_healing_in_words(game):
    r = Renderer(game, "ru")  # Eternal Friday's words; the catalog's, whatever the ruleset
    assert r.event(Event(0, "gm.death", {"player": 0, "cause": "hp"}, "gm")) == "Аня погибает (потеря здоровья)."
    assert r.event(Event(0, "friday.gm_healed", {"player": 1, "amount": 20, "ability": "undertaker"}, "gm")) == \
        "Глеб: +20 ХП; источник: гробовщик"


def test_a_superseded_team_order_names_who_gave_the_later_one():
    from engine.deal import DEAL

    g = Game.new(load_ruleset("classic"), 1, [PlayerSpec(n, DEAL) for n in ["Аня", "Борис", "Вера", "Глеб", "Егор"]])
    key = next(f"role:{ro.id}:{a.id}" for ro in g.rules.roles for a in ro.abilities if ro.id == "mafioso")
    ev = Event(0, "trace.action", {"actor": 0, "ability": key, "targets": [1], "option": None, "result": "superseded",
                                   "reasons": ["via:leader", "superseded_by:4"]}, "gm")
    line = Renderer(g, "ru").event(ev)
    assert line.endswith(": заменено более поздним приказом команды (через: действие лидера; более поздний приказ отдал: Егор)"), line
    assert "the later order was given by: Егор" in Renderer(g, "en").event(ev)
