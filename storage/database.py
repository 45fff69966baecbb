"""The database: one connection, its lock, transactions, batches, counting and fault points."""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from datetime import datetime
from pathlib import Path
from typing import Any, TypeVar

from .backend import Backend, Step
from .errors import StorageError
from .postgres import PostgresBackend, is_postgres_url
from .records import to_ts
from .sqlite import SqliteBackend

T = TypeVar("T")


def _check_shards(shards: tuple[int, tuple[int, ...]] | None) -> tuple[int, tuple[int, ...]] | None:
    if shards is None:
        return None
    count, ids = int(shards[0]), tuple(sorted({int(i) for i in shards[1]}))
    if not 1 <= count <= 1000 or not ids or not all(0 <= i < count for i in ids):
        raise ValueError(f"shards: {count} shards and ids {ids}: every id must be in 0..{count - 1}")
    return count, ids


def make_backend(target: str | Path, synchronous: str = "FULL") -> Backend:
    """The backend for ``target``: a ``postgresql://`` URL (``ALTMAFIA_DB_URL``) or an SQLite file."""
    if isinstance(target, str) and is_postgres_url(target):
        return PostgresBackend(target)
    return SqliteBackend(target, synchronous)


class Database:
    """The database a store writes through: one connection (its backend), one lock around every
    use of it, write transactions and batches counted by label, and the fault points tests
    kill at. The rooms of a store share one."""

    def __init__(self, backend: Backend, clock: Callable[[], datetime]) -> None:
        self.backend = backend
        self.clock = clock
        self.lock = asyncio.Lock()
        #: committed transactions by label ("apply", "resolve", "resolve.mark", "claim", …)
        self.transactions: Counter[str] = Counter()
        #: a test hook called at named points ("apply.before_commit"…); None in production
        self.fault: Callable[[str], None] | None = None

    @property
    def location(self) -> str:
        return self.backend.location

    def stamp(self) -> str:
        """Now, as stored."""
        return to_ts(self.clock())

    def point(self, name: str) -> None:
        """A named point a test may kill the process at (``fault``)."""
        if self.fault is not None:
            self.fault(name)

    def count(self, label: str) -> None:
        self.transactions[label] += 1
        self.transactions["total"] += 1

    async def read(self, sql: str, params: Any = ()) -> list[tuple[Any, ...]]:
        """Rows of one read (``?`` placeholders), under the connection's lock."""
        return (await self.reads([(sql, params)]))[0]

    async def reads(self, queries: list[tuple[str, Any]]) -> list[list[tuple[Any, ...]]]:
        """The rows of several reads (``?`` placeholders), in their order, under the
        connection's lock: one trip to SQLite's thread for all of them."""
        backend = self.backend
        async with self.lock:
            try:
                if len(queries) == 1:
                    sql, params = queries[0]
                    return [await backend.fetchall(backend.sql(sql), tuple(params))]
                return await backend.fetch_each([(backend.sql(sql), tuple(params)) for sql, params in queries])
            except Exception as exc:
                if backend.is_driver_error(exc):
                    why = backend.explain(exc)
                    raise StorageError(f"cannot read the database: {why}" if why else
                                       f"{self.location}: cannot read the database ({exc}).") from exc
                raise

    async def batch(self, label: str, steps: list[Step], point: str | None = None) -> Any:
        """One write transaction of known statements (:meth:`Backend.batch`), the fault point
        ``point`` (if any) inside it before its commit; counted as ``label`` when committed."""
        db = self.backend
        async with self.lock:
            try:
                stopped = await db.batch(steps, (lambda: self.point(point)) if point else None)
            except Exception as exc:
                self.raise_unwritten(label, exc)
                raise
        if stopped is None:
            self.count(label)
        return stopped

    async def run(self, label: str, body: Callable[[Backend], Awaitable[T]], point: str | None = None) -> T:
        """One write transaction of ``body`` (``async def body(db)`` awaiting nothing but ``db``'s
        statements), the fault point ``point`` (if any) inside it before its commit; counted as
        ``label`` when committed. :meth:`tx`'s outcome in one trip where the backend can
        (:meth:`Backend.transact`; SQLite: the body runs in its thread): the lock is held for
        the transaction's own work, not for a turn of the event loop per statement."""
        db = self.backend
        async with self.lock:
            try:
                out = await db.transact(body, (lambda: self.point(point)) if point else None)
            except Exception as exc:
                self.raise_unwritten(label, exc)
                raise
        self.count(label)
        return out

    def raise_unwritten(self, label: str, exc: Exception) -> None:
        """A database driver's error of a write transaction as a :class:`StorageError` (nothing
        was written); any other error is left to the caller to raise as it is."""
        db = self.backend
        if db.is_driver_error(exc):
            why = db.explain(exc)
            raise StorageError(f"{label} failed, nothing was written: {why}" if why else
                               f"{self.location}: {label} failed ({exc}); nothing was written.") from exc

    @asynccontextmanager
    async def tx(self, label: str) -> AsyncIterator[Backend]:
        """One write transaction; committed at the end of the block, rolled back on error."""
        db = self.backend
        async with self.lock:
            try:
                await db.begin()
                try:
                    yield db
                    await db.commit()
                except BaseException:
                    await db.rollback()
                    raise
            except Exception as exc:
                self.raise_unwritten(label, exc)
                raise
        self.count(label)
