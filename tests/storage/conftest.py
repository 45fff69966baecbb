"""Fixtures for the storage tests: real SQLite files under pytest's tmp_path."""

from __future__ import annotations

import asyncio
import collections
import os
import subprocess
import sys
from pathlib import Path

import pytest

from engine import PlayerSpec
from storage import Store

from . import game_script
from .outcome import Outcome

ROOT = Path(__file__).resolve().parents[2]
PLAYERS: list[PlayerSpec] = list(game_script.PLAYERS)


@pytest.fixture
def db(tmp_path: Path) -> Path:
    return tmp_path / "games.sqlite3"


@pytest.fixture
async def store(db: Path):
    s = Store(db)
    await s.open()
    try:
        yield s
    finally:
        await s.close()


async def new_game(store: Store, game_id: str = "g1", players: list[PlayerSpec] | None = None, **kw) -> str:
    kw.setdefault("gm_user_ids", [game_script.GM])
    await store.create_game("godfather", kw.pop("seed", 7), players or PLAYERS, game_id=game_id, **kw)
    return game_id


def run_script(db: Path, log: Path, kill: str | None = None, script: str = "main") -> subprocess.CompletedProcess:
    """The scripted game in a child process (killed with SIGKILL at ``kill``)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("ALTMAFIA_")}
    if kill:
        env["ALTMAFIA_KILL"] = kill
    return subprocess.run(
        [sys.executable, "-m", "tests.storage.game_script", str(db), str(log), script],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=120,
    )


@pytest.fixture(scope="session")
def reference(tmp_path_factory) -> tuple[Outcome, collections.Counter]:
    """The main scripted game played once without interruption, in this process."""
    d = tmp_path_factory.mktemp("reference")
    asyncio.run(game_script.run(d / "db.sqlite3", d / "log.jsonl", trace=str(d / "trace")))
    trace = collections.Counter((d / "trace").read_text(encoding="utf-8").split())
    return Outcome.read(d / "db.sqlite3", d / "log.jsonl", game_script.GAME_ID), trace
