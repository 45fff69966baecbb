"""``altmafia bench`` rows of one deadline shared by many games (section ``deadline``).

The real bot (``create_bot``) under the strict test Discord of the source checkout
(``tests/bot/strict_discord.py``: discord.py's own rate limiter against Discord's limits — 50
requests a second, 5 messages per 5 s a channel — answered with 429s, and a round trip charged
to SimCord's virtual clock). One 13-player Godfather game is started through ``/lobby start``
and played to day 7 through the scheduler; every player's move of the day is in; then the game
is copied in the database, each copy with channels of its own (made in SimCord with the
original's overwrites), and every copy is due at the same minute:

* ``deadline.commit_ratio``: wall-clock time from the deadline (``Scheduler.tick`` called) to
  the last resolve committed, ÷ (the games × one copy's resolve and commit timed alone, in the
  same store). A game whose commit waited for another's delivery would push it far past 1.
* ``deadline.delivered_ratio``: virtual time from the deadline to the last post delivered, ÷
  the floor Discord's limits set for the calls made: the calls ÷ 50 a second, or the busiest
  channel's messages at 5 per 5 s, whichever is longer.

A run is: five copies resolved alone one after another, then the copies at one deadline; the
runs alternate, each row is the median of its runs, the yardstick the median of every copy alone.
"""

from __future__ import annotations

import asyncio
import copy
import importlib
import importlib.util
import json
import math
import random
import statistics
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path
from typing import Any

from storage import Store
from storage.records import GAME_COLUMNS

from .bench_bot import stop
from .bench_play import play_tick

#: the round trip each REST call takes (virtual seconds), unless the caller states another
ROUND_TRIP = 0.1
#: (full, quick): games due at once, runs (each: one alone, then all at once)
GAMES = (500, 3)
RUNS = (3, 1)
ALONE = 5  # copies resolved alone in each run, one after another (the yardstick: their median)
SEATS = 13
DAY = 7
SEED = 11  # the game's seed (production draws one at random): the same game every run
GLOBAL_PER_SECOND = 50
CHANNEL_MESSAGES = (5, 5.0)  # messages per seconds, a channel


def strict_layer() -> Any:
    """The strict test Discord of the source checkout, or None (an installed package has no tests)."""
    try:
        return importlib.import_module("tests.bot.strict_discord")
    except ModuleNotFoundError:
        root = Path(__file__).resolve().parents[2]
        if not (root / "tests" / "bot" / "strict_discord.py").exists():
            return None
        sys.path.insert(0, str(root))
        return importlib.import_module("tests.bot.strict_discord")


def why_not(make_bot: Any) -> str | None:
    if make_bot is None:
        return "not measured: no Discord bot was given to the bench (run it as `altmafia bench`)"
    for need in ("simcord", "pytest"):
        if importlib.util.find_spec(need) is None:
            return f"not measured: {need} is not installed (python3 -m pip install -e '.[test]')"
    if strict_layer() is None:
        return "not measured: the strict test Discord (tests/bot/strict_discord.py) is not in this installation"
    return None


def bench_deadline(b: Any, say: Callable[[str], None], make_bot: Any, quick: bool, round_trip: float = ROUND_TRIP) -> None:
    games, runs = GAMES[1] if quick else GAMES[0], RUNS[1] if quick else RUNS[0]
    say(f"deadline: {games} games of {SEATS} on day {DAY} due at one minute, round trip {round_trip * 1000:.0f} ms")
    reason = why_not(make_bot)
    result = None
    if reason is None:
        try:
            result = asyncio.run(_measure(make_bot, games, runs, round_trip, say))
        except Exception as exc:  # noqa: BLE001 - a bot that fails here is reported, not fatal
            reason = f"not measured: the bot failed under SimCord ({type(exc).__name__}: {str(exc)[:200]})"
    commit_title = (f"{games} {SEATS}-seat games on day {DAY} due at one minute: the deadline to the last committed resolve, "
                    f"÷ {games} × one such resolve and commit alone (wall clock)")
    deliver_title = (f"the same deadline: every post delivered, against the floor of Discord's limits (calls ÷ 50 a second; "
                     f"5 messages per 5 s a channel), round trip {round_trip * 1000:.0f} ms (virtual time)")
    if result is None:
        b.add("deadline", "deadline.commit_ratio", commit_title, None, "×", goal="≤ 1.2", not_measured=reason)
        b.add("deadline", "deadline.delivered_ratio", deliver_title, None, "×", goal="≤ 1.2", not_measured=reason)
        return
    commit = statistics.median(result["commit"])
    alone = statistics.median(result["alone"])  # every copy timed alone, over all the runs
    ratio = commit / (games * alone)
    b.add("deadline", "deadline.commit_ratio", commit_title, ratio, "×", goal="≤ 1.2", ratio=ratio, ok=ratio <= 1.2,
          note=f"the last commit {commit:.2f} s after the deadline (median of {runs} runs: "
          f"{', '.join(f'{x:.2f}' for x in result['commit'])} s); one resolve and commit alone {alone * 1000:.1f} ms "
          f"(median of {len(result['alone'])}: {ALONE} before each run); the commits go in the order of the deadlines, "
          f"the deliveries after them")
    took = statistics.median(result["delivered"])
    floor = statistics.median(result["floor"])
    dratio = took / floor
    b.add("deadline", "deadline.delivered_ratio", deliver_title, dratio, "×", goal="≤ 1.2", ratio=dratio, ok=dratio <= 1.2,
          note=f"the last post {took:.1f} s after the deadline, the floor {floor:.1f} s (median of {runs} runs); "
          f"{result['calls']} REST calls a run ({result['posts']} messages, the busiest channel {result['busiest']}), "
          f"{result['limited']} answered 429 and waited out by discord.py; each post delivered once: "
          f"{result['once']}")


async def _measure(make_bot: Any, games: int, runs: int, round_trip: float, say: Callable[[str], None]) -> dict[str, Any]:
    # imported here: SimCord and pytest are test extras, needed only when this section runs
    import pytest
    import simcord

    strict_discord = strict_layer()
    out: dict[str, Any] = {"commit": [], "alone": [], "delivered": [], "floor": []}
    with tempfile.TemporaryDirectory(prefix="altmafia-bench-") as d, pytest.MonkeyPatch.context() as mp:
        strict_discord.install(mp)
        bot = make_bot(Path(d) / "bench.sqlite3")
        env = simcord.Env(bot, settle_timeout=600.0)
        strict = strict_discord.StrictDiscord(env, round_trip=round_trip)
        await env.start()
        try:
            store = bot.store
            src = await _day7(env, bot, store)
            bot.scheduler.stop()  # the bench calls the deadline's tick itself
            for run in range(runs):
                say(f"deadline: run {run + 1} of {runs}")
                for one in await _copies(env, store, src, ALONE, f"a{run}"):  # one at a time
                    out["alone"].append(await _timed_alone(bot, store, one))
                    await env.settle()
                ids = await _copies(env, store, src, games, f"r{run}")
                await _rush(env, bot, store, strict, ids, out)
        finally:
            await stop(env)
    return out


async def _day7(env: Any, bot: Any, store: Store) -> str:
    """The game: started through ``/lobby start``, played to day 7, every move of the day in."""
    guild = env.create_guild("bench")
    lobby = guild.create_text_channel("lobby")
    gm = guild.add_member(env.create_user("gm"))
    members = [guild.add_member(env.create_user(f"p{i}", global_name=f"Игрок{i + 1}")) for i in range(SEATS)]
    await gm.slash(lobby, "lobby create")
    for lid in await store.lobbies.lobbies(guild.id):  # the same deal every run
        await store.lobbies.update_lobby(lid, lambda data: data.update(seed=SEED))
    for m in members:
        await m.slash(lobby, "lobby join")
    await gm.slash(lobby, "lobby start")
    await env.settle()
    gid = store.games.games()[0].game_id
    rnd = random.Random(17)
    target = (DAY - 1) * store.games.game(gid).clock.per_cycle
    while store.games.game(gid).state.tick < target:
        await play_tick(store, gid, rnd)
        await bot.scheduler.resolve(gid)
        await env.settle()
        if store.games.info(gid).status != "running":
            raise RuntimeError(f"the bench's game ended before day {DAY}: a bench bug (seed {SEED})")
    await play_tick(store, gid, rnd)
    await bot.deliverer.flush(gid)
    await env.settle()
    return gid


async def _copies(env: Any, store: Store, src: str, n: int, tag: str) -> list[str]:
    """``n`` copies of ``src`` (its row, events and history), each with channels of its own:
    made in SimCord as the original's (names, overwrites, one category), in one transaction,
    then loaded as a start loads them."""
    backend = env.backend
    info = store.games.info(src)
    channels = info.meta["channels"]
    by_id = {int(v): k for k, v in channels.items()}
    cols = [c.strip() for c in GAME_COLUMNS.split(",")] + ["state", "log_apart"]
    rest = ", ".join(cols[1:])
    ids = [f"{src}-{tag}-{i:04d}" for i in range(n)]
    maps: dict[str, dict[str, int]] = {}
    for gid in ids:
        made: dict[int, int] = {}
        order = sorted(by_id, key=lambda cid: backend.channels[cid].type != 4)  # the category first
        for cid in order:
            orig = backend.channels[cid]
            parent = made.get(orig.parent_id) if orig.parent_id else None
            ch = backend.create_channel(orig.guild_id, orig.name, type=orig.type, overwrites=copy.deepcopy(orig.overwrites),
                                        parent_id=parent, topic=orig.topic)
            made[cid] = ch.id
        maps[gid] = {by_id[old]: new for old, new in made.items()}
    await env.settle()
    async with store.db.tx("bench.copy") as db:
        for gid in ids:
            await db.execute(db.sql(f"INSERT INTO games ({', '.join(cols)}) SELECT ?, {rest} FROM games WHERE game_id = ?"), (gid, src))
            meta = dict(info.meta, channels={k: str(v) if isinstance(channels[k], str) else v for k, v in maps[gid].items()})
            await db.execute(db.sql("UPDATE games SET meta = ? WHERE game_id = ?"), (json.dumps(meta), gid))
            await db.execute(db.sql("INSERT INTO events (game_id, idx, seq, tick, msg_key, audience, ids, args) "
                                    "SELECT ?, idx, seq, tick, msg_key, audience, ids, args FROM events WHERE game_id = ?"), (gid, src))
            await db.execute(db.sql("INSERT INTO history (game_id, idx, seq, tick, record) "
                                    "SELECT ?, idx, seq, tick, record FROM history WHERE game_id = ?"), (gid, src))
            for key, cid in maps[gid].items():
                await db.execute(db.sql("INSERT INTO game_channels (channel_id, game_id, channel_key) VALUES (?, ?, ?)"),
                                 (cid, gid, key))
    # loaded as Store.open loads a game (the store has no public way to load one more)
    marks = ", ".join("?" for _ in ids)
    for row in await store.db.read(f"SELECT {GAME_COLUMNS}, state FROM games WHERE game_id IN ({marks})", ids):
        live = await store.games._load_live(row)
        store.state.games[live.info.game_id] = live
    for gid in ids:
        store.state.channels.update({cid: gid for cid in maps[gid].values()})
    return ids


async def _timed_alone(bot: Any, store: Store, gid: str) -> float:
    """One copy's resolve and commit alone: from the call to the commit of the resolve."""
    committed: list[float] = []
    store.db.fault = lambda point: committed.append(time.perf_counter()) if point == "resolve.after_commit" else None
    try:
        t0 = time.perf_counter()
        await bot.scheduler.resolve(gid)
    finally:
        store.db.fault = None
    return committed[0] - t0


async def _rush(env: Any, bot: Any, store: Store, strict: Any, ids: list[str], out: dict[str, Any]) -> None:
    """Every copy due now; the scheduler's tick; the commits' wall clock, the posts' virtual time."""
    # imported here: discord.py is the bot's, and `altmafia bench --only engine` needs none of it
    import discord

    due = discord.utils.utcnow() - timedelta(seconds=1)  # the bot's clock (SimCord's, here)
    for gid in ids:
        await store.turns.set_deadline(gid, due)
    ticks = {gid: store.games.info(gid).tick for gid in ids}
    committed: list[float] = []
    store.db.fault = lambda point: committed.append(time.perf_counter()) if point == "resolve.after_commit" else None
    n0, v0, limited0 = len(env.http_requests), strict.now, len(strict.rate_limited)
    sent0 = sum(bot.deliverer.sent.values())
    try:
        t0 = time.perf_counter()
        await bot.scheduler.tick()
    finally:
        store.db.fault = None
    took = strict.now - v0
    await env.settle()
    if any(store.games.info(g).tick != ticks[g] + 1 for g in ids) or len(committed) < len(ids):
        raise RuntimeError("not every game resolved at the deadline: a bench bug")
    calls = env.http_requests[n0:]
    posts = [c for c in calls if c.method == "POST" and c.path.endswith("/messages")]
    per_channel = Counter(c.path for c in posts)
    busiest = max(per_channel.values(), default=0)
    limit, period = CHANNEL_MESSAGES
    floor = max(len(calls) / GLOBAL_PER_SECOND, (math.ceil(busiest / limit) - 1) * period + strict.round_trip)
    out["commit"].append(max(committed) - t0)
    out["delivered"].append(took)
    out["floor"].append(floor)
    out["calls"], out["posts"], out["busiest"] = len(calls), len(posts), busiest
    out["limited"] = len(strict.rate_limited) - limited0
    sent = sum(bot.deliverer.sent.values()) - sent0
    left = [p for p in await store.outbox.pending_parts(None) if p.game_id in set(ids)]
    out["once"] = (f"{sent} sent, {len(posts)} POSTs, none pending" if not left and sent == len(posts)
                   else f"{sent} sent, {len(posts)} POSTs, {len(left)} parts pending")
