"""§6 of issue 14: the real bot process, SIGKILLed at random moments and at every named fault
point, restarted, the game finished after each restart; what the Discord stand-in received is
compared line by line with an uninterrupted run on the same seed.

Prints one line ``crash: N kills, M identical, L lines lost, D duplicated, O orphan channels``
and fails unless M = N and L = D = O = 0. ``CRASH_KILLS`` (default 100) sets how many kills;
``CRASH_KILLS=1000`` for the long run. A kill counts as identical when the run it belongs to
ends identical to the reference (every channel's lines, in order, every game channel's permission
overwrites at the end, and no extra channel).
"""

from __future__ import annotations

import asyncio
import collections
import json
import os
import random
import re
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

from altmafia.text.i18n import text

from .driver import GAME
from .standin import Standin

ROOT = Path(__file__).resolve().parents[3]
KILLS = int(os.environ.get("CRASH_KILLS", "100"))
PER_RUN = 4  # kills in one game before it is let finish
PARALLEL = int(os.environ.get("CRASH_PARALLEL", "3"))  # games played at once (each its own stand-in)
HEADER = re.compile("^" + re.escape(text("ru", "delivery.header", phase="\0")).replace("\\\0", ".*").replace("\0", ".*") + "$")
MENTION = re.compile(r"^<@\d+>$")


async def run_bot(db: Path, api: str, *, kill: str | None = None, after: float | None = None, trace: Path | None = None) -> int:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ALTMAFIA_", "CRASH_"))}
    env["PYTHONPATH"] = str(ROOT)
    if kill:
        env["CRASH_KILL"] = kill
    if trace:
        env["CRASH_TRACE"] = str(trace)
    # a thread waits for its own child (asyncio's child watcher reports 255 for a child some
    # other part of a long test session reaped)
    proc = await asyncio.to_thread(play, [sys.executable, "-m", "tests.bot.crash.driver", str(db), api], env, after)
    err = proc.stderr_text
    if proc.returncode not in (0, -9):
        raise AssertionError(f"the bot failed (exit {proc.returncode}, kill {kill}, after {after}):\n{err[-4000:]}")
    return proc.returncode


class Finished:
    def __init__(self, returncode: int, stderr_text: str) -> None:
        self.returncode, self.stderr_text = returncode, stderr_text


def play(argv: list[str], env: dict[str, str], after: float | None) -> Finished:
    """The bot process, SIGKILLed after ``after`` seconds if still running."""
    with subprocess.Popen(argv, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE) as proc:
        try:
            _, err = proc.communicate(timeout=after if after is not None else 120)
        except subprocess.TimeoutExpired:
            proc.kill()  # SIGKILL at a random moment (or a bot that hangs: it fails below)
            _, err = proc.communicate(timeout=60)
            if after is None:
                raise AssertionError("the bot hung: " + err.decode(errors="replace")[-2000:]) from None
        return Finished(proc.returncode, err.decode(errors="replace"))


def lines_by_channel(db: Path, standin: Standin) -> tuple[dict[str, list[str]], int]:
    """What each channel of the game received, line by line (batch headers and a batch's bare
    mention line left out: how many batches a phase's lines came in is no loss), and how many
    channels of the guild are not the game's."""
    with sqlite3.connect(db) as con:
        meta = json.loads(con.execute("SELECT meta FROM games WHERE game_id = ?", (GAME,)).fetchone()[0])
    keys = {int(cid): key for key, cid in meta["channels"].items()}
    out: dict[str, list[str]] = collections.defaultdict(list)
    for m in standin.delivered():
        where = keys.get(m["channel"], f"orphan:{m['channel']}")
        out[where] += [ln for ln in m["content"].split("\n") if ln and not HEADER.match(ln) and not MENTION.match(ln)]
        out[where] += [f"[file] {f}" for f in m["files"]]
    # and who may read and write where at the end: each game channel's overwrites as the stand-in
    # holds them (created with the channel, put or patched since: a channel made again after a
    # kill, or a sync cut short by one, must end as in the uninterrupted run)
    for cid, key in keys.items():
        out[f"overwrites:{key}"] = standin.overwrites(cid)
    orphans = [cid for cid in standin.channels if cid not in keys]
    return dict(out), len(orphans)


def compare(ref: dict[str, list[str]], got: dict[str, list[str]]) -> tuple[bool, int, int]:
    lost = dup = 0
    for key in set(ref) | set(got):
        a, b = collections.Counter(ref.get(key, [])), collections.Counter(got.get(key, []))
        lost += sum((a - b).values())
        dup += sum((b - a).values())
    return ref == got, lost, dup


async def test_sigkill_at_random_moments_and_every_fault_point(tmp_path: Path):
    rnd = random.Random(int(os.environ.get("CRASH_SEED", "14")))
    ref_dir = tmp_path / "reference"
    ref_dir.mkdir()
    ref_standin = Standin(ref_dir / "discord.jsonl")
    await ref_standin.start()
    try:
        assert await run_bot(ref_dir / "db.sqlite3", ref_standin.api, trace=ref_dir / "trace") == 0
        assert not ref_standin.unmodelled, ref_standin.unmodelled
        reference, ref_orphans = lines_by_channel(ref_dir / "db.sqlite3", ref_standin)
    finally:
        await ref_standin.stop()
    assert ref_orphans == 0 and sum(map(len, reference.values())) > 50
    reached = collections.Counter((ref_dir / "trace").read_text(encoding="utf-8").split())
    named = sorted(reached)
    frequent = [p for p in named if reached[p] >= 20]

    # the first kill of each run (a fresh game): every reach of a rare point (a resolve, the
    # creation, a migration: reached a few times a game), the first, a middle and the last
    # reach of every other named point
    firsts: list[str] = []
    for point in named:
        n = reached[point]
        picks = range(1, n + 1) if n <= 6 else sorted({1, rnd.randint(2, n - 1), n})
        firsts += [f"{point}@{k}" for k in picks]

    def plan_of(i: int) -> list[tuple[str | None, float | None]]:
        """Run ``i``: its first kill from ``firsts`` (in turn), then frequent points and random moments."""
        out: list[tuple[str | None, float | None]] = [(firsts[i % len(firsts)], None)]
        for _ in range(PER_RUN - 1):
            if rnd.random() < 0.5:
                point = rnd.choice(frequent)
                out.append((f"{point}@{rnd.randint(1, 12)}", None))
            else:
                out.append((None, rnd.uniform(0.3, 5.0)))
        return out

    gate = asyncio.Semaphore(PARALLEL)
    results: list[tuple[int, bool, int, int, int, str]] = []
    hit: set[str] = set()
    while sum(r[0] for r in results) < KILLS or len(results) < len(firsts):
        missing = KILLS - sum(r[0] for r in results)
        batch = max(PARALLEL, -(-missing // (PER_RUN - 1)), len(firsts) - len(results))
        start = len(results)
        results += await asyncio.gather(*(one_run(tmp_path / f"run{start + i}", plan_of(start + i), reference, gate, hit)
                                          for i in range(batch)))
    kills = sum(r[0] for r in results)
    identical = sum(r[0] for r in results if r[1])
    lost, dup, orphans = (sum(r[i] for r in results) for i in (2, 3, 4))
    failures = [f"run {i}: {r[5]}" for i, r in enumerate(results) if not r[1]]
    never = [p for p in named if p not in hit]
    print(f"(crash plan: {len(results)} games, first kills at {len(firsts)} reaches of {len(named)} named points)")
    print(f"crash: {kills} kills, {identical} identical, {lost} lines lost, {dup} duplicated, {orphans} orphan channels")
    assert kills >= KILLS and not never, (kills, never)
    assert identical == kills and lost == dup == orphans == 0, "\n".join(failures)


async def one_run(d: Path, plan: list[tuple[str | None, float | None]], reference: dict[str, list[str]],
                  gate: asyncio.Semaphore, hit: set[str]) -> tuple[int, bool, int, int, int, str]:
    """One game on a fresh stand-in: killed as planned (each kill a new process on the same
    database), then finished; (kills, identical, lost, duplicated, orphans, what differed)."""
    async with gate:
        d.mkdir()
        standin = Standin(d / "discord.jsonl")
        await standin.start()
        try:
            here = 0
            for kill, after in plan:
                if await run_bot(d / "db.sqlite3", standin.api, kill=kill, after=after) != -9:
                    break  # the game ended before that point
                here += 1
                if kill:
                    hit.add(kill.split("@")[0])
            else:
                assert await run_bot(d / "db.sqlite3", standin.api) == 0  # the game finished after the last kill
            got, extra = lines_by_channel(d / "db.sqlite3", standin)
            assert not standin.unmodelled, standin.unmodelled
        finally:
            await standin.stop()
    same, lost, dup = compare(reference, got)
    why = "" if same and not extra else f"{lost} lost, {dup} duplicated, {extra} orphans; first difference: {first_difference(reference, got)}"
    return here, same and not extra, lost, dup, extra, why


def first_difference(ref: dict[str, list[str]], got: dict[str, list[str]]) -> Any:
    for key in sorted(set(ref) | set(got)):
        a, b = ref.get(key, []), got.get(key, [])
        for i, (x, y) in enumerate(zip(a, b, strict=False)):
            if x != y:
                return key, i, x, y
        if len(a) != len(b):
            return key, len(a), len(b), (a + b)[min(len(a), len(b))]
    return None
