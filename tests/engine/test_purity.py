"""The engine is a plain state machine: no Discord, database, asyncio or I/O package imports."""

from __future__ import annotations

import ast
from pathlib import Path

ENGINE = Path(__file__).resolve().parents[2] / "engine"
FORBIDDEN = {"discord", "aiosqlite", "sqlite3", "asyncio", "aiohttp", "storage", "cogs", "altmafia", "yaml", "dotenv"}


def imported_modules(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module.split(".")[0])
    return names


def test_engine_imports_no_io_or_discord():
    files = sorted(ENGINE.rglob("*.py"))
    assert len(files) > 5
    offenders = {str(f.relative_to(ENGINE)): sorted(imported_modules(f) & FORBIDDEN) for f in files}
    assert {k: v for k, v in offenders.items() if v} == {}


def test_purity_check_catches_a_forbidden_import(tmp_path):
    bad = tmp_path / "bad.py"
    bad.write_text("import asyncio\nfrom discord.ext import commands\n", encoding="utf-8")
    assert imported_modules(bad) & FORBIDDEN == {"asyncio", "discord"}
