"""A GM's undo of a resolve in the store: the game exactly as before it, the tick open again
with its deadline, the resolve's events out of the log and of the outbox, journaled; refused
once anything happened since; the game rebuilt from the journal skips the undone resolve."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from storage import Command, Store, UndoRefused

from .conftest import new_game

T0 = datetime(2026, 3, 1, 6, 0, tzinfo=UTC)


async def play_a_phase(store: Store) -> None:
    g = store.games.game("g1")
    for p in g.living():
        legal = [a for a in g.legal_actions(p.pid) if g.counts_as_action(a.ability)]
        if legal:
            a = legal[(p.pid + g.state.tick) % len(legal)]
            await store.games.apply("g1", Command.submit(p.pid, a.key, a.targets[: a.ability.targets], next(iter(a.options), None)))


async def test_undo_restores_the_game_exactly_and_the_redo_delivers_afresh(db):
    clock = [T0]
    async with Store(db, clock=lambda: clock[0]) as s:
        await new_game(s, settings={"days": 2})
        await play_a_phase(s)
        await s.turns.resolve("g1", next_deadline=T0 + timedelta(hours=6))
        await play_a_phase(s)
        before, tick, deadline = s.games.game("g1").to_dict(), s.games.info("g1").tick, s.games.info("g1").deadline
        events_before = len(await s.games.events("g1"))
        res = await s.turns.resolve("g1", next_deadline=T0 + timedelta(hours=12))
        assert res.events and s.games.info("g1").tick == tick + 1
        first_keys = {d.key for d in res.deliveries}
        undone = await s.turns.undo_resolve("g1", user_id=7, key="undo-1")
        assert undone.resolve_seq == res.seq and undone.tick == tick
        assert s.games.game("g1").to_dict() == before
        assert s.games.info("g1").tick == tick and s.games.info("g1").deadline == deadline
        assert len(await s.games.events("g1")) == events_before
        assert not [d for d in await s.outbox.pending_deliveries("g1") if d.key in first_keys], "the undone resolve is never delivered"
        assert (await s.games.journal("g1"))[-1]["kind"] == "undo"
        assert (await s.games.gm_actions("g1"))[-1]["action"] == "undo"
        again = await s.turns.undo_resolve("g1", user_id=7, key="undo-1")
        assert again.duplicate and again.seq == undone.seq
        # the same resolve again: the same events, delivered afresh under the same keys
        redo = await s.turns.resolve("g1")
        assert [e.key for e in redo.events] == [e.key for e in res.events]
        assert {d.key for d in await s.outbox.pending_deliveries("g1")} >= first_keys
        assert (await s.games.rebuild("g1")).to_dict() == s.games.game("g1").to_dict()
    async with Store(db, clock=lambda: clock[0]) as s:  # reopened: the same game
        assert (await s.games.rebuild("g1")).to_dict() == s.games.game("g1").to_dict()


async def test_undo_is_refused_once_anything_happened(db):
    async with Store(db, clock=lambda: T0) as s:
        await new_game(s, settings={"days": 2})
        with pytest.raises(UndoRefused) as no:
            await s.turns.undo_resolve("g1")
        assert no.value.key == "err.undo_nothing"
        await s.turns.resolve("g1")
        await s.turns.set_deadline("g1", T0 + timedelta(hours=1), user_id=7)  # a deadline move is not a move of the game
        assert (await s.turns.undo_target("g1"))["kind"] == "resolve"
        await s.games.apply("g1", Command.send_pm(1, 2, "привет"))
        with pytest.raises(UndoRefused) as moved:
            await s.turns.undo_resolve("g1")
        assert moved.value.key == "err.undo_moved_on"
        assert (await s.games.journal("g1"))[-1]["kind"] == "send_pm", "a refusal writes nothing"


async def test_a_deadline_that_passed_is_not_given_back(db):
    clock = [T0]
    async with Store(db, clock=lambda: clock[0]) as s:
        await new_game(s, settings={"days": 2}, deadline=T0 + timedelta(minutes=30))
        await s.turns.resolve("g1", next_deadline=T0 + timedelta(hours=5))
        clock[0] = T0 + timedelta(hours=1)
        undone = await s.turns.undo_resolve("g1")
        assert undone.info.deadline is None and s.games.info("g1").tick == 0


async def test_an_undo_cut_short_changes_nothing(db):
    """A crash inside the undo's transaction: the game, its journal, events and outbox as before."""
    async with Store(db, clock=lambda: T0) as s:
        await new_game(s, settings={"days": 2})
        await play_a_phase(s)
        await s.turns.resolve("g1")
        after, journal, events = s.games.game("g1").to_dict(), await s.games.journal("g1"), await s.games.events("g1")

        def crash(point: str) -> None:
            if point == "undo.before_commit":
                raise RuntimeError("power cut")

        s.fault = crash
        with pytest.raises(RuntimeError):
            await s.turns.undo_resolve("g1", user_id=7)
        s.fault = None
        assert s.games.game("g1").to_dict() == after and await s.games.journal("g1") == journal
        assert [e.key for e in await s.games.events("g1")] == [e.key for e in events]
    async with Store(db, clock=lambda: T0) as s:
        assert s.games.game("g1").to_dict() == after
        undone = await s.turns.undo_resolve("g1", user_id=7)  # and it can be done after the restart
        assert undone.tick == 0 and (await s.games.rebuild("g1")).to_dict() == s.games.game("g1").to_dict()
