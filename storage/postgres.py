"""The PostgreSQL backend on asyncpg, chosen by ``ALTMAFIA_DB_URL=postgresql://…``.

The store writes portable SQL (``?`` placeholders, turned into ``$1…`` here); this module is
the only place that knows PostgreSQL. Several bot processes may share one database (shards,
``docs/storage.md``), so:

* every write transaction takes one transaction-level advisory lock (:data:`WRITE_LOCK`) right
  after ``BEGIN``: writers queue one after another exactly as SQLite's ``BEGIN IMMEDIATE`` makes
  them, which keeps the store's read-check-write steps (versions, outbox claims, migrations)
  correct across processes without SERIALIZABLE retries. Two processes starting at once on an
  empty database therefore migrate it once: the second finds the versions recorded by the
  first when it re-reads them under the lock (:func:`storage.schema.migrate`);
* the database itself is shared by design: :meth:`acquire` takes nothing. What must have one
  owner (a shard) is locked by :meth:`try_lock_key`, a session-level advisory lock held for the
  life of the connection.

A test may pass ``schema``: the backend then works in that schema (created when missing), so
each test gets an empty database on one throwaway server.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from .backend import Backend, Row
from .errors import StorageError

try:  # an optional dependency: `pip install altmafia[postgres]`
    import asyncpg
except ImportError:  # pragma: no cover - exercised only where asyncpg is missing
    asyncpg = None

#: the advisory lock every write transaction takes (an arbitrary constant: "altm")
WRITE_LOCK = 0x616C746D
#: the namespace of session-level ownership locks (shards): ``(OWNER_SPACE, key)``
OWNER_SPACE = 0x616C746E
_COUNT = re.compile(r"\s(\d+)$")


def redact(url: str) -> str:
    """The URL without its password, for messages and logs."""
    parts = urlsplit(url)
    if parts.password is None:
        return url
    host = parts.hostname or ""
    user = parts.username or ""
    netloc = f"{user}:***@{host}" + (f":{parts.port}" if parts.port else "")
    return urlunsplit((parts.scheme, netloc, parts.path, parts.query, parts.fragment))


def is_postgres_url(url: str | None) -> bool:
    return bool(url) and str(url).split(":", 1)[0] in ("postgres", "postgresql")


class PostgresBackend(Backend):
    paramstyle = "numeric_dollar"

    def __init__(self, url: str, *, schema: str | None = None, connect_timeout: float = 10.0) -> None:
        if asyncpg is None:
            raise StorageError(
                "ALTMAFIA_DB_URL names a PostgreSQL database, but the asyncpg driver is not installed: "
                "pip install 'altmafia[postgres]' (or asyncpg)."
            )
        if schema is not None and not re.fullmatch(r"[a-z_][a-z0-9_]{0,62}", schema):
            raise ValueError(f"not a plain schema name: {schema!r}")
        self.url = url
        self.schema = schema
        self.location = redact(url) + (f" (schema {schema})" if schema else "")
        self.connect_timeout = connect_timeout
        self.conn: Any = None
        self.tx: Any = None

    # ---- opening ----------------------------------------------------------------------
    async def connect(self) -> bool:
        try:
            self.conn = await asyncpg.connect(self.url, timeout=self.connect_timeout)
        except (OSError, asyncpg.PostgresError, asyncpg.InterfaceError, TimeoutError) as exc:
            raise StorageError(
                f"{self.location}: cannot connect to PostgreSQL ({type(exc).__name__}: {exc}). Check "
                "that the server runs and that ALTMAFIA_DB_URL names it (host, port or socket folder, "
                "user, database)."
            ) from None
        try:
            if self.schema:
                await self.conn.execute(f'CREATE SCHEMA IF NOT EXISTS "{self.schema}"')
                await self.conn.execute(f'SET search_path TO "{self.schema}"')
            return bool(await self.tables())
        except BaseException:
            await self.close()
            raise

    async def close(self) -> None:
        if self.conn is not None:
            conn, self.conn, self.tx = self.conn, None, None
            try:
                await conn.close(timeout=5)
            except (OSError, asyncpg.PostgresError, asyncpg.InterfaceError, TimeoutError):
                conn.terminate()

    async def try_lock_key(self, key: int) -> bool:
        """Take the session-level ownership lock ``key`` (not waiting); held until :meth:`close`."""
        row = await self._c().fetchrow("SELECT pg_try_advisory_lock($1, $2)", OWNER_SPACE, int(key))
        return bool(row[0])

    # ---- statements ---------------------------------------------------------------------
    def _c(self) -> Any:
        if self.conn is None:
            raise StorageError(f"{self.location}: the database is not open.")
        return self.conn

    async def begin(self) -> None:
        self.tx = self._c().transaction()
        await self.tx.start()
        await self.conn.execute("SELECT pg_advisory_xact_lock($1)", WRITE_LOCK)

    async def commit(self) -> None:
        tx, self.tx = self.tx, None
        if tx is not None:
            await tx.commit()

    async def rollback(self) -> None:
        tx, self.tx = self.tx, None
        if tx is not None and self.conn is not None and not self.conn.is_closed():
            await tx.rollback()

    async def execute(self, sql: str, params: Sequence[Any] = ()) -> int:
        status = await self._c().execute(sql, *params)
        m = _COUNT.search(status or "")
        return int(m.group(1)) if m else 0

    async def executemany(self, sql: str, rows: Iterable[Sequence[Any]]) -> None:
        rows = [tuple(r) for r in rows]
        if rows:
            await self._c().executemany(sql, rows)

    async def fetchall(self, sql: str, params: Sequence[Any] = ()) -> list[Row]:
        return [tuple(r) for r in await self._c().fetch(sql, *params)]

    async def tables(self) -> set[str]:
        rows = await self._c().fetch(
            "SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema() "
            "AND table_type = 'BASE TABLE'"
        )
        return {r[0] for r in rows}

    def is_driver_error(self, exc: BaseException) -> bool:
        return asyncpg is not None and isinstance(exc, asyncpg.PostgresError | asyncpg.InterfaceError)

    def explain(self, exc: BaseException) -> str | None:
        if asyncpg is None:
            return None
        if isinstance(exc, asyncpg.ReadOnlySQLTransactionError):
            return f"{self.location}: the PostgreSQL server accepts no writes (a read-only replica or hot standby); point ALTMAFIA_DB_URL at the primary."
        if isinstance(exc, asyncpg.DiskFullError):
            return f"{self.location}: the PostgreSQL server's disk is full; free space on the server, then restart the bot."
        if isinstance(exc, asyncpg.InsufficientPrivilegeError):
            return f"{self.location}: the PostgreSQL user may not do this ({exc}); grant it the rights on the database."
        return None
