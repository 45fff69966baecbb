"""``altmafia rules --reference`` lists everything a ruleset may use, from the registries; and
``altmafia rules <file>`` shows what a GM tunes."""

from __future__ import annotations

import re

import pytest

from altmafia.cli import main
from altmafia.tools.reference import reference, summary
from config import load_ruleset
from engine import registry
from engine.ruleset import PASSIVE_KINDS


@pytest.mark.parametrize("lang", ["ru", "en"])
def test_the_reference_lists_every_registered_name(lang):
    text = "\n".join(reference(lang))
    listed = set(re.findall(r"^  ([a-z_<>]+):", text, re.M))
    for table in (registry.EFFECTS, registry.IMPLS, registry.STEPS, registry.VOTES, registry.VICTORIES, registry.CHECKS, PASSIVE_KINDS):
        assert set(table) <= listed, set(table) - listed
    assert "  friday_shield: " in text and "    to: 'self' | null" in text
    assert "example: {op: impl, impl: classic_check, params: {guilty: [mafia], appears_innocent: [<role>]}}" in text \
        or "пример: {op: impl, impl: classic_check, params: {guilty: [mafia], appears_innocent: [<role>]}}" in text


def test_the_reference_command(capsys):
    assert main(["rules", "--reference", "--lang", "en"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("What a ruleset may use") and "Implementations (op: impl" in out and f", {len(registry.IMPLS)}:" in out


def test_the_summary_shows_what_a_gm_tunes():
    lines = summary(load_ruleset("godfather"), "en")
    text = "\n".join(lines)
    assert "Calendar (Europe/Moscow): Day, first period 09:00–15:00 · Day, second period 15:00–21:00 · Night 21:00–09:00; the game lasts 7 days" in text
    assert "Table: 13 players (from 2 to 16), one player per role" in text
    assert "Quotas a day: private messages 20, anonymous posts 1" in text
    assert "  heroic [heroic]: day or night; once in 3 cycles; PI ≥ 8" in text
    assert "prison_thresholds (stat: vo, jail_at: -6, release_at: 6)" in text
    assert text.count("\n  Tavern keeper [tavern_keeper] (PI 2, SI 2): ") == 1
    assert "Victory: highest_stat" in text
    classic = "\n".join(summary(load_ruleset("classic"), "ru"))
    assert "до 6 мест: Мафиози ×1, Доктор ×1, Комиссар ×1" in classic and "остальные места: Мирный житель" in classic


def test_rules_on_a_variant_file_shows_the_tweak_and_the_note(tmp_path, capsys):
    path = tmp_path / "tiny.yaml"
    path.write_text("extends: godfather\nid: tiny\nquotas: {pm_per_day: 5}\nroles:\n  replace:\n"
                    "    - {id: tavern_keeper, name: {ru: Трактирщик, en: Innkeeper},\n"
                    "       abilities: [{id: tales, slot: day, name: {ru: Байки, en: Tales}, effects: [{op: stat, stat: vo, delta: 3}]}]}\n",
                    encoding="utf-8")
    assert main(["rules", str(path), "--summary"]) == 0
    out, err = capsys.readouterr()
    assert "Квоты на день: приватов 5, анонимок 1" in out and "Трактирщик [tavern_keeper]" in out
    assert "внимание: " in err and "в roles остаётся 1 из 16 записей godfather (теперь их 1)" in err


def test_rules_refuses_in_the_chosen_language(tmp_path, capsys):
    path = tmp_path / "typo.yaml"
    path.write_text("extends: classic\nid: typo\nvictory: {params: {threats: [mafai]}}\n", encoding="utf-8")
    assert main(["rules", str(path)]) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"{path}: набор правил не годится (проблем: 1):\n  - в victory.params.threats: неизвестная команда 'mafai'")
    assert main(["rules", str(path), "--lang", "en"]) == 1
    assert "unknown team 'mafai'; known: mafia, town; did you mean 'mafia'?" in capsys.readouterr().err
