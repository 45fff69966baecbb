"""PostgreSQL only: several processes on one database. Skipped, with the reason,
where no server is given (``ALTMAFIA_TEST_PG_URL``; ``.ci/run`` starts one)."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from storage import Command, Store, latest_version
from storage.backend import Step
from storage.postgres import PostgresBackend

from .conftest import NO_PG, PG_URL, new_game, pg_schema, pg_schema_url, sql

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.skipif(not PG_URL, reason=NO_PG)

OPEN_ONE = """
import asyncio, sys
from storage import Store
async def main():
    async with Store(sys.argv[1]) as s:
        print(s.report.schema_from, s.report.schema_to)
asyncio.run(main())
"""


@pytest.fixture
async def url():
    schema = f"t_{uuid.uuid4().hex[:16]}"
    await pg_schema("create", schema)
    try:
        yield pg_schema_url(schema)
    finally:
        await pg_schema("drop", schema)


async def test_five_processes_starting_at_once_on_an_empty_database_all_start(url):
    env = {k: v for k, v in os.environ.items() if not k.startswith("ALTMAFIA_")}
    procs = [subprocess.Popen([sys.executable, "-c", OPEN_ONE, url], cwd=ROOT, env=env, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True) for _ in range(5)]
    outs = [p.communicate(timeout=60) for p in procs]
    assert [p.returncode for p in procs] == [0] * 5, [e for _, e in outs]
    froms = sorted(int(o.split()[0]) for o, _ in outs)
    assert froms[0] == 0 and all(o.split()[1] == str(latest_version()) for o, _ in outs)
    versions = [r[0] for r in await sql(url, "SELECT version FROM schema_version ORDER BY version")]
    assert versions == list(range(1, latest_version() + 1))  # each migration once


async def test_a_part_is_sent_only_by_the_process_holding_its_claim(url):
    now = [datetime(2026, 3, 1, 6, 0, tzinfo=UTC)]
    a, b = Store(url), Store(url, clock=lambda: now[0])
    await a.open()
    await b.open()
    try:
        await a.outbox.stage("-", "bot-1", "gm", 7, [{"content": "a", "nonce": "n0"}])
        part = (await b.outbox.pending_parts())[0]
        assert await a.outbox.claim_part(part)
        assert not await b.outbox.claim_part(part)  # a holds it: b must not send
        assert await a.outbox.claim_part(part)  # its owner may try again
        now[0] = datetime.now(UTC) + timedelta(minutes=5)  # a died mid-send: its claim expired
        assert await b.outbox.claim_part(part)
        assert not await a.outbox.claim_part(part)
        assert await b.outbox.mark_part_sent(part, 99)
        assert not await b.outbox.claim_part(part)  # sent: nobody claims it again
        assert (await sql(url, "SELECT attempts, message_id FROM outbox_parts"))[0] == (3, 99)
    finally:
        await a.close()
        await b.close()


async def test_two_stores_on_one_game_each_command_lands_once(url):
    """Two processes that (wrongly) both hold one game: every command lands once, in one order,
    and each store reloads instead of failing after the other wrote."""
    a, b = Store(url), Store(url)
    await a.open()
    await new_game(a)
    await b.open()
    try:
        cmds = [(a if i % 2 else b, Command.send_pm(i % 8, (i + 1) % 8, f"{i}", request_id=f"r{i}")) for i in range(16)]
        results = await asyncio.gather(*(s.games.apply("g1", c) for s, c in cmds))
        assert sorted(r.seq for r in results) == list(range(1, 17))
        rows = await sql(url, "SELECT COUNT(*), COUNT(DISTINCT request_id) FROM commands WHERE game_id = 'g1'")
        assert rows[0] == (16, 16)
        for s in (a, b):  # a last command on each brings it up to date
            await s.games.apply("g1", Command.send_pm(0, 2, "x", request_id=f"last-{id(s)}"))
        assert len((await a.games.rebuild("g1")).state.pms) == 18
    finally:
        await a.close()
        await b.close()



async def test_a_shard_has_one_owner_and_each_store_loads_its_shards_games(url):
    from storage import ShardInUse

    guilds = {s: next(g for g in range(1 << 22, 1 << 26, 1 << 22) if (g >> 22) % 2 == s) for s in (0, 1)}
    async with Store(url, shards=(2, (0, 1))) as s:
        for shard, guild in guilds.items():
            await new_game(s, f"g{shard}", guild_id=guild)
    a = Store(url, shards=(2, (0,)))
    await a.open()
    try:
        with pytest.raises(ShardInUse, match="shard 0 of 2"):
            await Store(url, shards=(2, (0,))).open()
        b = Store(url, shards=(2, (1,)))
        await b.open()
        try:
            assert [g.game_id for g in a.games.games()] == ["g0"] and [g.game_id for g in b.games.games()] == ["g1"]
        finally:
            await b.close()
    finally:
        await a.close()


TRICKY = ["it's", "back\\slash \\' \\\\", "$1 $2 ?", "-- not a comment", "/* nor this */", "дом «Ёж»", "😀\t\n\r",
          "E'x'", "$altm$ $$", ";", ""]


async def test_a_batch_writes_every_value_as_given_in_one_round_trip(url):
    """The values a batch writes into its one message come back as they were: quotes,
    backslashes, placeholders, comments and dollar quotes in texts, negative numbers, NULL."""
    db = PostgresBackend(url)
    await db.connect()
    try:
        await db.execute("CREATE TABLE t (k INTEGER PRIMARY KEY, s TEXT, n BIGINT, f DOUBLE PRECISION)")
        rows = [(i, s, -i * 10**12, -1.5 * i) for i, s in enumerate(TRICKY)] + [(len(TRICKY), None, None, None)]
        before = db.round_trips
        stopped = await db.batch([
            Step(db.sql("INSERT INTO t (k, s, n, f) VALUES (?, ?, ?, ?)"), rows, many=True),
            Step(db.sql("UPDATE t SET n = n - ? WHERE k = ?"), (-1, 0), expect="one"),
            Step(db.sql("SELECT k FROM t WHERE s = ?"), ("nobody",), expect="absent"),
        ])
        assert stopped is None and db.round_trips - before == 1
        got = await db.fetchall("SELECT k, s, n, f FROM t ORDER BY k")
        assert got == [(0, TRICKY[0], 1, -0.0), *rows[1:]]
    finally:
        await db.close()


async def test_a_batch_stopped_by_its_check_writes_nothing(url):
    db = PostgresBackend(url)
    await db.connect()
    try:
        await db.execute("CREATE TABLE t (k INTEGER PRIMARY KEY, s TEXT)")
        assert await db.batch([Step(db.sql("INSERT INTO t (k, s) VALUES (?, ?)"), (1, "a"))]) is None
        stale = await db.batch([Step(db.sql("INSERT INTO t (k, s) VALUES (?, ?)"), (2, "b")),
                                Step(db.sql("UPDATE t SET s = ? WHERE k = ?"), ("x", 9), expect="one")])
        assert (stale.index, stale.rows) == (1, [])
        dup = await db.batch([Step(db.sql("SELECT k, s FROM t WHERE k = ?"), (1,), expect="absent"),
                              Step(db.sql("INSERT INTO t (k, s) VALUES (?, ?)"), (3, "c"))])
        assert (dup.index, dup.rows) == (0, [(1, "a")])
        assert await db.fetchall("SELECT k, s FROM t ORDER BY k") == [(1, "a")]
        # and the connection goes on: no transaction was left open
        assert await db.batch([Step(db.sql("INSERT INTO t (k, s) VALUES (?, ?)"), (4, "d"))]) is None
        assert [r[0] for r in await db.fetchall("SELECT k FROM t ORDER BY k")] == [1, 4]
    finally:
        await db.close()
