"""``altmafia scenario --typify``: text expectations rewritten as typed facts that check the same
rule, comments kept, the file still passing; what has no fact stays text; a file that does not
pass is left alone."""

from __future__ import annotations

import yaml

from altmafia.cli import main
from altmafia.tools.scenario import run_file
from altmafia.tools.typify import emit, typify

CASE = """# the cop learns Борис is mafia; nobody else learns it
ruleset: classic
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
      private: {Аня: ["Проверка: Борис — мафия."]}    # the check
      private_absent: {Борис: [Аня]}
      public:
        - "Глеб: смерть"                               # the kill
      public_absent: ["мафия", Аня]
"""


def test_the_text_of_the_rule_becomes_facts_and_the_file_still_passes(tmp_path):
    path = tmp_path / "cop.yaml"
    path.write_text(CASE, encoding="utf-8")
    (out,) = typify([path])
    assert out.typed == 4 and not out.note
    text = path.read_text(encoding="utf-8")
    assert "# the check" in text and "# the kill" in text and text.startswith("# the cop learns")
    expect = yaml.safe_load(text)["steps"][0]["expect"]
    assert expect["private"] == {"Аня": [{"key": "classic.check_guilty", "args": {"target": "Борис"}}]}
    assert expect["private_absent"] == {"Борис": [{"about": "Аня"}]}
    assert expect["public"] == [{"key": "report.status_on", "args": {"player": "Глеб", "status": "dead"}}]
    assert expect["public_absent"] == ["мафия", {"about": "Аня"}]  # a word of many lines stays text
    assert run_file(path).ok


def test_a_file_that_fails_is_left_alone(tmp_path, capsys):
    path = tmp_path / "bad.yaml"
    bad = CASE.replace("Проверка: Борис — мафия.", "Проверка: Борис — не мафия.")
    path.write_text(bad, encoding="utf-8")
    assert main(["scenario", "--typify", str(tmp_path)]) == 0
    assert path.read_text(encoding="utf-8") == bad
    assert "it does not pass as it is" in capsys.readouterr().out


def test_values_are_written_in_flow_style():
    assert emit({"player": "Глеб", "tally": [["peace", 2]], "text": "a: b", "count": -3, "yes": "no"}) == \
        '{player: Глеб, tally: [[peace, 2]], text: "a: b", count: -3, "yes": "no"}'
