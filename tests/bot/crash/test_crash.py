"""The real bot process, SIGKILLed at random moments and at every named fault point, restarted,
the game finished after each restart, against a Discord stand-in that forgets nonces after a
few minutes and across restarts, never shows them in history, and fails sends with runs of
5xx, gateway timeouts (after posting), 429s and broken connections (reset before, closed
after posting, answered too late); what the stand-in received and what the database holds
at the end are compared with an uninterrupted run of the same script on the same seed. The
kills are shared between two scripts (:data:`SCRIPTS`): the Godfather game, and a stats mafia
game whose phases end early under the loop (its notice to the GM first, a pause holding it
off, a phase one player holds up to its reminders and deadline).

Prints one line ``crash: N kills, M identical, L lines lost, D duplicated, O orphan channels``
and fails unless M = N and L = D = O = 0. ``CRASH_KILLS`` (default :data:`DEFAULT_KILLS`)
sets how many kills; ``CRASH_KILLS=1000`` for the long run. A kill counts as identical when
the run it belongs to ends identical to the reference: every channel's lines, in order, every
game channel's permission overwrites, no extra channel, and the database's game (its
snapshot, journal, event log, meta and outbox rows per channel, ids and times left out).

A second test plays the same against a mutant of the bot whose history lookup (the search of
a channel for a part claimed before a crash, :data:`HISTORY_LOOKUP`) never finds anything,
and fails unless this harness sees lines duplicated: a harness that forgives a bot without
that lookup proves nothing about the lookup.
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

from .driver import GAME, RULESETS
from .standin import KINDS, Standin

ROOT = Path(__file__).resolve().parents[3]
DEFAULT_KILLS = 200  # the first kills of the plan alone give about that many (a kill costs ~2 s of CPU)
#: the scripts the kills are shared between (``driver.SCRIPT``): the Godfather game, and a stats
#: mafia game whose phases end early (the loop's early end, its notice to the GM, a pause that
#: holds it off, a phase held up by one player: the reminders, the deadline)
SCRIPTS = tuple(RULESETS)
KILLS = int(os.environ.get("CRASH_KILLS", str(DEFAULT_KILLS)))
PER_RUN = 5  # kills in one game before it is let finish
PARALLEL = int(os.environ.get("CRASH_PARALLEL", "3"))  # games played at once (each its own stand-in)
HEADER = re.compile("^" + re.escape(text("ru", "delivery.header", phase="\0")).replace("\\\0", ".*").replace("\0", ".*") + "$")
MENTION = re.compile(r"^<@\d+>$")
LINK = re.compile(r"https://discord\.com/channels/(\d+)/(\d+)/\d+")  # a message's id differs from run to run

#: the deliverer's search of a channel for a part claimed before a crash: (module, class,
#: method); the mutant replaces it with one that never finds anything
HISTORY_LOOKUP = ("altmafia.bot.delivery", "Deliverer", "_find")
MUTANT = """
import importlib, runpy, sys
owner = getattr(importlib.import_module({module!r}), {cls!r})
async def never_found(self, *args, **kwargs):
    return None
setattr(owner, {method!r}, never_found)
sys.argv = ["driver", *sys.argv[1:]]
runpy.run_module("tests.bot.crash.driver", run_name="__main__")
"""


async def run_bot(db: Path, api: str, *, kill: str | None = None, after: float | None = None, trace: Path | None = None,
                  mutant: bool = False, script: str = "godfather") -> int:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ALTMAFIA_", "CRASH_"))}
    env["PYTHONPATH"] = str(ROOT)
    env["CRASH_SCRIPT"] = script
    if kill:
        env["CRASH_KILL"] = kill
    if trace:
        env["CRASH_TRACE"] = str(trace)
    module, cls, method = HISTORY_LOOKUP
    argv = ([sys.executable, "-c", MUTANT.format(module=module, cls=cls, method=method)] if mutant
            else [sys.executable, "-m", "tests.bot.crash.driver"])
    # a thread waits for its own child (asyncio's child watcher reports 255 for a child some
    # other part of a long test session reaped)
    proc = await asyncio.to_thread(play, [*argv, str(db), api], env, after)
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
            _, err = proc.communicate(timeout=after if after is not None else 300)
        except subprocess.TimeoutExpired:
            proc.kill()  # SIGKILL at a random moment (or a bot that hangs: it fails below)
            _, err = proc.communicate(timeout=60)
            if after is None:
                raise AssertionError("the bot hung: " + err.decode(errors="replace")[-2000:]) from None
        return Finished(proc.returncode, err.decode(errors="replace"))


def lines_by_channel(db: Path, standin: Standin) -> tuple[dict[str, Any], int]:
    """What each channel of the game received, line by line (batch headers and a batch's bare
    mention line left out: how many batches a phase's lines came in is no loss), each game
    channel's overwrites, and the database's state (:func:`db_state`); and how many channels
    of the guild are not the game's."""
    with sqlite3.connect(db) as con:
        meta = json.loads(con.execute("SELECT meta FROM games WHERE game_id = ?", (GAME,)).fetchone()[0])
    keys = {int(cid): key for key, cid in meta["channels"].items()}
    out: dict[str, Any] = collections.defaultdict(list)
    for m in standin.delivered():
        where = keys.get(m["channel"], f"orphan:{m['channel']}")
        out[where] += [LINK.sub(r"https://discord.com/channels/\1/\2/…", ln) for ln in m["content"].split("\n")
                       if ln and not HEADER.match(ln) and not MENTION.match(ln)]
        out[where] += [f"[file] {f}" for f in m["files"]]
    # and who may read and write where at the end: each game channel's overwrites as the stand-in
    # holds them (created with the channel, put or patched since: a channel made again after a
    # kill, or a sync cut short by one, must end as in the uninterrupted run)
    for cid, key in keys.items():
        out[f"overwrites:{key}"] = standin.overwrites(cid)
    for part, rows in db_state(db).items():
        out[f"db:{part}"] = rows
    orphans = [cid for cid in standin.channels if cid not in keys]
    return dict(out), len(orphans)


def plain(value: Any) -> Any:
    """A stored value without what differs between equal runs: message and channel ids, the
    times rows were written."""
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items() if k not in ("message_id", "channel_id", "created_at")}
    if isinstance(value, list):
        return [plain(v) for v in value]
    return value


def db_state(db: Path) -> dict[str, list[str]]:
    """The game as the database holds it at the end, one line per row: its row (status, tick,
    deadline, the engine snapshot), its meta (the channel map by key only), the journal, the
    event log, the action history, the GM's actions, and how many outbox rows each channel
    had and how many were delivered (the parts are not compared: how many batches a channel's
    rows came in depends on what was pending at each flush)."""
    with sqlite3.connect(db) as con:
        row = con.execute("SELECT status, tick, deadline_tick, deadline_at, state, meta FROM games WHERE game_id = ?", (GAME,)).fetchone()
        meta = json.loads(row[5])
        meta["channels"] = sorted(meta.get("channels", {}))
        out = {
            "game": [json.dumps([row[0], row[1], row[2], row[3]]), json.dumps(json.loads(row[4]), sort_keys=True, ensure_ascii=False)],
            "meta": [json.dumps(plain(meta), sort_keys=True, ensure_ascii=False)],
            "journal": [json.dumps([r[0], r[1], r[2], plain(json.loads(r[3])), plain(json.loads(r[4]) if r[4] else None), r[5], r[6]],
                                   sort_keys=True, ensure_ascii=False)
                        for r in con.execute("SELECT seq, tick, kind, args, result, user_id, request_id FROM commands "
                                             "WHERE game_id = ? ORDER BY seq", (GAME,))],
            "events": [json.dumps(r, ensure_ascii=False) for r in con.execute(
                "SELECT idx, seq, tick, msg_key, args, audience, ids FROM events WHERE game_id = ? ORDER BY idx", (GAME,))],
            "history": [r[0] for r in con.execute("SELECT record FROM history WHERE game_id = ? ORDER BY idx", (GAME,))],
            "gm_actions": [json.dumps(r, ensure_ascii=False) for r in con.execute(
                "SELECT seq, tick, user_id, action, args FROM gm_actions WHERE game_id = ? ORDER BY seq", (GAME,))],
            "outbox": [json.dumps(r) for r in con.execute(
                "SELECT dest_kind, dest_id, COUNT(*), COUNT(delivered_at) FROM outbox WHERE game_id = ? GROUP BY dest_kind, dest_id "
                "ORDER BY dest_kind, dest_id", (GAME,))],
        }
    return out


def compare(ref: dict[str, list[str]], got: dict[str, list[str]]) -> tuple[bool, int, int]:
    """(identical, lines lost, lines duplicated): lost and duplicated count Discord's lines."""
    lost = dup = 0
    for key in set(ref) | set(got):
        if key.startswith(("db:", "overwrites:")):
            continue
        a, b = collections.Counter(ref.get(key, [])), collections.Counter(got.get(key, []))
        lost += sum((a - b).values())
        dup += sum((b - a).values())
    return ref == got, lost, dup


async def reference_run(tmp_path: Path, script: str = "godfather") -> tuple[dict[str, Any], collections.Counter[str]]:
    """The uninterrupted run of a script (no kill, no failure): what every channel and the
    database hold, and how often each named point is reached."""
    ref_dir = tmp_path / f"reference-{script}"
    ref_dir.mkdir()
    ref_standin = Standin(ref_dir / "discord.jsonl", clock=ref_dir / "clock")
    await ref_standin.start()
    try:
        assert await run_bot(ref_dir / "db.sqlite3", ref_standin.api, trace=ref_dir / "trace", script=script) == 0
        assert not ref_standin.unmodelled, ref_standin.unmodelled
        reference, ref_orphans = lines_by_channel(ref_dir / "db.sqlite3", ref_standin)
    finally:
        await ref_standin.stop()
    assert ref_orphans == 0 and sum(len(v) for k, v in reference.items() if not k.startswith(("db:", "overwrites:"))) > 50
    return reference, collections.Counter((ref_dir / "trace").read_text(encoding="utf-8").split())


def first_kills(reached: collections.Counter[str], script: str, rnd: random.Random) -> list[str]:
    """The first kill of each run of a script (a fresh game). Godfather: every reach of a rare
    point (reached at most 6 times a game: the creation, the GM's deadline changes, the undo),
    the first and the last reach of every other named point. Early: every reach of the resolves
    (each an early end but one), of the deadline changes (the pause and the resume) and of the
    meta changes (the early-end notices, the phase starts)."""
    out: list[str] = []
    for point in sorted(reached):
        n = reached[point]
        if script == "early":
            if point.startswith(("resolve.", "deadline.", "meta.")):
                out += [f"{point}@{k}" for k in range(1, n + 1)]
            continue
        picks = range(1, n + 1) if n <= 6 else (1, n)
        out += [f"{point}@{k}" for k in picks]
    return out


async def test_sigkill_at_random_moments_and_every_fault_point(tmp_path: Path):
    rnd = random.Random(int(os.environ.get("CRASH_SEED", "14")))
    references = {script: await reference_run(tmp_path, script) for script in SCRIPTS}
    named = sorted(set().union(*(reached for _, reached in references.values())))
    firsts = {script: first_kills(reached, script, rnd) for script, (_, reached) in references.items()}
    frequent = {script: [p for p in sorted(reached) if reached[p] >= 20] for script, (_, reached) in references.items()}
    # each run plays one script: every first kill of both, in turn, then the scripts alternately
    order = [(script, f) for script in SCRIPTS for f in firsts[script]]

    def plan_of(i: int) -> tuple[str, list[tuple[str | None, float | None]]]:
        """Run ``i``: its script and first kill (in turn), then frequent points and random moments."""
        script, first = order[i] if i < len(order) else (SCRIPTS[i % len(SCRIPTS)], rnd.choice(firsts[SCRIPTS[i % len(SCRIPTS)]]))
        out: list[tuple[str | None, float | None]] = [(first, None)]
        for _ in range(PER_RUN - 1):
            if rnd.random() < 0.5:
                point = rnd.choice(frequent[script])
                out.append((f"{point}@{rnd.randint(1, 12)}", None))
            else:
                out.append((None, rnd.uniform(0.3, 6.0)))
        return script, out

    gate = asyncio.Semaphore(PARALLEL)
    results: list[tuple[int, bool, int, int, int, str]] = []
    scripts: list[str] = []
    hit: set[str] = set()
    injected: collections.Counter[str] = collections.Counter()
    while sum(r[0] for r in results) < KILLS or len(results) < len(order):
        missing = KILLS - sum(r[0] for r in results)
        batch = max(PARALLEL, -(-missing // (PER_RUN - 1)), len(order) - len(results))
        start = len(results)
        plans = [plan_of(start + i) for i in range(batch)]
        scripts += [script for script, _ in plans]
        results += await asyncio.gather(*(one_run(tmp_path / f"run{start + i}", plan, references[script][0], gate, hit,
                                                  seed=start + i, injected=injected, script=script)
                                          for i, (script, plan) in enumerate(plans)))
    kills = sum(r[0] for r in results)
    identical = sum(r[0] for r in results if r[1])
    lost, dup, orphans = (sum(r[i] for r in results) for i in (2, 3, 4))
    failures = [f"run {i} ({scripts[i]}): {r[5]}" for i, r in enumerate(results) if not r[1]]
    never = [p for p in named if p not in hit]
    per_script = {script: sum(r[0] for r, s in zip(results, scripts, strict=True) if s == script) for script in SCRIPTS}
    print(f"(crash plan: {len(results)} games, first kills at {len(order)} reaches of {len(named)} named points; "
          f"kills by script: {per_script}; failures answered: {dict(sorted(injected.items()))})")
    print(f"crash: {kills} kills, {identical} identical, {lost} lines lost, {dup} duplicated, {orphans} orphan channels")
    assert kills >= KILLS and not never, (kills, never)
    assert all(per_script.values()), per_script
    # every kind of failure answered at least once (HTTP errors and broken connections)
    assert set(KINDS) <= set(injected) or KILLS < DEFAULT_KILLS, injected
    assert identical == kills and lost == dup == orphans == 0, "\n".join(failures[:20])


async def test_the_harness_fails_a_bot_without_its_history_lookup(tmp_path: Path):
    """The mutant: the history lookup never finds a part sent before a crash. Each run is
    killed right after a part was sent and before it was marked (``deliver.sent``), the
    restart has no nonce to lean on (the stand-in forgot it): the part goes out again."""
    reference, reached = await reference_run(tmp_path)
    sent = reached["deliver.sent"]
    rnd = random.Random(28)
    plans = [[(f"deliver.sent@{rnd.randint(1, max(1, sent // 3))}", None) for _ in range(3)] for _ in range(2)]
    gate = asyncio.Semaphore(PARALLEL)
    results = await asyncio.gather(*(one_run(tmp_path / f"mutant{i}", plan, reference, gate, set(), seed=i, mutant=True)
                                     for i, plan in enumerate(plans)))
    kills = sum(r[0] for r in results)
    identical = sum(r[0] for r in results if r[1])
    lost, dup, orphans = (sum(r[i] for r in results) for i in (2, 3, 4))
    print(f"crash (mutant without its history lookup): {kills} kills, {identical} identical, {lost} lines lost, "
          f"{dup} duplicated, {orphans} orphan channels")
    assert kills == 6
    assert lost + dup > 0 and identical < kills, "the harness forgives a bot that never looks in the channel's history"


async def one_run(d: Path, plan: list[tuple[str | None, float | None]], reference: dict[str, Any],
                  gate: asyncio.Semaphore, hit: set[str], *, seed: int, mutant: bool = False,
                  injected: collections.Counter[str] | None = None, script: str = "godfather") -> tuple[int, bool, int, int, int, str]:
    """One game on a fresh stand-in (failing sends with its own seed): killed as planned (each
    kill a new process on the same database), then finished; (kills, identical, lost,
    duplicated, orphans, what differed)."""
    async with gate:
        d.mkdir()
        standin = Standin(d / "discord.jsonl", clock=d / "clock", faults=random.Random(f"faults:{seed}"))
        await standin.start()
        try:
            here = 0
            for kill, after in plan:
                if await run_bot(d / "db.sqlite3", standin.api, kill=kill, after=after, mutant=mutant, script=script) != -9:
                    break  # the game ended before that point
                here += 1
                if kill:
                    hit.add(kill.split("@")[0])
            else:
                assert await run_bot(d / "db.sqlite3", standin.api, mutant=mutant, script=script) == 0  # finished after the last kill
            got, extra = lines_by_channel(d / "db.sqlite3", standin)
            assert not standin.unmodelled, standin.unmodelled
            if injected is not None:
                injected.update(standin.injected)
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
                return key, i, x[:300], y[:300]
        if len(a) != len(b):
            return key, len(a), len(b), (a + b)[min(len(a), len(b))][:300]
    return None
