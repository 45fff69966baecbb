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

Round trips: every call that waits for the server is one (counted in :attr:`round_trips`).
A write transaction sends its statements with their values written in as SQL literals
(:func:`literal`, the way psycopg2 sends every query) in PostgreSQL's simple protocol, many
statements to a message: ``BEGIN`` and the write lock travel with the first statement whose
answer the store waits for (a row count), the statements whose answer nobody reads (the rows
of an ``executemany``) wait for the next message, and the last ones go with ``COMMIT``. A
:meth:`batch` is one message from ``BEGIN`` to ``COMMIT``, its checks (a row that must be
absent, a compare-and-set that must change one row) done by the server in a ``DO`` block that
raises :data:`STOP_STATE`: a command, a resolve's mark and a resolve are each one round trip.

A test may pass ``schema``: the backend then works in that schema (created when missing), so
each test gets an empty database on one throwaway server.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable, Sequence
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from .backend import Backend, Row, Step, Stopped
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
#: the SQLSTATE a batch's check raises on the server when it fails (``DO`` blocks of :meth:`batch`)
STOP_STATE = "AMSTP"
_STOP = re.compile(r"altmafia batch stop (\d+)")
_PLACEHOLDER = re.compile(r"\$(\d+)")
#: an ``INSERT … VALUES (…)`` of one row of placeholders: its rows can be sent as one statement
_ONE_ROW = re.compile(r"(\s*INSERT\s+INTO\s[^;()]*\([^;()]*\)\s*VALUES\s*)(\([^;()]*\))\s*", re.I)
_ROWS_PER_INSERT = 500
_BEGIN = ("BEGIN", f"SELECT pg_advisory_xact_lock({WRITE_LOCK})")


def literal(value: Any) -> str:
    """``value`` as a PostgreSQL literal: a string as ``E'…'`` (backslashes and quotes doubled,
    so the setting ``standard_conforming_strings`` does not matter), a negative number in
    parentheses (``a-?`` must never read ``a--1``, a comment). What the store passes: None,
    booleans, integers, floats, strings, bytes."""
    if value is None:
        return "NULL"
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, int):
        return str(int(value)) if value >= 0 else f"({int(value)})"
    if isinstance(value, float):
        return f"({value!r})" if math.isfinite(value) else f"'{value!r}'::float8"
    if isinstance(value, str):
        if "\x00" in value:
            raise StorageError("a text holds a NUL character, which PostgreSQL cannot store")
        return "E'" + value.replace("\\", "\\\\").replace("'", "''") + "'"
    if isinstance(value, bytes | bytearray | memoryview):
        return f"decode('{bytes(value).hex()}', 'hex')"
    raise TypeError(f"no PostgreSQL literal for a {type(value).__name__}")


def inline(sql: str, params: Sequence[Any]) -> str:
    """The statement (``$n`` placeholders) with its values written in."""
    if not params:
        return sql
    values = [literal(v) for v in params]
    return _PLACEHOLDER.sub(lambda m: values[int(m.group(1)) - 1], sql)


def inline_rows(sql: str, rows: Iterable[Sequence[Any]]) -> list[str]:
    """The statements of an ``executemany``: an ``INSERT`` of one row of values as one ``INSERT``
    of many rows (up to :data:`_ROWS_PER_INSERT`), anything else once per row."""
    rows = list(rows)
    m = _ONE_ROW.fullmatch(sql)
    if m is None:
        return [inline(sql, r) for r in rows]
    head, row = m.group(1), m.group(2)
    return [head + ", ".join(inline(row, r) for r in rows[i:i + _ROWS_PER_INSERT]) for i in range(0, len(rows), _ROWS_PER_INSERT)]


def _dollar_tag(text: str) -> str:
    tag, n = "$altm$", 0
    while tag in text:
        n += 1
        tag = f"$altm{n}$"
    return tag


def checked(index: int, statement: str, expect: str) -> str:
    """A batch's step with its check, done by the server: a ``DO`` block raising
    :data:`STOP_STATE` (naming the step) when ``statement`` (values written in) changes other
    than one row (``one``), or when its query finds a row (``absent``)."""
    stop = f"RAISE EXCEPTION USING ERRCODE = '{STOP_STATE}', MESSAGE = 'altmafia batch stop {index}'"
    if expect == "absent":
        body = f"BEGIN IF EXISTS ({statement}) THEN {stop}; END IF; END"
    elif expect == "one":
        body = (f"DECLARE altmafia_rows bigint; BEGIN {statement}; GET DIAGNOSTICS altmafia_rows = ROW_COUNT; "
                f"IF altmafia_rows <> 1 THEN {stop}; END IF; END")
    else:
        raise ValueError(f"unknown expectation {expect!r}")
    tag = _dollar_tag(body)
    return f"DO {tag} {body} {tag}"


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
        #: the open write transaction's statements not sent yet (None: no transaction open)
        self.tx: list[str] | None = None
        #: whether the open transaction's ``BEGIN`` has reached the server
        self.sent = False
        #: calls that waited for the server (a message of many statements counts once)
        self.round_trips = 0

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
                await self._send([f'CREATE SCHEMA IF NOT EXISTS "{self.schema}"', f'SET search_path TO "{self.schema}"'])
            return bool(await self.tables())
        except BaseException:
            await self.close()
            raise

    async def close(self) -> None:
        if self.conn is not None:
            conn, self.conn, self.tx, self.sent = self.conn, None, None, False
            try:
                await conn.close(timeout=5)
            except (OSError, asyncpg.PostgresError, asyncpg.InterfaceError, TimeoutError):
                conn.terminate()

    async def try_lock_key(self, key: int) -> bool:
        """Take the session-level ownership lock ``key`` (not waiting); held until :meth:`close`."""
        sql = "SELECT pg_try_advisory_lock($1, $2)"
        row = await self._counted(sql).fetchrow(sql, OWNER_SPACE, int(key))
        return bool(row[0])

    # ---- statements ---------------------------------------------------------------------
    def _c(self) -> Any:
        if self.conn is None:
            raise StorageError(f"{self.location}: the database is not open.")
        return self.conn

    def _counted(self, sql: str | None = None) -> Any:
        """The connection, one round trip counted (two for a statement with values that asyncpg
        has not prepared on this connection yet: its Parse is a trip of its own)."""
        conn = self._c()
        self.round_trips += 1
        if sql is not None:
            try:  # asyncpg's own statement cache, as ``Connection._get_statement`` looks it up
                cached = conn._stmt_cache.has((sql, conn._protocol.get_record_class(), False))
            except AttributeError:  # another asyncpg: count the trip it surely makes
                cached = True
            self.round_trips += 0 if cached else 1
        return conn

    async def _send(self, statements: list[str]) -> str:
        """Statements (values written in) in one message of the simple protocol; the status of
        the last one."""
        return await self._counted().execute(";\n".join(statements))

    async def _flush(self, last: str | None = None) -> str:
        """Send what the open transaction holds (its ``BEGIN`` first, when it has not been sent),
        with ``last``; the status of the last statement."""
        assert self.tx is not None
        statements = [*self.tx, *([last] if last is not None else [])]
        self.tx, self.sent = [], True  # a failure from here on leaves a transaction to roll back
        return await self._send(statements)

    async def begin(self) -> None:
        """Open a write transaction: nothing is sent yet; ``BEGIN`` and the write lock go with the
        transaction's first message to the server."""
        if self.tx is not None:
            raise StorageError(f"{self.location}: a write transaction is already open")
        self._c()
        self.tx, self.sent = list(_BEGIN), False

    async def commit(self) -> None:
        if self.tx is None:
            return
        if not self.sent and len(self.tx) == len(_BEGIN):  # nothing written: nothing to send
            self.tx = None
            return
        await self._flush("COMMIT")
        self.tx, self.sent = None, False

    async def rollback(self) -> None:
        sent = self.tx is not None and self.sent
        self.tx, self.sent = None, False
        if sent and self.conn is not None and not self.conn.is_closed():
            await self._send(["ROLLBACK"])

    async def execute(self, sql: str, params: Sequence[Any] = ()) -> int:
        if self.tx is None:
            status = await self._counted(sql if params else None).execute(sql, *params)
        else:
            status = await self._flush(inline(sql, params))
        m = _COUNT.search(status or "")
        return int(m.group(1)) if m else 0

    async def executemany(self, sql: str, rows: Iterable[Sequence[Any]]) -> None:
        """In a transaction the rows wait for its next message (nobody reads their answer; an
        error among them fails that message, and the transaction with it)."""
        rows = [tuple(r) for r in rows]
        if not rows:
            return
        if self.tx is None:
            await self._counted(sql).executemany(sql, rows)
        else:
            self.tx += inline_rows(sql, rows)

    async def fetchall(self, sql: str, params: Sequence[Any] = ()) -> list[Row]:
        if self.tx:  # the transaction's waiting statements first: the query must see them
            await self._flush()
        return [tuple(r) for r in await self._counted(sql).fetch(sql, *params)]

    async def batch(self, steps: Sequence[Step], before_commit: Callable[[], None] | None = None) -> Stopped | None:
        """:meth:`Backend.batch` as one message, ``BEGIN`` to ``COMMIT``: one round trip. A
        step's check that fails stops the message on the server (:data:`STOP_STATE`); the
        transaction is then rolled back and an ``absent`` step's rows read again (rows that were
        there under the write lock: committed rows the store never deletes)."""
        await self.begin()
        assert self.tx is not None
        try:
            for i, st in enumerate(steps):
                if st.many:
                    self.tx += inline_rows(st.sql, st.params)
                elif st.expect is not None:
                    self.tx.append(checked(i, inline(st.sql, st.params), st.expect))
                else:
                    self.tx.append(inline(st.sql, st.params))
            if before_commit is not None:
                before_commit()
            await self.commit()
        except BaseException as exc:
            await self.rollback()
            m = _STOP.search(getattr(exc, "message", "") or "") if getattr(exc, "sqlstate", None) == STOP_STATE else None
            if m is None:
                raise
            index = int(m.group(1))
            if steps[index].expect != "absent":
                return Stopped(index, [])
            rows = await self.fetchall(steps[index].sql, steps[index].params)
            if rows:
                return Stopped(index, rows)
            return await super().batch(steps, before_commit)  # gone meanwhile: the checks one by one
        return None

    async def tables(self) -> set[str]:
        return {r[0] for r in await self.fetchall(
            "SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema() "
            "AND table_type = 'BASE TABLE'"
        )}

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
