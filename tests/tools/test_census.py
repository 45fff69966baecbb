"""The census of scenario expectations (``altmafia scenario --census``): what it counts, and a
floor guard on ``tests/scenarios``: the typed share (state, events, refusals) stays at or above
``FLOOR``, so that rule tests keep asserting the rule rather than the wording of a catalog line."""

from __future__ import annotations

from pathlib import Path

import yaml

from altmafia.cli import main
from altmafia.tools.census import FLOOR, census, count_file
from altmafia.tools.scenario import collect

ROOT = Path(__file__).resolve().parents[1] / "scenarios"

FILE = """ruleset: classic
refused: false
start:
  private: {Аня: [Проверка, {key: info.team}]}
steps:
  - phase: night 1
    rejected:
      - {by: Аня, ability: Проверка, target: Аня, reason: self_target}
    refused_or_void:
      - {by: Борис, ability: Убийство мафии, target: Аня}
    expect:
      stats: {Аня: {ВО: 1, ТВ: 2}}
      status: {Аня: [], Борис: [poisoned]}
      alive: [Аня, Борис]
      phase: day 1
      public: ["Глеб: смерть", {key: report.status_on, args: {player: Глеб}}]
      public_absent: [Аня, {about: Борис}]
      private_absent: {Борис: [Проверка]}
      gm: [«Проверка»]
      events: [{key: vote.cast}]
      events_absent: [{key: vote.changed}]
"""


def test_the_census_counts_each_expectation_by_kind():
    got = count_file(yaml.safe_load(FILE))
    assert got == {"text": 5, "events": 5, "state": 2 + 2 + 2 + 1, "refusals": 2}


def test_the_census_groups_by_ruleset_and_sums_all(tmp_path):
    (tmp_path / "a.yaml").write_text(FILE, encoding="utf-8")
    (tmp_path / "b.yaml").write_text(FILE.replace("ruleset: classic", "ruleset: my/godfather.yaml"), encoding="utf-8")
    t = census(collect([str(tmp_path)]))
    assert list(t) == ["classic", "godfather", "all"]
    assert t["all"].files == 2 and t["all"].counts["text"] == 10
    assert t["classic"].share == (5 + 7 + 2) / 19


def test_the_census_command_prints_a_row_per_ruleset(tmp_path, capsys):
    (tmp_path / "a.yaml").write_text(FILE, encoding="utf-8")
    assert main(["scenario", "--census", str(tmp_path)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].split() == ["ruleset", "files", "text", "state", "events", "refusals", "typed"]
    assert out[1].split() == ["classic", "1", "5", "7", "5", "2", "73.7%"]
    assert out[-1].split()[0] == "all"


def test_scenarios_assert_the_rule_more_than_the_wording():
    """A floor guard, not a target: at least FLOOR of the expectations of tests/scenarios are
    typed. A text expectation stays where the text is the point (the whole games' wording is
    read in tests/text/)."""
    share = census(collect([str(ROOT)]))["all"].share
    assert share >= FLOOR, f"typed share {share:.1%} fell below {FLOOR:.0%}: assert state, refusals and events"
