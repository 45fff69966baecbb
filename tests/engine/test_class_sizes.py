"""No class in the engine is over ~400 lines: a class that grows past it has more than one job."""

from __future__ import annotations

import ast
from pathlib import Path

ENGINE = Path(__file__).resolve().parents[2] / "engine"
LIMIT = 400


def test_no_engine_class_over_400_lines():
    big = []
    for path in sorted(ENGINE.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ClassDef):
                size = node.end_lineno - node.lineno + 1
                if size > LIMIT:
                    big.append(f"{path.relative_to(ENGINE.parent)}:{node.lineno} {node.name}: {size} lines")
    assert not big, "classes over 400 lines:\n" + "\n".join(big)


def test_the_measure_sees_the_game():
    """The walk finds the engine's classes (a wrong path would find none and pass)."""
    names = {n.name for p in ENGINE.rglob("*.py") for n in ast.walk(ast.parse(p.read_text(encoding="utf-8"))) if isinstance(n, ast.ClassDef)}
    assert {"Game", "World", "Legality", "PhaseEnd"} <= names
