"""Seed 000's and 001's prison memory lives in a typed place (``PrisonMemory``) whose snapshot
keeps the layout of the free ``memo`` dict it replaced, and no engine code reads that free dict."""

from __future__ import annotations

import json
import re
from pathlib import Path

from config import load_ruleset
from engine import DEAL, Game, PlayerSpec
from engine.books.godfather.prison import PrisonDay, PrisonMemory, Sentence
from engine.state import GameState

ROOT = Path(__file__).resolve().parents[2]

# the prison memory as a build before the typed place wrote it
OLD_PRISON_MEMO = {
    "prison": {"1": {"list": [3, 0], "strength": {"0": 1, "3": 2}}, "2": {"list": [], "strength": {}}},
    "amnesty": {"2": {"list": [], "strength": {"1": 7}, "opened": True}},
    "prison_sentences": [{"pid": 4, "verdict": "execution", "cause": "ability:x", "by": 2, "due": 8}],
    "friday": {"retired": 1},  # a key no typed place claims as the prison's: kept as it was
}


def snapshot(memo: dict) -> dict:
    g = Game.new(load_ruleset("council"), 5, [PlayerSpec(f"P{i}", DEAL) for i in range(12)])
    d = json.loads(json.dumps(g.to_dict()))
    d["memo"] = json.loads(json.dumps(memo))
    return d


def test_an_old_prison_memory_loads_into_its_typed_place():
    st = GameState.from_dict(snapshot(OLD_PRISON_MEMO))
    place = st.place(PrisonMemory)
    assert place.days["prison"]["1"] == PrisonDay(listed=[3, 0], strength={"0": 1, "3": 2})
    assert place.days["prison"]["2"] == PrisonDay()
    assert place.days["amnesty"]["2"].opened and place.days["amnesty"]["2"].strength == {"1": 7}
    assert place.sentences == [Sentence(pid=4, verdict="execution", cause="ability:x", by=2, due=8)]
    assert "prison" not in st.memo and "prison_sentences" not in st.memo


def test_the_prison_memory_keeps_its_snapshot_layout():
    st = GameState.from_dict(snapshot(OLD_PRISON_MEMO))
    assert json.loads(json.dumps(st.to_dict()))["memo"] == OLD_PRISON_MEMO


def test_a_day_key_of_an_older_build_is_kept():
    memo = {"prison": {"1": {"list": [1], "strength": {}, "retired": [2]}}}
    st = GameState.from_dict(snapshot(memo))
    assert st.place(PrisonMemory).days["prison"]["1"].extra == {"retired": [2]}
    assert st.to_dict()["memo"] == memo


def test_a_played_prison_day_round_trips():
    """Two players below zero in seed 000: the day's list is in the typed place, and the
    game's snapshot restores the same place."""
    g = Game.new(load_ruleset("godfather"), 2, [PlayerSpec(f"P{i}", DEAL) for i in range(12)])
    for p in g.state.players:
        p.stats["vo"] = -1 if p.pid in (1, 4) else 1
    g.resolve()  # day 1.1 ends: the list of day 1 is made by the watch after the period
    place = g.state.peek(PrisonMemory)
    assert place.days and all(d.listed for d in place.days["prison"].values())
    again = Game.from_dict(g.rules, json.loads(json.dumps(g.to_dict())))
    assert again.state.peek(PrisonMemory) == place


def test_no_engine_code_reads_the_free_memo():
    """Every memory between ticks has a typed place: only the snapshot machinery in
    ``engine/state.py`` touches ``GameState.memo``."""
    found = []
    for path in sorted((ROOT / "engine").rglob("*.py")):
        rel = path.relative_to(ROOT).as_posix()
        if rel == "engine/state.py":
            continue
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if re.search(r"\bstate\.memo\b", line):
                found.append(f"{rel}:{n}: {line.strip()}")
    assert not found, "\n".join(found)
