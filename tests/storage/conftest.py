"""Fixtures for the storage tests: real SQLite files under pytest's tmp_path and, when
``ALTMAFIA_TEST_PG_URL`` names a PostgreSQL server (``.ci/run`` starts a throwaway one with
``.ci/postgres``), the same tests against PostgreSQL, each in a schema of its own.

``db`` is what a test hands to ``Store(db)``: a file path, or a ``postgresql://`` URL whose
``search_path`` is that test's schema. A test that looks at the SQLite file itself is marked
``@pytest.mark.sqlite_only`` and is skipped on PostgreSQL."""

from __future__ import annotations

import asyncio
import collections
import os
import re
import sqlite3
import subprocess
import sys
import uuid
from pathlib import Path

import pytest

from engine import PlayerSpec
from storage import Store

from . import game_script
from .outcome import Outcome

ROOT = Path(__file__).resolve().parents[2]
PLAYERS: list[PlayerSpec] = list(game_script.PLAYERS)


PG_URL = os.environ.get("ALTMAFIA_TEST_PG_URL", "")
NO_PG = "no PostgreSQL server for the tests: set ALTMAFIA_TEST_PG_URL (.ci/run starts one with .ci/postgres)"


def pg_schema_url(schema: str) -> str:
    """``PG_URL`` with ``search_path`` set to ``schema`` (asyncpg passes unknown query keys as
    server settings)."""
    return f"{PG_URL}{'&' if '?' in PG_URL else '?'}search_path={schema}"


async def pg_schema(action: str, schema: str) -> None:
    import asyncpg

    conn = await asyncpg.connect(PG_URL)
    try:
        if action == "create":
            await conn.execute(f'CREATE SCHEMA "{schema}"')
        else:
            await conn.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')
    finally:
        await conn.close()


async def sql(db: Path | str, query: str, *params) -> list[tuple]:
    """Run ``query`` (``?`` placeholders) on the database behind ``db`` over a connection of its
    own, as another process would, and commit: the rows it returns."""
    if isinstance(db, Path):
        con = sqlite3.connect(db)
        try:
            rows = [tuple(r) for r in con.execute(query, params).fetchall()]
            con.commit()
            return rows
        finally:
            con.close()
    import asyncpg

    n = iter(range(1, 1000))
    conn = await asyncpg.connect(db)
    try:
        return [tuple(r) for r in await conn.fetch(re.sub(r"\?", lambda _m: f"${next(n)}", query), *params)]
    finally:
        await conn.close()


async def table_dump(db: Path | str) -> dict[str, list[tuple]]:
    """Every table of the database, every row (in a stable order)."""
    if isinstance(db, Path):
        names = [r[0] for r in await sql(db, "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")]
    else:
        names = [r[0] for r in await sql(db, "SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema() ORDER BY 1")]
    return {n: sorted(await sql(db, f"SELECT * FROM {n}"), key=repr) for n in names}


@pytest.fixture(params=["sqlite", "postgres"])
def backend_kind(request) -> str:
    if request.param == "postgres":
        if not PG_URL:
            pytest.skip(NO_PG)
        if request.node.get_closest_marker("sqlite_only"):
            pytest.skip("about the SQLite file itself")
    return request.param


@pytest.fixture
async def db(tmp_path: Path, backend_kind: str):
    if backend_kind == "sqlite":
        yield tmp_path / "games.sqlite3"
        return
    schema = f"t_{uuid.uuid4().hex[:16]}"
    await pg_schema("create", schema)
    try:
        yield pg_schema_url(schema)
    finally:
        await pg_schema("drop", schema)


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
    await store.games.create_game("godfather", kw.pop("seed", 7), players or PLAYERS, game_id=game_id, **kw)
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
