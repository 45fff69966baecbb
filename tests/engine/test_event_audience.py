"""Every event has a required audience from a closed set (``engine.state.Audience``): ``emit``
refuses any other, an event cannot be built without one, and every ``emit`` in the code names one."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from config import load_ruleset
from engine import DEAL, Game, GameError, PlayerSpec
from engine.state import AUDIENCES, Event, GameState

ROOT = Path(__file__).resolve().parents[2]


def game() -> Game:
    return Game.new(load_ruleset("classic"), 1, [PlayerSpec(f"P{i}", DEAL) for i in range(7)])


def test_the_closed_set():
    assert AUDIENCES == ("public", "players", "faction", "gm")


def test_emit_requires_an_audience_of_the_set():
    g = game()
    with pytest.raises(TypeError):
        g.emit("public.x")  # type: ignore[call-arg]
    with pytest.raises(GameError, match="audience 'everyone' is not one of public, players, faction, gm"):
        g.emit("public.x", "everyone")  # type: ignore[arg-type]
    with pytest.raises(GameError, match="names its faction"):
        g.emit("faction.x", "faction")
    ev = g.emit("notice.x", "players", [2], n=1)
    assert (ev.audience, ev.ids, g.state.events[-1]) == ("players", [2], ev)


def test_an_event_cannot_be_built_or_restored_without_one():
    with pytest.raises(ValueError, match="audience 'all'"):
        Event(tick=0, key="public.x", args={}, audience="all")  # type: ignore[arg-type]
    d = game().to_dict()
    d["events"] = [{"tick": 0, "key": "public.x", "args": {}, "audience": "nobody", "ids": []}]
    with pytest.raises(ValueError, match="audience 'nobody'"):
        GameState.from_dict(d)


def audiences_of(node: ast.expr) -> list[ast.expr]:
    """The audiences an argument may be: both branches of ``a if c else b``."""
    if isinstance(node, ast.IfExp):
        return audiences_of(node.body) + audiences_of(node.orelse)
    return [node]


def test_every_emit_names_an_audience_of_the_set():
    """Each ``emit(key, audience, …)`` call passes a literal of the set (or a choice between
    two); only ``Ctx.emit``, typed ``Audience``, passes its own parameter on."""
    found, calls = [], 0
    for top in ("engine", "altmafia", "cogs", "storage", "config"):
        for path in sorted((ROOT / top).rglob("*.py")):
            rel = path.relative_to(ROOT).as_posix()
            for n in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if not (isinstance(n, ast.Call) and getattr(n.func, "attr", None) == "emit"):
                    continue
                if isinstance(n.func, ast.Attribute) and getattr(n.func.value, "attr", None) == "backend":
                    continue  # SimCord's gateway dispatch (``env.backend.emit``) in the bench: no event
                calls += 1
                aud = n.args[1] if len(n.args) > 1 else next((k.value for k in n.keywords if k.arg == "audience"), None)
                if rel == "engine/resolve/context.py" and isinstance(aud, ast.Name) and aud.id == "audience":
                    continue
                if aud is None or not all(isinstance(a, ast.Constant) and a.value in AUDIENCES for a in audiences_of(aud)):
                    found.append(f"{rel}:{n.lineno}: {ast.unparse(n)[:120]}")
    assert calls > 100 and not found, "\n".join(found)
