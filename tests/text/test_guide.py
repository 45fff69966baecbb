"""What /help, the GM's briefing and a GM task's notice say, read from a game of each book."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from pathlib import Path

import pytest

from altmafia.text import guide
from altmafia.text.i18n import catalog
from config import load_ruleset
from engine import DEAL, Game, PlayerSpec

SIZES = {"godfather": 13, "council": 16, "eternal_friday": 18, "stats_mafia": 15, "classic": 7}
NAMES = ["Аня", "Jack", "🦊🦊", "محمد", "Борис", "Вера", "Глеб", "Даша", "Егор", "Жанна", "Зоя", "Илья", "Кира", "Лев",
         "Маша", "Нина", "Олег", "Петя"]


def new_game(ruleset: str) -> Game:
    rules = load_ruleset(ruleset)
    character = DEAL if rules.characters else None
    return Game.new(rules, 5, [PlayerSpec(name=NAMES[i], role=DEAL, character=character) for i in range(SIZES[ruleset])])


def test_every_command_the_guide_names_exists_in_both_languages():
    src = Path(guide.__file__).read_text(encoding="utf-8")
    used = set(re.findall(r'slash\(lang, ((?:"[a-z_]+"(?:, )?)+)', src))
    assert len(used) > 20
    for lang in ("ru", "en"):
        names = catalog(lang)["commands"]
        for call in used:
            parts = re.findall(r'"([a-z_]+)"', call)
            for i in range(len(parts)):
                assert ".".join(parts[: i + 1]) + ".name" in names, (lang, parts)


@pytest.mark.parametrize("ruleset", sorted(SIZES))
@pytest.mark.parametrize("lang", ["ru", "en"])
def test_a_players_help_lists_what_the_engine_allows_now(ruleset, lang):
    g = new_game(ruleset)
    p = g.living()[0]
    body = guide.player_help(g, p.pid, lang, "DEADLINE")
    assert body.startswith("ℹ️") and p.name in body and "DEADLINE" in body
    legal = g.legal_actions(p.pid)
    if legal:
        assert guide.slash(lang, "action", "submit") in body
    else:
        assert guide.text(lang, "help.cannot") in body
    assert "{" not in body and "None" not in body


def test_mail_is_told_as_the_ruleset_has_it():
    stats = new_game("stats_mafia")  # seed 003: letters instead of PMs, no quota to count
    lines = guide.mail_lines(stats, 0, "ru")
    assert len(lines) == 1 and lines[0].startswith("✉ Письма") and "Приваты" not in lines[0]
    godfather = new_game("godfather")
    p = godfather.player(0)
    lines = guide.mail_lines(godfather, 0, "ru")
    assert f"Приваты: сегодня осталось {godfather.pm_quota(p)}" in lines[0]
    assert "Анонимные посты: сегодня осталось 1" in lines[1]


def test_a_gm_task_notice_names_the_command_that_settles_it_with_the_option():
    g = Game.new(load_ruleset("godfather"), 22, [PlayerSpec("Глеб", "Продавец каперских патентов"), PlayerSpec("Аня", "Хозяин трактира")])
    g.submit(0, "role:privateer_seller:quarrel", [1])
    ev = next(e for e in g.resolve() if e.key == "gm.task")
    ru, en = guide.task_notice(g, ev, "ru"), guide.task_notice(g, ev, "en")
    assert ru.startswith("Задача для ведущего №1: Глеб использует «Поссорить англичан и французов» → Аня")
    assert "`/ведущий решить задача:1 решение:…`" in ru and "`/gm settle task:1 note:…`" in en
    words = guide.ability_text(g, "role:privateer_seller:quarrel", "ru")
    assert (f"«{words}»" in ru) if words else ("нет текста в правилах" in ru)
    g.state.gm_tasks[0]["option"] = "vo"
    assert "Вариант: ВО." in guide.task_notice(g, ev, "ru")


def test_the_briefing_lists_the_schedule_the_commands_and_the_tasks():
    g = new_game("stats_mafia")
    ends = [(0, datetime(2026, 12, 1, 18, 0, tzinfo=UTC)), (1, datetime(2026, 12, 2, 6, 0, tzinfo=UTC))]
    body = guide.briefing(g, "ru", "Игра #1", "Europe/Moscow", ends, ["gm resolve", "gm settle"])
    assert "01.12 21:00" in body and "02.12 09:00" in body  # Moscow is UTC+3
    assert "• `/ведущий подсчёт` — " in body and "• `/ведущий решить` — " in body
    keys = guide.gm_task_abilities(g)
    assert keys  # stats mafia's roles «в разработке»
    assert "В этой игре это способности:" in body
    classic = new_game("classic")
    assert not guide.gm_task_abilities(classic)
    assert "таких способностей нет" in guide.briefing(classic, "ru", "x", "Europe/Moscow", ends, [])


@pytest.mark.parametrize("lang", ["ru", "en"])
def test_help_tells_the_majority_a_lynch_needs(lang):
    rules = load_ruleset("classic_majority", include_tests=True)
    g = Game.new(rules, 5, [PlayerSpec(name=NAMES[i], role=DEAL) for i in range(7)])
    g.resolve()  # night 1: the day's lynch opens
    assert guide.text(lang, "help.vote_majority_living") in guide.vote_lines(g, 0, lang)
    plain = new_game("classic")
    plain.resolve()
    lines = guide.vote_lines(plain, 0, lang)
    assert lines and not any("majority" in line or "большинств" in line for line in lines)
