"""The shared core names no status: it asks ``Status.kind`` (an effect's own statuses),
``Ruleset.status_of_kind`` (``StatusDef.kind``: poison, prison, no_pm) and
``Ruleset.death_status`` (``dead: true``); a status a book alone needs is named by the ruleset
(a setting) or by the book's package."""

from __future__ import annotations

import ast
from pathlib import Path
from typing import get_args

import pytest

from config import load_ruleset
from config.loader import available_rulesets, load_ruleset_file
from engine import DEAL, Game, GameError, PlayerSpec
from engine.ruleset import StatusDef
from engine.state import _KIND_OF_PREFIX, StatusKind
from engine.visibility import Kind as ChannelKind

ROOT = Path(__file__).resolve().parents[2]
KIND_NAMES = ("poison", "prison", "no_pm")  # StatusDef.kind: words of the schema, not ids
# engine/state.py reads snapshots from before Status.kind: the kind from the id's prefix
LEGACY = {("engine/state.py", p) for p in _KIND_OF_PREFIX}
# engine/visibility.py names its channels by kind («dead»: the channel of the dead), not statuses
CHANNELS = {("engine/visibility.py", k) for k in get_args(ChannelKind)}


def status_ids() -> set[str]:
    ids: set[str] = set()
    for path in available_rulesets(include_tests=True).values():
        ids |= {s.id for s in load_ruleset_file(path).statuses}
    return ids


def literals(tree: ast.AST) -> list[tuple[int, str, ast.AST | None]]:
    """Every string literal of the code (not docstrings, not the text parts of f-strings,
    which build an effect's own status id), with the call it is an argument of."""
    skip: set[int] = set()
    parent_call: dict[int, ast.Call] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.JoinedStr):
            skip |= {id(v) for v in node.values}
        elif isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant):
            skip.add(id(node.value))
        elif isinstance(node, ast.Call):
            for a in node.args:
                parent_call[id(a)] = node
    return [(n.lineno, n.value, parent_call.get(id(n))) for n in ast.walk(tree)
            if isinstance(n, ast.Constant) and isinstance(n.value, str) and id(n) not in skip]


def test_the_shared_core_names_no_status():
    ids = status_ids()
    prefixes = tuple(_KIND_OF_PREFIX)
    found = []
    for path in sorted((ROOT / "engine").rglob("*.py")):
        rel = path.relative_to(ROOT).as_posix()
        if rel.startswith("engine/books/"):
            continue
        for line, value, call in literals(ast.parse(path.read_text(encoding="utf-8"))):
            if value not in ids and not value.startswith(prefixes):
                continue
            if (rel, value) in LEGACY or (rel, value) in CHANNELS:
                continue
            asks_kind = isinstance(call, ast.Call) and getattr(call.func, "attr", "") == "status_of_kind"
            if value in KIND_NAMES and (asks_kind or rel == "engine/ruleset.py"):
                continue  # a kind, asked of the ruleset (or declared in its schema)
            found.append(f"{rel}:{line}: {value!r}")
    assert not found, "\n".join(found)


def test_the_kinds_the_core_asks_are_declared():
    """The kinds the core asks for are the schema's, and every effect's status kind is typed."""
    declared = next(a for a in get_args(StatusDef.model_fields["kind"].annotation) if get_args(a))
    assert set(KIND_NAMES) == set(get_args(declared))
    assert set(_KIND_OF_PREFIX.values()) <= set(get_args(StatusKind))


def test_a_gm_removal_puts_the_rulesets_dead_status():
    rules = load_ruleset("godfather")
    g = Game.new(rules, 4, [PlayerSpec(f"P{i}", DEAL) for i in range(12)])
    g.gm_remove(3)
    dead = rules.death_status().id
    assert dead in g.player(3).statuses and not g.alive(g.player(3))


def test_a_ruleset_without_a_dead_status_is_refused_a_removal():
    rules = load_ruleset("classic")
    g = Game.new(rules, 4, [PlayerSpec(f"P{i}", DEAL) for i in range(7)])
    g.rules = rules.model_copy(update={"statuses": [s for s in rules.statuses if not s.dead]})
    with pytest.raises(GameError, match="no status with dead: true"):
        g.gm_remove(2)
