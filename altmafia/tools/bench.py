"""``altmafia bench``: where the engine, the scale and the storage stand, in one run.

Every figure is a median (or a count), and where the issue gives a goal the row carries the
ratio measured in the same run: these machines are noisy, so a ratio of two figures taken
side by side says more than an absolute time. ``--quick`` runs tiny sizes (for the tests: the
shape of the output, not the figures). The results of a real run and how to reproduce them:
``docs/benchmarks.md``.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import importlib.util
import json
import math
import os
import platform
import random
import shutil
import statistics
import sys
import tempfile
import time
import tracemalloc
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, cast

from config import load_ruleset
from engine import DEAL, ActionError, Game, PlayerSpec, Ruleset
from storage import Command, Store
from storage.backend import Step
from storage.store import GAME_COLUMNS, destinations

from . import bench_restart, peer
from .bench_bot import add_noop, stop
from .bench_load import QUICK_ROUND_TRIP, bench_load
from .bench_play import move as _move
from .bench_play import play_tick as _play_tick
from .bench_postgres import bench_postgres
from .deadline import ROUND_TRIP, bench_deadline
from .simulate.table import Table, play_game

if TYPE_CHECKING:  # the tree's type only: discord.py loads only for the bench's Discord section
    from discord import Client
    from discord.app_commands import CommandTree

#: the note of a row kept for information: what users feel is measured elsewhere (the deadline
#: rows, the round trips), and a goal on this figure would only push complexity into the code
INFORMATION = "information only: no goal"
SECTIONS = ("engine", "peer", "scale", "storage", "discord", "postgres", "load", "deadline")
# the tools never import the bot: ``altmafia bench`` (the command line, above both) hands
# the Discord section a factory of the real bot


class Flushing(Protocol):
    async def flush(self, game_id: str | None = None) -> int: ...


class Resolving(Protocol):
    async def resolve(self, game_id: str) -> list[Any]: ...


class BenchBot(Protocol):
    """What the bench uses of the real bot (``altmafia.bot.bot.AltMafiaBot``): its store, the
    flush of its deliverer, the resolve of its scheduler, its command tree."""

    @property
    def store(self) -> Store: ...

    @property
    def deliverer(self) -> Flushing: ...

    @property
    def scheduler(self) -> Resolving: ...

    @property
    def tree(self) -> CommandTree[Any]: ...


BotFactory = Callable[[Path], BenchBot]  # a SQLite file -> the bot, not started (create_bot)
NO_BOT = "not measured: no Discord bot was given to the bench (run it as `altmafia bench`)"

# sizes: (full, quick)
# The goal: `altmafia simulate` 3× faster on one core than build 77bbb8a (Godfather's Legacy,
# 13 players). 6.6 games/s is that build's wall-clock rate on a loaded machine. This row
# times CPU, and 77bbb8a, timed the way this row times, plays
# 13.0 games/s of CPU on this machine (docs/benchmarks.md, "Engine"): the baseline the
# goal is measured against, so that a CPU figure is never set against a wall-clock one.
SIM_ISSUE_WALL = 6.6
SIM_BASELINE = 13.0
SIZES = {
    "tick_games": (10, 1),  # 16-player games whose every tick is timed
    "throughput_games": (30, 2),
    "scaling_ticks": (21, 2),  # ticks timed per game and table size (21: the book's 7 days)
    "scaling_games": (3, 1),
    "scale_games": (500, 8),
    "scale_templates": (8, 2),
    "scale_runs": (3, 1),  # passes over all the games at once (the median is reported)
    "storage_ticks": (6, 2),
    "delivered_resolves": (6, 2),
    "finished_days": (1, 1),  # the length of each game played to its end for storage.memory_finished
    "finished_games": (12, 4),  # … and how many, one after another in one store
    "save_samples": (41, 5),  # accepted commands timed at day 1 and at day 7 (a player replacing their move)
    "save_games": (500, 10),  # copies of the day-7 game in one store, resolved at one deadline
    "save_alone": (15, 3),  # resolves of one copy alone in its store (the linear yardstick)
    "long_days": (14, 3),  # the day the Eternal Friday game of the long snapshot row is played to
    "discord_repeats": (40, 3),
    "peer_games": (300, 3),  # fresh games per table size, in each engine
}
SCALING = (8, 16, 32, 64)


@dataclass
class Bench:
    machine: dict[str, Any]
    quick: bool
    rows: list[dict[str, Any]] = field(default_factory=list)

    def add(self, section: str, id: str, title: str, value: float | int | None, unit: str, *, goal: str | None = None,
            ratio: float | None = None, ok: bool | None = None, note: str = "", not_measured: str | None = None) -> None:
        self.rows.append({
            "section": section, "id": id, "title": title,
            "value": None if value is None else (round(value, 4) if isinstance(value, float) else value),
            "unit": unit, "goal": goal, "ratio": None if ratio is None else round(ratio, 3),
            "verdict": None if ok is None else ("meets the goal" if ok else "misses the goal"),
            "note": note, "not_measured": not_measured,
        })


def machine() -> dict[str, Any]:
    cpu = platform.processor() or ""
    try:
        for line in Path("/proc/cpuinfo").read_text(encoding="utf-8").splitlines():
            if line.lower().startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return {
        "nproc": os.cpu_count(),
        "cpu": cpu or "unknown",
        "python": platform.python_version(),
        "implementation": platform.python_implementation(),
        "system": f"{platform.system()} {platform.release()}",
        "load_average": [round(x, 2) for x in os.getloadavg()] if hasattr(os, "getloadavg") else None,
    }


def size(name: str, quick: bool) -> int:
    full, small = SIZES[name]
    return small if quick else full


def median_ms(samples: list[float]) -> float:
    return statistics.median(samples) * 1000


# ---- tables whose every player acts --------------------------------------------------------
def godfather(max_players: int = 16) -> Ruleset:
    rules = load_ruleset("godfather")
    if max_players <= rules.table.max:
        return rules
    # bench-only copy: a GM may seat more players than the book has roles (roles repeat)
    return rules.model_copy(update={"table": rules.table.model_copy(update={"max": max_players})})


def new_game(rules: Ruleset, n: int, seed: int) -> Game:
    """``n`` players: dealt when the roles suffice, else every role in turn (repeating);
    characters dealt (the deck repeats)."""
    if n <= len(rules.roles):
        roles = [DEAL] * n
    else:
        ids = [r.id for r in rules.roles]
        roles = [ids[i % len(ids)] for i in range(n)]
        random.Random(seed).shuffle(roles)
    char = DEAL if rules.characters else None
    return Game.new(rules, seed, [PlayerSpec(f"P{i + 1}", roles[i], char) for i in range(n)])


def everyone_acts(table: Table) -> int:
    """Every living player submits one legal move in every lane open to them, and votes in
    every open vote; the number of moves submitted."""
    g, rnd = table.g, table.rnd
    n = 0
    for p in g.living():
        for acts in table.lanes(p.pid).values():
            a = rnd.choice(acts)
            n += table.submit(p.pid, a, *table.draw(a))
        for v in g.open_votes():
            choices: list[int | str] = [q.pid for q in g.living()]
            rnd.shuffle(choices)
            table.cast(p.pid, v.id, choices)
    return n


def acting_table(rules: Ruleset, n: int, seed: int) -> Table:
    g = new_game(rules, n, seed)
    return Table(g, ["random"] * n, random.Random(seed))


def timed_resolves(rules: Ruleset, n: int, seed: int, ticks: int | None = None) -> tuple[list[float], list[float]]:
    """Resolve times of a game whose every player acts each tick (to the end, or ``ticks``);
    also the times of one player's ``legal_actions``."""
    table = acting_table(rules, n, seed)
    g = table.g
    out, legal = [], []
    while not g.state.over and (ticks is None or len(out) < ticks):
        p = g.living()[0] if g.living() else None
        if p is not None:
            t0 = time.perf_counter()
            g.legal_actions(p.pid)
            legal.append(time.perf_counter() - t0)
        everyone_acts(table)
        t0 = time.perf_counter()
        g.resolve()
        out.append(time.perf_counter() - t0)
    return out, legal


def fit_exponent(ns: list[int], ts: list[float]) -> float:
    """The least-squares slope of log t against log n: t ~ n^k."""
    xs, ys = [math.log(n) for n in ns], [math.log(t) for t in ts]
    mx, my = statistics.fmean(xs), statistics.fmean(ys)
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True)) / sum((x - mx) ** 2 for x in xs)


# ---- sections ----------------------------------------------------------------------------
def bench_engine(b: Bench, say: Callable[[str], None]) -> None:
    rules = godfather()
    say("engine: one tick of 16 players")
    ticks, legal = [], []
    for seed in range(size("tick_games", b.quick)):
        t, lg = timed_resolves(rules, 16, 1000 + seed)
        ticks += t
        legal += lg
    b.add("engine", "engine.resolve_tick_16", "resolve one tick, Godfather's Legacy, 16 players all acting (median)",
          median_ms(ticks), "ms", note=f"{len(ticks)} ticks of {size('tick_games', b.quick)} whole game(s); p90 "
          f"{statistics.quantiles(ticks, n=10)[-1] * 1000:.2f} ms" if len(ticks) >= 10 else f"{len(ticks)} ticks")
    b.add("engine", "engine.legal_actions_16", "legal_actions of one player (what autocomplete asks), 16 players (median)",
          median_ms(legal), "ms", note=f"{len(legal)} calls")

    say("engine: whole games")
    n = size("throughput_games", b.quick)
    # as ``altmafia simulate`` plays its runs (no private notices: its report never reads them),
    # and, alternating game by game, the same games with the notices worked out (as the bot plays)
    times, walls, told = [], [], []
    for i in range(n):
        t0, w0 = time.process_time(), time.perf_counter()
        play_game(rules, 7, i, 13, "random", notices=False)
        times.append(time.process_time() - t0)
        walls.append(time.perf_counter() - w0)
        t0 = time.process_time()
        play_game(rules, 7, i, 13, "random")
        told.append(time.process_time() - t0)
    rate = n / sum(times)
    b.add("engine", "engine.games_per_second", "whole simulated games per second on one core, as altmafia simulate plays them "
          "(13 players, random play, one process)",
          rate, "games/s", goal=f"≥ 3× 77bbb8a's {SIM_BASELINE} games/s ({3 * SIM_BASELINE:.0f} games/s)", ratio=rate / SIM_BASELINE,
          ok=rate >= 3 * SIM_BASELINE,
          note=f"{n} games (seed 7), CPU time of play_game (the ruleset loaded; start-up and report outside), without the "
          f"players' private notices as altmafia simulate's runs (World.private_notices); median "
          f"{statistics.median(times):.3f} s a game, automatic players' choices included; wall clock {n / sum(walls):.2f} games/s; "
          f"the same games with the notices worked out (as the bot plays): {n / sum(told):.1f} games/s, "
          f"{n / sum(told) / SIM_BASELINE:.2f}× 77bbb8a; "
          f"ratio: ÷ 77bbb8a timed the same way ({SIM_BASELINE} games/s; that build had no private notices yet; "
          f"{SIM_ISSUE_WALL} games/s was its wall clock under load: ÷ that, {rate / SIM_ISSUE_WALL:.2f})")

    say("engine: growth with the table size")
    big = godfather(max(SCALING))
    # the four tables advance together, one tick of each in turn, so that this machine's
    # drifting load falls on every size alike
    samples: dict[int, list[float]] = {k: [] for k in SCALING}
    n_games = size("scaling_games", b.quick)
    for s in range(n_games):  # a few games of each size: one game's own course weighs less
        tables = {k: acting_table(big, k, 2000 + 100 * s + k) for k in SCALING}
        for _ in range(size("scaling_ticks", b.quick)):
            for k, table in tables.items():
                if table.g.state.over:
                    continue
                everyone_acts(table)
                t0 = time.perf_counter()
                table.g.resolve()
                samples[k].append(time.perf_counter() - t0)
    medians = []
    for k in SCALING:
        medians.append(statistics.median(samples[k]))
        b.add("engine", f"engine.scaling_{k}", f"resolve one tick, {k} players all acting (median, table-size series)", medians[-1] * 1000,
              "ms", note=f"{len(samples[k])} ticks of {n_games} game(s)" + ("; roles repeat beyond 16" if k > 16 else ""))
    k = fit_exponent(list(SCALING), medians)
    b.add("engine", "engine.scaling_exponent", "fitted exponent of resolve time against players (8, 16, 32, 64)", k, "",
          goal="close to linear: ≤ 1.2", ratio=k, ok=k <= 1.2,
          note="time ~ players^k; " + ", ".join(f"{n}: {t * 1000:.2f} ms" for n, t in zip(SCALING, medians, strict=True)))


def bench_peer(b: Bench, say: Callable[[str], None]) -> None:
    """The same vanilla night in ours and in calder/mafia (altmafia/tools/peer.py), side by side."""
    have = peer.peer_available()
    n_games = size("peer_games", b.quick)
    for n in SCALING:
        say(f"peer: the classic night at {n} players")
        mine, theirs = [], []
        for seed in range(n_games):  # alternate, so that the machine's drifting load falls on both
            night = peer.plan(n, seed)
            mine.append(peer.ours(night, seed))
            if have:
                theirs.append(peer.theirs(night, seed))
        m = statistics.median(mine)
        b.add("peer", f"peer.ours_{n}", f"our classic night, {n} players, every player acting (median of {n_games} fresh games)",
              m * 1000, "ms", note="resolution only; ruleset classic with action_order: dependencies (the peer's rule)")
        if not have:
            b.add("peer", f"peer.ratio_{n}", f"ours ÷ calder/mafia, {n} players (information, no goal)", None, "",
                  not_measured="not measured: the peer is not installed (pip install -e '.[bench]')")
            continue
        t = statistics.median(theirs)
        b.add("peer", f"peer.theirs_{n}", f"calder/mafia's night, {n} players (median of {n_games} fresh games)", t * 1000, "ms",
              note="Game.resolve(night) only")
        b.add("peer", f"peer.ratio_{n}", f"ours ÷ calder/mafia, {n} players (information, no goal)", m / t, "×",
              note=INFORMATION)


def bench_scale(b: Bench, say: Callable[[str], None]) -> None:
    rules = godfather()
    n_games, n_templates = size("scale_games", b.quick), size("scale_templates", b.quick)
    say(f"scale: {n_games} games of 16 players")
    # a few different games at day 1 with every player's action in; the 500 are copies of them
    texts = []
    for s in range(n_templates):
        table = acting_table(rules, 16, 3000 + s)
        everyone_acts(table)
        texts.append(json.dumps(table.g.to_dict()))
    which = [i % n_templates for i in range(n_games)]

    def clones() -> list[Game]:
        return [Game.from_dict(rules, json.loads(texts[w])) for w in which]

    gc.collect()
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    games = clones()
    after = tracemalloc.get_traced_memory()[0]
    tracemalloc.stop()
    del games
    gc.collect()
    per_game = (after - before) / n_games
    snap = statistics.fmean(len(t.encode()) for t in texts)
    b.add("scale", "scale.memory_per_game", f"memory per game, {n_games} games of 16 players in one process (tracemalloc)",
          per_game / 1024, "KiB", note=f"engine state at day 1 with every action in; its JSON snapshot: {snap / 1024:.1f} KiB")

    # all of them at one shared deadline, one after the other in this process
    totals = []
    for _ in range(size("scale_runs", b.quick)):
        games = clones()
        gc.collect()
        t0 = time.perf_counter()
        for g in games:
            g.resolve()
        totals.append(time.perf_counter() - t0)
        del games
        gc.collect()
    # against 500 × one game, paired: each game's resolve among all the others (in seat order of
    # the deadline), next to the resolve of the same game alone (a fresh copy, nothing else
    # alive), so that this machine's drifting load falls on both sides alike
    ratios, ones, alones = [], [], []
    for _ in range(size("scale_runs", b.quick)):
        games = clones()
        gc.collect()
        among = alone = 0.0
        for w, g in zip(which, games, strict=True):
            solo = Game.from_dict(rules, json.loads(texts[w]))
            gc.collect(1)  # the copy joins the old generation, as the 500 loaded games already have
            t0 = time.perf_counter()
            g.resolve()
            among += time.perf_counter() - t0
            t0 = time.perf_counter()
            solo.resolve()
            dt = time.perf_counter() - t0
            alone += dt
            ones.append(dt)
            del solo
        del games
        gc.collect()
        ratios.append(among / alone)
        alones.append(alone)
    ratio = statistics.median(ratios)
    b.add("scale", "scale.resolve_all", f"resolve all {n_games} games at one shared deadline (median of {len(totals)} passes)",
          statistics.median(totals), "s", goal=f"no worse than linear: ≤ {n_games} × one game", ratio=ratio, ok=ratio <= 1.10,
          note=f"ratio: Σ resolve of each game among the {n_games} / Σ resolve of the same game alone, paired game by game; "
          f"median of {len(ratios)} rounds ({', '.join(f'{r:.2f}' for r in ratios)}); {n_games} × one game alone = "
          f"{statistics.median(alones):.3f} s; {n_templates} different games cloned; "
          "≤ 1.10 counts as met (noise)")
    b.add("scale", "scale.resolve_one", "resolve one of those games alone (median)", statistics.median(ones) * 1000, "ms")


def bench_storage(b: Bench, say: Callable[[str], None], make_bot: BotFactory | None = None, round_trip: float = ROUND_TRIP) -> None:
    say("storage: transactions on a real SQLite file")
    asyncio.run(_storage(b, size("storage_ticks", b.quick)))
    say("storage: the cost of a save on day 1 and day 7")
    asyncio.run(_save(b))
    say("storage: the snapshot of a long Eternal Friday game")
    asyncio.run(_snapshot_long(b, size("long_days", b.quick)))
    say("storage: the memory a finished game still holds in the store")
    asyncio.run(_finished(b, size("finished_days", b.quick), size("finished_games", b.quick)))
    reason = discord_status(make_bot)
    # a start with 6000 games, the bot's restart on them; memory by RSS
    bench_restart.bench_restart(b, say, _play_tick, _clone, make_bot, reason, QUICK_ROUND_TRIP if b.quick else round_trip)
    say("storage: the transactions of a resolve and its delivery through the bot")
    title = "transactions per resolve including its delivery (the real bot under SimCord, 13 players; information, no goal)"
    if reason is None:
        try:
            assert make_bot is not None
            asyncio.run(_delivered(b, title, size("delivered_resolves", b.quick), make_bot))
            return
        except Exception as exc:  # noqa: BLE001 - a bot that fails here is reported, not fatal
            reason = f"not measured: the bot failed under SimCord ({type(exc).__name__}: {str(exc)[:200]})"
    b.add("storage", "storage.tx_per_resolve_delivered", title, None, "tx", not_measured=reason)


async def _finish_one(store: Store, gid: str, days: int, rnd: random.Random, n: int) -> None:
    """A 13-player game (18 channel ids of its own in its meta, as the bot's) played to its end
    with every player acting, every message delivered, its end shown (``meta.revealed``). The
    same seed every time (the same deal; the moves are drawn anew): the ruleset's derived cache,
    keyed by role and character, fills with the first game and is the ruleset's, not a game's."""
    keys = ["category", "public", "votes", "gm", "spectators"] + [f"player:{p}" for p in range(13)]
    channels = {k: 10**17 + 100 * n + i for i, k in enumerate(keys)}
    await store.games.create_game("godfather", 11, [PlayerSpec(f"P{i + 1}", DEAL, DEAL) for i in range(13)], game_id=gid,
                            settings={"days": days}, meta={"channels": channels, "lang": "ru"})
    while not store.games.game(gid).state.over:
        await _play_tick(store, gid, rnd)
        await store.turns.resolve(gid)
    for d in await store.outbox.pending_deliveries(gid):
        await store.outbox.claim(d.key)
        await store.outbox.mark_delivered(d.key)
    await store.meta.update_meta(gid, lambda meta: meta.update(revealed=True))


async def _finished(b: Bench, days: int, games: int) -> None:
    """``games`` games finished and released one after another in one store, under tracemalloc:
    what each still holds is the growth from the first released to the last, divided by the
    games between (a cache that fills once — SQLite's statements, the ruleset's — is not a
    game's; anything kept per game is)."""
    rnd = random.Random(23)
    traced: list[int] = []
    held = 0
    with tempfile.TemporaryDirectory(prefix="altmafia-bench-") as d:
        async with Store(Path(d) / "finished.sqlite3") as store:
            gc.collect()
            tracemalloc.start()
            try:
                for n in range(games):
                    gid = f"fin{n}"
                    await _finish_one(store, gid, days, rnd, n)
                    gc.collect()
                    if n == 0:
                        before = tracemalloc.get_traced_memory()[0]
                    released = await store.games.release_finished()
                    gc.collect()
                    traced.append(tracemalloc.get_traced_memory()[0])
                    if n == 0:
                        held = before - traced[0]
                    if released != [gid] or store.games.has(gid) or await store.games.load(gid) is None or await store.games.find(gid) is None:
                        raise RuntimeError(f"game {gid} was not released or cannot be read ({released}): a store bug")
            finally:
                tracemalloc.stop()
    per = max(traced[-1] - traced[0], 0) / (games - 1)
    b.add("storage", "storage.memory_finished", "memory a finished game still holds in the store (tracemalloc)",
          per / 1024, "KiB", goal="≈ 0 KiB (≤ 4 KiB)", ratio=per / 4096, ok=per <= 4096,
          note=f"{games} {days}-day 13-player games, each played to its end, delivered, revealed and released "
          f"(Store.games.release_finished) in one store; (traced after the last − after the first) ÷ {games - 1}; a game "
          f"releases {held / 1024:.1f} KiB; the ids of its 18 channels stay in the store's channel map (as for every "
          "game after a start) and count here; it stays readable from the database (find, load, snapshot)")


async def _delivered(b: Bench, title: str, resolves: int, make_bot: BotFactory) -> None:
    """Every transaction ``bot.scheduler.resolve`` commits for a deadline's resolve of a
    13-player game whose every player acted: the resolve, its delivery to every channel, the
    new phase's panels and announcement (``Store.transactions``, by label)."""
    # imported here: SimCord is a test extra, needed only when this row is measured
    import simcord

    with tempfile.TemporaryDirectory(prefix="altmafia-bench-") as d:
        bot = make_bot(Path(d) / "bench.sqlite3")
        env = simcord.Env(cast("Client", bot), settle_timeout=60.0)  # the bot is a client too
        await env.start()
        try:
            guild, lobby, gm, members = await _lobby_of_13(env)
            for m in members:
                await m.slash(lobby, "lobby join")
            await gm.slash(lobby, "lobby start")
            await env.settle()
            store = bot.store
            gid = store.games.games()[0].game_id
            rnd = random.Random(17)
            per: list[int] = []
            spent: Counter[str] = Counter()
            messages = 0
            detail = []
            for _ in range(resolves):
                if store.games.game(gid).state.over:
                    break
                await _play_tick(store, gid, rnd)
                await bot.deliverer.flush(gid)
                await env.settle()
                label = store.games.game(gid).info.label
                before, n0 = store.transactions.copy(), len(env.http_requests)
                await bot.scheduler.resolve(gid)
                await env.settle()
                here = store.transactions - before
                posts = sum(1 for c in env.http_requests[n0:] if c.method == "POST" and c.path.endswith("/messages"))
                # overwrites the channel sync put (a death, a phase): its record rides in the marks
                edits = sum(1 for c in env.http_requests[n0:] if c.method == "PUT" and "/permissions/" in c.path)
                per.append(here["total"])
                spent.update(here)
                messages += posts
                detail.append(f"{label}: {here['total']} tx, {posts} messages" + (f", {edits} overwrite{'s' if edits != 1 else ''} put" if edits else ""))
        finally:
            await stop(env)
    if not per:
        raise RuntimeError("the bench's game ended before its first resolve: a bench bug")
    worst = max(per)
    labels = ", ".join(f"{k} {v}" for k, v in sorted(spent.items()) if k != "total")
    b.add("storage", "storage.tx_per_resolve_delivered", title, float(statistics.mean(per)), "tx",
          note=f"{INFORMATION}; {len(per)} resolves, the most {worst} ({'; '.join(detail)}; {messages} messages in all); "
          f"by label: {labels}")


SAVE_DAYS = (1, 7)


class _Saves:
    """Accepted commands of one game, timed one at a time (wall clock, commit included): at the
    start of a tick, random legal moves of the living players (a move in a lane already filled
    replaces it)."""

    def __init__(self, store: Store, gid: str, rnd: random.Random) -> None:
        self.store, self.gid, self.rnd = store, gid, rnd
        g = store.games.game(gid)
        self.table = Table(g, ["random"] * len(g.state.players), rnd)
        self.moves = [(p.pid, a) for p in g.living() for acts in self.table.lanes(p.pid).values() for a in acts]
        self.times: list[float] = []
        if not self.moves:
            raise RuntimeError("the bench found no move to time: a bench bug")

    async def one(self) -> None:
        """Time one accepted command (up to 50 tries of random moves)."""
        for _ in range(50):
            pid, a = self.rnd.choice(self.moves)
            targets, opt = self.table.draw(a)
            args = _move(pid, a, targets, opt)
            t0 = time.perf_counter()
            try:
                await self.store.games.apply(self.gid, Command("submit", args, user_id=pid))
            except ActionError:
                continue
            self.times.append(time.perf_counter() - t0)
            return
        raise RuntimeError("the bench found no move the engine accepts: a bench bug")


async def _clone(store: Store, src: str, n: int) -> list[str]:
    """``n`` copies of game ``src`` in the database (its row, events and history), one transaction."""

    cols = [c.strip() for c in GAME_COLUMNS.split(",")] + ["state", "log_apart"]
    rest = ", ".join(cols[1:])
    ids = [f"{src}-{i:04d}" for i in range(n)]
    async with store.db.tx("bench.clone") as db:
        for gid in ids:
            await db.execute(db.sql(f"INSERT INTO games ({', '.join(cols)}) SELECT ?, {rest} FROM games WHERE game_id = ?"), (gid, src))
            await db.execute(db.sql("INSERT INTO events (game_id, idx, seq, tick, msg_key, audience, ids, args) "
                                    "SELECT ?, idx, seq, tick, msg_key, audience, ids, args FROM events WHERE game_id = ?"), (gid, src))
            await db.execute(db.sql("INSERT INTO history (game_id, idx, seq, tick, record) "
                                    "SELECT ?, idx, seq, tick, record FROM history WHERE game_id = ?"), (gid, src))
    return ids


LONG_SEATS = 20


async def _snapshot_long(b: Bench, days: int) -> None:
    """A 20-seat Eternal Friday game (the book's longest) played with every player acting; its
    stored snapshot once the first day's moves are in, and once day ``days``'s are (a seed whose
    game ends sooner is skipped for the next)."""
    with tempfile.TemporaryDirectory(prefix="altmafia-bench-") as d:
        async with Store(Path(d) / "long.sqlite3", synchronous="OFF") as store:
            for seed in range(11, 61):
                gid = f"ef-{seed}"
                await store.games.create_game("eternal_friday", seed, [PlayerSpec(f"P{i + 1}", DEAL, DEAL) for i in range(LONG_SEATS)],
                                        game_id=gid)
                clock, rnd, first = store.games.game(gid).clock, random.Random(seed), 0
                day1, last_day = clock.parse("day 1"), clock.parse(f"day {days}")
                while not store.games.game(gid).state.over:
                    await _play_tick(store, gid, rnd)
                    tick = store.games.game(gid).state.tick
                    if tick == day1:
                        first = len(store.games.live(gid).text.encode("utf-8"))
                    if tick == last_day:
                        break
                    await store.turns.resolve(gid)
                if not store.games.game(gid).state.over:
                    break
            else:
                raise RuntimeError(f"no Eternal Friday game of {LONG_SEATS} seats reached day {days}: a bench bug")
            last = len(store.games.live(gid).text.encode("utf-8"))
    ratio = last / first
    b.add("storage", "storage.snapshot_long", f"the stored snapshot of a {LONG_SEATS}-seat Eternal Friday game on day {days}, "
          "against day 1", last / 1024, "KiB", goal="≤ 1.5× day 1", ratio=ratio, ok=ratio <= 1.5,
          note=f"seed {seed}, every living player acting each phase; day 1 {first / 1024:.1f} KiB, both taken once that "
          "day's moves are in")


async def _save(b: Bench) -> None:
    """One 13-player Godfather game through a store on a SQLite file (``synchronous=FULL``),
    played to day 7 with every player acting; at day 1 and day 7: the snapshot, the save; at
    day 7: the game in memory, and 500 copies resolved at one deadline."""
    n_samples, n_games, n_alone = size("save_samples", b.quick), size("save_games", b.quick), size("save_alone", b.quick)
    rnd = random.Random(7)
    snap: dict[int, int] = {}
    saves: dict[int, list[float]] = {}
    with tempfile.TemporaryDirectory(prefix="altmafia-bench-") as d:
        path = Path(d) / "save.sqlite3"
        async with Store(path) as store:
            # the same game twice (seed, table): "d1" stays on day 1, "day" is played on to day 7;
            # their saves alternate in one store, so that both meet the same database file, its
            # write-ahead log at the same point of its cycle (a log still growing costs a commit
            # more than one reusing its space) and the machine's drifting load alike
            specs = [PlayerSpec(f"P{i + 1}", DEAL, DEAL) for i in range(13)]
            await store.games.create_game("godfather", 11, specs, game_id="d1")
            await store.games.create_game("godfather", 11, specs, game_id="day")
            per_day = store.games.game("day").clock.per_cycle
            while store.games.game("day").state.tick < (SAVE_DAYS[-1] - 1) * per_day:
                await _play_tick(store, "day", rnd)
                if await store.turns.resolve("day") is None or store.games.game("day").state.over:
                    raise RuntimeError(f"the bench's game ended before day {SAVE_DAYS[-1]}: a bench bug")
            timers = {1: _Saves(store, "d1", random.Random(1)), SAVE_DAYS[-1]: _Saves(store, "day", random.Random(SAVE_DAYS[-1]))}
            for _ in range(n_samples):
                for t in timers.values():
                    await t.one()
            saves = {day: t.times for day, t in timers.items()}
            snap = {1: len(store.games.live("d1").text.encode("utf-8")), SAVE_DAYS[-1]: len(store.games.live("day").text.encode("utf-8"))}
            day7 = store.games.game("day")
            events = len(await store.games.events("day"))
            log_mem = (len(day7.state.events), len(day7.state.history))
        solo = Path(d) / "solo.sqlite3"
        shutil.copyfile(path, solo)  # the game alone (the store is closed: the file is whole)
        async with Store(path) as store:
            ids = await _clone(store, "day", n_games)
        one, seven = (statistics.median(saves[d]) for d in SAVE_DAYS)
        ratio = seven / one
        b.add("storage", "storage.save_day1_ms", "a save on day 1: Store.games.apply of an accepted action, commit included (median)",
              one * 1000, "ms", note=f"{len(saves[1])} commands; synchronous=FULL")
        b.add("storage", "storage.save_day7_ms", "a save on day 7, against day 1", seven * 1000, "ms", goal="≤ 1.2× day 1",
              ratio=ratio, ok=ratio <= 1.2, note=f"{len(saves[7])} commands; the same game, seed and table as day 1; the two days' saves alternate in one store")
        b.add("storage", "storage.snapshot_day1", "the stored snapshot (games.state) on day 1", snap[1] / 1024, "KiB")
        ratio = snap[7] / snap[1]
        b.add("storage", "storage.snapshot_day7", "the stored snapshot on day 7, against day 1", snap[7] / 1024, "KiB",
              goal="≤ 1.5× day 1", ratio=ratio, ok=ratio <= 1.5,
              note=f"the event log ({events} events by day 7) and the action history live in their own tables")

        # the copies, loaded by one store: memory, then all resolved at one deadline
        gc.collect()
        tracemalloc.start()
        store = Store(path)
        before = tracemalloc.get_traced_memory()[0]
        await store.open()
        after = tracemalloc.get_traced_memory()[0]
        tracemalloc.stop()
        per_game = (after - before) / (n_games + 2)  # the day-7 game, its copies and the day-1 one
        b.add("storage", "storage.memory_day7", f"memory per running game on day 7 in the store ({n_games + 2} loaded, tracemalloc)",
              per_game / 1024, "KiB", goal="≤ 100 KiB", ratio=per_game / 1024 / 100, ok=per_game <= 100 * 1024,
              note=f"Store.open of the games: the engine state, its row and its stored snapshot text; the log stays in its "
              f"tables ({log_mem[0]} events, {log_mem[1]} history records in memory); Python objects only (SQLite's cache is not traced)")
        try:
            t0 = time.perf_counter()
            for gid in ids:
                await store.turns.resolve(gid)
            among = (time.perf_counter() - t0) / n_games
        finally:
            await store.close()
        # the yardstick: the same game alone in its store (a fresh copy of the file each time, with
        # the day-1 game beside it, resolved first untimed: the write-ahead log made and grown, as
        # in a store that has been running; the first commit of a new log costs several times more)
        alone = []
        for i in range(n_alone):
            one_file = Path(d) / f"solo-{i}.sqlite3"
            shutil.copyfile(solo, one_file)
            async with Store(one_file) as s1:
                await s1.turns.resolve("d1")
                t0 = time.perf_counter()
                await s1.turns.resolve("day")
                alone.append(time.perf_counter() - t0)
        ratio = among / statistics.median(alone)
        b.add("storage", "storage.resolve_500_day7", f"{n_games} games resolved at one deadline through the store on day 7",
              among * n_games, "s", goal=f"≤ 1.1× linear ({n_games} × one game alone)", ratio=ratio, ok=ratio <= 1.1,
              note=f"one resolve among the {n_games}: {among * 1000:.2f} ms (mean); one alone: "
              f"{statistics.median(alone) * 1000:.2f} ms (median of {len(alone)}); both commits included, synchronous=FULL")


async def _storage(b: Bench, ticks: int) -> None:
    with tempfile.TemporaryDirectory(prefix="altmafia-bench-") as d:
        store = Store(Path(d) / "bench.sqlite3")
        await store.open()
        try:
            rnd = random.Random(5)
            await store.games.create_game("godfather", 11, [PlayerSpec(f"P{i + 1}", DEAL, DEAL) for i in range(13)], game_id="bench")
            applied = refused = resolves = 0
            tx_apply: Counter[str] = Counter()
            tx_resolve: Counter[str] = Counter()
            t_apply, t_resolve = [], []
            for _ in range(ticks):
                g = store.games.game("bench")
                if g.state.over:
                    break
                table = Table(g, ["random"] * len(g.state.players), rnd)
                for p in g.living():
                    for acts in table.lanes(p.pid).values():
                        a = rnd.choice(acts)
                        targets, opt = table.draw(a)
                        args = {"pid": p.pid, "ability": a.key, "targets": targets}
                        if opt is not None:
                            args["option"] = opt
                        if a.via is not None:
                            args["via"] = a.via
                        before = store.transactions.copy()
                        t0 = time.perf_counter()
                        try:
                            await store.games.apply("bench", Command("submit", args, user_id=p.pid))
                        except ActionError:
                            continue
                        t_apply.append(time.perf_counter() - t0)
                        tx_apply.update(store.transactions - before)
                        applied += 1
                        break  # one accepted command a player a tick is enough
                # a refused command: the engine says no, nothing is written
                before = store.transactions.copy()
                try:
                    await store.games.apply("bench", Command("submit", {"pid": 0, "ability": "no such ability", "targets": []}))
                except ActionError:
                    refused += 1
                refused_tx = sum((store.transactions - before).values())
                before = store.transactions.copy()
                t0 = time.perf_counter()
                await store.turns.resolve("bench")
                t_resolve.append(time.perf_counter() - t0)
                tx_resolve.update(store.transactions - before)
                resolves += 1
        finally:
            await store.close()
    per_apply = tx_apply["total"] / applied
    per_resolve = tx_resolve["total"] / resolves
    labels = lambda c: ", ".join(f"{k} {v}" for k, v in sorted(c.items()) if k != "total")  # noqa: E731
    b.add("storage", "storage.tx_per_command", "transactions per accepted command (Store.games.apply, SQLite file)", per_apply, "tx",
          goal="1", ratio=per_apply, ok=per_apply <= 1, note=f"{applied} commands: {labels(tx_apply)}")
    b.add("storage", "storage.tx_per_refused", "transactions per refused command", refused_tx, "tx", goal="0",
          ok=refused_tx == 0, note=f"{refused} refused")
    b.add("storage", "storage.tx_per_resolve", "transactions per resolve (Store.turns.resolve; information, no goal)", per_resolve, "tx",
          note=f"{INFORMATION}; {resolves} resolves: {labels(tx_resolve)}; the store first commits a mark (resolving_tick, for crash "
          "recovery), then the resolve itself: 2 per resolve today (docs/storage.md)")
    b.add("storage", "storage.apply_ms", "Store.games.apply of an accepted action, commit included (median)", median_ms(t_apply), "ms",
          note="synchronous=FULL: every commit waits for the disk")
    b.add("storage", "storage.resolve_ms", "Store.turns.resolve of a 13-player tick, both commits included (median)", median_ms(t_resolve), "ms")


FLOOR_RULE = ("one call per channel with something new: each seat with news or a new panel (the panel rides on "
              "the news), the public report (with the phase's announcement), the vote post, the GM trace, each "
              "faction with news; an event with buttons (a queued anonymous post) would be one more, as a message "
              "carries one view")


def resolve_floor_of(events: list[Any], panels: set[int], *, votes: bool = True, announcement: bool = False) -> tuple[int, str]:
    """The floor of one resolve (:data:`FLOOR_RULE`) from the engine's events and the seats that
    get a new panel (the living seats of the phase begun; none once the game is over):
    (calls, how it is made up). ``votes``: the game has a vote channel; ``announcement``: the
    phase begun is announced in the public channel (the living players' role)."""
    # the vote channel takes the public ballots and abilities used in the open (delivery.route)
    in_votes = [e for e in events if e.audience == "public" and e.key.startswith(("vote.", "open."))]
    dests = {d for e in events if not (votes and e in in_votes) for d in destinations(e)}
    ballots = 1 if votes and in_votes else 0
    kinds = Counter(k for k, _ in dests)
    news = {int(i) for k, i in dests if k == "player" and i is not None}
    public = 1 if kinds["public"] or announcement else 0
    seats = news | panels
    parts = [f"{len(seats)} seats ({len(news)} with news, {len(panels - news)} with a panel alone)", f"{public} public report",
             f"{ballots} vote post", f"{kinds['gm']} GM trace"] + (
        [f"{kinds['faction']} faction channel(s)"] if kinds["faction"] else [])
    return len(seats) + public + ballots + kinds["gm"] + kinds["faction"], " + ".join(parts)


def resolve_floor(seed: int = 13) -> tuple[int, str]:
    """The fewest Discord calls that can deliver a resolve of a 13-player Godfather game whose
    every player acts (:data:`FLOOR_RULE`; no living players' role, so no announcement). The
    median over every resolve of one whole game, and its busiest resolve."""
    table = acting_table(godfather(), 13, seed)
    g = table.g
    floors: list[tuple[int, str, str]] = []
    while not g.state.over:
        everyone_acts(table)
        label = g.info.label
        events = g.resolve()
        seats = set() if g.state.over else {p.pid for p in g.living()}
        n, how = resolve_floor_of(events, seats)
        floors.append((n, label, how))
    med = int(statistics.median_low([f for f, _, _ in floors]))
    busiest = max(floors)
    return med, (f"median of the {len(floors)} resolves of one game; the busiest ({busiest[1]}): {busiest[0]} = {busiest[2]}")


def discord_status(make_bot: BotFactory | None) -> str | None:
    """None when the Discord bot can be measured; else why not (no bot given, no SimCord)."""
    if make_bot is None:
        return NO_BOT
    if importlib.util.find_spec("simcord") is None:
        return "not measured: SimCord is not installed (python3 -m pip install -e '.[test]')"
    return None


def bench_discord(b: Bench, say: Callable[[str], None], make_bot: BotFactory | None = None) -> None:
    say("discord: command path and REST economy through SimCord")
    reason = discord_status(make_bot)
    measured = False
    if reason is None:
        try:
            assert make_bot is not None
            asyncio.run(_discord(b, size("discord_repeats", b.quick), make_bot))
            measured = True
        except Exception as exc:  # noqa: BLE001 - a bot that fails here is reported, not fatal
            reason = f"not measured: the bot failed under SimCord ({type(exc).__name__}: {str(exc)[:200]})"
            b.rows = [r for r in b.rows if r["section"] != "discord"]
    bench_restart.bench_pm(b, say, make_bot, reason)
    if measured:
        return
    floor, how = resolve_floor()
    for key, day in (("discord.command_path", 1), ("discord.command_path_day7", COMMAND_DAYS[1])):
        b.add("discord", key, f"an action through SimCord on day {day} (validation, SQLite commit, ephemeral reply) against a "
              "no-op slash command (CPU; information, no goal)", None, "×", not_measured=reason)
    for key, day in (("discord.command_floor", 1), ("discord.command_floor_day7", COMMAND_DAYS[1])):
        b.add("discord", key, f"the durable floor on day {day}: a command that commits one short row and replies, against the same no-op",
              None, "×", not_measured=reason)
    b.add("discord", "discord.rest_create_13", "REST calls to create a 13-player game's channels, against the floor (one call per channel)",
          None, "calls", goal="the floor", not_measured=reason)
    b.add("discord", "discord.rest_resolve", "REST calls to deliver one resolve (13 players all acting), against the floor",
          None, "calls", goal=f"the floor: {floor} calls", not_measured=reason,
          note=f"the floor ({FLOOR_RULE}), from the engine's events and the phase's panels: {how}")


async def _discord(b: Bench, repeats: int, make_bot: BotFactory) -> None:
    """The real bot (``make_bot``: ``create_bot``) in SimCord's simulated Discord, on a SQLite
    file in a temporary folder, with the production settings (``synchronous=FULL``)."""
    # imported here: SimCord is a test extra, and `altmafia bench --only engine` needs no Discord
    import discord
    import simcord
    from discord import app_commands

    with tempfile.TemporaryDirectory(prefix="altmafia-bench-") as d:
        bot = make_bot(Path(d) / "bench.sqlite3")

        add_noop(bot)
        # an extra yardstick (not the goal's): a subcommand with the action's options that replies
        # with the action's last reply, and does nothing else: what discord.py and SimCord cost
        # for such a command; the difference to /action submit is the bot's own work
        echo = app_commands.Group(name="bench-echo", description="altmafia bench's like-for-like yardstick")
        said = {"text": "ok"}

        @echo.command(name="submit", description="replies with the action's last reply")
        async def echo_submit(interaction: discord.Interaction, ability: str, target: str | None = None, target2: str | None = None,
                              target3: str | None = None, option: str | None = None, for_: str | None = None) -> None:
            await interaction.response.send_message(said["text"], ephemeral=True)

        @echo.command(name="durable", description="the same, and one row committed as the store commits")
        async def echo_durable(interaction: discord.Interaction, ability: str, target: str | None = None, target2: str | None = None,
                               target3: str | None = None, option: str | None = None, for_: str | None = None) -> None:
            # the floor of any command that keeps what it was told: one short row committed the
            # way the store commits a command (one batch: one trip to aiosqlite's thread, BEGIN
            # IMMEDIATE, INSERT, COMMIT with synchronous=FULL), then the same reply
            await bot.store.backend.batch([Step(FLOOR_INSERT, (str(interaction.id),))])
            await interaction.response.send_message(said["text"], ephemeral=True)

        bot.tree.add_command(echo)
        env = simcord.Env(cast("Client", bot), settle_timeout=60.0)  # the bot is a client too
        await env.start()
        try:
            guild, lobby, gm, members = await _lobby_of_13(env)
            store = bot.store
            await store.backend.batch([Step(FLOOR_TABLE, ())])  # the floor's own table, in the bench's database only
            for lid in await store.lobbies.lobbies(guild.id):  # the same deal every run (the production seed is random)
                await store.lobbies.update_lobby(lid, lambda data: data.update(seed=BENCH_SEED))
            for m in members:
                await m.slash(lobby, "lobby join")
            n0 = len(env.http_requests)
            await gm.slash(lobby, "lobby start")
            await env.settle()
            calls = env.http_requests[n0:]
            gid = store.games.games()[0].game_id
            channels = store.games.info(gid).meta["channels"]
            made = [c for c in calls if c.path.startswith(f"/guilds/{guild.id}/channels") or "/permissions/" in c.path
                    or (c.method == "PATCH" and c.path.startswith("/channels/"))]
            posts = [c for c in calls if c.method == "POST" and c.path.endswith("/messages")]
            b.add("discord", "discord.rest_create_13", "REST calls to create a 13-player game's channels, against the floor (one call per channel)",
                  len(made), "calls", goal=f"the floor: {len(channels)} calls (one per channel)", ratio=len(made) / len(channels),
                  ok=len(made) <= len(channels),
                  note=f"/lobby start made {len(calls)} REST calls in all: {len(made)} to create channels (overwrites included), "
                  f"{len(posts)} messages (role cards, introductions), {len(calls) - len(made) - len(posts)} other (the reply)")

            # the command path on day 1: one player's action, replaced again and again, against the no-op
            by_id = {c.id: c for c in guild.channels.values()}
            path = await _command_path(env, store, gid, members, channels, by_id, repeats, said)
            _command_path_row(b, "discord.command_path", 1, repeats, path)

            # the REST economy of resolves: every player acts, the scheduler resolves and delivers
            rnd = random.Random(17)
            total = floor_total = 0
            detail = []
            for _ in range(3):  # day 1.1, day 1.2 (the turn's end, the prison vote), night 1
                label, calls, done = await _bot_tick(bot, env, store, gid, rnd)
                events = [e for res in done for e in res.events]
                game, info = store.games.game(gid), store.games.info(gid)
                seats = {p.pid for p in game.state.players if p.user_id and game.alive(p)} if info.status == "running" else set()
                fl, how = resolve_floor_of(events, seats, votes="votes" in channels,
                                           announcement=info.status == "running" and info.meta.get("living_role") is not None)
                total += len(calls)
                floor_total += fl
                detail.append(f"{label}: {len(calls)} vs {fl} = {how}")
            ratio = total / floor_total
            b.add("discord", "discord.rest_resolve", "REST calls to deliver one resolve (13 players all acting), against the floor",
                  total / 3, "calls", goal="the floor: one call per channel with something new", ratio=ratio, ok=ratio <= 1.0,
                  note="mean of 3 resolves (" + "; ".join(detail) + "); floor: " + FLOOR_RULE)

            # the same game on day 7 (every player acting each tick, resolved and delivered by the
            # scheduler as a deadline does), then the same command path again
            day7 = (COMMAND_DAYS[1] - 1) * store.games.game(gid).clock.per_cycle
            while store.games.game(gid).state.tick < day7:
                await _bot_tick(bot, env, store, gid, rnd)
                if store.games.info(gid).status != "running":
                    raise RuntimeError(f"the bench's game ended before day {COMMAND_DAYS[1]}: a bench bug (seed {BENCH_SEED})")
            path = await _command_path(env, store, gid, members, channels, by_id, repeats, said)
            _command_path_row(b, "discord.command_path_day7", COMMAND_DAYS[1], repeats, path)
        finally:
            await stop(env)


FLOOR_TABLE = "CREATE TABLE bench_floor (request_id TEXT NOT NULL)"  # the durable floor's rows (/bench-echo durable)
FLOOR_INSERT = "INSERT INTO bench_floor (request_id) VALUES (?)"
COMMAND_DAYS = (1, 7)  # the days the command path is timed at (day 7: the book's last day)
BENCH_SEED = 11  # the Discord game's seed (production draws one at random): the same game every run


async def _lobby_of_13(env: Any) -> tuple[Any, Any, Any, list[Any]]:
    """A guild with a lobby channel, a GM and 13 members under SimCord; the GM creates the lobby."""
    guild = env.create_guild("bench")
    lobby = guild.create_text_channel("lobby")
    gm = guild.add_member(env.create_user("gm"))
    members = [guild.add_member(env.create_user(f"p{i}", global_name=f"Игрок{i + 1}")) for i in range(13)]
    await gm.slash(lobby, "lobby create")
    return guild, lobby, gm, members


async def _bot_tick(bot: BenchBot, env: Any, store: Store, gid: str, rnd: random.Random) -> tuple[str, list[Any], list[Any]]:
    """Every living player submits one random legal move through the store; the outbox is
    delivered; then the scheduler resolves the tick and delivers it (what a deadline does).
    The tick's label, the REST calls of the resolve and its delivery, the resolves done."""
    game = store.games.game(gid)
    table = Table(game, ["random"] * len(game.state.players), rnd)
    for p in game.living():
        for acts in table.lanes(p.pid).values():
            a = rnd.choice(acts)
            targets, opt = table.draw(a)
            cmd = _move(p.pid, a, targets, opt)
            with contextlib.suppress(ActionError):
                await store.games.apply(gid, Command("submit", cmd))
            break
    await bot.deliverer.flush(gid)
    await env.settle()
    label = store.games.game(gid).info.label
    n0 = len(env.http_requests)
    done = await bot.scheduler.resolve(gid)
    await env.settle()
    return label, env.http_requests[n0:], done


async def _command_path(env: Any, store: Store, gid: str, members: list[Any], channels: dict[str, Any], by_id: dict[int, Any],
                        repeats: int, said: dict[str, str] | None = None) -> dict[str, Any]:
    """``/action submit`` of one living player, alternated ``repeats`` times with ``/bench-noop``
    in the player's own channel: CPU time of the whole process and wall time of each call, REST
    calls. The player alternates between two targets of one ability, so that every submit is
    accepted, replaces the last one and is committed (the same submission twice would be
    answered as already recorded, without a write). With ``said`` (the ``/bench-echo submit``
    yardstick's reply), each round also times that like-for-like command (an extra figure);
    each call's CPU of the bot's own thread is kept apart (``time.thread_time``)."""
    game = store.games.game(gid)
    by_user = {m.id: m for m in members}
    pick = None
    for p in game.living():
        for la in game.legal_actions(p.pid):
            k = la.ability.targets
            if la.ability.options or la.ability.number is not None or not 1 <= k < len(la.targets):
                continue
            if p.user_id in by_user:
                pick = p, la
                break
        if pick:
            break
    if pick is None:
        raise RuntimeError("the bench found no ability with two choices of target: a bench bug")
    p, la = pick
    member, hidden = by_user[p.user_id], by_id[int(channels[f"player:{p.pid}"])]
    base: dict[str, Any] = {"ability": f"{la.via}|{la.key}" if la.via else la.key}
    k = la.ability.targets
    variants = []
    for first in (la.targets[:k], la.targets[1:k + 1]):
        args = dict(base)
        for name, t in zip(["target", "target2", "target3"], first, strict=False):
            args[name] = str(t)
        variants.append(args)
    kinds = ("action", "noop", "echo", "floor", "floor_noop")
    cpu: dict[str, list[float]] = {k: [] for k in kinds}
    main: dict[str, list[float]] = {k: [] for k in kinds}  # the bot's own thread only (the store's thread left out)
    wall: dict[str, list[float]] = {k: [] for k in kinds}
    rest: Counter[str] = Counter()
    applies = store.transactions["apply"]
    rounds: list[list[tuple[str, str, dict[str, Any]]]] = []
    for i in range(repeats):
        calls = [("noop", "bench-noop", {}), ("action", "action submit", variants[i % 2])]
        if said is not None:
            calls.append(("echo", "bench-echo submit", variants[i % 2]))
        rounds.append(calls)
    if said is not None:  # the durable floor in rounds of its own, alternated with the same no-op
        rounds += [[("floor_noop", "bench-noop", {}), ("floor", "bench-echo durable", variants[i % 2])] for i in range(repeats)]
    for calls in rounds:
        for kind, name, kw in calls:
            n0 = len(env.http_requests)
            c0, t0, w0 = time.process_time(), time.thread_time(), time.perf_counter()
            r = await member.slash(hidden, name, **kw)
            cpu[kind].append(time.process_time() - c0)
            main[kind].append(time.thread_time() - t0)
            wall[kind].append(time.perf_counter() - w0)
            rest[kind] += len(env.http_requests) - n0
            assert r.response is not None and r.response.ephemeral, r
            if kind == "action" and said is not None:
                said["text"] = r.response.content
    accepted = store.transactions["apply"] - applies
    if accepted != repeats:
        raise RuntimeError(f"the bench's action was accepted {accepted} times of {repeats}: a bench bug")
    return {"cpu": cpu, "main": main, "wall": wall, "rest": rest, "accepted": accepted, "ability": la.key,
            "snapshot": len(store.games.live(gid).text.encode("utf-8")), "label": game.info.label}


def _command_path_row(b: Bench, key: str, day: int, repeats: int, path: dict[str, Any]) -> None:
    cpu, wall, rest = path["cpu"], path["wall"], path["rest"]
    ratio = statistics.median(cpu["action"]) / statistics.median(cpu["noop"])
    b.add("discord", key, f"an action through SimCord on day {day} (validation, SQLite commit, ephemeral reply) against a "
          "no-op slash command (CPU; information, no goal)", ratio, "×",
          note=f"{INFORMATION}; {path['label']}; CPU time of the whole process (bot, store thread, SimCord), medians of {repeats} alternating calls: "
          f"/action submit {median_ms(cpu['action']):.2f} ms ({path['accepted']} accepted and committed, each replacing the last; "
          f"synchronous=FULL; snapshot {path['snapshot'] / 1024:.1f} KiB), /bench-noop {median_ms(cpu['noop']):.2f} ms; "
          f"REST calls a command: {rest['action'] / repeats:g} vs {rest['noop'] / repeats:g}; "
          + _command_path_split(path) +
          "wall clock "
          f"{median_ms(wall['action']):.1f} vs {median_ms(wall['noop']):.1f} ms, which SimCord's settling (idle waits of up to 50 ms) dominates")
    if cpu["floor"]:
        floor = statistics.median(cpu["floor"]) / statistics.median(cpu["floor_noop"])
        b.add("discord", key.replace("command_path", "command_floor"),
              f"the durable floor on day {day}: a command that commits one short row and replies, against the same no-op (no goal: "
              "what the command path's goal is measured against)", floor, "×",
              note=f"/bench-echo durable {median_ms(cpu['floor']):.2f} ms against /bench-noop {median_ms(cpu['floor_noop']):.2f} ms, "
              f"medians of {repeats} rounds of their own (the two alternated, after the command path's rounds); the row committed as the store commits a command (one batch: one trip "
              "to aiosqlite's thread, BEGIN IMMEDIATE, INSERT, COMMIT with synchronous=FULL); /action submit ÷ it "
              f"{statistics.median(cpu['action']) / statistics.median(cpu['floor']):.2f}×")



def _command_path_split(path: dict[str, Any]) -> str:
    """Where the command's CPU goes (extra figures, not the goal's ratio): the store's thread
    (the process's CPU less the bot's thread) and the like-for-like yardstick."""
    cpu, main = path["cpu"], path["main"]
    out = (f"of the action's CPU the database thread (SQLite, its commit) {median_ms(cpu['action']) - median_ms(main['action']):.2f} ms "
           f"(the process's median less the bot thread's); ")
    if cpu["echo"]:
        echo = statistics.median(cpu["echo"])
        out += (f"like for like: /bench-echo submit (the action's options, replying with its reply, nothing else) "
                f"{echo * 1000:.2f} ms, the action ÷ it {statistics.median(cpu['action']) / echo:.2f}× (not the goal's ratio); ")
    if cpu["floor"]:
        floor = statistics.median(cpu["floor"])
        out += (f"the durable floor: /bench-echo durable (the same, and one short row committed as the store commits a command: "
                f"one trip to aiosqlite's thread, BEGIN IMMEDIATE, INSERT, COMMIT with synchronous=FULL) {floor * 1000:.2f} ms, "
                f"{floor / statistics.median(cpu['floor_noop']):.2f}× the no-op alternated with it, the action ÷ it {statistics.median(cpu['action']) / floor:.2f}×; ")
    return out


def run_bench(quick: bool = False, only: list[str] | None = None, progress: bool = True, make_bot: BotFactory | None = None,
              round_trip: float = ROUND_TRIP) -> Bench:
    b = Bench(machine=machine(), quick=quick)
    chosen = [s for s in SECTIONS if not only or s in only]

    def say(msg: str) -> None:
        if progress and sys.stderr.isatty():
            print(f"… {msg}", file=sys.stderr, flush=True)

    for s in chosen:
        if s == "discord":
            bench_discord(b, say, make_bot)
        elif s == "deadline":
            bench_deadline(b, say, make_bot, quick, round_trip)
        else:
            {"engine": bench_engine, "peer": bench_peer, "scale": bench_scale, "postgres": bench_postgres,
             "storage": lambda b, say: bench_storage(b, say, make_bot, round_trip),
             "load": lambda b, say: bench_load(b, say, make_bot, discord_status(make_bot))}[s](b, say)
    return b


def _fmt(v: float | int | None, unit: str) -> str:
    if v is None:
        return "—"
    if isinstance(v, int):
        return f"{v} {unit}".strip()
    digits = 3 if abs(v) < 10 else 1
    return f"{v:.{digits}f} {unit}".strip()


def format_rows(b: Bench) -> str:
    m = b.machine
    out = [
        f"altmafia bench{' --quick' if b.quick else ''}: {m['nproc']} CPU(s), {m['cpu']}, {m['implementation']} {m['python']}, {m['system']}"
        + (f"; load average at start {' '.join(str(x) for x in m['load_average'])}" if m.get("load_average") else ""),
        "",
    ]
    section = None
    for r in b.rows:
        if r["section"] != section:
            section = r["section"]
            out.append(f"[{section}]")
        out.append(f"  {r['title']}")
        if r["not_measured"]:
            line = f"      {r['not_measured']}"
            if r["goal"]:
                line += f"  (goal: {r['goal']})"
        else:
            line = f"      {_fmt(r['value'], r['unit'])}"
            if r["goal"]:
                line += f"   goal: {r['goal']}"
                if r["ratio"] is not None:
                    line += f"   measured: {r['ratio']:.3g}"
                if r["verdict"]:
                    line += f"   → {r['verdict']}"
        out.append(line)
        if r["note"]:
            out.append(f"      ({r['note']})")
    return "\n".join(out)
