"""The SQLite backend on aiosqlite: the only place that knows SQLite's PRAGMAs and quirks.

* WAL journal (readers never wait for the writer; a commit is one append to the log);
* ``synchronous=FULL`` by default: a commit is on disk when ``commit()`` returns, so a
  command acknowledged to a player survives a power cut, not only a process crash;
* ``foreign_keys=ON`` (SQLite leaves them off unless asked), ``busy_timeout`` for a second
  process that holds the write lock for a moment;
* write transactions start with ``BEGIN IMMEDIATE``: the write lock is taken at the start, so
  a transaction never fails half-way for want of it;
* on open, the file header is verified, and ``PRAGMA quick_check`` of a file up to
  :data:`CHECK_AT_OPEN_BYTES`: a damaged file stops the bot with a message naming the file
  instead of being used or silently replaced. A larger file (the check reads every page: 1.3 s
  for 800 MB) is checked in the background once the store is open (:meth:`SqliteBackend.check`,
  a thread of its own at a lower priority, on a read-only connection of its own); found damaged,
  every later statement fails with the same message, so nothing more is written into it;
* on open, a write is tried (and rolled back): a read-only file or folder stops the bot at
  once instead of letting every command fail later;
* every SQLite error is told apart by its code (:func:`explain`): a read-only file, a
  read-only folder, a full disk and a lock held by another process each say what to do; only a
  file SQLite finds damaged is sent to its backup.
* one process at a time: an OS lock (``flock``) on ``<database>.lock`` beside the file is
  taken before the database is opened and held until :meth:`close` (the kernel drops it when
  the process dies, even by SIGKILL, so a crash never leaves a stale lock); a second process
  gets :class:`~storage.errors.DatabaseInUse` naming the file and the holder.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import socket
import sqlite3
import threading
from collections.abc import Awaitable, Callable, Iterable, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TypeVar

import aiosqlite

from .backend import Backend, Row, Step, Stopped
from .errors import DatabaseInUse, StorageError

try:
    import fcntl
except ImportError:  # not POSIX: no lock (the bot is run on Linux)
    fcntl = None  # type: ignore[assignment]

T = TypeVar("T")
SQLITE_HEADER = b"SQLite format 3\x00"
SYNC_MODES = ("OFF", "NORMAL", "FULL", "EXTRA")
# primary result codes (https://sqlite.org/rescode.html)
SQLITE_PERM, SQLITE_BUSY, SQLITE_LOCKED, SQLITE_READONLY = 3, 5, 6, 8
SQLITE_IOERR, SQLITE_CORRUPT, SQLITE_FULL, SQLITE_CANTOPEN, SQLITE_NOTADB = 10, 11, 13, 14, 26
SQLITE_READONLY_DIRECTORY = 1544
DAMAGED = (SQLITE_CORRUPT, SQLITE_NOTADB)
#: a database file up to this size is checked (``PRAGMA quick_check``) before it is used, in a
#: few tens of milliseconds; a larger one after the store is open, in the background
CHECK_AT_OPEN_BYTES = 64 << 20


def damaged(path: Path, problems: list[str]) -> str:
    return (
        f"{path}: the SQLite database is damaged (quick_check: "
        f"{'; '.join(problems[:3])}). altmafia will not start on it: restore the "
        "file from a backup."
    )


def read_only_file(path: Path) -> str:
    return (
        f"{path}: the database file is read-only for the user the bot runs as, so no command could "
        f"be saved. The data is not damaged: make the file writable (chmod u+w {path}), or set "
        "ALTMAFIA_DB to a file the bot may write."
    )


def read_only_folder(path: Path) -> str:
    return (
        f"{path}: the folder {path.parent} is read-only for the user the bot runs as; SQLite must "
        f"create {path.name}-wal and {path.name}-shm next to the database. The data is not "
        "damaged: make the folder writable, or set ALTMAFIA_DB to a file in a writable folder."
    )


def explain(exc: BaseException, path: Path) -> str | None:
    """What an SQLite error means for the GM and what to do; None when it is not SQLite's."""
    if not isinstance(exc, sqlite3.Error):
        return None
    code = getattr(exc, "sqlite_errorcode", None)
    primary = code & 0xFF if isinstance(code, int) else None
    if code == SQLITE_READONLY_DIRECTORY or primary in (SQLITE_READONLY, SQLITE_CANTOPEN, SQLITE_PERM) \
            and not os.access(path.parent, os.W_OK):
        return read_only_folder(path)
    if primary in (SQLITE_READONLY, SQLITE_PERM):
        return read_only_file(path)
    if primary == SQLITE_FULL:
        return (
            f"{path}: the disk that holds the database is full ({exc}). The data is not damaged "
            "and the last change was not written: free some space, then try again."
        )
    if primary in (SQLITE_BUSY, SQLITE_LOCKED):
        return (
            f"{path}: the database is locked by another process ({exc}): is another altmafia "
            "running on the same file? Stop it, or set ALTMAFIA_DB to another file."
        )
    if primary == SQLITE_CANTOPEN:
        return f"{path}: SQLite cannot open the database file ({exc}): check that the bot's user may read and write it."
    if primary == SQLITE_IOERR:
        return (
            f"{path}: the disk failed to read or write the database ({exc}). Check the disk and "
            "the file system (free space, a network mount that went away) before anything else."
        )
    if primary in DAMAGED:
        return (
            f"{path}: the SQLite database is damaged ({exc}). altmafia will not start on it: "
            "restore the file from a backup."
        )
    return None


class SqliteBackend(Backend):
    paramstyle = "qmark"
    exclusive = True  # the flock on FILE.lock: one process at a time

    def __init__(self, path: str | Path, synchronous: str = "FULL", busy_timeout_ms: int = 5000,
                 check_at_open_bytes: int = CHECK_AT_OPEN_BYTES) -> None:
        self.path = Path(path)
        self.check_at_open_bytes = int(check_at_open_bytes)
        #: the background check's outcome once asked for (:meth:`check`); a damaged file's message
        self._check: asyncio.Future[None] | None = None
        self._checker: sqlite3.Connection | None = None
        self.damaged: str | None = None
        self.location = str(self.path)
        if synchronous.upper() not in SYNC_MODES:
            raise ValueError(f"synchronous must be one of {SYNC_MODES}")
        self.synchronous = synchronous.upper()
        self.busy_timeout_ms = int(busy_timeout_ms)
        self.conn: aiosqlite.Connection | None = None
        self.lock_path = self.path.with_name(self.path.name + ".lock")
        self._lock_fd: int | None = None

    # ---- opening ----------------------------------------------------------------------
    def _precheck(self) -> bool:
        """Refuse what is plainly not a database file; True when the file exists with data."""
        p = self.path
        if p.is_dir():
            raise StorageError(
                f"{p}: is a directory, not a database file. Set ALTMAFIA_DB to a file path "
                "(for example ./altmafia.sqlite3)."
            )
        if not p.parent.is_dir():
            raise StorageError(
                f"{p}: the folder {p.parent} does not exist. Create it, or set ALTMAFIA_DB to a "
                "file in an existing folder."
            )
        if not p.exists():
            if not os.access(p.parent, os.W_OK):
                raise StorageError(read_only_folder(p))
            return False
        if not os.access(p, os.W_OK):
            raise StorageError(read_only_file(p))
        if not os.access(p.parent, os.W_OK):
            raise StorageError(read_only_folder(p))
        try:
            with p.open("rb") as fh:
                head = fh.read(len(SQLITE_HEADER))
        except OSError as exc:
            raise StorageError(f"{p}: cannot read the database file ({exc.strerror}).") from None
        if not head:
            # altmafia's own new database has its header from its first start on (the WAL
            # pragma writes it); an empty file was made by hand or is a copy that failed
            raise StorageError(
                f"{p}: the database file is empty (0 bytes): a copy that failed or a file made by "
                "hand, not a database altmafia made. Restore it from a backup; to start a new "
                "database instead, delete the empty file (altmafia creates it)."
            )
        if head != SQLITE_HEADER:
            raise StorageError(
                f"{p}: is not an SQLite database (the file does not start with the SQLite "
                "header; it is damaged or another kind of file). altmafia will not start on it: "
                "restore the file from a backup, or set ALTMAFIA_DB to another file."
            )
        return True

    def acquire(self) -> None:
        """Hold ``<database>.lock`` (``flock``, exclusive, not waiting) for this process."""
        if self._lock_fd is not None or fcntl is None:
            return
        try:
            fd = os.open(self.lock_path, os.O_RDWR | os.O_CREAT, 0o644)
        except OSError as exc:
            raise StorageError(f"{self.path}: cannot create the lock file {self.lock_path} ({exc.strerror}).") from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            try:
                raw = os.read(fd, 4096).decode("utf-8", "replace")
            finally:
                os.close(fd)
            try:
                who = json.loads(raw)
                owner = f"pid {who.get('pid')} on {who.get('host')}, since {who.get('since')}"
            except (ValueError, AttributeError):
                owner = "unknown process"
            raise DatabaseInUse(str(self.path), owner) from None
        me = {"pid": os.getpid(), "host": socket.gethostname(), "since": datetime.now(UTC).strftime("%Y-%m-%d %H:%M:%S UTC")}
        os.ftruncate(fd, 0)
        os.pwrite(fd, json.dumps(me).encode("utf-8"), 0)
        self._lock_fd = fd

    def release(self) -> None:
        if self._lock_fd is not None:
            fd, self._lock_fd = self._lock_fd, None
            fcntl.flock(fd, fcntl.LOCK_UN)
            os.close(fd)

    async def connect(self) -> bool:
        existed = self._precheck()
        self.acquire()
        try:
            self.conn = await aiosqlite.connect(str(self.path), isolation_level=None)
        except sqlite3.Error as exc:
            self.release()
            raise StorageError(explain(exc, self.path) or f"{self.path}: cannot open the database ({exc}).") from None
        try:
            mode = await self.fetchone("PRAGMA journal_mode=WAL")
            if not mode or str(mode[0]).lower() != "wal":
                raise StorageError(
                    f"{self.path}: SQLite refused the WAL journal mode (got {mode and mode[0]!r}); "
                    "put the database on a local file system."
                )
            await self.execute(f"PRAGMA synchronous={self.synchronous}")
            await self.execute("PRAGMA foreign_keys=ON")
            await self.execute(f"PRAGMA busy_timeout={self.busy_timeout_ms}")
            self.check_later = existed and self.path.stat().st_size > self.check_at_open_bytes
            if not self.check_later:
                check = await self.fetchall("PRAGMA quick_check")
                problems = [str(r[0]) for r in check if str(r[0]).lower() != "ok"]
                if problems:
                    raise StorageError(damaged(self.path, problems))
            await self._try_a_write()
        except StorageError:
            await self.close()
            raise
        except sqlite3.Error as exc:
            await self.close()
            raise StorageError(
                explain(exc, self.path)
                or f"{self.path}: cannot use the database ({exc}); altmafia will not start on it."
            ) from None
        return existed

    async def _try_a_write(self) -> None:
        """Write the header's ``user_version`` back unchanged, then roll back: SQLite refuses it on
        a file it opened read-only (``BEGIN IMMEDIATE`` alone succeeds there)."""
        row = await self.fetchone("PRAGMA user_version")
        await self.execute("BEGIN IMMEDIATE")
        try:
            await self.execute(f"PRAGMA user_version={int(row[0]) if row else 0}")
        finally:
            await self.rollback()

    async def check(self) -> None:
        """``PRAGMA quick_check`` of a file too large to check at :meth:`connect`, in a thread of
        its own at a lower priority (the bot serves meanwhile), on a read-only connection of its
        own; once, every later call awaiting the same outcome. Damaged: :class:`StorageError`,
        and every later statement of this backend raises it too (nothing more is written)."""
        if not self.check_later:
            return
        if self._check is None:
            loop = asyncio.get_running_loop()
            self._check = fut = loop.create_future()

            def done(problems: list[str]) -> None:
                if problems:
                    self.damaged = damaged(self.path, problems)
                    fut.set_exception(StorageError(self.damaged))
                else:
                    fut.set_result(None)

            def run() -> None:
                problems = self._quick_check()
                with contextlib.suppress(RuntimeError):  # the loop closed meanwhile
                    loop.call_soon_threadsafe(done, problems)

            threading.Thread(target=run, name="altmafia-quick-check", daemon=True).start()
        await asyncio.shield(self._check)

    def _quick_check(self) -> list[str]:
        """The problems ``PRAGMA quick_check`` finds (none: the file is sound, or the backend
        closed meanwhile and interrupted it)."""
        with contextlib.suppress(AttributeError, OSError):  # Linux: a thread's own priority
            os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), 10)
        try:
            con = sqlite3.connect(f"{self.path.resolve().as_uri()}?mode=ro", uri=True, check_same_thread=False)
        except sqlite3.Error as exc:
            return [str(exc)]
        self._checker = con
        try:
            rows = con.execute("PRAGMA quick_check").fetchall()
        except sqlite3.Error as exc:
            return [] if self._checker is None else [str(exc)]  # interrupted by close
        finally:
            self._checker = None
            con.close()
        return [str(r[0]) for r in rows if str(r[0]).lower() != "ok"]

    async def close(self) -> None:
        checker, self._checker = self._checker, None
        if checker is not None:
            checker.interrupt()
        try:
            if self.conn is not None:
                conn, self.conn = self.conn, None
                await conn.close()
        finally:
            self.release()

    # ---- statements ---------------------------------------------------------------------
    def _c(self) -> aiosqlite.Connection:
        if self.damaged is not None:
            raise StorageError(self.damaged)
        if self.conn is None:
            raise StorageError(f"{self.path}: the database is not open.")
        return self.conn

    def _trip(self) -> Callable[..., Awaitable[Any]] | None:
        """aiosqlite's own way to run a function in its thread, in one trip there
        (``Connection._execute``); None for an aiosqlite without it (the generic forms)."""
        return getattr(self._c(), "_execute", None)

    async def begin(self) -> None:
        await self._c().execute("BEGIN IMMEDIATE")

    async def commit(self) -> None:
        await self._c().execute("COMMIT")

    async def rollback(self) -> None:
        if self.conn is not None and self.conn.in_transaction:
            await self.conn.execute("ROLLBACK")

    async def execute(self, sql: str, params: Sequence[Any] = ()) -> int:
        conn, run = self._c(), self._trip()
        if run is not None:  # one trip: the statement and its cursor's close
            return await run(_execute, conn._conn, sql, tuple(params))
        cur = await conn.execute(sql, tuple(params))
        try:
            return cur.rowcount
        finally:
            await cur.close()

    async def executemany(self, sql: str, rows: Iterable[Sequence[Any]]) -> None:
        rows = [tuple(r) for r in rows]
        if rows:
            await self._c().executemany(sql, rows)

    def batch_outlives_cancel(self) -> bool:
        """True for the one-trip form (:meth:`batch`): its transaction runs to its end in
        aiosqlite's thread whatever happens to the caller, and a cancelled caller still gets
        its outcome (:func:`_outcome_of`)."""
        return self._trip() is not None and "commit" not in vars(self)

    async def batch(self, steps: Sequence[Step], before_commit: Callable[[], None] | None = None) -> Stopped | None:
        """:meth:`Backend.batch` in one trip to aiosqlite's thread, its COMMIT included (each
        awaited statement is a trip there and back: a command's transaction made eight);
        ``before_commit`` runs in that thread. A commit replaced on this backend (a wrapper
        around :meth:`commit`) is honoured: the statements in one trip, then that commit.

        Cancelled while the transaction is in the thread, the one-trip form still waits for
        its end (:meth:`batch_outlives_cancel`): committed, it returns its outcome and the
        cancellation reaches the caller at its next wait; rolled back or failed, the
        cancellation is raised at once."""
        conn, run = self._c(), self._trip()
        if run is None:  # an aiosqlite without it: the generic form
            return await super().batch(steps, before_commit)
        if "commit" not in vars(self):
            box = _Box()
            try:
                return await run(_run_batch, conn._conn, list(steps), before_commit, True, box)
            except asyncio.CancelledError:
                return await _outcome_of(box)
        stopped = await run(_run_batch, conn._conn, list(steps), None, False)
        if stopped is None:
            try:
                if before_commit is not None:
                    before_commit()
                await self.commit()
            except BaseException:
                await self.rollback()
                raise
        return stopped

    async def transact(self, body: Callable[[Backend], Awaitable[T]], before_commit: Callable[[], None] | None = None) -> T:
        """:meth:`Backend.transact` in one trip to aiosqlite's thread: ``body`` runs there on the
        connection itself (:class:`_InThread`, whose statements never wait), ``before_commit``
        and the COMMIT with it. A commit replaced on this backend (a wrapper around
        :meth:`commit`) is honoured: the generic form, statement by statement."""
        conn, run = self._c(), self._trip()
        if run is None or "commit" in vars(self):
            return await super().transact(body, before_commit)
        return await run(_run_transaction, conn._conn, body, before_commit, self.path)

    async def fetchall(self, sql: str, params: Sequence[Any] = ()) -> list[Row]:
        """The rows of one read in one trip to aiosqlite's thread (through its cursor, the
        statement, the fetch and the close are a trip each: three turns of the event loop)."""
        conn, run = self._c(), self._trip()
        if run is not None:
            return await run(_fetchall, conn._conn, sql, tuple(params))
        async with conn.execute(sql, tuple(params)) as cur:
            return [tuple(r) for r in await cur.fetchall()]

    async def fetch_each(self, reads: Sequence[tuple[str, Sequence[Any]]]) -> list[list[Row]]:
        """The rows of several reads in one trip to aiosqlite's thread (a trip each otherwise)."""
        conn, run = self._c(), self._trip()
        if run is None:
            return await super().fetch_each(reads)
        return await run(_fetch_each, conn._conn, [(sql, tuple(params)) for sql, params in reads])

    async def tables(self) -> set[str]:
        rows = await self.fetchall("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")
        return {r[0] for r in rows}

    def is_driver_error(self, exc: BaseException) -> bool:
        return isinstance(exc, sqlite3.Error)

    def explain(self, exc: BaseException) -> str | None:
        return explain(exc, self.path)


class _InThread(Backend):
    """The connection as a :class:`Backend` inside aiosqlite's thread, for a transaction's body
    (:meth:`SqliteBackend.transact`): every statement runs at once, so the body's coroutine
    ends without ever waiting."""

    def __init__(self, conn: sqlite3.Connection, path: Path) -> None:
        self.conn, self.path, self.location = conn, path, str(path)

    async def execute(self, sql: str, params: Sequence[Any] = ()) -> int:
        return _execute(self.conn, sql, tuple(params))

    async def executemany(self, sql: str, rows: Iterable[Sequence[Any]]) -> None:
        rows = [tuple(r) for r in rows]
        if rows:
            self.conn.executemany(sql, rows)

    async def fetchall(self, sql: str, params: Sequence[Any] = ()) -> list[Row]:
        return _fetchall(self.conn, sql, tuple(params))

    def is_driver_error(self, exc: BaseException) -> bool:
        return isinstance(exc, sqlite3.Error)

    def explain(self, exc: BaseException) -> str | None:
        return explain(exc, self.path)


def _execute(conn: sqlite3.Connection, sql: str, params: tuple[Any, ...]) -> int:
    """:meth:`SqliteBackend.execute` in the connection's own thread: the rows it changed."""
    cur = conn.execute(sql, params)
    try:
        return cur.rowcount
    finally:
        cur.close()


def _fetchall(conn: sqlite3.Connection, sql: str, params: tuple[Any, ...]) -> list[Row]:
    """:meth:`SqliteBackend.fetchall` in the connection's own thread."""
    cur = conn.execute(sql, params)
    try:
        return [tuple(r) for r in cur.fetchall()]
    finally:
        cur.close()


def _fetch_each(conn: sqlite3.Connection, reads: list[tuple[str, tuple[Any, ...]]]) -> list[list[Row]]:
    """:meth:`SqliteBackend.fetch_each` in the connection's own thread."""
    return [_fetchall(conn, sql, params) for sql, params in reads]


def _finish(work: Awaitable[T]) -> T:
    """Run an awaitable that never waits to its end, here and now."""
    steps = work.__await__()
    try:
        next(steps)
    except StopIteration as done:
        return done.value
    steps.close()
    raise RuntimeError("a transaction's body waited for something besides its database")


def _run_transaction(conn: sqlite3.Connection, body: Callable[[Backend], Awaitable[T]],
                     before_commit: Callable[[], None] | None, path: Path) -> T:
    """:meth:`SqliteBackend.transact`'s transaction in the connection's own thread."""
    conn.execute("BEGIN IMMEDIATE")
    try:
        out = _finish(body(_InThread(conn, path)))
        if before_commit is not None:
            before_commit()
        conn.execute("COMMIT")
    except BaseException:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise
    return out


class _Box:
    """What :func:`_run_batch` did, kept for a caller cancelled meanwhile (aiosqlite drops the
    result of a cancelled call): set in the database's thread when the transaction has ended."""

    __slots__ = ("done", "exc", "result")

    def __init__(self) -> None:
        self.done = threading.Event()
        self.result: Stopped | None = None
        self.exc: BaseException | None = None


async def _outcome_of(box: _Box) -> Stopped | None:
    """The outcome of a batch whose caller was cancelled while it ran: wait (through any
    further cancellation: the thread never stops half-way) for the transaction's end. Ended
    without a commit, the cancellation is raised at once; committed (or stopped by a step's
    ``expect``), the outcome is returned and the task's cancellation is asked again, to be
    delivered at its next wait: the caller first makes its memory agree with the database."""
    while not box.done.is_set():
        with contextlib.suppress(asyncio.CancelledError):
            await asyncio.sleep(0.002)
    task = asyncio.current_task()
    if box.exc is not None:
        raise asyncio.CancelledError()
    if task is not None:
        task.uncancel()  # the cancellation caught here is delivered again, one wait later
        task.cancel()
    return box.result


def _run_batch(conn: sqlite3.Connection, steps: list[Step], before_commit: Callable[[], None] | None,
               commit: bool, box: _Box | None = None) -> Stopped | None:
    """:meth:`SqliteBackend.batch`'s transaction in the connection's own thread; left open
    (for the caller's commit) unless ``commit``. Its outcome is also kept in ``box``."""
    if box is None:
        return _batch_steps(conn, steps, before_commit, commit)
    try:
        box.result = _batch_steps(conn, steps, before_commit, commit)
        return box.result
    except BaseException as exc:
        box.exc = exc
        raise
    finally:
        box.done.set()


def _batch_steps(conn: sqlite3.Connection, steps: list[Step], before_commit: Callable[[], None] | None,
                 commit: bool) -> Stopped | None:
    conn.execute("BEGIN IMMEDIATE")
    try:
        for i, st in enumerate(steps):
            if st.many:
                if st.params:
                    conn.executemany(st.sql, st.params)
                continue
            cur = conn.execute(st.sql, tuple(st.params))
            if st.expect == "absent":
                rows = [tuple(r) for r in cur.fetchall()]
                if rows:
                    conn.execute("ROLLBACK")
                    return Stopped(i, rows)
            elif st.expect == "one" and cur.rowcount != 1:
                conn.execute("ROLLBACK")
                return Stopped(i, [])
        if commit:
            if before_commit is not None:
                before_commit()
            conn.execute("COMMIT")
    except BaseException:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise
    return None
