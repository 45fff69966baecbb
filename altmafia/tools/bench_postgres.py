"""``altmafia bench``, section ``postgres``: the store on PostgreSQL.

* round trips per command and per resolve: every call of the backend that waits for the
  server, counted by :class:`storage.postgres.PostgresBackend` (``round_trips``; a message of
  many statements counts once, a statement asyncpg prepares first counts twice);
* a command's time on PostgreSQL against SQLite's (information);
* a deadline split across shard processes: the same games due at once, resolved by one process
  running both shards and by two processes running one shard each, on one server.

The server is ``ALTMAFIA_BENCH_PG_URL`` (or ``ALTMAFIA_TEST_PG_URL``, as the tests use it; a
throwaway one: ``bash .ci/postgres start DIR``); each run works in schemas of its own and drops
them. Without a server the rows say so.
"""

from __future__ import annotations

import asyncio
import os
import random
import statistics
import sys
import tempfile
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

from engine import DEAL, PlayerSpec
from storage import Store
from storage.postgres import PostgresBackend
from storage.store import GAME_COLUMNS

from .bench_play import play_tick

NO_SERVER = "not measured: no PostgreSQL server (set ALTMAFIA_BENCH_PG_URL, or ALTMAFIA_TEST_PG_URL; `bash .ci/postgres start DIR` starts one)"
SEATS = 13
DAYS = 7  # the template game is played to the start of this day
# (full, quick): games at the deadline of the shard row, and its runs of each kind (interleaved)
SHARD_GAMES = (300, 6)
SHARD_RUNS = (5, 1)
COMMANDS = (60, 13)  # commands timed on each database for the time row


TITLES = {
    "postgres.round_trips_per_command": (
        "round trips to PostgreSQL of a player's command (Store.games.apply of an accepted /action, request id and commit included)", "≤ 2"),
    "postgres.round_trips_per_resolve": (
        "round trips to PostgreSQL of a resolve (Store.turns.resolve: the log it reads, the mark, the resolve's commit)", "≤ 4"),
    "shards.deadline_speedup": (
        f"{{n}} {SEATS}-seat games on day {DAYS} due at one deadline on one PostgreSQL: one process ÷ two shard processes", "≥ 1.6"),
}


def server_url() -> str | None:
    return os.environ.get("ALTMAFIA_BENCH_PG_URL") or os.environ.get("ALTMAFIA_TEST_PG_URL") or None


def bench_postgres(b: Any, say: Callable[[str], None]) -> None:
    url = server_url()
    if url is None:
        for key, (title, goal) in TITLES.items():
            b.add("postgres", key, title.format(n=SHARD_GAMES[b.quick]), None, "", goal=goal, not_measured=NO_SERVER)
        return
    say("postgres: round trips")
    asyncio.run(_round_trips(b, url))
    say("postgres: shards at one deadline")
    asyncio.run(_shards(b, url))


# ---- a game that every player plays -------------------------------------------------------
def _players() -> list[PlayerSpec]:
    return [PlayerSpec(f"P{i + 1}", DEAL, DEAL) for i in range(SEATS)]


async def _drop(url: str, *schemas: str) -> None:
    # imported here: asyncpg is an optional extra (the section runs only where a server is given)
    import asyncpg

    conn = await asyncpg.connect(url)
    try:
        for s in schemas:
            await conn.execute(f'DROP SCHEMA IF EXISTS "{s}" CASCADE')
    finally:
        await conn.close()


# ---- round trips --------------------------------------------------------------------------
async def _round_trips(b: Any, url: str) -> None:
    quick = b.quick
    schema = f"bench_{uuid.uuid4().hex[:12]}"
    backend = PostgresBackend(url, schema=schema)
    commands: list[int] = []
    resolves: list[int] = []
    try:
        async with Store(backend=backend) as store:
            await store.games.create_game("godfather", 11, _players(), game_id="rt")
            rnd = random.Random(3)
            for _ in range(2 if quick else 6):
                commands += [after - before for before, after in await play_tick(store, "rt", rnd, keyed=True, each=lambda: backend.round_trips)]
                before = backend.round_trips
                if await store.turns.resolve("rt") is None or store.games.game("rt").state.over:
                    break
                resolves.append(backend.round_trips - before)
            pg_times = await _timed_commands(store, "rt", COMMANDS[quick])
        with tempfile.TemporaryDirectory(prefix="altmafia-bench-") as d:
            async with Store(Path(d) / "rt.sqlite3") as lite:
                await lite.games.create_game("godfather", 11, _players(), game_id="rt")
                rnd = random.Random(3)
                for _ in range(2 if quick else 6):
                    await play_tick(lite, "rt", rnd, keyed=True)
                    if await lite.turns.resolve("rt") is None or lite.games.game("rt").state.over:
                        break
                lite_times = await _timed_commands(lite, "rt", COMMANDS[quick])
    finally:
        await _drop(url, schema)
    worst = max(commands)
    b.add("postgres", "postgres.round_trips_per_command", TITLES["postgres.round_trips_per_command"][0],
          worst, "", goal="≤ 2", ratio=worst / 2, ok=worst <= 2,
          note=f"the most of {len(commands)} commands of a {SEATS}-seat Godfather game (median {statistics.median(commands):g}); "
          "counted by the backend: every call that waits for the server, a message of many statements once, a "
          "statement asyncpg prepares first twice")
    warm = resolves[1:] or resolves
    worst = max(warm)
    b.add("postgres", "postgres.round_trips_per_resolve", TITLES["postgres.round_trips_per_resolve"][0],
          worst, "", goal="≤ 4", ratio=worst / 4, ok=worst <= 4,
          note=f"the most of {len(warm)} resolves after the first (the first: {resolves[0]}, its read prepared on a new connection); "
          "the messages staged after a resolve are the bot's (delivery), not counted here")
    pg, lite = statistics.median(pg_times), statistics.median(lite_times)
    b.add("postgres", "postgres.command_vs_sqlite",
          "a command's time on PostgreSQL (a local server on a Unix socket) against SQLite (synchronous=FULL)",
          pg * 1000, "ms", note=f"SQLite {lite * 1000:.2f} ms, PostgreSQL ÷ SQLite {pg / lite:.2f}× (medians of "
          f"{len(pg_times)} commands each; information, no goal: PostgreSQL's server here runs with fsync=off)")


async def _timed_commands(store: Store, gid: str, n: int) -> list[float]:
    """Accepted commands timed one at a time (wall clock, commit included)."""
    rnd = random.Random(5)
    times: list[float] = []
    while len(times) < n:
        times += [after - before for before, after in await play_tick(store, gid, rnd, keyed=True, each=time.perf_counter)]
    return times[:n]


# ---- shards at one deadline ---------------------------------------------------------------
async def _template(url: str, schema: str) -> None:
    """One game played to day ``DAYS`` with every player's move in, in ``schema``."""
    async with Store(backend=PostgresBackend(url, schema=schema)) as store:
        await store.games.create_game("godfather", 11, _players(), game_id="tpl")
        rnd = random.Random(7)
        per_day = store.games.game("tpl").clock.per_cycle
        while store.games.game("tpl").state.tick < (DAYS - 1) * per_day:
            await play_tick(store, "tpl", rnd)
            if await store.turns.resolve("tpl") is None or store.games.game("tpl").state.over:
                raise RuntimeError(f"the bench's game ended before day {DAYS}: a bench bug")
        await play_tick(store, "tpl", rnd)


async def _copies(url: str, template: str, schema: str, n: int) -> None:
    """``schema``: a migrated store with ``n`` copies of the template game, on guilds of shard
    0 and 1 in turn (``(guild_id >> 22) % 2``)."""
    async with Store(backend=PostgresBackend(url, schema=schema)):
        pass  # the tables
    # imported here: asyncpg is an optional extra (the section runs only where a server is given)
    import asyncpg

    cols = [c.strip() for c in GAME_COLUMNS.split(",")] + ["state", "log_apart"]
    rest = ", ".join(cols[2:])
    gid = "'g' || lpad(i::text, 5, '0')"
    conn = await asyncpg.connect(url)
    try:
        async with conn.transaction():
            await conn.execute(
                f'INSERT INTO "{schema}".games ({", ".join(cols)}) SELECT {gid}, (1000 + i)::bigint * 4194304, {rest} '
                f'FROM "{template}".games, generate_series(0, $1 - 1) AS i WHERE game_id = \'tpl\'', n)
            for table, columns in (("events", "idx, seq, tick, msg_key, audience, ids, args"), ("history", "idx, seq, tick, record")):
                await conn.execute(
                    f'INSERT INTO "{schema}".{table} (game_id, {columns}) SELECT {gid}, {columns} '
                    f'FROM "{template}".{table}, generate_series(0, $1 - 1) AS i WHERE game_id = \'tpl\'', n)
    finally:
        await conn.close()


async def _deadline(url: str, template: str, n: int, processes: int) -> tuple[float, float]:
    """The seconds from the deadline to the last committed resolve of ``n`` games, resolved by
    ``processes`` processes (1: one process running both shards; 2: one shard each), each
    started and its games loaded before the deadline; and the CPU seconds the processes spent."""
    schema = f"bench_{uuid.uuid4().hex[:12]}"
    await _copies(url, template, schema, n)
    root = Path(__file__).resolve().parents[2]
    env = {k: v for k, v in os.environ.items() if not k.startswith("ALTMAFIA_")}
    env["PYTHONPATH"] = str(root) + os.pathsep + env.get("PYTHONPATH", "")
    shard_sets = ["0,1"] if processes == 1 else ["0", "1"]
    procs = [await asyncio.create_subprocess_exec(sys.executable, "-m", "altmafia.tools.bench_postgres", url, schema, ids,
                                                  stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, env=env)
             for ids in shard_sets]
    try:
        loaded = 0
        for p in procs:
            assert p.stdout is not None
            line = (await p.stdout.readline()).decode().split()
            if not line or line[0] != "READY":
                raise RuntimeError(f"a shard process of the bench did not start: {line}")
            loaded += int(line[1])
        if loaded != n:
            raise RuntimeError(f"the shard processes loaded {loaded} games of {n}: a bench bug")
        t0 = time.perf_counter()
        for p in procs:
            assert p.stdin is not None
            p.stdin.write(b"GO\n")
            await p.stdin.drain()
        done, cpu = 0, 0.0
        for p in procs:
            assert p.stdout is not None
            line = (await p.stdout.readline()).decode().split()
            if not line or line[0] != "DONE":
                raise RuntimeError(f"a shard process of the bench failed: {line}")
            done, cpu = done + int(line[1]), cpu + float(line[2])
        took = time.perf_counter() - t0
        if done != n:
            raise RuntimeError(f"the shard processes resolved {done} games of {n}: a bench bug")
        return took, cpu
    finally:
        for p in procs:
            if p.returncode is None:
                if p.stdin is not None:
                    p.stdin.close()
                await p.wait()
        await _drop(url, schema)


async def _shards(b: Any, url: str) -> None:
    n, runs = SHARD_GAMES[b.quick], SHARD_RUNS[b.quick]
    template = f"bench_{uuid.uuid4().hex[:12]}"
    one: list[tuple[float, float]] = []
    two: list[tuple[float, float]] = []
    loads, spins = [], []
    try:
        await _template(url, template)
        for _ in range(runs):  # interleaved: both kinds meet the machine's drifting load alike
            one.append(await _deadline(url, template, n, 1))
            two.append(await _deadline(url, template, n, 2))
            spins.append(await _spin_speedup())
            loads.append(os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan"))
    finally:
        await _drop(url, template)
    alone, split = statistics.median(t for t, _ in one), statistics.median(t for t, _ in two)
    cpu_one, cpu_two = statistics.median(c for _, c in one), statistics.median(c for _, c in two)
    speedup = alone / split
    cores = os.cpu_count() or 1
    b.add("postgres", "shards.deadline_speedup", TITLES["shards.deadline_speedup"][0].format(n=n),
          speedup, "×", goal="≥ 1.6", ratio=speedup, ok=speedup >= 1.6,
          note=f"from the deadline to the last committed resolve: one process (both shards) {alone:.2f} s, two processes "
          f"(a shard each) {split:.2f} s (medians of {runs} interleaved runs); each process started and its games loaded "
          f"before the deadline, its resolves run at once; the processes' CPU: {cpu_one:.2f} s (one), {cpu_two:.2f} s "
          f"(two, together); {cores} CPU(s) shared with the server and whatever else runs (load average "
          f"{statistics.median(loads):.1f}); the machine's own ceiling, taken between the runs: the same pure-CPU work in two "
          f"processes ÷ in one {statistics.median(spins):.2f}×")


SPIN = 10_000_000  # loop turns of one unit of pure-CPU work (about half a second)


async def _spin_speedup() -> float:
    """The machine's ceiling for two processes now: two units of pure-CPU work in one process
    ÷ one unit in each of two, both timed from their start to the last one's end."""
    async def run(units: list[int]) -> float:
        t0 = time.perf_counter()
        procs = [await asyncio.create_subprocess_exec(sys.executable, "-S", "-c", f"x = 0\nfor i in range({SPIN * u}): x ^= i")
                 for u in units]
        for p in procs:
            await p.wait()
        return time.perf_counter() - t0
    await run([1])  # the interpreter's start, warmed
    return await run([2]) / await run([1, 1])


# ---- a shard process ----------------------------------------------------------------------
async def _child(url: str, schema: str, ids: str) -> None:
    """Load the games of shards ``ids`` (of 2), say READY, wait for GO, resolve them all at once,
    say DONE."""
    shards = (2, tuple(int(i) for i in ids.split(",")))
    async with Store(backend=PostgresBackend(url, schema=schema), shards=shards) as store:
        games = [(g.game_id, g.tick) for g in store.games.games() if g.status == "running"]
        print(f"READY {len(games)}", flush=True)
        loop = asyncio.get_running_loop()
        await loop.run_in_executor(None, sys.stdin.readline)
        cpu = time.process_time()
        done = await asyncio.gather(*(store.turns.resolve(gid, expect_tick=tick) for gid, tick in games))
        print(f"DONE {sum(1 for r in done if r is not None)} {time.process_time() - cpu:.4f}", flush=True)


if __name__ == "__main__":
    asyncio.run(_child(*sys.argv[1:4]))
