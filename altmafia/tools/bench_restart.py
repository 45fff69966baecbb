"""The bench's restart rows: how soon a store with thousands of day-7 games serves its first
command after a start, how soon the real bot answers a player after a restart on that
database, and what each game costs in resident memory (RSS, not tracemalloc).

All are taken in child processes (``python -m altmafia.tools.bench_restart PATH``, and
``--bot FACTORY PATH`` for the bot's restart): a fresh interpreter opens the database exactly
as a bot's start does, so the figures hold nothing the bench process had loaded before. The
database: one 13-player Godfather's Legacy game and one 20-seat Eternal Friday game, each
played to day 7 with every player acting, then copied to thousands of games (rows, events and
history copied, as ``bench._clone`` does).
"""

from __future__ import annotations

import asyncio
import gc
import importlib
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, cast

from config import load_ruleset
from engine import DEAL, PlayerSpec
from storage import Command, Store
from storage.backend import Step

from .bench_bot import PM_FLOOR_TABLE, add_noop, add_pm_floor, stop

#: the games of the full run: (ruleset, seats, copies, seed); quick: a handful of each
RESTART_GAMES = (("godfather", 13, 5000, 11), ("eternal_friday", 20, 1000, 11))
QUICK_GAMES = (("godfather", 13, 20, 11), ("eternal_friday", 20, 5, 11))
RESTART_DAY = 7
OPEN_GOAL_S = 5.0
RSS_GOAL_KIB = 100.0
PM_GOAL_TX = 2
PM_GOAL_CPU = 2.0
#: restarts of the bot timed (full, quick), each in a child process of its own
BOT_RUNS = (3, 1)
FIRST_REPLY_GOAL_S = 5.0
PM_REPEATS = (26, 3)  # PMs timed (full, quick), alternated with the no-op; senders in turn (a day's quota each)


def rss_kib() -> float:
    """This process's resident memory now (``/proc/self/statm``), in KiB."""
    pages = int(Path("/proc/self/statm").read_text(encoding="ascii").split()[1])
    return pages * os.sysconf("SC_PAGE_SIZE") / 1024


async def _day7(store: Store, ruleset: str, seats: int, seed: int, play: Callable[..., Any]) -> str:
    """A game of ``seats`` played to day 7 with every living player acting each tick (a seed
    whose game ends earlier is shown as ended, left out of a start, and the next one tried)."""
    for s in range(seed, seed + 50):
        gid = f"{ruleset}-{s}"
        await store.games.create_game(ruleset, s, [PlayerSpec(f"P{i + 1}", DEAL, DEAL) for i in range(seats)], game_id=gid)
        per_day = store.games.game(gid).clock.per_cycle
        rnd = random.Random(s)
        while not store.games.game(gid).state.over and store.games.game(gid).state.tick < (RESTART_DAY - 1) * per_day:
            await play(store, gid, rnd)
            await store.turns.resolve(gid)
        if not store.games.game(gid).state.over:
            return gid
        await store.meta.update_meta(gid, lambda meta: meta.update(revealed=True))
    raise RuntimeError(f"no {ruleset} game of {seats} seats reached day {RESTART_DAY}: a bench bug")


async def build(path: Path, games: tuple[tuple[str, int, int, int], ...], play: Callable[..., Any],
                clone: Callable[..., Any]) -> dict[str, list[str]]:
    """The database of the restart rows: each source game played to day 7, its outbox marked
    delivered (a running bot has sent it), then copied; the ids by ruleset."""
    out: dict[str, list[str]] = {}
    async with Store(path, synchronous="OFF") as store:
        for ruleset, seats, copies, seed in games:
            src = await _day7(store, ruleset, seats, seed, play)
            out[ruleset] = [src] + await clone(store, src, copies - 1)
        async with store.db.tx("bench.delivered") as db:
            await db.execute(db.sql("UPDATE outbox SET delivered_at = created_at WHERE delivered_at IS NULL"))
    return out


async def _child(path: str) -> dict[str, Any]:
    """In the child: the time from the start of ``Store.open`` to the first command committed,
    and the resident memory before the open, after it, and after every game was read into
    the engine (one ruleset after the other)."""
    # the rulesets its games use loaded before the first figure (a start imports them too)
    for rid in ("godfather", "eternal_friday"):
        load_ruleset(rid)
    store = Store(path)
    gc.collect()
    out: dict[str, Any] = {"rss_before": rss_kib()}
    t0, c0 = time.perf_counter(), time.process_time()
    try:
        report = await store.open()
        out["open_s"] = time.perf_counter() - t0
        gid = next(g.game_id for g in report.games if g.ruleset == "godfather" and g.status == "running")
        g = store.games.game(gid)
        # a command the engine accepts on any day (a GM setting a stat), committed with its journal row
        await store.games.apply(gid, Command("gm_set_stat", {"pid": g.living()[0].pid, "stat": g.rules.stats[0].id, "value": 1}))
        out["first_s"], out["first_cpu_s"] = time.perf_counter() - t0, time.process_time() - c0
        gc.collect()
        out["rss_open"] = rss_kib()
        out["games"] = len(report.games)
        for rid in ("godfather", "eternal_friday"):  # every game read, as the deadlines of a day read them
            ids = [i.game_id for i in report.games if i.ruleset == rid]
            t1 = time.perf_counter()
            for i in ids:
                store.games.game(i)
            gc.collect()
            out[rid] = {"games": len(ids), "rss": rss_kib(), "read_s": time.perf_counter() - t1}
    finally:
        await store.close()
    return out


def measure(path: Path) -> dict[str, Any]:
    """One child process opening ``path`` (see :func:`_child`)."""
    args = [sys.executable, "-m", "altmafia.tools.bench_restart", str(path)]
    done = subprocess.run(args, capture_output=True, text=True, check=False, cwd=os.getcwd())
    if done.returncode != 0:
        raise RuntimeError(f"the restart child failed: {done.stderr[-2000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def factory_name(make_bot: Callable[[Path], Any]) -> str | None:
    """``module:name`` of a bot factory that a child process can import (the tools never
    import the bot: the bench is handed its factory), or None (a lambda, a local function)."""
    name = f"{getattr(make_bot, '__module__', '')}:{getattr(make_bot, '__qualname__', '<?>')}"
    return None if "<" in name or name.startswith(":") else name


def _factory(name: str) -> Callable[[Path], Any]:
    module, attr = name.split(":")
    return cast("Callable[[Path], Any]", getattr(importlib.import_module(module), attr))


async def _bot_child(factory: str, path: str, seed: int) -> dict[str, Any]:
    """In the child: the real bot's first start on the database of thousands of games, under
    plain SimCord, and one 13-player Godfather's Legacy game started through it (a server with
    its channels); then the bot stopped as a crash stops it (its database connection simply
    goes) and a new bot started on the same file. The moment the new bot is ready (``on_ready``:
    its gateway connected, its servers known), while its recovery goes over every game, a
    player of that game presses ``/action me`` in their hidden channel.

    Figures, on the wall clock from the new bot's start (``setup_hook``: ``Store.open``, the
    rulesets read again, the cogs, the command sync): ready, and the first response of that
    command; SimCord's REST calls take no time, so the calls up to that response are counted
    (each a round trip on Discord); the CPU of the process over the whole restart."""
    # imported here: SimCord is a test extra, and the other rows need no Discord
    import simcord

    from .bench_load import Wire, channel_of, interaction, open_lobby, transports

    make_bot = _factory(factory)
    wire = Wire(round_trip=0.0)  # plain SimCord: the calls are recorded, none waits
    out: dict[str, Any] = {}
    with transports(wire):
        first = make_bot(Path(path))
        env = simcord.Env(first, settle_timeout=300.0)
        await env.start()
        try:
            store = first.store
            guild, lobby, gm, members = await open_lobby(env, store, 13, "restart", seed)
            await gm.slash(lobby, "lobby start")
            await env.settle()
            (gid,) = {i.game_id for i in store.games.games() if i.guild_id == guild.id}
            info, game = store.games.info(gid), store.games.game(gid)
            seat = next(p for p in game.living() if p.user_id == members[0].id)
            hidden = channel_of(env, guild, int(info.meta["channels"][f"player:{seat.pid}"]))
            first.scheduler.stop()
            await first.store.close()
            load_ruleset.cache_clear()  # the new bot reads its rulesets as a fresh process does
            gc.collect()
            bot = make_bot(Path(path))
            marks: dict[str, Any] = {}

            async def on_ready() -> None:
                marks["ready"] = time.perf_counter()
                marks["iid"], payload = interaction(env, members[0], hidden, "action me", {})
                env.backend.emit("INTERACTION_CREATE", payload)

            bot.add_listener(on_ready)
            wire.active = True
            t0, c0 = time.perf_counter(), time.process_time()
            await env.restart_bot(bot)  # returns once the bot is idle: the recovery and the command done
            out["restart_s"], out["cpu_s"] = time.perf_counter() - t0, time.process_time() - c0
            iid = marks["iid"]
            out["ready_s"], out["first_s"] = marks["ready"] - t0, wire.first[iid] - t0
            out["answered"] = wire.answered.get(iid, "")[:1] not in ("", "⛔")
            out["calls"] = [f"{c.method} {c.path}" for c in wire.calls if c.sent <= wire.first[iid]]
            out["games"] = len(bot.store.games.games())
        finally:
            await stop(env)
    return out


def _preamble(factory: str) -> float:
    """Wall seconds for a fresh interpreter to import the bot and make one, not started (the
    factory on a file it never opens): what a real restart pays before the bot's start, which
    the child had paid already."""
    code = ("import importlib, sys; from pathlib import Path; m, f = sys.argv[1].split(':'); "
            "getattr(importlib.import_module(m), f)(Path(sys.argv[2]))")
    with tempfile.TemporaryDirectory(prefix="altmafia-bench-") as d:
        t0 = time.perf_counter()
        subprocess.run([sys.executable, "-c", code, factory, str(Path(d) / "unused.sqlite3")], check=True, cwd=os.getcwd())
        return time.perf_counter() - t0


def measure_bot(path: Path, factory: str, seed: int) -> dict[str, Any]:
    """One child process restarting the bot on ``path`` (see :func:`_bot_child`)."""
    args = [sys.executable, "-m", "altmafia.tools.bench_restart", "--bot", factory, str(path), str(seed)]
    done = subprocess.run(args, capture_output=True, text=True, check=False, cwd=os.getcwd())
    if done.returncode != 0:
        raise RuntimeError(f"the bot's restart child failed: {done.stderr.strip().splitlines()[-1][-300:]}")
    return cast("dict[str, Any]", json.loads(done.stdout.strip().splitlines()[-1]))


def bench_restart(b: Any, say: Callable[[str], None], play: Callable[..., Any], clone: Callable[..., Any],
                  make_bot: Callable[[Path], Any] | None = None, reason: str | None = None, round_trip: float = 0.1) -> None:
    """The rows ``store.open_5000_s``, ``bot.first_reply_after_restart_s`` (with a bot:
    ``make_bot``, unless ``reason`` says why not) and ``memory.rss_per_game_kib``."""
    games = QUICK_GAMES if b.quick else RESTART_GAMES
    say(f"storage: a start with {sum(g[2] for g in games)} day-7 games, in a child process")
    with tempfile.TemporaryDirectory(prefix="altmafia-bench-") as d:
        path = Path(d) / "restart.sqlite3"
        asyncio.run(build(path, games, play, clone))
        m = measure(path)
        factory = factory_name(make_bot) if make_bot is not None else None
        if reason is None and factory is None:
            reason = "not measured: the bot's factory is not importable by name (a child process starts the bot)"
        bot: list[dict[str, Any]] = []
        preamble = 0.0
        if reason is None:
            assert factory is not None
            say("storage: the bot restarted on that database, in child processes")
            try:
                for i in range(BOT_RUNS[1] if b.quick else BOT_RUNS[0]):  # each on a copy of the same database
                    copy = path.with_name("bot.sqlite3")
                    for ext in ("", "-wal", "-shm"):  # the file as closed (a WAL left beside it goes with it)
                        Path(f"{copy}{ext}").unlink(missing_ok=True)
                        if Path(f"{path}{ext}").exists():
                            shutil.copyfile(f"{path}{ext}", f"{copy}{ext}")
                    bot.append(measure_bot(copy, factory, 25 + i))
                preamble = statistics.median(_preamble(factory) for _ in range(3))
            except Exception as exc:  # noqa: BLE001 - a bot that fails here is reported, not fatal
                reason = f"not measured: the bot failed under SimCord ({type(exc).__name__}: {str(exc)[:200]})"
    n, gf = m["games"], m["godfather"]["games"]
    first = m["first_s"]
    b.add("storage", "store.open_5000_s", f"a start with {n} day-7 games: Store.open to the first command committed (wall clock)",
          first, "s", goal=f"≤ {OPEN_GOAL_S:g} s", ratio=first / OPEN_GOAL_S, ok=first <= OPEN_GOAL_S,
          note=f"a fresh process (imports and rulesets loaded before the clock starts): Store.open of {gf} 13-player Godfather's "
          f"Legacy and {n - gf} 20-seat Eternal Friday games on day 7 ({m['open_s']:.2f} s), then a GM's command on one of "
          f"them, read into the engine and committed; CPU of the process {m['first_cpu_s']:.2f} s (the database's thread "
          "included); a game is read into the engine on first use, so reading every game's snapshot comes later: "
          f"{m['godfather']['read_s']:.2f} s for the Godfather games, {m['eternal_friday']['read_s']:.2f} s for the Eternal Friday ones")
    rows = (m["rss_open"] - m["rss_before"]) / n
    per = {"godfather": (m["godfather"]["rss"] - m["rss_open"]) / gf + rows,
           "eternal_friday": (m["eternal_friday"]["rss"] - m["godfather"]["rss"]) / max(n - gf, 1) + rows}
    worst = max(per.values())
    total = (m["eternal_friday"]["rss"] - m["rss_before"]) / n
    b.add("storage", "memory.rss_per_game_kib", f"resident memory per game on day 7, {n} games every one read into the engine (RSS)",
          worst, "KiB", goal=f"≤ {RSS_GOAL_KIB:g} KiB", ratio=worst / RSS_GOAL_KIB, ok=worst <= RSS_GOAL_KIB,
          note=f"the larger of: 13-player Godfather's Legacy {per['godfather']:.1f} KiB, 20-seat Eternal Friday "
          f"{per['eternal_friday']:.1f} KiB (/proc/self/statm of a fresh process: the growth as each ruleset's games are read, "
          f"plus the rows' share {rows:.1f} KiB a game after Store.open, the same for both); all {n} together "
          f"{total:.1f} KiB a game, {(m['eternal_friday']['rss'] - m['rss_before']) / 1024:.0f} MiB")
    _bot_row(b, sum(g[2] for g in games) + 1, bot, preamble, round_trip, reason)


async def pm_path(make_bot: Callable[[Path], Any], repeats: int) -> dict[str, Any]:
    """``/pm send`` through SimCord against a no-op slash command and against the PM's floor
    (``/bench-pm-floor``: its REST calls and two commits), alternated: the transactions of each
    PM (``Store.transactions``, by label), its REST calls and CPU."""
    # imported here: SimCord is a test extra, and the bench without a bot needs no Discord
    import simcord

    with tempfile.TemporaryDirectory(prefix="altmafia-bench-") as d:
        bot = make_bot(Path(d) / "bench.sqlite3")

        add_noop(bot)
        add_pm_floor(bot)
        env = simcord.Env(bot, settle_timeout=60.0)
        await env.start()
        try:
            await bot.store.backend.batch([Step(PM_FLOOR_TABLE, ())])
            guild = env.create_guild("bench")
            lobby = guild.create_text_channel("lobby")
            gm = guild.add_member(env.create_user("gm"))
            members = [guild.add_member(env.create_user(f"p{i}", global_name=f"Игрок{i + 1}")) for i in range(13)]
            await gm.slash(lobby, "lobby create")
            for m in members:
                await m.slash(lobby, "lobby join")
            await gm.slash(lobby, "lobby start")
            await env.settle()
            store = bot.store
            gid = store.games.games()[0].game_id
            game = store.games.game(gid)
            channels = store.games.info(gid).meta["channels"]
            by_id = {c.id: c for c in guild.channels.values()}
            by_user = {m.id: m for m in members}
            seats = [p for p in game.living() if p.user_id in by_user]
            cpu: dict[str, list[float]] = {"pm": [], "noop": [], "floor": [], "floor_noop": []}
            spent: list[Any] = []
            rest = 0
            for i in range(repeats):
                p, q = seats[i % len(seats)], seats[(i + 1) % len(seats)]
                member, hidden = by_user[p.user_id], by_id[int(channels[f"player:{p.pid}"])]
                c0 = time.process_time()
                await member.slash(hidden, "bench-noop")
                await env.settle()
                cpu["noop"].append(time.process_time() - c0)
                before, n0 = store.transactions.copy(), len(env.http_requests)
                c0 = time.process_time()
                await member.slash(hidden, "pm send", to=str(q.pid), message=f"письмо {i}")
                await env.settle()
                cpu["pm"].append(time.process_time() - c0)
                spent.append(store.transactions - before)
                rest += len(env.http_requests) - n0
                # the floor in rounds of its own, alternated with the same no-op
                c0 = time.process_time()
                await member.slash(hidden, "bench-noop")
                await env.settle()
                cpu["floor_noop"].append(time.process_time() - c0)
                c0 = time.process_time()
                await member.slash(hidden, "bench-pm-floor", mine=str(hidden.id), theirs=str(channels[f"player:{q.pid}"]),
                                   message=f"письмо {i}")
                await env.settle()
                cpu["floor"].append(time.process_time() - c0)
        finally:
            await stop(env)
    return {"cpu": cpu, "spent": spent, "rest": rest / repeats}


def bench_pm(b: Any, say: Callable[[str], None], make_bot: Callable[[Path], Any] | None, reason: str | None) -> None:
    """The rows ``pm.transactions`` and ``pm.cpu_vs_noop``."""
    say("discord: a PM's transactions and CPU through SimCord")
    title_tx = "transactions of one /pm send through the real bot under SimCord, its delivery included"
    title_cpu = "CPU of one /pm send (the command, its commit, both messages sent) against a no-op slash command"
    title_floor = "CPU of the PM's floor (its REST calls and two commits) against the same no-op (information, no goal)"
    if reason is None and make_bot is not None:
        try:
            got = asyncio.run(pm_path(make_bot, PM_REPEATS[1] if b.quick else PM_REPEATS[0]))
        except Exception as exc:  # noqa: BLE001 - a bot that fails here is reported, not fatal
            reason = f"not measured: the bot failed under SimCord ({type(exc).__name__}: {str(exc)[:200]})"
    if reason is not None:
        b.add("discord", "pm.transactions", title_tx, None, "tx", goal=f"≤ {PM_GOAL_TX}", not_measured=reason)
        b.add("discord", "pm.cpu_vs_noop", title_cpu, None, "×", goal=f"≤ {PM_GOAL_CPU:g}× the no-op", not_measured=reason)
        b.add("discord", "pm.floor_vs_noop", title_floor, None, "×", not_measured=reason)
        return
    worst = max(s["total"] for s in got["spent"])
    labels = sorted({f"{k} {v}" for s in got["spent"] for k, v in s.items() if k != "total"})
    b.add("discord", "pm.transactions", title_tx, worst, "tx", goal=f"≤ {PM_GOAL_TX}", ratio=worst / PM_GOAL_TX,
          ok=worst <= PM_GOAL_TX, note=f"the most of {len(got['spent'])} PMs (by label: {', '.join(labels)}); "
          f"{got['rest']:g} REST calls a PM (the reply, the sender's copy, the PM)")
    pm, noop = statistics.median(got["cpu"]["pm"]), statistics.median(got["cpu"]["noop"])
    floor, floor_noop = statistics.median(got["cpu"]["floor"]), statistics.median(got["cpu"]["floor_noop"])
    ratio = pm / noop
    b.add("discord", "pm.cpu_vs_noop", title_cpu, ratio, "×", goal=f"≤ {PM_GOAL_CPU:g}× the no-op", ratio=ratio / PM_GOAL_CPU,
          ok=ratio <= PM_GOAL_CPU, note=f"CPU time of the whole process (bot, store thread, SimCord), medians of "
          f"{len(got['cpu']['pm'])} alternating calls, each settled: /pm send {pm * 1000:.2f} ms, /bench-noop {noop * 1000:.2f} ms; "
          f"the PM ÷ its floor (/bench-pm-floor, the row below) {pm / floor:.2f}×; "
          "13-player Godfather's Legacy on day 1, the senders in turn")
    b.add("discord", "pm.floor_vs_noop", title_floor, floor / floor_noop, "×",
          note=f"information, no goal: the least a PM can cost against the same no-op; /bench-pm-floor (one short row "
          f"committed as the store commits a command, the reply as the first response, a post in the sender's channel and "
          f"one in the recipient's, a second row committed as a flush marks its sends: the {PM_GOAL_TX} transactions "
          f"pm.transactions allows) {floor * 1000:.2f} ms against /bench-noop {floor_noop * 1000:.2f} ms, medians of "
          f"{len(got['cpu']['floor'])} alternating calls in rounds of their own")


def _bot_row(b: Any, n: int, runs: list[dict[str, Any]], preamble: float, round_trip: float, reason: str | None) -> None:
    title = (f"a player's first answer after a restart of the bot with {n} games: from the new process's start to the "
             "first response (wall clock, a round trip per REST call)")
    goal = f"≤ {FIRST_REPLY_GOAL_S:g} s"
    if reason is not None or not runs:
        b.add("storage", "bot.first_reply_after_restart_s", title, None, "s", goal=goal, not_measured=reason or "not measured")
        return
    trips = max(len(r["calls"]) for r in runs) + 1  # the gateway's connection (IDENTIFY to READY) is one more
    first = statistics.median(r["first_s"] for r in runs)
    value = preamble + first + trips * round_trip
    ok = value <= FIRST_REPLY_GOAL_S and all(r["answered"] for r in runs)
    calls = [c.split(" /")[0] + " /" + c.split(" /")[1].split("/")[0] for c in runs[0]["calls"]]  # in order, each route's start
    b.add("storage", "bot.first_reply_after_restart_s", title, value, "s", goal=goal, ratio=value / FIRST_REPLY_GOAL_S, ok=ok,
          note=f"{runs[0]['games']} games in the database (day 7), one of them started through the bot with its channels; the bot stopped as a "
          f"crash stops it and a new one started on the file (Store.open, its rulesets read again, the cogs, the command sync); "
          f"its player presses /action me the moment the new bot is ready, while the recovery goes over every game. "
          f"The figure: a fresh interpreter importing the bot {preamble:.2f} s, then the start to the first response "
          f"{first:.2f} s (the median of {len(runs)} {'restart' if len(runs) == 1 else 'restarts'}, each in a child process; ready after "
          f"{statistics.median(r['ready_s'] for r in runs):.2f} s; under plain SimCord, where a REST call takes no time), plus "
          f"{trips} round trips of {round_trip * 1000:.0f} ms ({trips - 1} REST calls one after another up to it: "
          f"{', '.join(calls)}; and the gateway's). Everything done, the recovery of every game included: "
          f"{statistics.median(r['restart_s'] for r in runs):.2f} s, CPU {statistics.median(r['cpu_s'] for r in runs):.2f} s")


if __name__ == "__main__":
    if sys.argv[1] == "--bot":
        print(json.dumps(asyncio.run(_bot_child(sys.argv[2], sys.argv[3], int(sys.argv[4])))))
    else:
        print(json.dumps(asyncio.run(_child(sys.argv[1]))))
