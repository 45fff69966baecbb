"""A database that cannot be used stops the start with a clear message naming the file.

Never a silent empty start: the file is left exactly as it was, for a human to look at.
"""

from __future__ import annotations

import os
import random
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from storage import Command, StorageError, Store, latest_version
from storage.sqlite import SqliteBackend

from .conftest import new_game


async def open_fails(path: Path, *words: str) -> str:
    store = Store(path)
    with pytest.raises(StorageError) as err:
        await store.open()
    msg = str(err.value)
    assert str(path) in msg, msg
    for w in words:
        assert w in msg, msg
    assert store.games.games() == []
    return msg


async def make_db(path: Path, ticks: int = 3) -> None:
    async with Store(path) as s:
        await new_game(s)
        for t in range(ticks):
            for seat in range(8):
                await s.games.apply("g1", Command.send_pm(seat, (seat + 1 + t) % 8, "x" * 300))
            await s.turns.resolve("g1")


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


async def test_a_large_file_is_checked_once_the_store_is_open(tmp_path):
    """A file too large to check before the start (here: any) opens; the check runs in the
    background, finds the damaged page, and from then on every statement fails with the same
    message: nothing more is written into the damaged file."""
    path = tmp_path / "large.sqlite3"
    await make_db(path)
    con = sqlite3.connect(path)
    page = con.execute("SELECT MAX(pageno) FROM dbstat WHERE name = 'commands' AND pagetype = 'leaf'").fetchone()[0]
    con.close()
    data = bytearray(path.read_bytes())
    data[(page - 1) * 4096 : page * 4096] = bytes(random.Random(5).randrange(256) for _ in range(4096))
    path.write_bytes(bytes(data))
    store = Store(backend=SqliteBackend(path, check_at_open_bytes=0))
    try:
        report = await store.open()
        assert [g.game_id for g in report.games] == ["g1"]
        with pytest.raises(StorageError) as err:
            await store.backend.check()
        msg = str(err.value)
        assert str(path) in msg and "damaged" in msg and "restore the file from a backup" in msg, msg
        with pytest.raises(StorageError) as later:
            await store.games.apply("g1", Command.send_pm(0, 1, "x"))
        assert str(later.value) == msg
    finally:
        await store.close()
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
    # a start reads the games' rows only: the snapshot is read when the game is first used,
    # and that use fails with the sentence, the database left as it was
    before = path.read_bytes()
    async with Store(path) as store:
        assert [g.game_id for g in store.games.games()] == ["g1"]
        with pytest.raises(StorageError) as err:
            store.games.game("g1")
        with pytest.raises(StorageError):
            await store.games.apply("g1", Command.send_pm(0, 1, "x"))
    msg = str(err.value)
    assert str(path) in msg and "game 'g1'" in msg and "cannot be loaded" in msg and "restore the database" in msg, msg
    assert "JSONDecodeError" in msg or "JSONDecodeError" in repr(err.value.__cause__), msg
    assert path.read_bytes() == before


async def test_a_game_whose_ruleset_is_gone(tmp_path):
    path = tmp_path / "ruleset.sqlite3"
    await make_db(path, ticks=1)
    con = sqlite3.connect(path)
    con.execute("UPDATE games SET ruleset = 'lost_ruleset' WHERE game_id = 'g1'")
    con.commit()
    con.close()
    await open_fails(path, "game 'g1'", "lost_ruleset")


# ---- a good database the bot cannot write is not "damaged" ------------------------------
# Root writes through any file mode; these tests then open the store in a child process that
# lacks the capability (CAP_DAC_OVERRIDE), so the file's and the folder's modes apply as they do
# to the user a bot runs as.
ROOT = Path(__file__).resolve().parents[2]
OPEN_ONE = """
import asyncio, sys
from storage import Store, StorageError
async def main():
    try:
        await Store(sys.argv[1]).open()
    except StorageError as exc:
        print(exc)
        return
    print("OPENED")
asyncio.run(main())
"""


def open_unprivileged(path: Path) -> str:
    cmd = [sys.executable, "-c", OPEN_ONE, str(path)]
    if os.geteuid() == 0:
        if not shutil.which("setpriv"):
            pytest.skip("running as root without setpriv: file modes cannot be tested")
        drop = "-dac_override,-dac_read_search"
        cmd = ["setpriv", f"--bounding-set={drop}", f"--inh-caps={drop}", *cmd]
    r = subprocess.run(cmd, cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)}, capture_output=True, text=True, timeout=120)
    if r.returncode != 0 and "setpriv" in r.stderr:
        pytest.skip(f"setpriv cannot drop capabilities here: {r.stderr.strip()}")
    assert r.returncode == 0, r.stderr
    return r.stdout.strip()


def no_backup_advice(msg: str) -> None:
    assert "backup" not in msg and "damaged" not in msg.replace("not damaged", ""), msg


async def test_a_read_only_file_is_refused_at_start_and_not_called_damaged(tmp_path):
    path = tmp_path / "ro.sqlite3"
    await make_db(path, ticks=1)
    data = path.read_bytes()
    path.chmod(0o444)
    msg = open_unprivileged(path)
    assert msg.startswith(f"{path}: the database file is read-only"), msg
    assert f"chmod u+w {path}" in msg and "The data is not damaged" in msg
    no_backup_advice(msg)
    assert path.read_bytes() == data


async def test_a_read_only_folder_with_a_database(tmp_path):
    folder = tmp_path / "ro"
    folder.mkdir()
    path = folder / "games.sqlite3"
    await make_db(path, ticks=1)
    folder.chmod(0o555)
    try:
        msg = open_unprivileged(path)
    finally:
        folder.chmod(0o755)
    assert msg.startswith(f"{path}: the folder {folder} is read-only"), msg
    assert "games.sqlite3-wal" in msg and "writable folder" in msg
    no_backup_advice(msg)


async def test_a_new_database_in_a_read_only_folder(tmp_path):
    folder = tmp_path / "ro"
    folder.mkdir()
    folder.chmod(0o555)
    try:
        msg = open_unprivileged(folder / "new.sqlite3")
    finally:
        folder.chmod(0o755)
    assert msg.startswith(f"{folder / 'new.sqlite3'}: the folder {folder} is read-only"), msg
    assert not (folder / "new.sqlite3").exists()


async def test_the_unprivileged_child_opens_a_writable_database(tmp_path):
    # the check above is not a refusal of everything: the same child opens a good file
    path = tmp_path / "rw.sqlite3"
    await make_db(path, ticks=1)
    assert open_unprivileged(path) == "OPENED"


async def test_a_full_disk_says_so_and_keeps_the_game(tmp_path):
    # SQLite's own page limit gives the error a full disk gives (SQLITE_FULL)
    path = tmp_path / "full.sqlite3"
    await make_db(path, ticks=1)
    async with Store(path) as s:
        pages = (await s.backend.fetchone("PRAGMA page_count"))[0]
        await s.backend.execute(f"PRAGMA max_page_count={pages}")
        before = s.games.info("g1").version
        with pytest.raises(StorageError) as err:
            for i in range(500):
                await s.games.apply("g1", Command.send_pm(0, 1, "x" * 2000 + str(i)))
        msg = str(err.value)
        assert msg.startswith(f"apply failed, nothing was written: {path}: the disk that holds the database is full"), msg
        assert "free some space" in msg
        no_backup_advice(msg)
        assert s.games.info("g1").version >= before
    async with Store(path) as s:  # the file is good
        assert s.games.has("g1")


async def test_a_database_locked_by_another_process(tmp_path):
    from storage.sqlite import SqliteBackend

    path = tmp_path / "locked.sqlite3"
    await make_db(path, ticks=1)
    other = sqlite3.connect(path, isolation_level=None)
    other.execute("BEGIN EXCLUSIVE")
    try:
        store = Store(backend=SqliteBackend(path, busy_timeout_ms=50))
        with pytest.raises(StorageError) as err:
            await store.open()
    finally:
        other.execute("ROLLBACK")
        other.close()
    msg = str(err.value)
    assert msg.startswith(f"{path}: the database is locked by another process"), msg
    assert "another altmafia" in msg
    no_backup_advice(msg)


async def test_real_damage_still_sends_to_the_backup(tmp_path):
    path = tmp_path / "damaged.sqlite3"
    await make_db(path)
    data = bytearray(path.read_bytes())
    data[3 * 4096 : 4 * 4096] = bytes(random.Random(4).randrange(256) for _ in range(4096))
    path.write_bytes(bytes(data))
    msg = await open_fails(path, "damaged", "restore the file from a backup")
    assert "read-only" not in msg and "full" not in msg
