"""A database that cannot be used stops the start with a clear message naming the file.

Never a silent empty start: the file is left exactly as it was, for a human to look at.
"""

from __future__ import annotations

import random
import sqlite3
from pathlib import Path

import pytest

from storage import Command, StorageError, Store, latest_version

from .conftest import new_game


async def open_fails(path: Path, *words: str) -> str:
    store = Store(path)
    with pytest.raises(StorageError) as err:
        await store.open()
    msg = str(err.value)
    assert str(path) in msg, msg
    for w in words:
        assert w in msg, msg
    assert store.games() == []
    return msg


async def make_db(path: Path, ticks: int = 3) -> None:
    async with Store(path) as s:
        await new_game(s)
        for t in range(ticks):
            for seat in range(8):
                await s.apply("g1", Command.send_pm(seat, (seat + 1 + t) % 8, "x" * 300))
            await s.resolve("g1")


async def test_garbage_bytes(tmp_path):
    path = tmp_path / "garbage.sqlite3"
    data = bytes(random.Random(3).randrange(256) for _ in range(8192))
    path.write_bytes(data)
    await open_fails(path, "not an SQLite database")
    assert path.read_bytes() == data


async def test_a_text_file(tmp_path):
    path = tmp_path / "notes.sqlite3"
    path.write_text("ALTMAFIA_DB=./altmafia.sqlite3\n", encoding="utf-8")
    await open_fails(path, "not an SQLite database")


async def test_a_directory_instead_of_a_file(tmp_path):
    path = tmp_path / "games.sqlite3"
    path.mkdir()
    await open_fails(path, "is a directory")


async def test_a_missing_folder(tmp_path):
    await open_fails(tmp_path / "no" / "such" / "games.sqlite3", "does not exist")
    assert not (tmp_path / "no").exists()


async def test_a_database_from_a_newer_version(tmp_path):
    path = tmp_path / "newer.sqlite3"
    await make_db(path, ticks=1)
    con = sqlite3.connect(path)
    con.execute("INSERT INTO schema_version VALUES (?, 'from_the_future', 'x')", (latest_version() + 1,))
    con.commit()
    con.close()
    await open_fails(path, "newer altmafia", f"schema version {latest_version() + 1}")
    con = sqlite3.connect(path)
    assert con.execute("SELECT COUNT(*) FROM commands").fetchone()[0] == 9  # untouched
    con.close()


async def test_someone_elses_sqlite_database(tmp_path):
    path = tmp_path / "other.sqlite3"
    con = sqlite3.connect(path)
    con.execute("CREATE TABLE users (id INTEGER PRIMARY KEY, name TEXT)")
    con.commit()
    con.close()
    await open_fails(path, "not an altmafia one", "users")


async def test_damaged_pages(tmp_path):
    path = tmp_path / "damaged.sqlite3"
    await make_db(path)
    data = bytearray(path.read_bytes())
    assert len(data) >= 6 * 4096
    data[3 * 4096 : 4 * 4096] = bytes(random.Random(4).randrange(256) for _ in range(4096))
    path.write_bytes(bytes(data))
    await open_fails(path, "damaged")
    assert path.read_bytes() == bytes(data)


async def test_a_truncated_file(tmp_path):
    path = tmp_path / "truncated.sqlite3"
    await make_db(path)
    data = path.read_bytes()[: len(path.read_bytes()) // 2]
    path.write_bytes(data)
    await open_fails(path)
    assert path.read_bytes() == data


async def test_an_unreadable_game_snapshot(tmp_path):
    path = tmp_path / "snapshot.sqlite3"
    await make_db(path, ticks=1)
    con = sqlite3.connect(path)
    con.execute("UPDATE games SET state = substr(state, 1, 100) WHERE game_id = 'g1'")
    con.commit()
    con.close()
    msg = await open_fails(path, "game 'g1'", "cannot be loaded")
    assert "JSONDecodeError" in msg


async def test_a_game_whose_ruleset_is_gone(tmp_path):
    path = tmp_path / "ruleset.sqlite3"
    await make_db(path, ticks=1)
    con = sqlite3.connect(path)
    con.execute("UPDATE games SET ruleset = 'lost_ruleset' WHERE game_id = 'g1'")
    con.commit()
    con.close()
    await open_fails(path, "game 'g1'", "lost_ruleset")
