"""Texts: every message key exists in Russian and English, and renders names, not ids."""

from __future__ import annotations

import re
from pathlib import Path

from altmafia.text.i18n import Renderer, catalog
from engine import ActionError

from ..conftest import TABLE, make_game

ENGINE = Path(__file__).resolve().parents[2] / "engine"


def test_catalogs_have_the_same_keys():
    ru, en = catalog("ru"), catalog("en")
    for section in ("error", "event"):
        assert set(ru[section]) == set(en[section])


def test_every_error_key_raised_in_the_engine_has_texts():
    keys = set()
    for f in ENGINE.rglob("*.py"):
        keys |= set(re.findall(r'ActionError\("([a-z_]+)"', f.read_text(encoding="utf-8")))
    assert keys
    assert keys <= set(catalog("ru")["error"]), keys - set(catalog("ru")["error"])


def test_every_event_key_emitted_in_the_engine_has_texts():
    keys = set()
    for f in ENGINE.rglob("*.py"):
        keys |= set(re.findall(r'emit\(\s*"([a-z_]+\.[a-z_.]+)"', f.read_text(encoding="utf-8")))
    assert len(keys) > 20
    assert keys <= set(catalog("ru")["event"]), keys - set(catalog("ru")["event"])


def test_render_in_both_languages(godfather):
    g = make_game(godfather, TABLE)
    g.submit(0, "day", [1])
    events = g.resolve()
    report = [e for e in events if e.audience == "public"]
    assert Renderer(g, "ru").event(report[0]) == "Борис: ВО +3 (теперь 3)"
    assert Renderer(g, "en").event(report[0]) == "Борис: PI +3 (now 3)"
    err = ActionError("threshold_not_met", stat="vo", need=8)
    assert Renderer(g, "ru").error(err) == "Не хватает ВО: нужно не меньше 8."
    assert Renderer(g, "en").error(err) == "Not enough PI: at least 8 is needed."
