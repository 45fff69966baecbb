"""A GM's variant in a few lines: ``extends:`` edits its base's lists entry by entry
(config/loader.py ``Merge``; docs/variants.md), says when a list keeps little of its base, and
every ruleset that already extended one loads as it did."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest
import yaml

from config import RulesetFileError, available_rulesets, load_ruleset, load_ruleset_file
from config.loader import parse_ruleset

ROOT = Path(__file__).resolve().parents[2]


def variant(tmp_path: Path, name: str, text: str, notes: list[Any] | None = None):
    path = tmp_path / f"{name}.yaml"
    path.write_text(f"id: {name}\n" + text, encoding="utf-8")
    return load_ruleset_file(path, notes)


def test_a_new_role_is_added_to_the_sixteen(tmp_path):
    r = variant(tmp_path, "one_more", """extends: godfather
roles:
  - id: smuggler
    name: {ru: Контрабандист, en: Smuggler}
    stats: {vo: 1, tv: 3}
    abilities:
      - {id: bribe, slot: day, name: {ru: Подкуп, en: Bribe}, effects: [{op: stat, stat: tv, delta: 2}]}
""")
    base = load_ruleset("godfather")
    assert [x.id for x in r.roles] == [x.id for x in base.roles] + ["smuggler"]
    assert r.slots == base.slots and r.calendar == base.calendar and r.votes == base.votes


def test_a_threshold_is_changed_in_one_entry(tmp_path):
    r = variant(tmp_path, "heroic_six", "extends: godfather\nslots:\n  - {id: heroic, requires: [{stat: vo, at_least: 6}]}\n")
    base = load_ruleset("godfather")
    assert r.slot("heroic").requires[0].at_least == 6
    assert r.slot("heroic").cooldown_cycles == 3 and r.slot("heroic").names == base.slot("heroic").names
    assert [s.id for s in r.slots] == [s.id for s in base.slots]
    assert [s for s in r.slots if s.id != "heroic"] == [s for s in base.slots if s.id != "heroic"]


def test_an_ability_of_a_role_is_patched_and_a_role_removed(tmp_path):
    r = variant(tmp_path, "patched", """extends: godfather
roles:
  - id: tavern_keeper
    stats: {vo: 4}
    abilities:
      - {id: tall_tales, effects: [{op: stat, stat: vo, delta: 5}]}
  - {id: jesuit, remove: true}
""")
    keeper = r.role("tavern_keeper")
    assert keeper.stats == {"vo": 4, "tv": 2}                       # a mapping merges
    assert keeper.abilities[0].effects[0].delta == 5 and keeper.abilities[0].slot == "day"
    assert len(keeper.abilities) == 6
    assert "jesuit" not in {x.id for x in r.roles} and len(r.roles) == 15


def test_steps_are_placed_after_or_before_another(tmp_path):
    r = variant(tmp_path, "steps", """extends: godfather
steps:
  night:
    - {id: early, after: reroutes}
    - {id: last_word, before: intercepts}
""")
    night = [s.id for s in r.steps["night"]]
    assert night[:2] == ["reroutes", "early"] and night[-2:] == ["last_word", "intercepts"]
    assert r.steps["day"] == load_ruleset("godfather").steps["day"]


def test_a_deck_is_found_by_its_size(tmp_path):
    r = variant(tmp_path, "two_doctors", "extends: classic\ntable:\n  decks:\n    - {upto: 6, cards: {doctor: 2}}\n")
    base = load_ruleset("classic")
    assert r.table.deck(6).cards == {"mafioso": 1, "doctor": 2, "cop": 1}
    assert r.table.decks[1:] == base.table.decks[1:]


def test_replace_puts_a_new_list_and_a_note_says_what_vanished(tmp_path):
    notes: list[Any] = []
    r = variant(tmp_path, "tiny", """extends: godfather
table: {default: 2, min: 2, max: 2}
roles:
  replace:
    - {id: tavern_keeper, name: {ru: Хозяин трактира, en: Tavern keeper},
       abilities: [{id: tall_tales, slot: day, name: {ru: Байки, en: Tales}, effects: [{op: stat, stat: vo, delta: 3}]}]}
""", notes)
    assert [x.id for x in r.roles] == ["tavern_keeper"]
    assert len(notes) == 1
    assert "roles keeps 1 of the 16 entries of godfather" in str(notes[0])
    assert "в roles остаётся 1 из 16 записей godfather" in notes[0].render("ru")


def test_a_plain_tweak_gives_no_note(tmp_path):
    notes: list[Any] = []
    variant(tmp_path, "quiet", "extends: godfather\nquotas: {pm_per_day: 10}\ncalendar: {days: 9}\n", notes)
    assert notes == []


@pytest.mark.parametrize(("text", "expected", "ru"), [
    ("roles:\n  - {name: {ru: Без id, en: No id}}\n", "at roles[0]: an entry of a list the variant edits needs its id", "нужен её id"),
    ("roles:\n  - {id: jesutt, remove: true}\n", "cannot remove 'jesutt': godfather has no such entry", "может быть, 'jesuit'?"),
    ("roles:\n  - {id: jesuit, remove: true, stats: {vo: 1}}\n", "an entry to remove holds only its id and remove: true", "только её id"),
    ("steps:\n  day:\n    - {id: x, after: nowhere}\n", "there is no entry 'nowhere' to put it next to", "рядом с которой"),
    ("steps:\n  day:\n    - {id: x, after: blocks, before: checks}\n", "either after or before another, not both", "не то и другое"),
    ("roles: {add: []}\n", "at roles: the base has a list here", "в основе здесь список"),
])
def test_a_wrong_edit_names_the_file_and_the_entry(tmp_path, text, expected, ru):
    with pytest.raises(RulesetFileError) as exc:
        variant(tmp_path, "wrong_edit", "extends: godfather\n" + text)
    assert str(exc.value).startswith(f"{tmp_path / 'wrong_edit.yaml'}: "), str(exc.value)
    assert expected in str(exc.value), str(exc.value)
    assert ru in exc.value.render("ru"), exc.value.render("ru")


# ---- every ruleset that extends another loads as it did -------------------------------------
def _old_merge(base: dict[str, Any], over: dict[str, Any]) -> dict[str, Any]:
    """The merge ``extends:`` had before lists were merged entry by entry: mappings key by key,
    anything else replaced whole (a ``{replace: [...]}`` meaning that list)."""
    out = copy.deepcopy(base)
    for k, v in over.items():
        if isinstance(v, dict) and set(v) == {"replace"} and isinstance(out.get(k), list):
            out[k] = copy.deepcopy(v["replace"])
        elif isinstance(v, dict) and isinstance(out.get(k), dict):
            out[k] = _old_merge(out[k], v)
        else:
            out[k] = copy.deepcopy(v)
    return out


def _old_resolve(path: Path) -> dict[str, Any]:
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    if "extends" not in data:
        return data
    ref = data.pop("extends")
    base = available_rulesets().get(ref) or path.parent / ref
    return _old_merge(_old_resolve(base), data)


# the variants written for entry-by-entry merging (docs/variants.md's example): the old merge
# would replace their lists whole
ENTRY_MERGE = {"godfather_tweak", "classic_majority", "classic_peer"}

ENTRY_MERGE |= {"classic_staples", "eternal_friday_bodyguard", "council_double_voter", "stats_mafia_staples", "godfather_bodyguard"}  # docs/variants.md, 4
ENTRY_MERGE |= {"classic_killer"}  # docs/variants.md, 9


@pytest.mark.parametrize("rid", sorted(set(available_rulesets(include_tests=True)) - ENTRY_MERGE))
def test_every_ruleset_resolves_as_before(rid):
    path = available_rulesets(include_tests=True)[rid]
    before = parse_ruleset(_old_resolve(path), str(path))
    assert load_ruleset_file(path).model_dump() == before.model_dump()


def test_the_extending_rulesets_are_among_them():
    extending = [p for p in available_rulesets(include_tests=True).values() if "\nextends:" in "\n" + p.read_text(encoding="utf-8")]
    assert extending, "no ruleset extends another: the test above would prove nothing about extends"
