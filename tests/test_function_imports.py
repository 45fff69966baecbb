"""A function-level import only where it saves real start-up time (or keeps an optional
extra optional), with a comment saying so: ``# imported here: <why>`` just above it (or above
the imports it is grouped with)."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("engine", "storage", "config", "altmafia", "cogs")
MARK = "# imported here:"


def function_imports(tree: ast.AST) -> list[ast.Import | ast.ImportFrom]:
    out: dict[int, ast.Import | ast.ImportFrom] = {}
    for fn in ast.walk(tree):
        if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
            for n in ast.walk(fn):
                if isinstance(n, (ast.Import, ast.ImportFrom)):
                    out[id(n)] = n
    return sorted(out.values(), key=lambda n: n.lineno)


def reason_above(lines: list[str], node: ast.stmt, imports: list[ast.Import | ast.ImportFrom]) -> str | None:
    """The comment above ``node``, past blank lines and the imports of its group."""
    spans = {ln for n in imports for ln in range(n.lineno, (n.end_lineno or n.lineno) + 1)}
    ln = node.lineno - 1
    while ln >= 1 and (not lines[ln - 1].strip() or ln in spans):
        ln -= 1
    text = lines[ln - 1].strip() if ln >= 1 else ""
    return text if text.startswith(MARK) and len(text) > len(MARK) + 3 else None


def test_every_function_level_import_says_why():
    found, seen = [], 0
    for top in PACKAGES:
        for path in sorted((ROOT / top).rglob("*.py")):
            src = path.read_text(encoding="utf-8")
            imports = function_imports(ast.parse(src))
            seen += len(imports)
            lines = src.splitlines()
            for n in imports:
                if reason_above(lines, n, imports) is None:
                    found.append(f"{path.relative_to(ROOT)}:{n.lineno}: {lines[n.lineno - 1].strip()}")
    assert seen and not found, "function-level imports without '# imported here: <why>':\n" + "\n".join(found)


def test_the_engine_has_no_function_level_import():
    """The engine is imported whole by everything: an import inside one of its functions saves
    nothing (docs/architecture.md)."""
    found = []
    for path in sorted((ROOT / "engine").rglob("*.py")):
        for n in function_imports(ast.parse(path.read_text(encoding="utf-8"))):
            found.append(f"{path.relative_to(ROOT)}:{n.lineno}")
    assert not found, "\n".join(found)


def test_the_check_sees_a_bare_import():
    src = "def f():\n    x = 1\n    import json\n    return json\n\n\ndef g():\n    # imported here: start-up time\n    import json\n\n    from os import path\n    return json, path\n"
    tree = ast.parse(src)
    imports = function_imports(tree)
    lines = src.splitlines()
    assert [reason_above(lines, n, imports) is not None for n in imports] == [False, True, True]
