"""The game settings have a schema: a misspelt key is an error naming the file and the key."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from altmafia.tools.scenario import run_file
from config import load_ruleset
from config.loader import RulesetFileError, load_ruleset_file
from engine import Game, GameError, PlayerSpec
from engine.settings import GameSettings

ROOT = Path(__file__).resolve().parents[2]


def test_every_shipped_setting_is_known():
    for path in sorted((ROOT / "config" / "rulesets").glob("*.yaml")) + sorted((ROOT / "tests" / "rulesets").glob("*.yaml")):
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
        GameSettings.model_validate(data.get("settings") or {})


def test_a_misspelt_key_in_a_ruleset_file_names_the_file_and_the_key(tmp_path):
    src = (ROOT / "config" / "rulesets" / "stats_mafia.yaml").read_text(encoding="utf-8")
    assert "\n  kill_at: 4" in src
    bad = tmp_path / "stats_typo.yaml"
    bad.write_text(src.replace("\n  kill_at: 4", "\n  kil_at: 4"), encoding="utf-8")
    with pytest.raises(RulesetFileError) as err:
        load_ruleset_file(bad)
    text = str(err.value)
    assert str(bad) in text and "settings.kil_at: unknown setting" in text


def test_a_setting_of_the_wrong_type_names_the_key(tmp_path):
    src = (ROOT / "config" / "rulesets" / "stats_mafia.yaml").read_text(encoding="utf-8")
    bad = tmp_path / "stats_type.yaml"
    bad.write_text(src.replace("\n  kill_at: 4", "\n  kill_at: four"), encoding="utf-8")
    with pytest.raises(RulesetFileError) as err:
        load_ruleset_file(bad)
    assert str(bad) in str(err.value) and "settings.kill_at:" in str(err.value)


def test_a_misspelt_key_in_a_scenario_names_the_file_and_the_key(tmp_path):
    path = tmp_path / "typo.yaml"
    path.write_text(
        "ruleset: classic\nseed: 1\nsettings: {tell_blokced: false}\n"
        "players:\n  - {name: Аня, role: \"?\"}\n  - {name: Борис, role: \"?\"}\n  - {name: Вера, role: \"?\"}\n"
        "  - {name: Глеб, role: \"?\"}\n  - {name: Дина, role: \"?\"}\n"
        "steps:\n  - phase: day 1\n",
        encoding="utf-8",
    )
    result = run_file(path)
    assert not result.ok
    text = "\n".join(result.failures)
    assert str(path) in text and "settings.tell_blokced: unknown setting" in text


def test_a_game_created_with_a_misspelt_setting_is_refused():
    rules = load_ruleset("classic")
    players = [PlayerSpec(name=n, role="?") for n in ("Аня", "Борис", "Вера", "Глеб", "Дина")]
    with pytest.raises(GameError, match="settings.dayz: unknown setting"):
        Game.new(rules, 1, players, {"dayz": 3})
    assert Game.new(rules, 1, players, {"days": 3}).state.end_day == 3


def test_the_code_reads_settings_through_the_typed_model():
    import re

    found = []
    for top in ("engine", "altmafia", "cogs", "storage", "config"):
        for path in sorted((ROOT / top).rglob("*.py")):
            rel = path.relative_to(ROOT).as_posix()
            for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
                if re.search(r"settings(\.get\(|\[)", line) and "self._settings" not in line:
                    found.append(f"{rel}:{n}: {line.strip()}")
    assert not found, "\n".join(found)


def test_the_typed_settings_are_the_ruleset_and_the_game_merged():
    rules = load_ruleset("stats_mafia")
    assert rules.game_settings.kill_at == 4 and rules.game_settings.blocked_spends is False
    players = [PlayerSpec(name=f"P{i}", role="?") for i in range(10)]
    g = Game.new(rules, 1, players, {"kill_at": 5})
    assert g.settings.kill_at == 5 and g.settings.blocked_spends is False
    assert g.settings.hospital_death_days == 5  # absent: the model's default
    assert Game.from_dict(rules, g.to_dict()).settings.kill_at == 5
