"""A GM's own role table over «Совет директоров»: ``extends: council`` (config/loader.py), and the
snippet of docs/rules/council.md loads as it is written."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from config import RulesetFileError, load_ruleset, load_ruleset_file

DOC = Path(__file__).resolve().parents[3] / "docs" / "rules" / "council.md"


def test_the_documented_snippet_loads(tmp_path):
    blocks = [b for b in re.findall(r"```yaml\n(.*?)```", DOC.read_text(encoding="utf-8"), re.S) if b.startswith("extends: council")]
    assert len(blocks) == 1
    path = tmp_path / "council_my_table.yaml"
    path.write_text(blocks[0], encoding="utf-8")
    r = load_ruleset_file(path)
    base = load_ruleset("council")
    assert r.id == "council_my_table"
    assert [x.id for x in r.roles] == ["cfo"] and [x.id for x in r.characters] == ["shark"]
    # everything else is the framework's
    assert r.calendar == base.calendar and r.votes == base.votes and r.factions == base.factions
    assert r.settings == base.settings and r.steps == base.steps


def test_the_worked_example_is_the_framework_with_its_own_table():
    r, base = load_ruleset("council_own_table", include_tests=True), load_ruleset("council")
    assert {x.id for x in r.roles} == {"cfo", "lawyer", "pr_manager", "auditor"}
    assert r.table.max == 4 and r.inactivity == base.inactivity and r.victory == base.victory


def test_extends_merges_mappings_key_by_key(tmp_path):
    path = tmp_path / "tweak.yaml"
    path.write_text("extends: council\nid: tweak\nsettings: {death_reveals: [character]}\nfactions: {max_size: 5}\n", encoding="utf-8")
    r, base = load_ruleset_file(path), load_ruleset("council")
    assert r.settings["death_reveals"] == ["character"]
    assert r.settings["execution_status"] == "executed"          # the rest of the mapping stays
    assert r.factions.max_size == 5 and r.factions.invites_per_night == 2
    assert r.roles == base.roles


def test_extends_errors_name_the_file(tmp_path):
    missing = tmp_path / "missing.yaml"
    missing.write_text("extends: no_such_ruleset\nid: missing\n", encoding="utf-8")
    with pytest.raises(RulesetFileError, match=r"missing.yaml: 'extends: no_such_ruleset': no such ruleset"):
        load_ruleset_file(missing)
    (tmp_path / "a.yaml").write_text("extends: b.yaml\nid: a\n", encoding="utf-8")
    (tmp_path / "b.yaml").write_text("extends: a.yaml\nid: b\n", encoding="utf-8")
    with pytest.raises(RulesetFileError, match="circle"):
        load_ruleset_file(tmp_path / "a.yaml")


def test_sixteen_players_at_most():
    from engine import DEAL, Game, GameError, PlayerSpec

    rules = load_ruleset("council")
    g = Game.new(rules, 1, [PlayerSpec(f"P{i}", DEAL, DEAL) for i in range(16)])
    assert sorted(p.role for p in g.state.players) == sorted(r.id for r in rules.roles)   # one per role
    with pytest.raises(GameError):
        Game.new(rules, 1, [PlayerSpec(f"P{i}", DEAL, DEAL) for i in range(17)])
