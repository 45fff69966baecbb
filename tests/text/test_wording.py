"""Russian that read wrong in a whole game, read again as its players and GM read it: the phase
after «с/со», a check's answer, decimals, one fact on one line, status ids, the GM's name."""

from __future__ import annotations

import re

import pytest

from altmafia.text.i18n import Renderer, catalog
from altmafia.tools.scenario import run_file
from config import load_ruleset
from engine import ActionError, Game, PlayerSpec
from engine.state import Event


@pytest.fixture(scope="module")
def friday():
    who = ["Аня", "Борис", "Вера", "Глеб", "Дина", "Ева"]
    specs = [PlayerSpec(n, "Другой", c) for n, c in zip(who, ["Босс", "Громила", "Комиссар", "Сэнсэй", "Мирный житель", "Маньяк"],
                                                          strict=True)]
    return Game.new(load_ruleset("eternal_friday"), 1, specs, {"practice_table": True})


@pytest.fixture(scope="module")
def sm():
    specs = [PlayerSpec(n, r, c) for n, r, c in [("Аня", "Политик", "Киллер"), ("Борис", "Миллионер", "Босс"),
                                                ("Вера", "Здоровяк", "Мирный житель"), ("Глеб", "Гик", "Агент"),
                                                ("Дима", "Параноик", "Мирный житель"), ("Ева", "Доктор", "Полицейский")]]
    return Game.new(load_ruleset("stats_mafia"), 1, specs)


def test_a_cooldown_says_from_which_phase_in_the_genitive(friday):
    ru, en = Renderer(friday, "ru"), Renderer(friday, "en")
    day = ActionError("cooldown", ability="x", ready="day 4.1")
    night = ActionError("cooldown", ability="x", ready="night 4")
    assert ru.error(day) == "Это действие ещё не восстановилось: снова доступно со дня 4.1."
    assert ru.error(night) == "Это действие ещё не восстановилось: снова доступно с ночи 4."
    assert en.error(night) == "This action has not recovered yet: available again from night 4."


def test_the_dossier_asks_a_question_and_answers_it(friday):
    ru = Renderer(friday, "ru")
    target = friday.state.players[1].name
    yes = ru.event(Event(0, "friday.dossier", {"target": 1, "value": True}, "players", [2]))
    no = ru.event(Event(0, "friday.dossier", {"target": 1, "value": False}, "players", [2]))
    # the answer follows a question: never «{name} — мирный житель … — нет», a civilian who is not
    assert yes == f"Досье: {target}. Персонаж мирный (мирные — мирные жители, маньяк и псих)? Ответ: да."
    assert no.endswith("? Ответ: нет.") and "мирный житель" not in no


def test_decimals_use_a_comma_in_russian_and_a_point_in_english(friday):
    ev = Event(0, "vote.tally", {"vote": "lynch", "tally": [[1, 2.5], [0, 2.0]]}, "public")
    a, b = friday.state.players[1].name, friday.state.players[0].name
    assert Renderer(friday, "ru").event(ev) == f"Итоги голосования: {a}: 2,5; {b}: 2"
    assert Renderer(friday, "en").event(ev).endswith(f"{a}: 2.5; {b}: 2")


def test_a_healing_source_is_a_word_never_a_status_id(friday):
    ru = Renderer(friday, "ru")
    for source in ("hospital", "coma"):
        line = ru.event(Event(0, "friday.gm_healed", {"player": 0, "amount": 20, "ability": source}, "gm"))
        assert source not in line and re.search(r"источник: [а-яё]", line), line
    assert ru.event(Event(0, "friday.gm_healed", {"player": 0, "amount": 20, "ability": "hospital"}, "gm")).endswith(
        "+20 ХП; источник: тяжёлое ранение (в больнице)")


def test_the_vote_list_notice_does_not_repeat_the_word_vote():
    path = "tests/scenarios/godfather/notices/prison_vote.yaml"
    assert run_file(path).failures == []
    line = catalog("ru")["event"]["notice.listed"].format(vote="Голосование на посадку")
    assert line == "Голосование на посадку: вы в списке кандидатов."


def test_a_condition_is_named_as_a_condition_not_a_status(sm):
    line = Renderer(sm, "ru").error(ActionError("needs_status", status="killer_down"))
    assert line == "Это действие доступно только при условии «может стрелять из обреза в любую цель»."


def test_an_action_that_worked_on_nobody_does_not_say_it_worked(sm):
    ru = Renderer(sm, "ru")
    void = Event(0, "trace.action", {"actor": 0, "ability": "character:killer:murder", "targets": [4], "option": None,
                                     "result": "applied", "reasons": ["no_effect:4"]}, "gm")
    assert ru.event(void) == "Аня: «Убийство» → Дима: без эффекта"
    partly = Event(0, "trace.action", {"actor": 0, "ability": "character:killer:murder", "targets": [3, 4], "option": None,
                                       "result": "applied", "reasons": ["no_effect:4"]}, "gm")
    assert ru.event(partly) == "Аня: «Убийство» → Глеб, Дима: сработало (Дима: без эффекта)"


def test_a_failed_check_says_so_in_the_gm_trace(sm):
    ru = Renderer(sm, "ru")
    failed = ru.event(Event(0, "sm.gm_check", {"actor": 5, "target": 2, "count": 0, "value": ""}, "gm"))
    assert failed == "Проверка: Ева → Вера: разность 0, проверка не удалась."
    assert "«»" not in failed
    found = ru.event(Event(0, "sm.gm_check", {"actor": 5, "target": 2, "count": 5, "value": "civilian"}, "gm"))
    assert found == "Проверка: Ева → Вера: разность 5, ответ «Мирный житель»."


def test_a_detention_says_whose_actions_do_not_count(sm):
    line = Renderer(sm, "ru").event(Event(0, "sm.detained", {"actor": 0, "target": 1}, "public"))
    assert line == "Маски-шоу: Аня задерживает цель: Борис. Действия цели в этот день не учитываются."
    assert "её" not in line


def test_a_secret_bonus_is_unknown_to_the_player_whatever_the_gender(sm):
    line = Renderer(sm, "ru").event(Event(0, "sm.gm_random_bonus", {"player": 0, "count": 1, "stat": "stealth"}, "gm"))
    assert line.endswith("(сам игрок об этом не знает).") and "сам)" not in line


def test_the_gm_is_the_ведущий_wherever_people_read():
    for section in catalog("ru").values():
        for key, value in section.items():
            if isinstance(value, str):
                assert not re.search(r"\bмастер", value, re.IGNORECASE), (key, value)


def test_the_council_says_that_strength_not_the_count_decides():
    ev = catalog("ru")["event"]
    for key in ("vote.amnesty_won", "vote.execution_won"):
        assert "Решает сила голосов (тайное влияние проголосовавших), а не их число." in ev[key]


def test_an_option_is_in_parentheses_as_the_bot_shows_it(sm):
    ru = Renderer(sm, "ru")
    ev = Event(0, "trace.action", {"actor": 1, "ability": "character:killer:murder", "targets": [0], "option": "boss",
                                   "result": "applied", "reasons": []}, "gm")
    assert "→ Аня (Босс): сработало" in ru.event(ev) and "[" not in ru.event(ev)


# one fact, one line: a life sentence and an escape; an automatic decline; a vote nobody cast
@pytest.mark.parametrize("path", [
    "tests/scenarios/stats_mafia/veche.yaml",
    "tests/scenarios/stats_mafia/escape_and_legend.yaml",
    "tests/scenarios/godfather/factions/leave_and_join_same_night.yaml",
    "tests/scenarios/eternal_friday/lynch.yaml",
])
def test_one_fact_is_told_once(path):
    assert run_file(path).failures == []
