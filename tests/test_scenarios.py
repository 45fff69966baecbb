"""Every scenario file under tests/scenarios is its own test."""

from __future__ import annotations

from pathlib import Path

import pytest

from altmafia.tools.scenario import collect, run_file

ROOT = Path(__file__).resolve().parent / "scenarios"
FILES = collect([str(ROOT)])


def test_there_are_scenarios_for_every_ruleset_family():
    folders = {f.parent.name for f in FILES}
    assert {"godfather"} <= folders


@pytest.mark.parametrize("path", FILES, ids=[str(f.relative_to(ROOT)) for f in FILES])
def test_scenario(path: Path):
    result = run_file(path)
    assert result.ok, "\n".join(result.failures)
    assert result.steps > 0 or result.refused  # a refused table plays no step
