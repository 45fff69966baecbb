"""Kill the bot for real (SIGKILL) at many points of a scripted game; restart; compare.

A three-day Godfather game (8 players, 9 resolves, actions, a replaced and a cancelled action,
PMs, anonymous posts, faction moves, GM operations, a GM-forced resolve and a GM deadline
change) runs in a child process (``tests/storage/game_script.py``). Each chain of runs kills
the child at one point after another — inside a migration, a command's or a resolve's
transaction before COMMIT, right after a commit, between a resolve and its deliveries, in the
middle of the deliveries — and restarts it on the same database, until a last run finishes
the game. The final engine state, the journal, the event log, the outbox and the delivery log
(the messages "sent to Discord") must equal those of an uninterrupted run: nothing lost,
nothing applied or delivered twice, in the same order.
"""

from __future__ import annotations

import asyncio
import collections
import os
import random
import signal
import sys
from pathlib import Path

from . import game_script
from .outcome import Outcome, assert_same

ROOT = Path(__file__).resolve().parents[2]

# Each run of a chain is killed the n-th time *that run* reaches the point; a chain's runs
# share one database, so every run resumes where the previous one died.
CHAIN_A = [
    "migrate.before_commit@1",  # the very first start dies inside migration 1
    "migrate.before_commit@2",  # migration 1 committed, dies inside migration 2
    "create.before_commit@1",  # creating the game
    "apply.before_commit@3",  # inside a command's transaction
    "apply.after_commit@2",  # a command committed, the player not yet told
    "resolve.marked@1",  # a resolve marked as started, nothing computed yet
    "resolve.before_commit@1",  # the redo of that resolve dies inside its transaction too
    "resolve.after_commit@1",  # between a resolve and its deliveries
    "deliver.sent@5",  # in the middle of a resolve's deliveries
]
CHAIN_B = [
    "create.before_commit@1",
    "deliver.marked@1",
    "resolve.after_commit@1",
    "deliver.claimed@1",  # the first delivery after the resolve: claimed, not sent
    "deliver.sent@1",  # the same delivery, claimed again and sent: dies before marking it
    "claim.before_commit@6",
    "resolve.before_commit@1",
    "deadline.before_commit@1",  # the GM's deadline change (tick 4)
    "delivered.before_commit@12",  # inside the transaction that marks a delivery done
]


def child_env(kill: str | None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("ALTMAFIA_")}
    if kill:
        env["ALTMAFIA_KILL"] = kill
    return env


async def start(db: Path, log: Path, kill: str | None) -> asyncio.subprocess.Process:
    return await asyncio.create_subprocess_exec(
        sys.executable, "-m", "tests.storage.game_script", str(db), str(log),
        cwd=ROOT, env=child_env(kill), stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
    )


async def run_chain(db: Path, log: Path, kills: list[str]) -> list[tuple[str | None, int, str]]:
    runs = []
    for kill in [*kills, None]:
        proc = await start(db, log, kill)
        _, err = await proc.communicate()
        runs.append((kill, proc.returncode, err.decode(errors="replace")[-2000:]))
    return runs


async def run_killed_from_outside(db: Path, log: Path, seed: int, kills: int) -> list[tuple[str | None, int, str]]:
    """The parent kills the child at random moments (mid-statement, mid-write, anywhere)."""
    rnd = random.Random(seed)
    runs = []
    for _ in range(kills):
        proc = await start(db, log, None)
        await proc.stdout.readline()  # the database is open: from here on, any moment
        try:
            await asyncio.wait_for(proc.wait(), timeout=rnd.uniform(0.0, 0.5))
        except TimeoutError:
            proc.send_signal(signal.SIGKILL)
        _, err = await proc.communicate()
        runs.append(("external", proc.returncode, err.decode(errors="replace")[-2000:]))
    proc = await start(db, log, None)
    _, err = await proc.communicate()
    runs.append((None, proc.returncode, err.decode(errors="replace")[-2000:]))
    return runs


def test_reference_run_is_a_full_game(reference):
    ref, trace = reference
    assert ref.status == "over" and ref.state["over"] and ref.state["tick"] == 9
    kinds = collections.Counter(row[2] for row in ref.journal)
    assert kinds["resolve"] == 9
    for kind in ("submit", "cancel", "send_pm", "post_anon", "faction_op", "gm_set_stat", "gm_message", "deadline"):
        assert kinds[kind] >= 1, kind
    assert all(delivered for *_, delivered in ref.outbox)
    assert [line[0] for line in ref.deliveries] == [row[0] for row in ref.outbox]
    # every point the chains kill at exists and is reached often enough in a whole game
    for spec in CHAIN_A + CHAIN_B:
        point, _, nth = spec.partition("@")
        assert trace[point] >= int(nth), spec


async def test_killed_at_many_points_finishes_identically(tmp_path, reference):
    ref, _ = reference
    chains = [
        run_chain(tmp_path / "a.sqlite3", tmp_path / "a.jsonl", CHAIN_A),
        run_chain(tmp_path / "b.sqlite3", tmp_path / "b.jsonl", CHAIN_B),
    ]
    results = await asyncio.gather(*chains)
    kills = 0
    for name, runs in zip("ab", results, strict=True):
        *killed, (_, last_rc, last_err) = runs
        for kill, rc, err in killed:
            assert rc == -signal.SIGKILL, f"chain {name}: the run to kill at {kill} ended with {rc}:\n{err}"
            kills += 1
        assert last_rc == 0, f"chain {name}: the final run failed:\n{last_err}"
        got = Outcome.read(tmp_path / f"{name}.sqlite3", tmp_path / f"{name}.jsonl", game_script.GAME_ID)
        assert_same(got, ref, name)
    assert kills == len(CHAIN_A) + len(CHAIN_B) >= 18


async def test_killed_from_outside_at_random_moments(tmp_path, reference):
    ref, _ = reference
    runs = await run_killed_from_outside(tmp_path / "c.sqlite3", tmp_path / "c.jsonl", seed=5, kills=3)
    *killed, (_, last_rc, last_err) = runs
    for _, rc, err in killed:
        assert rc in (-signal.SIGKILL, 0), err
    assert last_rc == 0, last_err
    assert_same(Outcome.read(tmp_path / "c.sqlite3", tmp_path / "c.jsonl", game_script.GAME_ID), ref, "external")
