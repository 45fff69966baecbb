"""The engine's import graph: no circle anywhere, and the layers of `.importlinter` kept."""

from __future__ import annotations

from pathlib import Path

import grimp
from importlinter.cli import lint_imports

ROOT = Path(__file__).resolve().parents[2]


def _cycles(graph: grimp.ImportGraph) -> list[list[str]]:
    """The strongly connected groups of more than one module (Tarjan)."""
    mods = sorted(graph.modules)
    adj = {m: sorted(set(graph.find_modules_directly_imported_by(m)) & set(mods)) for m in mods}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    out: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in adj[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for m in mods:
        if m not in index:
            visit(m)
    return out


def test_engine_has_no_import_circle():
    """None, type-only imports included: nothing below ``engine.game`` names ``Game``."""
    graph = grimp.build_graph("engine", exclude_type_checking_imports=False)
    assert "engine.game" in graph.modules and "engine.books.godfather.prison" in graph.modules
    assert _cycles(graph) == []


def test_a_circle_is_seen():
    """The check finds a circle where there is one."""
    graph = grimp.ImportGraph()
    for m in ("x", "x.a", "x.b", "x.c"):
        graph.add_module(m)
    graph.add_import(importer="x.a", imported="x.b")
    graph.add_import(importer="x.b", imported="x.c")
    graph.add_import(importer="x.c", imported="x.a")
    assert _cycles(graph) == [["x.a", "x.b", "x.c"]]


def test_import_contracts_are_kept(capsys, monkeypatch):
    """`lint-imports` over `.importlinter`: the engine's layers (game above legality, mail and
    the deal, above the books, above votes and victory, above the resolve, above factions,
    above the world, above the ground floor) and the independence of the books."""
    monkeypatch.chdir(ROOT)
    code = lint_imports(config_filename=str(ROOT / ".importlinter"), no_cache=True)
    out = capsys.readouterr().out
    assert "engine-layers" in out and "engine-books-independent" in out
    assert code == 0, out
