"""An uploaded ruleset file (``config.loader.load_ruleset_text``) loads as the same file on disk
does, with what an upload may not do refused in both languages: a text that is not UTF-8, a
base other than a shipped ruleset by id, YAML aliases spelling out a flood of values, code."""

from __future__ import annotations

from pathlib import Path

import pytest

from config.loader import MAX_VALUES, RulesetFileError, load_ruleset_file, load_ruleset_text

ROOT = Path(__file__).resolve().parents[2]
TWEAK = ROOT / "tests" / "rulesets" / "godfather_tweak.yaml"


def refused(raw: bytes, name: str = "my_town.yaml") -> RulesetFileError:
    with pytest.raises(RulesetFileError) as caught:
        load_ruleset_text(raw, name)
    return caught.value


def test_an_upload_is_the_file_on_disk():
    notes: list = []
    assert load_ruleset_text(TWEAK.read_bytes(), "godfather_tweak.yaml", notes) == load_ruleset_file(TWEAK)
    assert notes == []
    # a folder in the name is no folder of the server's: the name alone counts
    assert load_ruleset_text(TWEAK.read_bytes(), "../../godfather_tweak.yaml").id == "godfather_tweak"


def test_what_an_upload_may_not_do():
    e = refused(b"id: my_town\nnames: {ru: \xff}\n")
    assert e.render("ru").startswith("my_town.yaml: это не текст UTF-8 (байт 0xff, строка 2")
    assert "not UTF-8 text" in e.render("en")
    e = refused(b"extends: ../config/rulesets/classic.yaml\nid: my_town\n")
    assert "такого набора правил нет; известны: classic" in e.render("ru")
    e = refused(b"extends: godfather_tweak.yaml\nid: my_town\n")  # a file beside: an upload has no folder
    assert "no such ruleset" in e.render("en")
    laughs = ["a: &a [1, 1, 1, 1, 1, 1, 1, 1, 1, 1]"] + [
        f"{x}: &{x} [{', '.join([f'*{p}'] * 10)}]" for p, x in zip("abcde", "bcdef", strict=True)]
    e = refused("\n".join(laughs).encode())
    assert e.key == "loader.too_many_values" and str(MAX_VALUES) in e.render("ru")
    e = refused(b"!!python/object/apply:os.system [echo hi]\n")
    assert e.key == "loader.not_yaml"
    e = refused(TWEAK.read_bytes(), "other.yaml")
    assert e.key == "loader.id_not_file_name"
