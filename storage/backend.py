"""What the store needs from a database: a small async interface, one class per engine.

The store (:mod:`storage.store`) writes portable SQL with ``?`` placeholders and calls only
these methods; everything specific to one database engine (connection, PRAGMAs, how a write
transaction begins, how to list tables, how driver errors read) lives in its backend.
:class:`storage.sqlite.SqliteBackend` is the one shipped; a PostgreSQL backend implements the
same methods (see ``docs/storage.md``).
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

Row = tuple[Any, ...]
T = TypeVar("T")


@dataclass(frozen=True)
class Step:
    """One statement of a :meth:`Backend.batch`. ``many``: ``params`` is a list of rows
    (``executemany``; nothing is run for none). ``expect``: ``"absent"`` — a query that must
    return no row (else the batch stops, rolls back and returns the rows); ``"one"`` — a
    statement that must change exactly one row (else the batch stops and rolls back)."""

    sql: str
    params: Any = ()
    many: bool = False
    expect: str | None = None


@dataclass(frozen=True)
class Stopped:
    """A :meth:`Backend.batch` stopped (and rolled back) at step ``index`` by its ``expect``."""

    index: int
    rows: list[Row]


class Backend:
    """One connection to one database. Not safe for overlapping use: the store serialises."""

    #: a human name of the database for messages: a file path, a DSN without password
    location: str = "?"
    #: ``qmark`` (``?``) or ``numeric_dollar`` (``$1``): how placeholders are spelled
    paramstyle: str = "qmark"
    #: one process at a time holds the database (``acquire``): at start, a claim of another
    #: owner was made by a process that is gone
    exclusive: bool = False

    #: set by :meth:`connect`: the database is checked after it is open (:meth:`check`), not before
    check_later: bool = False

    async def check(self) -> None:
        """The integrity check :meth:`connect` left for later (``check_later``: a large file);
        :class:`~storage.errors.StorageError` when the database is damaged. None here."""

    async def connect(self) -> bool:
        """Open the database; True when it was created just now (no data existed)."""
        raise NotImplementedError

    async def close(self) -> None:
        raise NotImplementedError

    def acquire(self) -> None:
        """Take the database for this process, for its whole life (released by ``close``);
        raise :class:`~storage.errors.DatabaseInUse` when another process has it. Calling it
        again while held does nothing. The default is a backend shared by design (none)."""

    async def try_lock_key(self, key: int) -> bool:
        """Take an ownership lock ``key`` for the life of the connection, not waiting; False
        when another connection holds it. A backend used by one process (SQLite, whose file
        lock :meth:`acquire` already makes it so) always gets it."""
        return True

    async def begin(self) -> None:
        """Begin a write transaction, taking the write lock at once."""
        raise NotImplementedError

    async def commit(self) -> None:
        raise NotImplementedError

    async def rollback(self) -> None:
        raise NotImplementedError

    async def execute(self, sql: str, params: Sequence[Any] = ()) -> int:
        """Run one statement; the number of rows it changed."""
        raise NotImplementedError

    async def executemany(self, sql: str, rows: Iterable[Sequence[Any]]) -> None:
        raise NotImplementedError

    async def fetchall(self, sql: str, params: Sequence[Any] = ()) -> list[Row]:
        raise NotImplementedError

    async def fetch_each(self, reads: Sequence[tuple[str, Sequence[Any]]]) -> list[list[Row]]:
        """The rows of several reads, in their order (SQLite: one trip to its thread for all)."""
        return [await self.fetchall(sql, params) for sql, params in reads]

    async def tables(self) -> set[str]:
        """The names of the user tables that exist."""
        raise NotImplementedError

    def is_driver_error(self, exc: BaseException) -> bool:
        """Whether ``exc`` is an error of this database's driver (turned into StorageError)."""
        raise NotImplementedError

    def explain(self, exc: BaseException) -> str | None:
        """What a driver error means and what to do (a read-only file, a full disk, a lock…),
        naming the database; None when it says nothing more than the error itself."""
        return None

    # helpers shared by backends ------------------------------------------------------
    def sql(self, text: str) -> str:
        """The statement with this backend's placeholders (the store writes ``?``)."""
        if self.paramstyle == "qmark":
            return text
        counter = iter(range(1, 1 << 30))
        return re.sub(r"\?", lambda _m: f"${next(counter)}", text)

    def batch_outlives_cancel(self) -> bool:
        """Whether :meth:`batch` may be awaited by a task that can be cancelled: it then waits
        for its transaction's end, returns its outcome and leaves the cancellation to the
        caller's next wait (so that a caller can swap its memory to what was committed). False
        here: this generic form awaits each statement and its commit, and a cancelled commit's
        outcome is unknown; the store then runs the whole command in a task of its own."""
        return False

    async def batch(self, steps: Sequence[Step], before_commit: Callable[[], None] | None = None) -> Stopped | None:
        """Run ``steps`` (their SQL already in this backend's placeholders) in one write
        transaction, then ``before_commit`` inside it, then commit: None when committed. A
        :class:`Stopped` (rolled back) when a step's ``expect`` failed; what any step,
        ``before_commit`` or the commit raises rolls back and propagates. This generic form
        awaits each statement; a backend may do it all in one trip to its driver (SQLite:
        one hop to its thread; PostgreSQL: one message to the server)."""
        await self.begin()
        try:
            for i, st in enumerate(steps):
                if st.many:
                    await self.executemany(st.sql, st.params)
                elif st.expect == "absent":
                    rows = await self.fetchall(st.sql, st.params)
                    if rows:
                        await self.rollback()
                        return Stopped(i, rows)
                elif (await self.execute(st.sql, st.params)) != 1 and st.expect == "one":
                    await self.rollback()
                    return Stopped(i, [])
            if before_commit is not None:
                before_commit()
            await self.commit()
        except BaseException:
            await self.rollback()
            raise
        return None

    async def transact(self, body: Callable[[Backend], Awaitable[T]], before_commit: Callable[[], None] | None = None) -> T:
        """One write transaction of ``body`` (``async def body(db)`` that awaits nothing but
        ``db``'s statements: reads, writes, decisions between them), then ``before_commit``
        inside it, then the commit; ``body``'s result. What raises rolls back and propagates.
        This generic form awaits each statement; a backend may run it all in one trip to its
        driver (SQLite: the whole body in its thread)."""
        await self.begin()
        try:
            out = await body(self)
            if before_commit is not None:
                before_commit()
            await self.commit()
        except BaseException:
            await self.rollback()
            raise
        return out

    async def fetchone(self, sql: str, params: Sequence[Any] = ()) -> Row | None:
        rows = await self.fetchall(sql, params)
        return rows[0] if rows else None
