"""The bot's own data: the v3 → v4 migration (one lobby per channel, the
channel → game map, meta_version), meta and lobbies changed by function without lost updates,
GM deadline changes recognised when repeated, and one process per database."""

from __future__ import annotations

import asyncio
import json
import os
import sqlite3
import subprocess
import sys
import textwrap
from dataclasses import asdict
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from config import load_ruleset
from engine import Game
from storage import DatabaseInUse, StorageError, Store, latest_version
from storage.schema import migrate
from storage.sqlite import SqliteBackend
from storage.store import dumps, fingerprint

from .conftest import PLAYERS

ROOT = Path(__file__).resolve().parents[2]
STAMP = "2026-02-01T10:00:00.000000Z"


async def test_a_version_3_database_gains_lobby_channels_and_the_channel_map(tmp_path):
    path = tmp_path / "v3.sqlite3"
    db = SqliteBackend(path)
    await db.connect()
    assert await migrate(db, upto=3) == (0, 3)
    await db.close()
    rules = load_ruleset("godfather")
    game = Game.new(rules, 11, PLAYERS)
    meta = {"lang": "ru", "revealed": True, "channels": {"public": 501, "player:0": 502, "category": 500}}
    con = sqlite3.connect(path)
    con.execute(
        "INSERT INTO games VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        ("g-old", 77, "godfather", fingerprint(rules), 11, dumps([asdict(p) for p in PLAYERS]), "{}", "[9000]", dumps(meta),
         "over", game.state.tick, 0, dumps(game.to_dict()), None, None, None, STAMP, STAMP),
    )
    lobby = {"channel_id": 42, "players": [], "gms": [1]}
    for n, lid in enumerate(["first", "second"]):  # two in one channel, as the old bot allowed
        con.execute("INSERT INTO lobbies VALUES (?, ?, ?, ?, ?)", (lid, 77, json.dumps(lobby), f"2026-02-0{n + 1}T00:00:00.000000Z", STAMP))
    con.execute("INSERT INTO lobbies VALUES (?, ?, ?, ?, ?)", ("third", 77, json.dumps({**lobby, "channel_id": 43}), STAMP, STAMP))
    con.commit()
    con.close()
    async with Store(path) as s:
        assert (s.report.schema_from, s.report.schema_to) == (3, latest_version())
        assert set(await s.lobbies.lobbies(77)) == {"first", "second", "third"}, "no sign-up is dropped"
        # the finished game is not loaded, yet its channels still name it
        assert not s.games.has("g-old")
        assert [s.meta.game_of_channel(c) for c in (500, 501, 502, 999)] == ["g-old", "g-old", "g-old", None]
        info = await s.games.find("g-old")
        assert info.meta == meta and info.meta_version == 0
        # the channel of the oldest lobby is now taken: a new lobby there is refused
        assert await s.lobbies.create_lobby("new", {"channel_id": 42}, guild_id=77, channel_id=42) == "first"
        assert await s.lobbies.create_lobby("new", {"channel_id": 44}, guild_id=77, channel_id=44) is None
        await s.meta.update_meta("g-old", lambda m: m["channels"].update({"faction:f1": 503}))
    con = sqlite3.connect(path)
    rows = dict(con.execute("SELECT lobby_id, channel_id FROM lobbies").fetchall())
    version = con.execute("SELECT meta_version FROM games").fetchone()[0]
    con.close()
    assert rows == {"first": 42, "second": None, "third": 43, "new": 44}
    assert version == 1
    async with Store(path) as s:
        assert s.meta.game_of_channel(503) == "g-old"


async def test_meta_changes_at_once_are_all_kept(store):
    await store.games.create_game("godfather", 3, PLAYERS, game_id="g1", meta={"lang": "ru"})

    async def change(i: int) -> None:
        await asyncio.sleep(0)
        await store.meta.update_meta("g1", lambda m: m.setdefault("langs", {}).update({str(i): "en"}))

    await asyncio.gather(*(change(i) for i in range(8)), store.meta.update_meta("g1", lambda m: m.update(paused={"tick": 0})))
    meta = store.games.info("g1").meta
    assert meta["paused"] == {"tick": 0} and sorted(meta["langs"]) == [str(i) for i in range(8)]
    assert store.games.info("g1").meta_version == 9
    assert store.games.info("g1").version == 0, "meta is not a journal entry"
    # a function that raises writes nothing
    with pytest.raises(ZeroDivisionError):
        await store.meta.update_meta("g1", lambda m: m.update(x=1 / 0))
    assert "x" not in store.games.info("g1").meta and store.games.info("g1").meta_version == 9


async def test_lobby_updates_at_once_all_land(store):
    assert await store.lobbies.create_lobby("L", {"channel_id": 5, "players": []}, guild_id=1, channel_id=5) is None

    async def join(uid: int) -> None:
        await asyncio.sleep(0)
        await store.lobbies.update_lobby("L", lambda d: d["players"].append(uid))

    await asyncio.gather(*(join(u) for u in range(20)))
    assert sorted((await store.lobbies.lobbies())["L"]["players"]) == list(range(20))
    assert await store.lobbies.update_lobby("gone", lambda d: None) is None


async def test_a_repeated_deadline_change_is_recognised(tmp_path):
    now = [datetime(2026, 3, 1, 12, 0, tzinfo=UTC)]
    async with Store(tmp_path / "d.sqlite3", clock=lambda: now[0]) as s:
        base = now[0] + timedelta(hours=3)
        await s.games.create_game("godfather", 3, PLAYERS, game_id="g1", deadline=base)

        def plus(minutes: int):
            return lambda info: (info.deadline + timedelta(minutes=minutes), None)

        first = await s.turns.change_deadline("g1", plus(60), user_id=9, key="move:9:+60")
        assert first.changed and not first.duplicate and s.games.deadline("g1") == base + timedelta(minutes=60)
        again = await s.turns.change_deadline("g1", plus(60), user_id=9, key="move:9:+60")
        assert again.duplicate and again.first_at == now[0] and s.games.deadline("g1") == base + timedelta(minutes=60)
        await asyncio.gather(s.turns.change_deadline("g1", plus(10), user_id=9, key="move:9:+10"),
                             s.turns.change_deadline("g1", plus(-5), user_id=8, key="move:8:-5"))
        assert s.games.deadline("g1") == base + timedelta(minutes=65)
        now[0] += timedelta(minutes=11)
        assert not (await s.turns.change_deadline("g1", plus(60), user_id=9, key="move:9:+60")).duplicate
        assert s.games.deadline("g1") == base + timedelta(minutes=125)
        journal = [e for e in await s.games.journal("g1") if e["kind"] == "deadline"]
        assert [e["request_id"].split("#")[0] for e in journal] == ["move:9:+60", "move:9:+10", "move:8:-5", "move:9:+60"]
        assert len(await s.games.gm_actions("g1")) == 4
        # a pause: the meta and the deadline in one transaction
        res = await s.turns.change_deadline("g1", lambda info: (None, lambda m: m.update(paused=True)), user_id=9)
        assert res.changed and s.games.deadline("g1") is None and s.games.info("g1").meta["paused"] is True
        assert (await s.games.rebuild("g1")).to_dict() == s.games.game("g1").to_dict()


HOLDER = textwrap.dedent("""
    import asyncio, sys
    from storage import Store

    async def main():
        async with Store(sys.argv[1]) as s:
            print("ready", flush=True)
            await asyncio.sleep(120)

    asyncio.run(main())
""")


async def test_a_second_process_on_one_database_refuses_to_start(tmp_path):
    db = tmp_path / "shared.sqlite3"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    holder = subprocess.Popen([sys.executable, "-c", HOLDER, str(db)], stdout=subprocess.PIPE, text=True, env=env, cwd=tmp_path)
    try:
        assert holder.stdout.readline().strip() == "ready"
        with pytest.raises(DatabaseInUse) as err:
            await Store(db).open()
        message = str(err.value)
        assert str(db) in message and f"pid {holder.pid}" in message and isinstance(err.value, StorageError)
        # the CLI says so (from the catalog) and exits non-zero, before it contacts Discord
        run = subprocess.run(
            [sys.executable, "-m", "altmafia", "run"], capture_output=True, text=True, timeout=120, cwd=tmp_path,
            env={**env, "ALTMAFIA_DB": str(db), "DISCORD_TOKEN": "not-a-real-token", "ALTMAFIA_LANG": "ru"},
        )
        assert run.returncode == 1, (run.stdout, run.stderr)
        assert "уже занята другим процессом altmafia" in run.stderr and str(db) in run.stderr and f"pid {holder.pid}" in run.stderr
    finally:
        holder.kill()
        holder.wait()
    # the holder died (SIGKILL): the kernel dropped its lock, the database opens again
    async with Store(db) as s:
        assert s.report.schema_to >= 4
