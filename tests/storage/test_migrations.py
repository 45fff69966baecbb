"""A database written at schema version 1 opens with today's code: data kept, schema upgraded."""

from __future__ import annotations

import json
import sqlite3
from dataclasses import asdict

import pytest

from config import load_ruleset
from engine import Game
from storage import Command, StorageError, Store, latest_version
from storage.schema import migrate, migrations
from storage.sqlite import SqliteBackend
from storage.store import delivery_key, destinations, dumps, fingerprint

from .conftest import PLAYERS

STAMP = "2026-02-01T10:00:00.000000Z"


async def make_v1_database(path) -> Game:
    """What a build at schema version 1 left: a game mid-way, its journal, events, outbox."""
    db = SqliteBackend(path)
    await db.connect()
    assert await migrate(db, upto=1) == (0, 1)
    await db.close()

    rules = load_ruleset("godfather")
    game = Game.new(rules, 11, PLAYERS)
    journal = [
        (Command.submit(0, "day", [1], user_id=1001), None),
        (Command.send_pm(2, 3, "старое письмо", user_id=1003), None),
        (Command.gm("set_stat", pid=4, stat="vo", value=3, user_id=9000), None),
        (None, 9000),  # a resolve forced by the GM
        (Command.send_pm(1, 6, "после резолва", user_id=1002), None),
    ]
    con = sqlite3.connect(path)
    events_rows, outbox_rows, command_rows = [], [], []
    for seq, (cmd, forced) in enumerate(journal, start=1):
        first = len(game.state.events)
        tick = game.state.tick
        if cmd is None:
            game.resolve()
            command_rows.append(("g-old", seq, tick, "resolve", json.dumps({"tick": tick}), None, forced, None, STAMP))
        else:
            cmd.run(game)
            command_rows.append(("g-old", seq, tick, cmd.kind, dumps(cmd.args), None, cmd.user_id, None, STAMP))
        for idx, ev in enumerate(game.state.events[first:], start=first):
            events_rows.append(("g-old", idx, seq, ev.tick, ev.key, ev.audience, dumps(ev.ids), dumps(ev.args)))
            for order, (kind, ident) in enumerate(destinations(ev)):
                outbox_rows.append((delivery_key("g-old", ev.tick, idx, kind, ident), "g-old", ev.tick, idx, order, kind, ident, STAMP))
    con.execute(
        "INSERT INTO games VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        ("g-old", 77, "godfather", fingerprint(rules), 11, dumps([asdict(p) for p in PLAYERS]), "{}", "[9000]", "{}",
         "running", game.state.tick, len(journal), dumps(game.to_dict()), game.state.tick, "2026-02-01T15:00:00.000000Z",
         None, STAMP, STAMP),
    )
    con.executemany("INSERT INTO commands VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)", command_rows)
    con.executemany("INSERT INTO events VALUES (?, ?, ?, ?, ?, ?, ?, ?)", events_rows)
    con.executemany("INSERT INTO outbox VALUES (?, ?, ?, ?, ?, ?, ?, ?, NULL)", outbox_rows)
    delivered = [r[0] for r in outbox_rows[:3]]
    con.executemany("UPDATE outbox SET delivered_at = ? WHERE delivery_key = ?", [(STAMP, k) for k in delivered])
    con.commit()
    con.close()
    return game


async def test_version_1_database_is_upgraded_and_kept(tmp_path):
    path = tmp_path / "old.sqlite3"
    old_game = await make_v1_database(path)
    con = sqlite3.connect(path)
    before = {t: con.execute(f"SELECT * FROM {t} ORDER BY 1, 2").fetchall() for t in ("games", "commands", "events")}
    outbox_before = con.execute("SELECT delivery_key, delivered_at FROM outbox ORDER BY delivery_key").fetchall()
    con.close()

    async with Store(path) as store:
        report = store.report
        assert (report.schema_from, report.schema_to) == (1, latest_version())
        assert not report.created
        # its deadline passed long ago (while "the bot was down"): due at once
        assert [(d.game_id, d.tick, d.reason) for d in report.due] == [("g-old", old_game.state.tick, "overdue")]
        # the game, its journal and its events are as they were
        assert await store.games.snapshot("g-old") == old_game.to_dict()  # the log in its tables (v8)
        assert store.games.info("g-old").deadline is not None
        assert [(e["seq"], e["kind"]) for e in await store.games.journal("g-old")] == [
            (1, "submit"), (2, "send_pm"), (3, "gm_set_stat"), (4, "resolve"), (5, "send_pm")]
        assert (await store.games.rebuild("g-old", whole=True)).to_dict() == old_game.to_dict()
        # upgraded: GM actions filled from the journal, delivery attempts start at zero
        assert [(a["seq"], a["action"], a["user_id"]) for a in await store.games.gm_actions("g-old")] == [
            (3, "gm_set_stat", 9000), (4, "resolve", 9000)]
        pending = report.pending
        assert len(pending) == len(outbox_before) - 3 and all(d.attempts == 0 for d in pending)
        assert {d.key for d in pending} == {k for k, at in outbox_before if at is None}
        # and the game goes on with today's code
        applied = await store.games.apply("g-old", Command.send_pm(3, 2, "новое письмо"))
        assert applied.seq == 6
        assert (await store.turns.resolve("g-old")).tick == old_game.state.tick

    con = sqlite3.connect(path)
    try:
        versions = [r[0] for r in con.execute("SELECT version FROM schema_version ORDER BY version")]
        commands = con.execute("SELECT * FROM commands ORDER BY 1, 2").fetchall()
        events = con.execute("SELECT * FROM events ORDER BY 1, 2").fetchall()
        cols = [r[1] for r in con.execute("PRAGMA table_info(outbox)")]
    finally:
        con.close()
    assert versions == list(range(1, latest_version() + 1))
    assert commands[: len(before["commands"])] == before["commands"]
    assert events[: len(before["events"])] == before["events"]
    assert {"attempts", "last_attempt_at", "last_error"} <= set(cols)


async def test_migrating_again_does_nothing(tmp_path):
    path = tmp_path / "m.sqlite3"
    async with Store(path) as s:
        assert s.report.schema_from == 0 and s.transactions["migrate"] == latest_version()
    async with Store(path) as s:
        assert s.report.schema_from == s.report.schema_to == latest_version()
        assert s.transactions["migrate"] == 0


def test_migration_files_are_numbered_and_parse():
    found = migrations()
    assert [m.version for m in found] == list(range(1, len(found) + 1))
    for m in found:
        stmts = m.statements()
        assert stmts and all(s and not s.endswith(";") for s in stmts)
        assert any(s.startswith(("CREATE TABLE", "ALTER TABLE", "CREATE INDEX")) for s in stmts)


def test_an_installation_without_migration_files_says_so(tmp_path):
    with pytest.raises(StorageError, match="installation is incomplete"):
        migrations(tmp_path)


async def make_v7_database(path) -> Game:
    """What a build at schema version 7 left: a game on day 4 whose snapshot still carries
    its whole event log and action history (the events in their table too, as then)."""
    import contextlib
    import random

    from engine import ActionError

    from ..players import submit_random

    db = SqliteBackend(path)
    await db.connect()
    assert await migrate(db, upto=7) == (0, 7)
    await db.close()
    rules = load_ruleset("godfather")
    game = Game.new(rules, 11, PLAYERS)
    rnd = random.Random(4)
    while game.state.tick < 10 and not game.state.over:
        for p in game.living():
            legal = [a for a in game.legal_actions(p.pid) if game.counts_as_action(a.ability)]
            if legal:
                with contextlib.suppress(ActionError):
                    submit_random(game, p.pid, rnd, legal)
        game.resolve()
    assert game.state.history and game.recall_from() > 0  # memory will not hold the whole log
    con = sqlite3.connect(path)
    cols = "game_id, guild_id, ruleset, ruleset_fingerprint, seed, players, settings, gm_user_ids, meta, status, tick, version, state, created_at, updated_at"
    con.execute(f"INSERT INTO games ({cols}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                ("g7", None, "godfather", fingerprint(rules), 11, dumps([asdict(p) for p in PLAYERS]), "{}", "[]", "{}",
                 "running", game.state.tick, 0, dumps(game.to_dict()), STAMP, STAMP))
    con.executemany("INSERT INTO events VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                    [("g7", idx, 0, e.tick, e.key, e.audience, dumps(e.ids), dumps(e.args)) for idx, e in enumerate(game.state.events)])
    con.commit()
    con.close()
    return game


async def test_version_7_snapshots_lose_their_log_to_the_tables(tmp_path):
    """Migration 0008: the event log and the history leave the snapshot, nothing is lost, and
    the game goes on exactly as the engine plays it."""
    path = tmp_path / "v7.sqlite3"
    old = await make_v7_database(path)
    async with Store(path) as store:
        assert (store.report.schema_from, store.report.schema_to) == (7, latest_version())
        assert store.transactions["migrate.split"] == 1
        # the whole game is in the database: the snapshot and its log tables
        assert await store.games.snapshot("g7") == old.to_dict()
        assert [e.key for e in await store.games.events("g7")] == [e.key for e in old.state.events]
        # memory holds none of the log; a resolve reads from the tick the rules may still read on
        mem = store.games.game("g7")
        assert mem.state.events == [] and mem.state.history == []
        recall = old.recall_from()
        dry = await store.games.preview("g7")
        first = next(i for i, e in enumerate(old.state.events) if e.tick >= recall)
        assert first > 0 and dry.state.events == old.state.events[first:]
        first = next(i for i, h in enumerate(old.state.history) if h["tick"] >= recall)
        assert first > 0 and dry.state.history == old.state.history[first:]
        # the game goes on as in the engine: the same events, at the same indices
        want = old.resolve()
        done = await store.turns.resolve("g7")
        assert done.events == want
        assert [d.event_idx for d in done.deliveries][:1] == [len(old.state.events) - len(want)]
    con = sqlite3.connect(path)
    try:
        state = json.loads(con.execute("SELECT state FROM games WHERE game_id = 'g7'").fetchone()[0])
        apart = con.execute("SELECT log_apart FROM games WHERE game_id = 'g7'").fetchone()[0]
        history = con.execute("SELECT COUNT(*) FROM history WHERE game_id = 'g7'").fetchone()[0]
    finally:
        con.close()
    assert state["events"] == [] and state["history"] == [] and apart == 1
    assert history == len(old.state.history)
    async with Store(path) as store:  # split once: a second start has nothing to move
        assert store.transactions["migrate.split"] == 0
        assert await store.games.snapshot("g7") == old.to_dict()


async def test_version_9_parts_are_found_by_their_game(tmp_path):
    """Migration 0010: a game's unsent parts and the highest staging order are read through
    indexes of their own, not through every unsent part of every game."""
    path = tmp_path / "v9.sqlite3"
    db = SqliteBackend(path)
    await db.connect()
    assert await migrate(db, upto=9) == (0, 9)
    await db.close()
    async with Store(path) as store:
        assert (store.report.schema_from, store.report.schema_to) == (9, latest_version())
    con = sqlite3.connect(path)
    try:
        def plan(sql: str, *args: object) -> str:
            return " ".join(str(r[-1]) for r in con.execute(f"EXPLAIN QUERY PLAN {sql}", args))

        assert "outbox_parts_by_game (game_id=? AND sent_at=?)" in plan(
            "SELECT batch_id FROM outbox_parts WHERE sent_at IS NULL AND game_id = ? ORDER BY batch_ord, part_idx", "g1")
        assert "outbox_parts_by_order" in plan("SELECT MAX(batch_ord) FROM outbox_parts")
    finally:
        con.close()
