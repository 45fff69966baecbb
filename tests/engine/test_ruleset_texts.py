"""Every ability, stat and team of the shipped rulesets says what it is, in Russian and English.

Each ability's effect is in the book's words (Russian; English translation). The ruleset data
carries these texts, so a GM's own table brings its own.
"""

from __future__ import annotations

import re

import pytest
import yaml

from config import RulesetFileError, available_rulesets, load_ruleset_file
from config.loader import RULESETS_DIR, parse_ruleset

SHIPPED = sorted(available_rulesets())
LATIN = re.compile(r"[A-Za-z]")
CYRILLIC = re.compile(r"[А-Яа-яЁё]")


@pytest.mark.parametrize("rid", SHIPPED)
def test_every_ability_has_a_russian_and_an_english_text(rid: str) -> None:
    rules = load_ruleset_file(available_rulesets()[rid])
    missing, wrong = [], []
    for group in ("roles", "characters"):
        for src in getattr(rules, group):
            for ab in src.abilities:
                where = f"{group}.{src.id}.{ab.id}"
                if ab.text is None or not ab.text.ru.strip() or not ab.text.en.strip():
                    missing.append(where)
                    continue
                # the Russian is the book's words, the English a translation (a stray language
                # in either is a copy-paste slip)
                if not CYRILLIC.search(ab.text.ru) and re.search(r"[A-Za-z]{3}", ab.text.ru):
                    wrong.append(f"{where}: ru {ab.text.ru!r}")
                if CYRILLIC.search(ab.text.en):
                    wrong.append(f"{where}: en {ab.text.en!r}")
    assert not missing, f"abilities without ru/en text: {missing}"
    assert not wrong, wrong


@pytest.mark.parametrize("rid", SHIPPED)
def test_every_team_says_how_it_wins_and_every_seen_stat_what_it_means(rid: str) -> None:
    rules = load_ruleset_file(available_rulesets()[rid])
    teams = {r.team for r in [*rules.roles, *rules.characters] if r.team}
    for t in sorted(teams):
        team = rules.team(t)
        assert team is not None and team.text is not None, f"{rid}: team {t} has no win condition"
        assert not CYRILLIC.search(team.text.en) and CYRILLIC.search(team.text.ru)
    if not teams:
        assert rules.victory.text is not None, f"{rid}: no win condition"
    for s in rules.stats:
        if s.visibility != "hidden":
            assert s.text is not None, f"{rid}: stat {s.id} has no meaning"


def _godfather() -> dict:
    return yaml.safe_load((RULESETS_DIR / "godfather.yaml").read_text(encoding="utf-8"))


def test_a_text_needs_both_languages() -> None:
    data = _godfather()
    data["roles"][0]["abilities"][0]["text"] = {"ru": "3 ВО"}
    with pytest.raises(RulesetFileError) as exc:
        parse_ruleset(data, "own.yaml")
    assert "abilities[0]" in str(exc.value) and "text.en" in str(exc.value)


def test_a_team_entry_must_name_a_team_of_the_table() -> None:
    data = yaml.safe_load((RULESETS_DIR / "eternal_friday.yaml").read_text(encoding="utf-8"))
    data["teams"].append({"id": "pirates", "names": {"ru": "Пираты", "en": "Pirates"}})
    with pytest.raises(RulesetFileError) as exc:
        parse_ruleset(data, "own.yaml")
    assert "teams.pirates" in str(exc.value) and "law" in str(exc.value)
    data["teams"][-1] = dict(data["teams"][0])
    with pytest.raises(RulesetFileError) as exc:
        parse_ruleset(data, "own.yaml")
    assert "teams: duplicate id 'law'" in str(exc.value)


def test_a_gm_s_own_table_brings_its_own_texts() -> None:
    data = _godfather()
    data["roles"][0]["abilities"][0]["text"] = {"ru": "Своя таблица: +5 ВО", "en": "Own table: +5 PI"}
    rules = parse_ruleset(data, "own.yaml")
    assert rules.roles[0].abilities[0].text is not None
    assert rules.roles[0].abilities[0].text.ru == "Своя таблица: +5 ВО"
    # and a table without texts still loads (the card then shows the rule lines alone)
    del data["roles"][0]["abilities"][0]["text"]
    assert parse_ruleset(data, "own.yaml").roles[0].abilities[0].text is None
