"""The load harness of ``altmafia bench`` (``altmafia/tools/bench_load.py``) at a tiny size:
the real bot on the wall-clock wire loses nothing, answers every command and posts every
accepted PM once, each found on the wire. Not timed: the figures are the bench's."""

from __future__ import annotations

from altmafia.cli import bench_bot
from altmafia.tools.bench_load import run_load, run_starts


async def test_a_small_load_loses_nothing():
    r = await run_load(bench_bot, games=2, commands=24, seconds=0.5, seats=5, round_trip=0.01)
    assert len(r.latency) == len(r.answer) == r.commands == 24
    assert r.lost == r.unanswered == r.late == 0
    assert r.kinds["pm send"] and r.kinds["action submit"], r.kinds
    assert r.pms_accepted == r.kinds["pm send"], "every PM of the load is within the quota"
    assert r.doubled == [] and r.missing == []
    assert r.refused == [] and r.left == 0
    assert r.rest_calls > 0, "the PMs' posts went over the wire"
    assert len(r.pm_posted) == r.pms_accepted, "each accepted PM's posts found on the wire"
    assert min(r.pm_posted) >= r.round_trip, "half a round trip to the bot, half for the post to reach Discord"


async def test_a_start_on_the_wire_defers_first_and_counts_its_calls():
    (run,), wire = await run_starts(bench_bot, seats=18, runs=1, round_trip=0.01)
    assert run.answer and not run.answer.startswith("⛔"), run.answer
    assert 0 < run.first < run.done
    counted = [c for c in run.calls if not c.exempt and c.status != 429]  # a 429's retry is the call
    assert len(counted) >= 18, "a channel for each seat at least"
    assert run.floor >= len(counted) / 50
    assert wire.refused() == []
