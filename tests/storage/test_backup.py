"""Backups of a live WAL database with SQLite's backup API (``altmafia backup DB OUT``): taken
while a game is being written by another process, every copy opens, passes ``quick_check`` and
holds a consistent game (its snapshot equals its journal replayed)."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from storage import StorageError, Store
from storage.backups import backup

from . import game_script
from .conftest import ROOT


async def test_backups_taken_while_a_game_is_written_open_and_check(tmp_path: Path):
    db, log = tmp_path / "live.sqlite3", tmp_path / "log.jsonl"
    env = {k: v for k, v in os.environ.items() if not k.startswith("ALTMAFIA_")}
    child = subprocess.Popen([sys.executable, "-m", "tests.storage.game_script", str(db), str(log), "main"], cwd=ROOT, env=env,
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    copies = []
    try:
        deadline = time.monotonic() + 120
        while child.poll() is None and time.monotonic() < deadline:
            if db.exists():
                out = tmp_path / f"copy{len(copies)}.sqlite3"
                try:
                    done = backup(db, out)
                except StorageError as exc:
                    if "schema_version" not in str(exc):  # the very first moment: migrations not yet committed
                        raise
                    continue
                assert done["check"] == "ok"
                copies.append(out)
            time.sleep(0.02)
        _, err = child.communicate(timeout=120)
        assert child.returncode == 0, err
    finally:
        if child.poll() is None:
            child.kill()
    assert len(copies) >= 3, copies
    versions = []
    for out in copies:
        con = sqlite3.connect(out)
        assert con.execute("PRAGMA quick_check").fetchone()[0] == "ok"
        con.close()
        async with Store(out) as s:  # a copy is a database the bot opens as it is
            if s.games.has(game_script.GAME_ID) or await s.games.find(game_script.GAME_ID):
                info = await s.games.find(game_script.GAME_ID)
                versions.append(info.version)
                rebuilt = await s.games.rebuild(game_script.GAME_ID)
                if s.games.has(game_script.GAME_ID):
                    assert rebuilt.to_dict() == s.games.game(game_script.GAME_ID).to_dict()
    assert versions and versions == sorted(versions) and versions[-1] > 0, versions


def test_the_command_line_backs_up_and_refuses_clearly(tmp_path: Path):
    db = tmp_path / "games.sqlite3"
    con = sqlite3.connect(db)
    con.execute("PRAGMA journal_mode=WAL")
    con.execute("CREATE TABLE schema_version (version INTEGER PRIMARY KEY, name TEXT, applied_at TEXT)")
    con.execute("INSERT INTO schema_version VALUES (1, 'initial', 'x')")
    con.commit()  # left open: the live writer's -wal file is there
    out = tmp_path / "backup.sqlite3"

    def cli(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-m", "altmafia", "backup", *args], cwd=ROOT, capture_output=True, text=True,
                              env={**os.environ, "PYTHONPATH": str(ROOT)}, timeout=60)

    r = cli(str(db), str(out))
    assert r.returncode == 0 and "quick_check ok" in r.stdout, r.stderr
    assert sqlite3.connect(out).execute("SELECT version FROM schema_version").fetchall() == [(1,)]
    r = cli(str(db), str(out))  # never over an existing file
    assert r.returncode == 1 and "never overwrites" in r.stderr and "Traceback" not in r.stderr
    r = cli(str(tmp_path / "missing.sqlite3"), str(tmp_path / "b2"))
    assert r.returncode == 1 and "no such database file" in r.stderr
    other = tmp_path / "other.sqlite3"
    sqlite3.connect(other).execute("CREATE TABLE t (x)").connection.commit()
    r = cli(str(other), str(tmp_path / "b3"))
    assert r.returncode == 1 and "not an altmafia database" in r.stderr
    assert not (tmp_path / "b3").exists() and not (tmp_path / "b3.part").exists()
    con.close()


def test_a_backup_is_never_the_database_itself(tmp_path: Path):
    db = tmp_path / "g.sqlite3"
    sqlite3.connect(db).close()
    with pytest.raises(StorageError, match="exists"):
        backup(db, db)
