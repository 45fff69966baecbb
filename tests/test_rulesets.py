"""Every shipped ruleset loads; a broken file gives an error naming the file and the entry."""

from __future__ import annotations

import pytest

from config import RulesetFileError, available_rulesets, load_ruleset_file
from config.loader import RULESETS_DIR

SHIPPED = sorted(RULESETS_DIR.glob("*.yaml"))
ALL = available_rulesets(include_tests=True)


def test_godfather_is_shipped():
    assert "godfather" in {p.stem for p in SHIPPED}


@pytest.mark.parametrize("rid", sorted(ALL))
def test_every_ruleset_loads(rid):
    r = load_ruleset_file(ALL[rid])
    assert r.id == rid
    assert r.roles
    assert r.calendar.timezone == "Europe/Moscow"
    for kind in {p.kind for p in r.calendar.periods}:
        assert r.steps[kind], f"{rid} has no {kind} steps"


def test_broken_ruleset_names_file_and_entry(tmp_path):
    text = (RULESETS_DIR / "godfather.yaml").read_text(encoding="utf-8")
    text = text.replace("{id: angry_speech, slot: day,", "{id: angry_speech, slot: dya,", 1)
    bad = tmp_path / "broken.yaml"
    bad.write_text(text, encoding="utf-8")
    with pytest.raises(RulesetFileError) as exc:
        load_ruleset_file(bad)
    msg = str(exc.value)
    assert "broken.yaml" in msg
    assert "commoner_captain" in msg and "angry_speech" in msg and "dya" in msg


def test_schema_error_shows_the_path(tmp_path):
    text = (RULESETS_DIR / "godfather.yaml").read_text(encoding="utf-8")
    text = text.replace("visibility: secret, min: 0", "visibility: sekret, min: 0", 1)
    bad = tmp_path / "schema.yaml"
    bad.write_text(text, encoding="utf-8")
    with pytest.raises(RulesetFileError) as exc:
        load_ruleset_file(bad)
    assert "stats[1] (tv).visibility" in str(exc.value)


def test_not_yaml(tmp_path):
    bad = tmp_path / "oops.yaml"
    bad.write_text("id: x\nroles: [\n", encoding="utf-8")
    with pytest.raises(RulesetFileError, match=r"oops.yaml: not valid YAML at line"):
        load_ruleset_file(bad)


def test_missing_file(tmp_path):
    with pytest.raises(RulesetFileError, match="cannot read"):
        load_ruleset_file(tmp_path / "nope.yaml")


def test_short_names_of_the_shipped_rulesets():
    from config import load_ruleset

    assert load_ruleset("friday").id == "eternal_friday"
    assert load_ruleset("stats").id == "stats_mafia"
