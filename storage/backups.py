"""Backups and restores of a SQLite database (``altmafia backup``, ``altmafia restore``):
SQLite's online backup API on a live database, and a restore that marks every message the
backup holds as unsent as possibly sent (docs/storage.md, "Restoring a backup")."""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path
from typing import Any

from .errors import StorageError
from .schema import latest_version
from .sqlite import SqliteBackend, explain


def open_altmafia_read_only(src: Path, nothing: str) -> sqlite3.Connection:
    """``src`` opened read-only, refused (``StorageError`` ending with ``nothing``) unless it is
    an altmafia database: the check a backup and a restore make of their source."""
    con = sqlite3.connect(f"{src.resolve().as_uri()}?mode=ro", uri=True, timeout=30)
    head = con.execute("SELECT name FROM sqlite_master WHERE type = 'table' AND name = 'schema_version'").fetchall()
    if not head:
        con.close()
        raise StorageError(f"{src}: not an altmafia database (no schema_version table); {nothing}.")
    return con

def backup(source: str | Path, target: str | Path) -> dict[str, Any]:
    """A consistent copy of a live database (WAL mode, the bot running) with SQLite's online
    backup API — never by copying the file (and its ``-wal``, ``-shm``) by hand, which can
    catch a half-written log. The copy is written to ``<target>.part``, checked with ``PRAGMA
    quick_check`` and only then renamed to ``target`` (an existing ``target`` is refused:
    a backup never overwrites a file). Returns ``{"pages", "bytes", "check"}``; raises
    :class:`StorageError` saying what is wrong."""
    src, out = Path(source), Path(target)
    if not src.is_file():
        raise StorageError(f"{src}: no such database file; nothing was written.")
    if out.exists():
        raise StorageError(f"{out}: the file exists; a backup never overwrites a file, choose another name.")
    if out.resolve() == src.resolve():
        raise StorageError(f"{out}: the backup must be another file than the database.")
    if not out.parent.is_dir():
        raise StorageError(f"{out.parent}: no such folder; nothing was written.")
    part = out.with_name(out.name + ".part")
    part.unlink(missing_ok=True)
    try:
        con = open_altmafia_read_only(src, "nothing was written")
        try:
            dst = sqlite3.connect(part)
            try:
                con.backup(dst)  # one step: a read transaction on one snapshot (WAL: the bot's writes go on)
                check = dst.execute("PRAGMA quick_check").fetchone()[0]
                pages = dst.execute("PRAGMA page_count").fetchone()[0]
            finally:
                dst.close()
        finally:
            con.close()
    except sqlite3.Error as exc:
        part.unlink(missing_ok=True)
        why = explain(exc, src)
        raise StorageError(f"backup of {src} failed, nothing was written: {why or exc}") from exc
    except BaseException:
        part.unlink(missing_ok=True)
        raise
    if check != "ok":
        part.unlink(missing_ok=True)
        raise StorageError(f"backup of {src}: the copy fails quick_check ({check}); the database itself may be damaged.")
    os.replace(part, out)
    return {"pages": pages, "bytes": out.stat().st_size, "check": check}


#: the note a restore leaves on every message it could not know the fate of
RESTORED = "restored from a backup: looked for in its channel before it is sent"


def restore(backup_file: str | Path, target: str | Path) -> dict[str, Any]:
    """Put the backup ``backup_file`` in place of the database ``target``, so that nothing the
    bot posted after the backup point is posted again (docs/storage.md, "Restoring a backup").

    The backup is checked first (an SQLite file with altmafia's ``schema_version`` table, of a
    version this build knows, passing ``PRAGMA quick_check``); a ``target`` held by a bot
    process (its ``.lock``) is refused. The copy is written to ``<target>.restore-part`` with
    the backup API and, in the copy, every message the backup holds as not yet sent — the
    stored parts and the outbox rows not yet rendered — is marked as possibly sent
    (:func:`mark_restored`): the deliverer looks for each among its channel's messages newer
    than its claim (or its staging) before it sends it, as it does for a part claimed before
    a crash. An existing ``target`` is kept, with its ``-wal`` and ``-shm``, as
    ``<target>.before-restore`` (refused when that name is taken), and the copy renamed to
    ``target``. Returns ``{"parts", "rows", "games", "kept"}``; raises :class:`StorageError`
    saying what is wrong (nothing changed then)."""
    src, out = Path(backup_file), Path(target)
    if not src.is_file():
        raise StorageError(f"{src}: no such backup file; nothing was changed.")
    if out.exists() and out.resolve() == src.resolve():
        raise StorageError(f"{out}: the backup and the database are the same file; nothing was changed.")
    if not out.parent.is_dir():
        raise StorageError(f"{out.parent}: no such folder; nothing was changed.")
    kept = out.with_name(out.name + ".before-restore")
    if out.exists() and any(p.exists() for p in (kept, Path(f"{kept}-wal"), Path(f"{kept}-shm"))):
        raise StorageError(f"{kept}: a database replaced by an earlier restore is there; move it away first. Nothing was changed.")
    holder = SqliteBackend(out)
    holder.acquire()  # DatabaseInUse when a bot runs on it; held until the copy is in place
    part = out.with_name(out.name + ".restore-part")
    try:
        for stale in (part, Path(f"{part}-wal"), Path(f"{part}-shm"), Path(f"{part}-journal")):
            stale.unlink(missing_ok=True)
        try:
            con = open_altmafia_read_only(src, "nothing was changed")
            try:
                version = con.execute("SELECT MAX(version) FROM schema_version").fetchone()[0] or 0
                if version > latest_version():
                    raise StorageError(f"{src}: written by a newer altmafia (schema version {version}, this build knows "
                                       f"{latest_version()}); upgrade altmafia first. Nothing was changed.")
                check = con.execute("PRAGMA quick_check").fetchone()[0]
                if check != "ok":
                    raise StorageError(f"{src}: the backup is damaged (quick_check: {check}); nothing was changed.")
                dst = sqlite3.connect(part, isolation_level=None)
                try:
                    con.backup(dst)
                    done = mark_restored(dst)
                    check = dst.execute("PRAGMA quick_check").fetchone()[0]
                finally:
                    dst.close()
            finally:
                con.close()
        except sqlite3.Error as exc:
            why = explain(exc, src)
            raise StorageError(f"restore of {src} failed, nothing was changed: {why or exc}") from exc
        if check != "ok":
            raise StorageError(f"restore of {src}: the copy fails quick_check ({check}); nothing was changed.")
        if out.exists():
            # the replaced database whole: its log and index files go with it (a -wal left
            # beside the restored file would be replayed onto it)
            for suffix in ("-wal", "-shm"):
                if Path(f"{out}{suffix}").exists():
                    os.replace(f"{out}{suffix}", f"{kept}{suffix}")
            os.replace(out, kept)
        os.replace(part, out)
    except BaseException:
        part.unlink(missing_ok=True)
        raise
    finally:
        holder.release()
    return {**done, "kept": str(kept) if kept.exists() else None}


def mark_restored(con: sqlite3.Connection) -> dict[str, int]:
    """In a restored copy (one transaction): every unsent part counts as tried (``attempts``
    at least 1, its claim's time, or else its staging time, as the time of its attempt, its
    claim released), every outbox row not yet delivered as claimed before (when the bot
    renders it, its parts count as tried since the row's claim or creation): the deliverer
    looks for each in its channel before sending it."""
    def columns(table: str) -> set[str]:
        return {r[1] for r in con.execute(f"PRAGMA table_info({table})")}

    parts = rows = 0
    con.execute("BEGIN IMMEDIATE")
    try:
        have = columns("outbox_parts")
        if have:  # a backup older than the parts (v5) has outbox rows only
            claims = ", claim_owner = NULL, claim_until = NULL" if "claim_owner" in have else ""
            parts = con.execute(
                "UPDATE outbox_parts SET attempts = MAX(attempts, 1), last_attempt_at = COALESCE(last_attempt_at, created_at), "
                f"last_error = ?{claims} WHERE sent_at IS NULL", (RESTORED,)).rowcount
        if {"attempts", "last_attempt_at", "last_error"} <= columns("outbox"):
            rows = con.execute(
                "UPDATE outbox SET attempts = MAX(attempts, 1), last_attempt_at = COALESCE(last_attempt_at, created_at), "
                "last_error = ? WHERE delivered_at IS NULL", (RESTORED,)).rowcount
        games = con.execute("SELECT COUNT(*) FROM games WHERE status = 'running'").fetchone()[0]
        con.execute("COMMIT")
    except BaseException:
        con.execute("ROLLBACK")
        raise
    return {"parts": parts, "rows": rows, "games": games}
