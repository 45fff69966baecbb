"""An empty database file (0 bytes) is refused like every other damage, never set up as a new
database over what the operator meant to restore; a file that does not exist is a new one."""

from __future__ import annotations

from pathlib import Path

from storage import Store

from .test_corrupt import make_db, open_fails


async def test_an_empty_file_is_refused_with_what_to_do(tmp_path: Path):
    db = tmp_path / "altmafia.sqlite3"
    db.write_bytes(b"")  # `touch`, or a copy that failed on a full disk
    msg = await open_fails(db, "empty (0 bytes)", "backup", "delete the empty file")
    assert msg.count(". ") <= 3 and "\n" not in msg, msg  # a sentence or two, not a traceback
    assert db.stat().st_size == 0  # left exactly as it was


async def test_a_truncated_database_is_refused_not_started_afresh(tmp_path: Path):
    db = tmp_path / "game.sqlite3"
    await make_db(db, ticks=1)
    db.write_bytes(b"")  # the database emptied by a failed copy over it
    for side in (db.with_name(db.name + "-wal"), db.with_name(db.name + "-shm")):
        side.unlink(missing_ok=True)
    await open_fails(db, "empty (0 bytes)")


async def test_a_database_that_does_not_exist_is_created(tmp_path: Path):
    db = tmp_path / "new.sqlite3"
    async with Store(db) as s:
        assert s.games.games() == []
    assert db.stat().st_size > 0  # the header is written at once: never an empty file of ours
