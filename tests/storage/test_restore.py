"""``altmafia restore BACKUP DB`` refuses what is not a backup it can trust and a database a
bot holds; what it restores marks every message not yet sent at the backup point as
possibly sent (the bot looks for it in its channel first): ``tests/bot/test_restore.py``
plays the whole story through the bot."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from altmafia.cli import main as cli
from storage import DatabaseInUse, StorageError, Store
from storage.backups import RESTORED, backup, restore

pytestmark = pytest.mark.sqlite_only


async def a_database(path: Path) -> None:
    store = Store(path)
    await store.open()
    await store.close()


async def test_what_is_not_a_trustworthy_backup_is_refused_and_nothing_changes(tmp_path: Path, capsys):
    db = tmp_path / "altmafia.sqlite3"
    await a_database(db)
    before = db.read_bytes()
    foreign = tmp_path / "foreign.sqlite3"
    sqlite3.connect(foreign).execute("CREATE TABLE notes (x)").connection.commit()
    newer = tmp_path / "newer.sqlite3"
    backup(db, newer)
    with sqlite3.connect(newer) as con:
        con.execute("INSERT INTO schema_version (version, name, applied_at) VALUES (999, 'future', 'x')")
    for bad, says in [(tmp_path / "missing.sqlite3", "no such backup"), (foreign, "not an altmafia database"),
                      (newer, "newer altmafia"), (db, "same file")]:
        with pytest.raises(StorageError, match=says):
            restore(bad, db)
        assert cli(["restore", str(bad), str(db)]) == 1
        assert says in capsys.readouterr().err
    assert db.read_bytes() == before and not list(tmp_path.glob("*.before-restore"))


async def test_a_database_in_use_is_refused(tmp_path: Path):
    db, copy = tmp_path / "altmafia.sqlite3", tmp_path / "copy.sqlite3"
    store = Store(db)
    await store.open()
    try:
        backup(db, copy)
        with pytest.raises(DatabaseInUse):
            restore(copy, db)
    finally:
        await store.close()
    done = restore(copy, db)  # the bot stopped: restored, the old one kept
    assert done["kept"] and Path(done["kept"]).is_file()
    with pytest.raises(StorageError, match="earlier restore"):  # never overwrites the kept one
        restore(copy, db)


async def test_what_was_not_sent_at_the_backup_point_is_marked_to_look_for(tmp_path: Path):
    db, copy = tmp_path / "altmafia.sqlite3", tmp_path / "copy.sqlite3"
    store = Store(db)
    await store.open()
    await store.outbox.stage("-", "-/bot/x>gm", "gm", 1, [{"content": "раз", "nonce": "n1"}, {"content": "два", "nonce": "n2"}])
    [first, _] = await store.outbox.pending_parts()
    await store.outbox.mark_part_sent(first, 5)
    await store.close()
    backup(db, copy)
    restore(copy, tmp_path / "new.sqlite3")  # into a database that did not exist
    with sqlite3.connect(tmp_path / "new.sqlite3") as con:
        rows = con.execute("SELECT content, attempts, last_attempt_at IS NOT NULL, last_error FROM outbox_parts ORDER BY part_idx").fetchall()
    assert rows == [("раз", 0, False, None), ("два", 1, True, RESTORED)], rows
