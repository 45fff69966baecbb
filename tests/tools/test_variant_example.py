"""The variant the guide walks through (docs/variants.md, docs/variants.ru.md) is the shipped
example file, stays under 40 lines, changes what it says, and plays whole games."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from altmafia.tools.simulate.table import Run, run_games
from config import load_ruleset, load_ruleset_file

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "tests" / "rulesets" / "godfather_tweak.yaml"


@pytest.mark.parametrize("doc", ["variants.md", "variants.ru.md"])
def test_the_guide_shows_the_example_file(doc):
    blocks = re.findall(r"```yaml\n(.*?)```", (ROOT / "docs" / doc).read_text(encoding="utf-8"), re.S)
    assert EXAMPLE.read_text(encoding="utf-8") in blocks


def test_the_example_is_a_tweak_in_under_40_lines():
    assert len(EXAMPLE.read_text(encoding="utf-8").splitlines()) < 40
    notes: list = []
    r, base = load_ruleset_file(EXAMPLE, notes), load_ruleset("godfather")
    assert notes == []
    assert [x.id for x in r.roles] == [x.id for x in base.roles] + ["smuggler"]
    assert [a.id for a in r.role("smuggler").abilities] == ["tall_tales", "whale_lamp"]
    assert r.slot("heroic").requires[0].at_least == 6 and base.slot("heroic").requires[0].at_least == 8
    assert (r.quotas.pm_per_day, r.quotas.anon_per_day) == (10, 2)
    assert r.calendar.days == 9 and [(p.start, p.end) for p in r.calendar.periods] == [("09:00", "15:00"), ("15:00", "22:00"), ("22:00", "09:00")]
    assert r.steps == base.steps and r.votes == base.votes and r.victory == base.victory and r.characters == base.characters


def test_the_example_plays_whole_games():
    records = run_games(Run("godfather_tweak", games=3, seed=2), jobs=1)
    assert len(records) == 3 and all(rec["refused"] == 0 for rec in records)   # every move the engine offered was taken
    assert all(rec["winners"] for rec in records)
    used = {key for rec in records for key in rec["abilities"]}
    assert {"role:smuggler:tall_tales", "role:smuggler:whale_lamp"} <= used
