"""The store's contract: commit before "accepted", refusals write nothing, one transaction per
command and per resolve, the outbox, deadlines, the journal that rebuilds the game."""

from __future__ import annotations

import asyncio
import json
import sqlite3
import threading
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from engine import ActionError
from storage import Command, Due, StorageError, Store, default_db_path, latest_version

from .conftest import new_game, sql, table_dump

T0 = datetime(2026, 3, 1, 6, 0, tzinfo=UTC)


async def test_path_comes_from_altmafia_db_with_a_default(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("ALTMAFIA_DB", raising=False)
    assert default_db_path() == Path("./altmafia.sqlite3")
    async with Store() as s:
        assert s.report.created and s.report.schema_to == latest_version()
    assert (tmp_path / "altmafia.sqlite3").is_file()
    monkeypatch.setenv("ALTMAFIA_DB", str(tmp_path / "elsewhere.db"))
    async with Store() as s:
        assert s.location == str(tmp_path / "elsewhere.db")
    assert (tmp_path / "elsewhere.db").is_file()


async def test_wal_mode_and_numbered_migrations(store, db):
    if isinstance(db, Path):
        assert (await sql(db, "PRAGMA journal_mode"))[0][0] == "wal"
    versions = [r[0] for r in await sql(db, "SELECT version FROM schema_version ORDER BY version")]
    assert versions == list(range(1, latest_version() + 1)) and latest_version() >= 2
    assert store.transactions["migrate"] == latest_version()


async def test_accepted_command_is_committed_before_apply_returns(store, db):
    await new_game(store)
    applied = await store.games.apply("g1", Command.submit(0, "day", [1], user_id=1001))
    # another connection (another process, after a crash) sees it at once
    row = (await sql(db, "SELECT kind, args, user_id FROM commands WHERE game_id = 'g1' AND seq = ?", applied.seq))[0]
    state = json.loads((await sql(db, "SELECT state FROM games WHERE game_id = 'g1'"))[0][0])
    assert row == ("submit", '{"pid":0,"ability":"day","targets":[1]}', 1001)
    assert [i["pid"] for i in state["intents"]] == [0]
    assert applied.result["ability"] == "role:tavern_keeper:tall_tales"
    assert store.games.game("g1").pending(0)[0].targets == [1]


async def test_refused_command_writes_nothing(store, db):
    await new_game(store)
    await store.games.apply("g1", Command.submit(0, "day", [1]))
    before, tx, game = await table_dump(db), store.transactions.copy(), store.games.game("g1").to_dict()
    for cmd in (
        Command.submit(1, "day", [1]),  # self target
        Command.submit(2, "night", [3]),  # wrong phase
        Command.send_pm(0, 0, "себе"),
        Command.faction_op(0, "invite", 2),  # factions act at night
        Command.gm("set_end_day", day=99),
    ):
        with pytest.raises(ActionError):
            await store.games.apply("g1", cmd)
    assert await table_dump(db) == before
    assert store.transactions == tx
    assert store.games.game("g1").to_dict() == game


async def test_transactions_per_operation(store):
    await new_game(store, deadline=T0)
    base = store.transactions.copy()

    def spent() -> dict[str, int]:
        return {k: v - base.get(k, 0) for k, v in store.transactions.items() if v != base.get(k, 0)}

    await store.games.apply("g1", Command.submit(0, "day", [1]))
    assert spent() == {"apply": 1, "total": 1}
    await store.games.apply("g1", Command.send_pm(0, 1, "привет", request_id="r1"))
    await store.games.apply("g1", Command.send_pm(0, 1, "привет", request_id="r1"))  # a duplicate: 0
    assert spent() == {"apply": 2, "total": 2}
    resolved = await store.turns.resolve("g1", next_deadline=T0 + timedelta(hours=6))
    assert spent() == {"apply": 2, "resolve.mark": 1, "resolve": 1, "total": 4}
    await store.outbox.claim(resolved.deliveries[0].key)
    await store.outbox.mark_delivered(resolved.deliveries[0].key)
    await store.turns.set_deadline("g1", T0 + timedelta(hours=7))
    assert spent() == {"apply": 2, "resolve.mark": 1, "resolve": 1, "claim": 1, "delivered": 1, "deadline": 1, "total": 7}


async def test_request_id_is_applied_once(store):
    await new_game(store)
    first = await store.games.apply("g1", Command.send_pm(0, 1, "раз", request_id="interaction-1"))
    again = await store.games.apply("g1", Command.send_pm(0, 1, "раз", request_id="interaction-1"))
    assert not first.duplicate and again.duplicate and again.seq == first.seq and again.result == first.result
    assert len(store.games.game("g1").state.pms) == 1
    assert [e["request_id"] for e in await store.games.journal("g1")] == ["interaction-1"]


async def test_outbox_one_row_per_destination_with_unique_keys(store, db):
    await new_game(store)
    pm = await store.games.apply("g1", Command.send_pm(2, 5, "тайна"))
    assert [(d.dest, d.player, d.key) for d in pm.deliveries] == [("player", 5, "g1/0/0/player:5")]
    await store.games.apply("g1", Command.post_anon(3, "аноним"))
    for seat in range(0, 8, 2):
        await store.games.apply("g1", Command.submit(seat, "day", [(seat + 1) % 8]))
    resolved = await store.turns.resolve("g1")
    dests = {d.dest for d in resolved.deliveries}
    assert {"public", "gm", "player"} <= dests
    keys = [d.key for d in await store.outbox.pending_deliveries("g1")]
    # the PM, the queued anonymous post shown to the GM (who may refuse it), then the resolve's
    assert len(keys) == len(set(keys)) == 2 + len(resolved.deliveries)
    assert all(k.startswith("g1/") for k in keys)
    # delivered once, never again; a claim is counted and survives a restart
    d0, d1 = keys[0], keys[1]
    assert await store.outbox.claim(d0) and await store.outbox.mark_delivered(d0)
    assert not await store.outbox.mark_delivered(d0) and not await store.outbox.claim(d0)
    assert await store.outbox.claim(d1)
    await store.close()
    async with Store(db) as again:
        pending = again.report.pending
        assert [d.key for d in pending] == keys[1:]
        assert pending[0].attempts == 1 and [d.key for d in again.report.uncertain] == [d1]
        assert len(pending[0].nonce) == 25
        anon = [d for d in pending if d.event.key == "anon.post"]
        assert anon and anon[0].dest == "public" and anon[0].event.args["text"] == "аноним"


@pytest.mark.sqlite_only
async def test_failed_commit_changes_nothing_and_a_retry_works(store, db, monkeypatch):
    await new_game(store)
    before, game = await table_dump(db), store.games.game("g1").to_dict()
    real_commit = store.backend.commit

    async def broken_commit() -> None:
        raise sqlite3.OperationalError("disk I/O error")

    monkeypatch.setattr(store.backend, "commit", broken_commit)
    with pytest.raises(StorageError) as err:
        await store.games.apply("g1", Command.submit(0, "day", [1]))
    assert str(db) in str(err.value) and "nothing was written" in str(err.value)
    assert await table_dump(db) == before and store.games.game("g1").to_dict() == game
    monkeypatch.setattr(store.backend, "commit", real_commit)
    applied = await store.games.apply("g1", Command.submit(0, "day", [1]))
    assert applied.seq == 1


async def test_a_game_written_by_another_process_is_reloaded_not_failed(store, db):
    """A stale in-memory game reloads on a version conflict instead of failing
    every command after it (formerly: the command failed with "second bot process")."""
    await new_game(store)
    other = Store(db) if not isinstance(db, Path) else None
    if other is None:  # SQLite: one process holds the file; write the row as another would
        await sql(db, "UPDATE games SET version = version + 1 WHERE game_id = 'g1'")
        await sql(db, "INSERT INTO commands (game_id, seq, tick, kind, args, result, user_id, request_id, created_at) "
                      "VALUES ('g1', 1, 0, 'deadline', '{}', NULL, NULL, NULL, 'x')")
    else:  # PostgreSQL: a second store on the same database really applies a command
        await other.open()
        try:
            await other.games.apply("g1", Command.submit(1, "day", [2], user_id=1002))
        finally:
            await other.close()
    applied = await store.games.apply("g1", Command.submit(0, "day", [1], user_id=1001))
    assert applied.seq == 2 and store.reloads == 1
    assert (await store.games.apply("g1", Command.submit(2, "day", [3]))).seq == 3
    assert (await sql(db, "SELECT COUNT(*) FROM commands WHERE game_id = 'g1'"))[0][0] == 3
    if other is not None:
        assert sorted(i.pid for i in store.games.game("g1").state.intents) == [0, 1, 2]


async def test_journal_rebuilds_the_game_exactly(store):
    await new_game(store, settings={"days": 2})
    g = store.games.game("g1")
    while not store.games.game("g1").state.over:
        g = store.games.game("g1")
        kind = g.info.kind
        for p in g.living():
            legal = [a for a in g.legal_actions(p.pid) if g.counts_as_action(a.ability)]
            if legal:
                a = legal[(p.pid + g.state.tick) % len(legal)]
                await store.games.apply("g1", Command.submit(p.pid, a.key, a.targets[: a.ability.targets], next(iter(a.options), None)))
        await store.games.apply("g1", Command.send_pm(1, 2, f"{kind} {g.state.tick}"))
        if g.state.tick == 2:
            await store.games.apply("g1", Command.gm("set_stat", pid=4, stat="tv", value=9))
        await store.turns.resolve("g1")
    rebuilt = await store.games.rebuild("g1")
    assert rebuilt.to_dict() == store.games.game("g1").to_dict()
    # memory holds the log the rules may still read (v8); the tables hold all of it
    whole = await store.games.rebuild("g1", whole=True)
    assert [e.key for e in await store.games.events("g1")] == [e.key for e in whole.state.events]
    assert await store.games.snapshot("g1") == whole.to_dict()


async def test_deadlines_and_overdue_games_on_start(db):
    async with Store(db) as s:
        await new_game(s, "early", deadline=T0)
        await new_game(s, "late", deadline=T0 + timedelta(days=1))
        await new_game(s, "none")
        assert s.games.deadline("early") == T0
        assert not await s.turns.set_deadline("early", T0)  # unchanged: nothing written
        assert s.games.due(T0 - timedelta(minutes=1)) == []
    # the bot was down past the first deadline: that game is due at once on start
    async with Store(db, clock=lambda: T0 + timedelta(hours=1)) as s:
        assert s.report.due == [Due("early", 0, "overdue", T0)]
        resolved = await s.turns.resolve("early", expect_tick=0, next_deadline=T0 + timedelta(hours=6))
        assert resolved.tick == 0 and s.games.deadline("early") == T0 + timedelta(hours=6)
        assert await s.turns.resolve("early", expect_tick=0) is None  # a late timer for tick 0: no-op
        assert s.games.due(T0 + timedelta(hours=1)) == []
        await s.turns.resolve("late")  # resolved without a next deadline: the old one is spent
        assert s.games.deadline("late") is None
        assert [d.game_id for d in s.games.due(T0 + timedelta(days=9))] == ["early"]
        assert await s.turns.set_deadline("none", T0 + timedelta(hours=2), user_id=9000)
        with pytest.raises(ValueError):
            await s.turns.set_deadline("none", datetime(2026, 3, 1))  # naive: refused
        assert [a["action"] for a in await s.games.gm_actions("none")] == ["deadline"]


async def test_finished_games_stay_in_the_database(db):
    async with Store(db) as s:
        await new_game(s, settings={"days": 1})
        while (await s.turns.resolve("g1")) and not s.games.game("g1").state.over:
            pass
        assert s.games.info("g1").status == "over"
        for d in await s.outbox.pending_deliveries():
            await s.outbox.mark_delivered(d.key)
    async with Store(db) as s:
        # its end not shown yet (the bot's reveal): kept at hand so that it is not lost
        assert s.games.has("g1") and s.games.info("g1").status == "over"
        await s.meta.set_meta("g1", {**s.games.info("g1").meta, "revealed": True})
    async with Store(db) as s:
        assert not s.games.has("g1") and s.report.games == []
        info = await s.games.find("g1")
        assert info.status == "over" and info.tick == 3 and await s.games.find("nope") is None


async def test_the_live_game_is_the_committed_one(store):
    """A refused or failed command never leaves traces in memory: the game in memory is the
    committed snapshot (a command runs on the live game and gives it back when not committed)."""
    await new_game(store)
    await store.games.apply("g1", Command.submit(0, "day", [1]))
    assert store.games.game("g1").to_dict() == (await store.games.rebuild("g1")).to_dict()
    with pytest.raises(ActionError):
        await store.games.apply("g1", Command.submit(0, "day", [0]))
    assert [i.targets for i in store.games.game("g1").state.intents] == [[1]]
    assert store.games.game("g1").to_dict() == (await store.games.rebuild("g1")).to_dict()


async def test_a_cancelled_caller_does_not_split_memory_from_disk(store, monkeypatch):
    """Cancelled while its COMMIT is under way, a command still lands in memory and on disk."""
    await new_game(store)
    gate, real_commit = asyncio.Event(), store.backend.commit

    async def slow_commit() -> None:
        await gate.wait()
        await real_commit()

    monkeypatch.setattr(store.backend, "commit", slow_commit)
    task = asyncio.create_task(store.games.apply("g1", Command.submit(0, "day", [1])))
    for _ in range(100):
        await asyncio.sleep(0.01)
        if store.db.lock.locked():
            break
    task.cancel()
    gate.set()
    with pytest.raises(asyncio.CancelledError):
        await task
    for _ in range(100):
        if store.games.info("g1").version == 1:
            break
        await asyncio.sleep(0.01)
    assert [e["kind"] for e in await store.games.journal("g1")] == ["submit"]
    assert store.games.info("g1").version == 1 and store.games.game("g1").pending(0)
    assert (await store.games.apply("g1", Command.send_pm(0, 1, "дальше"))).seq == 2


def _hold_at_commit(store: Store, fail: bool = False) -> tuple[threading.Event, threading.Event]:
    """Hold a command's one-trip batch in the database's thread just before its COMMIT (the
    store's fault point runs there) until the second event is set; with ``fail`` it then
    raises there, as a failing disk would."""
    entered, gate = threading.Event(), threading.Event()

    def fault(name: str) -> None:
        if name == "apply.before_commit":
            entered.set()
            gate.wait(5)
            if fail:
                raise sqlite3.OperationalError("disk I/O error")

    store.fault = fault
    return entered, gate


async def _cancel_when(entered: threading.Event, gate: threading.Event, task: asyncio.Task) -> None:
    while not entered.is_set():
        await asyncio.sleep(0.005)
    task.cancel()
    await asyncio.sleep(0.02)
    task.cancel()  # a second cancellation while it waits changes nothing either
    await asyncio.sleep(0.02)
    gate.set()


@pytest.mark.sqlite_only
async def test_a_caller_cancelled_in_the_one_trip_batch_finds_memory_as_committed(store):
    """The command's one batch (no task of its own around it) is cancelled while its
    transaction is in the database's thread: the transaction still commits, and when the
    caller sees the cancellation the game in memory is already the committed one."""
    await new_game(store)
    assert store.backend.batch_outlives_cancel()
    entered, gate = _hold_at_commit(store)
    task = asyncio.create_task(store.games.apply("g1", Command.submit(0, "day", [1])))
    await _cancel_when(entered, gate, task)
    with pytest.raises(asyncio.CancelledError):
        await task
    assert store.games.info("g1").version == 1 and [i.targets for i in store.games.game("g1").pending(0)] == [[1]]
    assert [e["kind"] for e in await store.games.journal("g1")] == ["submit"]
    assert store.games.game("g1").to_dict() == (await store.games.rebuild("g1")).to_dict()
    store.fault = None
    assert (await store.games.apply("g1", Command.send_pm(0, 1, "дальше"))).seq == 2


@pytest.mark.sqlite_only
async def test_a_caller_cancelled_in_a_failing_batch_finds_nothing_changed(store):
    """The same, but the transaction fails in the thread: nothing is written, the caller sees
    the cancellation and the game in memory is the one before the command."""
    await new_game(store)
    entered, gate = _hold_at_commit(store, fail=True)
    task = asyncio.create_task(store.games.apply("g1", Command.submit(0, "day", [1])))
    await _cancel_when(entered, gate, task)
    with pytest.raises(asyncio.CancelledError):
        await task
    assert store.games.info("g1").version == 0 and not store.games.game("g1").pending(0)
    assert await store.games.journal("g1") == []
    assert store.games.game("g1").to_dict() == (await store.games.rebuild("g1")).to_dict()


@pytest.mark.sqlite_only
async def test_a_cancelled_command_with_a_timeout_is_a_timeout(store):
    """``asyncio.timeout`` around a command that outlives it: the command lands (memory and
    disk alike) and the caller gets the timeout, not a bare cancellation."""
    await new_game(store)
    entered, gate = _hold_at_commit(store)
    threading.Timer(0.2, gate.set).start()
    with pytest.raises(TimeoutError):
        async with asyncio.timeout(0.05):
            await store.games.apply("g1", Command.submit(0, "day", [1]))
            await asyncio.sleep(1)
    assert entered.is_set() and store.games.info("g1").version == 1 and store.games.game("g1").pending(0)
    assert store.games.game("g1").to_dict() == (await store.games.rebuild("g1")).to_dict()


async def test_bonus_choice_and_anon_refusal_are_journaled_and_replayed(store, db):
    """Стратег's choice and the GM's refusal of an anonymous post are commands like any other:
    journaled, replayed by ``rebuild`` and still in force after the store is reopened."""
    from engine import PlayerSpec

    players = [PlayerSpec("Аня", "Хозяин трактира", "Стратег", user_id=1), PlayerSpec("Борис", "Ростовщик", user_id=2),
               PlayerSpec("Вера", "Ростовщик", user_id=3)]
    await new_game(store, players=players)
    chose = await store.games.apply("g1", Command.choose_bonus(0, "tv", user_id=1))
    assert chose.result == "tv" and [e.key for e in chose.events] == ["private.bonus_chosen", "gm.bonus_chosen"]
    posted = await store.games.apply("g1", Command.post_anon(1, "не по теме", user_id=2))
    refused = await store.games.apply("g1", Command.gm("refuse_anon", seq=posted.result["seq"], user_id=9000))
    assert [(d.dest, d.player) for d in refused.deliveries] == [("gm", None), ("player", 1)]
    assert [a["action"] for a in await store.games.gm_actions("g1")] == ["gm_refuse_anon"]
    game = store.games.game("g1")
    assert game.true_stat(game.player(0), "tv") == game.player(0).stats["tv"] + 2 and not game.state.anons
    assert game.player(1).anon_sent == {"1": 0}
    assert (await store.games.rebuild("g1")).to_dict() == game.to_dict()
    with pytest.raises(ActionError) as err:
        await store.games.apply("g1", Command.gm("refuse_anon", seq=posted.result["seq"], user_id=9000))
    assert err.value.key == "unknown_anon"
    await store.close()
    async with Store(db) as again:
        g = again.games.game("g1")
        assert g.bonus_choice(g.player(0))["stat"] == "tv" and g.bonus_choice(g.player(0))["chosen"]
        assert [e["kind"] for e in await again.games.journal("g1")] == ["choose_bonus", "post_anon", "gm_refuse_anon"]
