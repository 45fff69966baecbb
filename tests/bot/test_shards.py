"""Two bot processes on one PostgreSQL database, each running its own shard:
each game is loaded, resolved and delivered by the process of its guild's shard only, exactly
once. Skipped, with the reason, where no server is given (``ALTMAFIA_TEST_PG_URL``)."""

from __future__ import annotations

import asyncio
import json
import os
import sys
import uuid
from pathlib import Path

import pytest

from tests.storage.conftest import NO_PG, PG_URL, pg_schema, pg_schema_url, sql

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.skipif(not PG_URL, reason=NO_PG)


async def child(url: str, shard: int) -> tuple[asyncio.subprocess.Process, asyncio.Task]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("ALTMAFIA_")}
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    proc = await asyncio.create_subprocess_exec(sys.executable, "-m", "tests.bot.shard_child", url, "2", str(shard), cwd=ROOT,
                                                env=env, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
    return proc, asyncio.create_task(proc.communicate())


async def game_exists(url: str) -> bool:
    tables = await sql(url, "SELECT COUNT(*) FROM information_schema.tables WHERE table_schema = current_schema() AND table_name = 'games'")
    return bool(tables[0][0]) and bool((await sql(url, "SELECT COUNT(*) FROM games"))[0][0])


def result(proc, out: bytes, err: bytes) -> dict:
    assert proc.returncode == 0, err.decode(errors="replace")[-4000:]
    line = next(ln for ln in out.decode().splitlines() if ln.startswith("RESULT "))
    return json.loads(line[len("RESULT "):])


async def test_two_processes_each_run_their_own_shard_exactly_once():
    schema = f"t_{uuid.uuid4().hex[:16]}"
    await pg_schema("create", schema)
    url = pg_schema_url(schema)
    try:
        p1, t1 = await child(url, 1)
        # the second process starts while the first one's game exists and is being played
        for _ in range(600):
            if await game_exists(url):
                break
            await asyncio.sleep(0.1)
        p0, t0 = await child(url, 0)
        r1, r0 = result(p1, *await asyncio.wait_for(t1, 240)), result(p0, *await asyncio.wait_for(t0, 240))
        assert r0["game"] != r1["game"]
        # each process held its own game only, also the one that started after the other's game existed
        assert r1["game"] not in r0["at_start"] and r0["held"] == [r0["game"]] and r1["held"] == [r1["game"]]
        for r, shard in ((r0, 0), (r1, 1)):
            assert (r["guild"] >> 22) % 2 == shard
            assert r["tick"] >= 2, r  # the forced resolve and at least one deadline
            assert r["refused"] == [], r["refused"]  # nothing the strict test Discord refused
            # every resolve once: one journal row per tick
            ticks = [row[0] for row in await sql(url, "SELECT tick FROM commands WHERE game_id = ? AND kind = 'resolve' ORDER BY tick", r["game"])]
            assert ticks == sorted(set(ticks)) and len(ticks) == r["tick"], ticks
            # every part sent once, by the process of the game's shard
            parts = await sql(url, "SELECT content, claim_owner, sent_at FROM outbox_parts WHERE game_id = ?", r["game"])
            assert parts and all(p[2] is not None for p in parts)
            assert {p[1] for p in parts} == {r["owner"]}, {p[1] for p in parts}
            unsent = await sql(url, "SELECT COUNT(*) FROM outbox WHERE game_id = ? AND delivered_at IS NULL", r["game"])
            assert unsent[0][0] == 0
            # and what reached Discord is exactly the stored parts, each once
            posted = sorted(m[1] for m in r["messages"])
            assert posted == sorted(p[0] for p in parts if p[0])
    finally:
        await pg_schema("drop", schema)
