"""Typed facts in the text lists of ``expect`` (``public``, ``private``, ``gm`` and the ``_absent``
ones): an event of that reader's news by key and arguments, or one naming a player (``about``),
checked without the wording; a wrong one fails naming the reader and listing its events."""

from __future__ import annotations

from pathlib import Path

import pytest

from altmafia.tools.scenario import run_file

HEAD = """ruleset: classic
seed: 6
players:
  - {name: Аня, role: Комиссар}
  - {name: Борис, role: Мафиози}
  - {name: Вера, role: Дон мафии}
  - {name: Глеб, role: Мирный житель}
  - {name: Дина, role: Мирный житель}
  - {name: Егор, role: Мирный житель}
steps:
  - phase: night 1
    actions:
      - {by: Аня, ability: Проверка, target: Борис}
      - {by: Борис, ability: Убийство мафии, target: Глеб}
    expect:
"""


def play(tmp_path, expect: str):
    path = tmp_path / "case.yaml"
    path.write_text(HEAD + expect, encoding="utf-8")
    return run_file(path)


def test_facts_that_hold_pass(tmp_path):
    res = play(tmp_path, """      private:
        Аня: [{key: classic.check_guilty, args: {target: Борис}, count: 1}, "Проверка"]
      private_absent:
        Аня: [{key: classic.check_innocent}, {about: Вера}]
        Борис: [{key: classic.check_guilty}]
      public: [{key: report.status_on, args: {player: Глеб, status: dead}}, {about: Глеб}]
      public_absent: [{key: classic.check_guilty}, {about: Аня}, {about: Борис}]
      gm: [{key: trace.action, args: {actor: Аня, ability: Проверка, targets: [Борис], result: applied}}]
""")
    assert res.ok, res.failures


@pytest.mark.parametrize("expect, what, why", [
    # who learns what: the check is Аня's, not Борис's
    ("      private: {Борис: [{key: classic.check_guilty}]}\n", "Борис's private news", "missing"),
    # by how much / of whom: the argument is the target
    ("      private: {Аня: [{key: classic.check_guilty, args: {target: Вера}}]}\n", "Аня's private news", "missing"),
    ("      private: {Аня: [{key: classic.check_guilty, count: 2}]}\n", "Аня's private news", "found 1 times"),
    ("      public: [{key: classic.check_guilty}]\n", "public report", "missing"),
    ("      public_absent: [{about: Глеб}]\n", "public report", "should not be there"),
    ("      private_absent: {Аня: [{key: classic.check_guilty, args: {target: Борис}}]}\n", "Аня's private news",
     "should not be there"),
    ("      gm: [{key: trace.action, args: {actor: Аня, result: blocked}}]\n", "GM trace", "missing"),
])
def test_a_fact_that_does_not_hold_fails_and_lists_the_readers_events(tmp_path, expect, what, why):
    res = play(tmp_path, expect)
    assert len(res.failures) == 1, res.failures
    msg = res.failures[0]
    assert msg.startswith(f"step 1 (night 1): {what}: {{") and why in msg, msg


@pytest.mark.parametrize("expect, error", [
    ("      public: [{args: {player: Глеб}}]\n",
     "step 1: expect.public[0]: a typed entry needs 'key' (an event key) or 'about' (a player)"),
    ("      private: {Аня: [{key: classic.check_guilty, to: [Аня]}]}\n", "step 1: expect.private.Аня[0]: unknown keys ['to']"),
    ("      gm: [{key: trace.action, args: [Аня]}]\n", "step 1: expect.gm[0].args: must be a mapping, not a list"),
    ("      public_absent: [{about: Глеб, count: some}]\n", "step 1: expect.public_absent[0].count: 'some' is not a whole number"),
])
def test_a_wrong_fact_says_where(tmp_path, expect, error):
    res = play(tmp_path, expect)
    assert len(res.failures) == 1, res.failures
    assert error in res.failures[0], res.failures[0]


RIFLE = """ruleset: {ruleset}
seed: 2
settings: {{practice_table: true}}
players:
  - {{name: Аня, role: Другой, character: Мирный житель}}
  - {{name: Борис, role: Другой, character: Киллер}}
  - {{name: Вера, role: Другой, character: Мирный житель}}
  - {{name: Дина, role: Другой, character: Мирный житель}}
steps:
  - phase: night 1
    actions:
      - {{by: Борис, ability: Снайперская винтовка, target: Дина}}
    expect:
      gm: [{{key: friday.gm_hurt, args: {{player: Дина, amount: 75, ability: rifle, by: Борис}}}}]
      public: [{{key: report.status_on, args: {{player: Дина, status: hospital}}}}]
"""


def test_a_fact_fails_when_the_rule_is_broken(tmp_path):
    """The same scenario against the book's rifle (75 damage) and a copy that deals 70: only
    the facts say what is wrong, nothing of the wording is read."""
    book = Path(__file__).resolve().parents[2] / "config" / "rulesets" / "eternal_friday.yaml"
    text = book.read_text(encoding="utf-8")
    rifle = "effects: [{op: impl, impl: friday_attack, params: {damage: 75}}]"
    assert text.count(rifle) == 1
    (tmp_path / "broken").mkdir()
    broken = tmp_path / "broken" / "eternal_friday.yaml"
    broken.write_text(text.replace(rifle, rifle.replace("75", "70")), encoding="utf-8")
    path = tmp_path / "rifle.yaml"
    path.write_text(RIFLE.format(ruleset="eternal_friday"), encoding="utf-8")
    assert run_file(path).ok, run_file(path).failures
    path.write_text(RIFLE.format(ruleset=broken), encoding="utf-8")
    (failure,) = run_file(path).failures  # Дина is in hospital all the same: only the amount fails
    assert failure.startswith("step 1 (night 1): GM trace: {key: friday.gm_hurt") and "'amount': 75" in failure, failure
    assert "friday.gm_hurt [gm] {'player': 3, 'amount': 70" in failure, failure
