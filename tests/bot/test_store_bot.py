"""What the bot added to the store: a game's meta, lobbies (migration 0003), batched claims."""

from __future__ import annotations

from engine import PlayerSpec
from storage import Command, Store, latest_version
from storage.schema import migrate
from storage.sqlite import SqliteBackend

PLAYERS = [PlayerSpec(name=n, role="?", character="?", user_id=i + 1) for i, n in enumerate("АБВГ")]


async def test_meta_lobbies_and_batches_survive_a_reopen(tmp_path):
    db = tmp_path / "g.sqlite3"
    async with Store(db) as s:
        await s.games.create_game("godfather", 5, PLAYERS, game_id="g1", meta={"lang": "ru"})
        v = s.games.info("g1").version
        await s.meta.set_meta("g1", {"lang": "ru", "channels": {"public": 42}})
        assert s.games.info("g1").version == v  # not a journal entry
        await s.lobbies.save_lobby("ab12", {"players": [1]}, guild_id=7)
        await s.lobbies.save_lobby("ab12", {"players": [1, 2]}, guild_id=7)
        await s.lobbies.save_lobby("cd34", {"players": []}, guild_id=8)
        await s.games.apply("g1", Command.send_pm(0, 1, "привет"))
        keys = [d.key for d in await s.outbox.pending_deliveries("g1")]
        assert keys
        before = s.transactions["claim"]
        assert await s.outbox.claim_many(keys) == len(keys)
        assert s.transactions["claim"] == before + 1
        assert await s.outbox.mark_delivered_many(keys) == len(keys)
        assert await s.outbox.mark_delivered_many(keys) == 0
    async with Store(db) as s:
        assert s.games.info("g1").meta == {"lang": "ru", "channels": {"public": 42}}
        assert await s.lobbies.lobbies(7) == {"ab12": {"players": [1, 2]}}
        assert set(await s.lobbies.lobbies()) == {"ab12", "cd34"}
        assert await s.lobbies.delete_lobby("ab12") and not await s.lobbies.delete_lobby("ab12")
        assert not await s.outbox.pending_deliveries("g1")


async def test_a_version_2_database_gains_the_lobbies(tmp_path):
    path = tmp_path / "old.sqlite3"
    db = SqliteBackend(path)
    await db.connect()
    assert await migrate(db, upto=2) == (0, 2)
    await db.close()
    async with Store(path) as s:
        assert (s.report.schema_from, s.report.schema_to) == (2, latest_version())
        await s.lobbies.save_lobby("x", {"ok": True})
        assert await s.lobbies.lobbies() == {"x": {"ok": True}}
