"""A resolve killed before its commit is found on start and redone with the identical result."""

from __future__ import annotations

import json
import signal
from datetime import timedelta

from config import load_ruleset
from engine import Game
from storage import Store

from . import game_script
from .conftest import run_script
from .outcome import Outcome, assert_same

EARLY = game_script.BASE - timedelta(days=1)  # the script's clock: no deadline has passed


def rows_of(events) -> list[tuple]:
    return [(e.tick, e.key, e.audience, json.loads(json.dumps(e.ids)), json.loads(json.dumps(e.args))) for e in events]


def reference_resolve(ref: Outcome, tick: int) -> list[tuple]:
    seq = next(row[0] for row in ref.journal if row[2] == "resolve" and json.loads(row[3])["tick"] == tick)
    return [(r[2], r[3], r[4], json.loads(r[5]), json.loads(r[6])) for r in ref.events if r[1] == seq]


async def redo(db, gid: str, tick: int) -> tuple[list[tuple], list[int] | None]:
    store = Store(db)
    report = await store.open(now=EARLY)
    try:
        assert [(d.game_id, d.tick, d.reason) for d in report.due] == [(gid, tick, "interrupted")]
        assert store.games.game(gid).state.tick == tick  # nothing of the cut resolve landed
        assert [e["kind"] for e in await store.games.journal(gid)].count("resolve") == tick
        resolved = await store.turns.resolve(gid, expect_tick=tick, next_deadline=game_script.deadline_for(tick + 1))
        assert store.games.due(EARLY) == [] and store.games.info(gid).resolving_tick is None
        return rows_of(resolved.events), resolved.winner
    finally:
        await store.close()


async def test_interrupted_night_resolve_is_redone_identically(tmp_path, reference):
    ref, _ = reference
    db, log = tmp_path / "g.sqlite3", tmp_path / "log.jsonl"
    # killed inside the third resolve's transaction (night 1: actions, a faction forms)
    proc = run_script(db, log, kill="resolve.before_commit@3")
    assert proc.returncode == -signal.SIGKILL, proc.stderr
    events, _ = await redo(db, game_script.GAME_ID, 2)
    assert events == reference_resolve(ref, 2) and len(events) > 10
    # the game then finishes exactly as the uninterrupted one
    await game_script.run(db, log)
    assert_same(Outcome.read(db, log, game_script.GAME_ID), ref, "redo")


async def test_redo_draws_the_same_random_numbers(tmp_path):
    """The tie game's winner is drawn by the game's random generator in the final resolve."""
    rules = load_ruleset("godfather")
    tie = game_script.SCRIPTS["tie"]
    winners = set()
    for seed in range(1, 7):  # the draw really depends on the generator
        g = Game.new(rules, seed, tie.players, tie.settings)
        while not g.state.over:
            g.resolve()
        winners.add(tuple(g.state.winner))
    assert len(winners) > 1

    ref_db, ref_log = tmp_path / "ref.sqlite3", tmp_path / "ref.jsonl"
    await game_script.run(ref_db, ref_log, script="tie")
    ref = Outcome.read(ref_db, ref_log, tie.game_id)

    db, log = tmp_path / "tie.sqlite3", tmp_path / "tie.jsonl"
    proc = run_script(db, log, kill="resolve.before_commit@3", script="tie")  # the final resolve
    assert proc.returncode == -signal.SIGKILL, proc.stderr
    events, winner = await redo(db, tie.game_id, 2)
    assert winner == ref.state["winner"] and len(winner) == 1
    assert events == reference_resolve(ref, 2)
    assert ("game.over", {"winners": winner}) in [(e[1], e[4]) for e in events]
    await game_script.run(db, log, script="tie")  # deliver what the redo produced
    assert_same(Outcome.read(db, log, tie.game_id), ref, "tie")
