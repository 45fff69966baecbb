"""The game store: every accepted command and every resolve committed before anyone is told.

One :class:`Store` per bot process owns the database. It keeps every running game in memory
(the last *committed* state) and changes a game only through:

* :meth:`Store.apply` — a player's or GM's command: the engine validates it on a copy of the
  game; a refusal (:class:`engine.ActionError`) writes nothing; an accepted command, the new
  snapshot, its events and their outbox rows are committed in one transaction, and only then
  does the in-memory game change and the call return;
* :meth:`Store.resolve` — a phase end: a small transaction marks the resolve as started, then
  one transaction writes the new snapshot, its events, the outbox rows and the next deadline;
  a resolve cut short is found on the next start (:attr:`StartReport.due`) and redone from the
  same stored state and random generator, so it gives the identical result.

Commands of one game are serialised by a lock per game; the one database connection by
another lock, so many players acting at once all land, one after the other. Delivery goes
through the outbox: :meth:`pending_deliveries`, :meth:`claim`, :meth:`mark_delivered`.
The SQL here is portable (``?`` placeholders, standard types, no engine-specific syntax); the
backend (:mod:`storage.sqlite`) holds what is specific to SQLite. See ``docs/storage.md``.
"""

from __future__ import annotations

import asyncio
import copy
import hashlib
import json
import logging
import os
import socket
import uuid
from collections import Counter
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import asdict, dataclass, field, replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

try:
    import orjson
except ImportError:  # a dependency (pyproject); json does the same, slower
    orjson = None  # type: ignore[assignment]

from config.loader import RulesetFileError, load_ruleset
from engine import ActionError, Game, PlayerSpec, Ruleset
from engine.state import Event

from .backend import Backend, Step
from .commands import Command, effective, jsonable, replay_entries
from .errors import ShardInUse, StaleGame, StorageError, UndoRefused
from .postgres import PostgresBackend, is_postgres_url
from .schema import migrate
from .sqlite import SqliteBackend

DEFAULT_DB = "altmafia.sqlite3"
TS_FORMAT = "%Y-%m-%dT%H:%M:%S.%fZ"

GAME_COLUMNS = (
    "game_id, guild_id, ruleset, ruleset_fingerprint, seed, players, settings, gm_user_ids, meta, "
    "status, tick, version, deadline_tick, deadline_at, resolving_tick, created_at, updated_at, meta_version, resolving_user"
)

#: how long a GM's deadline change is recognised when it comes again (a retry after a lost
#: reply is a new interaction with the same command and arguments): see docs/storage.md
REPEAT_WINDOW = timedelta(minutes=10)


log = logging.getLogger(__name__)
#: how long a claim on a message part holds before another process may take it over
CLAIM_SECONDS = 120
#: a part claimed at staging is sent without claiming it again only this long before its claim expires
CLAIM_MARGIN = 30
#: how many times a command meets a game written by another process before it fails
STALE_RETRIES = 20


def default_db_path() -> Path:
    """``ALTMAFIA_DB`` (the caller loads ``.env``), else ``./altmafia.sqlite3``."""
    return Path(os.environ.get("ALTMAFIA_DB") or f"./{DEFAULT_DB}")


def to_ts(dt: datetime) -> str:
    """A UTC timestamp as fixed-width text (sorts as it compares)."""
    if dt.tzinfo is None:
        raise ValueError("a deadline must be a timezone-aware datetime")
    return dt.astimezone(UTC).strftime(TS_FORMAT)


def utc(dt: datetime | None) -> datetime | None:
    """An aware datetime in UTC (a naive one is refused: whose midnight would it be?)."""
    if dt is None:
        return None
    to_ts(dt)
    return dt.astimezone(UTC)


def from_ts(text: str | None) -> datetime | None:
    return None if text is None else datetime.strptime(text, TS_FORMAT).replace(tzinfo=UTC)


def dumps(data: Any) -> str:
    return json.dumps(data, ensure_ascii=False, separators=(",", ":"))


def encode_snapshot(data: dict[str, Any]) -> str:
    """A game's snapshot as stored: with orjson the same text as :func:`dumps` (UTF-8, no
    spaces; a float may read ``1e16`` where json writes ``1e+16``: both read either) in a
    fifth of the time (docs/benchmarks.md, "The command path"); json where orjson is missing
    or refuses the data (a key that is not a string, an integer beyond 64 bits)."""
    if orjson is not None:
        try:
            return orjson.dumps(data).decode("utf-8")
        except TypeError:
            pass
    return dumps(data)


def encode_game(game: Game) -> str:
    """``encode_snapshot(game.to_dict())`` without the copy of the state: orjson writes the
    engine's dataclasses itself (``Game.to_encodable``, the same text); the full path where
    orjson is missing or refuses the data."""
    if orjson is not None:
        try:
            return orjson.dumps(game.to_encodable()).decode("utf-8")
        except TypeError:
            pass
    return encode_snapshot(game.to_dict())


def decode_snapshot(text: str) -> Any:
    """A stored snapshot read back (orjson when installed: 2× json's speed, the same data)."""
    return orjson.loads(text) if orjson is not None else json.loads(text)


def fingerprint(rules: Ruleset) -> str:
    return hashlib.sha256(rules.model_dump_json().encode("utf-8")).hexdigest()[:16]


# ---- what the store hands back ----------------------------------------------------------
@dataclass(frozen=True)
class GameInfo:
    """A game's row: its settings and where it stands (not the engine state)."""

    game_id: str
    guild_id: int | None
    ruleset: str
    ruleset_fingerprint: str
    seed: int
    players: list[dict[str, Any]]
    settings: dict[str, Any]
    gm_user_ids: list[int]
    meta: dict[str, Any]
    status: str  # "running" or "over"
    tick: int
    version: int  # number of journal entries; the row's version for compare-and-set
    deadline_tick: int | None
    deadline_at: datetime | None
    resolving_tick: int | None
    created_at: str
    updated_at: str
    meta_version: int = 0  # bumped by every meta update (v4)
    resolving_user: int | None = None  # the GM who forced the resolve of resolving_tick (v5)

    @property
    def deadline(self) -> datetime | None:
        """The deadline of the current tick (a deadline of an earlier tick is spent)."""
        return self.deadline_at if self.deadline_tick == self.tick else None


@dataclass(frozen=True)
class Delivery:
    """One message to deliver: an event for one destination, with its idempotency key."""

    key: str
    game_id: str
    tick: int
    event_idx: int
    dest: str  # "public", "player", "faction", "gm"
    dest_id: str | None  # the pid (as text) or the faction id
    event: Event
    attempts: int = 0  # > 0: a send may have happened: check the destination before resending
    last_error: str | None = None

    @property
    def player(self) -> int | None:
        return int(self.dest_id) if self.dest == "player" and self.dest_id is not None else None

    @property
    def faction(self) -> str | None:
        return self.dest_id if self.dest == "faction" else None

    @property
    def nonce(self) -> str:
        """25 characters derived from the key, for Discord's ``nonce`` + ``enforce_nonce``."""
        return hashlib.sha256(self.key.encode("utf-8")).hexdigest()[:25]


@dataclass(frozen=True)
class Part:
    """One Discord message of a staged batch: its final text, stored before the first send."""

    batch_id: str
    part_idx: int
    game_id: str
    channel_key: str
    channel_id: int | None
    content: str
    nonce: str
    mention: int | None = None
    view: str | None = None  # a spec the bot rebuilds its buttons from (on the last part)
    files: list[dict[str, str]] | None = None  # [{"name", "data" (base64)}] (on the first part)
    attempts: int = 0  # > 0: the send may have happened: look for it before resending
    last_attempt_at: str | None = None
    message_id: int | None = None
    #: claimed by this store when it was staged (a resolve's batches) and not tried yet: send it
    #: without claiming it again or looking for it first (``attempts`` counts that claim)
    held: bool = False

    @property
    def key(self) -> str:
        return f"{self.batch_id}#{self.part_idx}"


@dataclass(frozen=True)
class ChannelIntent:
    """A channel about to be created (v6): its id once Discord answered the create
    (``channel_made``), else its marker: the guild, the type, the name and the parent (a game's
    category carries the game's unique id in its name)."""

    owner_id: str  # the lobby id (= the game id) or the game id
    channel_key: str
    guild_id: int
    kind: int  # Discord's channel type (0 text, 4 category)
    name: str
    parent_id: int | None
    channel_id: int | None = None
    settled_at: str | None = None


def part_nonce(batch_id: str, idx: int, generation: int = 0) -> str:
    """The 25-character nonce of a batch's part (Discord's ``nonce``). ``generation``: how many
    batches of the same id an undo took back before (``<id>~u<seq>``): Discord answers a nonce it
    saw in the last minutes with the old message and posts nothing, so the redone resolve's
    batches, staged again under the same ids, get nonces of their own."""
    tail = f"~g{generation}" if generation else ""
    return hashlib.sha256(f"{batch_id}#{idx}{tail}".encode()).hexdigest()[:25]


async def _attempted(db: Backend, keys: Any, specs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Parts that may have been sent already (``uncertain``: their outbox rows were claimed by
    an older build) get the time of the rows' first claim as their attempt's
    (``attempted_at``): a message older than it is no evidence of their send."""
    if not keys or not any(p.get("uncertain") for p in specs):
        return list(specs)
    marks = ", ".join("?" for _ in keys)
    rows = await db.fetchall(db.sql(f"SELECT MIN(last_attempt_at) FROM outbox WHERE attempts > 0 AND delivery_key IN ({marks})"),
                             tuple(keys))
    at = rows[0][0]
    return [{**p, "attempted_at": at} if p.get("uncertain") else p for p in specs]


async def _generation(db: Backend, batch_id: str) -> int:
    """How many batches staged under ``batch_id`` before were renamed by an undo (``…~u<seq>``,
    renamed again by a later undo: ``…~u<seq>~u<seq2>``): 0 for a batch id used the first time.
    Read from the table, so a restart derives the same nonces for the same batch."""
    rows = await db.fetchall(db.sql("SELECT COUNT(DISTINCT batch_id) FROM outbox_parts WHERE batch_id > ? AND batch_id < ?"),
                             (f"{batch_id}~u", f"{batch_id}~v"))
    return rows[0][0] or 0


async def _staged_since(db: Backend, game_id: str, batches: list[str], mark: str, first: int) -> list[str]:
    """The batches of a game staged since a resolve began (what an undo takes back with the
    resolve's own batches ``batches``): its mark's line (batch ids starting with ``mark``), the
    new phase's panels and announcement, anything posted in the phase it opened. A batch holding
    outbox rows of events before the resolve (index below ``first``) stays as it is."""
    low = await db.fetchall(db.sql("SELECT MIN(batch_ord) FROM outbox_parts WHERE game_id = ? AND batch_id >= ? AND batch_id < ? "
                                   "AND batch_id NOT LIKE '%~u%'"),
                            (game_id, mark, mark[:-1] + chr(ord(mark[-1]) + 1)))
    start = low[0][0]
    for b in batches:
        row = await db.fetchall(db.sql("SELECT MIN(batch_ord) FROM outbox_parts WHERE batch_id = ?"), (b,))
        if row[0][0] is not None and (start is None or row[0][0] < start):
            start = row[0][0]
    if start is None:
        return []
    rows = await db.fetchall(db.sql(
        "SELECT DISTINCT batch_id FROM outbox_parts WHERE game_id = ? AND batch_ord >= ? AND batch_id NOT IN "
        "(SELECT batch_id FROM outbox WHERE game_id = ? AND event_idx < ? AND batch_id IS NOT NULL)"),
        (game_id, start, game_id, first))
    return sorted({r[0] for r in rows} - set(batches))


@dataclass(frozen=True)
class Post:
    """A message of the bot itself, rendered by the caller, to stage in the transaction of the
    command it belongs to (``Store.apply(…, posts=…)``): nothing can commit the command and
    lose its message. ``parts``: the part specs of :meth:`Store.stage` (``content`` and
    optional ``mention``, ``view``, ``files``; the nonce is derived from the batch id)."""

    channel_key: str
    channel_id: int | None
    parts: tuple[dict[str, Any], ...]
    #: the outbox rows this message delivers (a resolve's batch of a channel): claimed with it
    keys: tuple[str, ...] = ()
    #: the whole batch id (``<first key>><channel>``, ``<game>/panel:3:2>player:2``) instead of
    #: ``<game>/<key>:<n>><channel>``: the id the bot would stage it under later, so it is staged once
    batch: str | None = None
    #: unsent parts whose text this message carries (a resolve's GM line joining the GM batch):
    #: marked sent, without a message id, in the same transaction
    absorb: tuple[Part, ...] = ()


@dataclass(frozen=True)
class Applied:
    game_id: str
    seq: int  # the journal entry
    tick: int
    result: Any  # what the engine returned (an intent, a PM…), as JSON-compatible data
    events: list[Event]
    deliveries: list[Delivery]
    duplicate: bool = False  # the request id was already in the journal: nothing applied now


@dataclass(frozen=True)
class Resolved:
    game_id: str
    seq: int
    tick: int  # the tick that was resolved
    events: list[Event]
    deliveries: list[Delivery]
    over: bool
    winner: list[int] | None
    #: the messages staged and claimed in the resolve's own transaction (``resolve(stage=…)``)
    parts: list[Part] = field(default_factory=list)


@dataclass(frozen=True)
class DeadlineChange:
    """What :meth:`Store.change_deadline` did: the game as it is now, whether anything was
    written, and for a repeat of a recent change (``duplicate``) when that one was made."""

    info: GameInfo
    changed: bool
    duplicate: bool = False
    first_at: datetime | None = None  # a repeat: when the change it repeats was committed


@dataclass(frozen=True)
class Undone:
    """What :meth:`Store.undo_resolve` did: the game now, the undo's journal entry, the resolve
    it took back and the tick open again, and where that resolve's messages had been posted."""

    info: GameInfo
    seq: int
    resolve_seq: int
    tick: int
    posted: list[dict[str, Any]]
    duplicate: bool = False


@dataclass(frozen=True)
class Due:
    """A game to resolve now: its resolve was cut short, or its deadline has passed."""

    game_id: str
    tick: int
    reason: str  # "interrupted" or "overdue"
    deadline: datetime | None
    user_id: int | None = None  # "interrupted": the GM who had forced it (v5)


@dataclass
class StartReport:
    location: str
    created: bool  # the database did not exist (or was empty) and was created now
    schema_from: int
    schema_to: int
    games: list[GameInfo]
    due: list[Due]
    pending: list[Delivery]
    ruleset_changed: list[str] = field(default_factory=list)  # games whose ruleset file changed

    @property
    def uncertain(self) -> list[Delivery]:
        return [d for d in self.pending if d.attempts]

    def summary(self) -> str:
        made = "created" if self.created else f"schema v{self.schema_to}"
        if self.schema_from and self.schema_from != self.schema_to:
            made += f" (migrated from v{self.schema_from})"
        running = sum(1 for g in self.games if g.status == "running")
        return (
            f"{self.location}: {made}; {running} running game(s), {len(self.due)} to resolve now, "
            f"{len(self.pending)} pending deliveries ({len(self.uncertain)} possibly sent)"
        )


@dataclass
class _Live:
    info: GameInfo
    rules: Ruleset
    game: Game
    text: str  # the committed snapshot, as stored (without the event log and the history)
    ev_count: int = 0  # rows in the events table: the index of the next event (the log is not in memory)
    hist_count: int = 0  # rows in the history table
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)


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


#: an SQL condition on ``games``: the game is kept in memory — it runs, or it has messages not
#: yet delivered, or it is finished and its end was not yet shown (the bot's reveal)
KEPT = ("(status = 'running' "
        "OR game_id IN (SELECT game_id FROM outbox WHERE delivered_at IS NULL) "
        "OR game_id IN (SELECT game_id FROM outbox_parts WHERE sent_at IS NULL) "
        """OR (status = 'over' AND meta NOT LIKE '%"revealed":true%'))""")


# ---- the store ----------------------------------------------------------------------------
class Store:
    """All games of one bot process. ``async with Store() as store: ...`` or open()/close()."""

    def __init__(
        self,
        path: str | Path | None = None,
        *,
        backend: Backend | None = None,
        rulesets: Callable[[str], Ruleset] | None = None,
        synchronous: str = "FULL",
        clock: Callable[[], datetime] | None = None,
        shards: tuple[int, tuple[int, ...]] | None = None,
    ) -> None:
        #: ``(shard_count, shard_ids)``: this process loads, resolves and delivers only the games
        #: of the guilds on these shards (Discord: ``(guild_id >> 22) % shard_count``); None: all
        self.shards = _check_shards(shards)
        self.backend = backend or make_backend(path if path is not None else default_db_path(), synchronous)
        if rulesets is None:
            rulesets = load_ruleset
        self._rulesets = rulesets
        self._clock = clock or (lambda: datetime.now(UTC))
        self._games: dict[str, _Live] = {}
        self._db_lock = asyncio.Lock()
        self._meta_locks: dict[str, asyncio.Lock] = {}  # for games not loaded (finished)
        self._channels: dict[int, str] = {}  # Discord channel id -> game id (v4)
        #: parts this store claimed when it staged them and has not tried to send yet (Part.held),
        #: with when that claim expires: past it (less a margin) the part is claimed again normally
        self._held: dict[tuple[str, int], datetime] = {}
        #: committed transactions by label ("apply", "resolve", "resolve.mark", "claim", …)
        self.transactions: Counter[str] = Counter()
        #: a test hook called at named points ("apply.before_commit"…); None in production
        self.fault: Callable[[str], None] | None = None
        self.report: StartReport | None = None
        #: games reloaded because another process had written them (``_reload``)
        self.reloads = 0
        #: who this store is when it claims a message part (several processes may share a database)
        self.owner = f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"

    @property
    def location(self) -> str:
        return self.backend.location

    # ---- opening and recovery ---------------------------------------------------------
    async def open(self, now: datetime | None = None) -> StartReport:
        """Open, migrate, load every running game; report what must happen first.

        The caller resolves every game in ``report.due`` at once (``resolve(game_id,
        expect_tick=due.tick)``) and delivers ``report.pending`` before taking new commands.
        """
        created = not await self.backend.connect()
        try:
            await self._own_shards()
            start, to = await migrate(self.backend, on_transaction=self._count, hook=self._point)
            if start < 4 <= to:
                await self._backfill_v4()
            await self._split_old()
            changed = await self._load_games()
            self._channels = {int(r[0]): r[1] for r in await self._read("SELECT channel_id, game_id FROM game_channels")}
            await self._release_dead_claims()
            pending = await self.pending_deliveries()
        except BaseException:
            await self.backend.close()
            raise
        self.report = StartReport(
            location=self.location,
            created=created,
            schema_from=start,
            schema_to=to,
            games=[g.info for g in self._games.values()],
            due=self.due(now),
            pending=pending,
            ruleset_changed=changed,
        )
        return self.report

    def acquire(self) -> None:
        """Take the database for this process now (``open`` does it too): a second bot
        process on the same database gets :class:`storage.errors.DatabaseInUse` before it does
        anything else (the CLI calls this before connecting to Discord)."""
        self.backend.acquire()

    async def close(self) -> None:
        async with self._db_lock:
            await self.backend.close()
        self._games.clear()
        self._channels.clear()
        self._held.clear()

    async def _backfill_v4(self) -> None:
        """Fill what migration 0004 added from the JSON kept so far: each lobby's channel (the
        oldest lobby of a channel keeps it; a later one of the same channel, made before the
        rule, stays without and can still be ended by its GM) and every game's channels."""
        async with self._tx("migrate.backfill") as db:
            taken: set[int] = set()
            rows = await db.fetchall(db.sql("SELECT lobby_id, data FROM lobbies ORDER BY created_at, lobby_id"))
            for lobby_id, data in rows:
                cid = _int(json.loads(data).get("channel_id"))
                if cid is not None and cid not in taken:
                    taken.add(cid)
                    await db.execute(db.sql("UPDATE lobbies SET channel_id = ? WHERE lobby_id = ?"), (cid, lobby_id))
            for game_id, meta in await db.fetchall(db.sql("SELECT game_id, meta FROM games ORDER BY created_at, game_id")):
                await self._write_channels(db, game_id, {}, json.loads(meta))

    async def _split_old(self) -> None:
        """Move the event log and the history out of every snapshot written before migration
        0008 (``log_apart = 0``), one game a transaction: the events were in their table
        already (any missing there is added), the history goes to its own; the snapshot is
        written again without them. Runs at every start while such a game is left."""
        for gid, version, state in await self._read("SELECT game_id, version, state FROM games WHERE log_apart = 0 ORDER BY game_id"):
            data = json.loads(state)
            events, history = data.get("events") or [], data.get("history") or []
            data["events"], data["history"] = [], []
            async with self._tx("migrate.split") as db:
                have = (await db.fetchall(db.sql("SELECT COUNT(*) FROM events WHERE game_id = ?"), (gid,)))[0][0]
                await db.executemany(
                    db.sql("INSERT INTO events (game_id, idx, seq, tick, msg_key, audience, ids, args) VALUES (?, ?, ?, ?, ?, ?, ?, ?)"),
                    [(gid, idx, version, e["tick"], e["key"], e["audience"], dumps(e["ids"]), dumps(e["args"]))
                     for idx, e in enumerate(events) if idx >= have],
                )
                have = (await db.fetchall(db.sql("SELECT COUNT(*) FROM history WHERE game_id = ?"), (gid,)))[0][0]
                await db.executemany(
                    db.sql("INSERT INTO history (game_id, idx, seq, tick, record) VALUES (?, ?, ?, ?, ?)"),
                    [(gid, idx, version, h["tick"], dumps(h)) for idx, h in enumerate(history) if idx >= have],
                )
                await db.execute(db.sql("UPDATE games SET state = ?, log_apart = 1 WHERE game_id = ?"), (dumps(data), gid))

    async def __aenter__(self) -> Store:
        await self.open()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    def _mine(self) -> str:
        """An SQL condition on ``games.guild_id``: the game is on one of this store's shards (a
        game of no guild — tests, the bench — is on shard 0, as Discord puts DMs)."""
        if self.shards is None:
            return "1 = 1"
        count, ids = self.shards
        shard = f"(CASE WHEN guild_id IS NULL THEN 0 ELSE (guild_id / {1 << 22}) % {count} END)"
        return f"{shard} IN ({', '.join(str(i) for i in ids)})"

    async def _own_shards(self) -> None:
        """Take this process's shards for its life: a second owner of a shard refuses to start."""
        if self.shards is None:
            return
        count, ids = self.shards
        for i in ids:
            if not await self.backend.try_lock_key(count * 1000 + i):
                raise ShardInUse(self.location, i, count)

    async def _load_games(self) -> list[str]:
        rows = await self._read(f"SELECT {GAME_COLUMNS}, state FROM games WHERE {self._mine()} AND {KEPT} ORDER BY game_id")
        changed = []
        for row in rows:
            live = await self._load_live(row)
            if fingerprint(live.rules) != live.info.ruleset_fingerprint:
                changed.append(live.info.game_id)
            self._games[live.info.game_id] = live
        return changed

    def _live_from_row(self, row: tuple[Any, ...]) -> _Live:
        """A loaded game from its row (``GAME_COLUMNS`` then ``state``)."""
        info = self._info(row[:-1])
        try:
            rules = self._rulesets(info.ruleset)
            game = _lean(Game.from_dict(rules, json.loads(row[-1])))
        except RulesetFileError as exc:
            # the database is fine: the ruleset file went missing or became invalid
            raise StorageError(
                f"{self.location}: game {info.game_id!r} cannot be loaded because its ruleset "
                f"{info.ruleset!r} cannot: {exc}. The bot stops rather than lose the game; the "
                "database is not damaged: put the ruleset file back or fix it."
            ) from exc
        except Exception as exc:
            raise StorageError(
                f"{self.location}: game {info.game_id!r} (ruleset {info.ruleset!r}) cannot be "
                f"loaded: {type(exc).__name__}: {exc}. The bot stops rather than lose it; if the "
                "ruleset file changed, restore it; if not, the game's saved state is damaged: "
                "restore the database from a backup."
            ) from exc
        return _Live(info=info, rules=rules, game=game, text=row[-1])

    async def _load_live(self, row: tuple[Any, ...]) -> _Live:
        """A loaded game: its snapshot, and how long its log is (the log stays in its tables)."""
        live = self._live_from_row(row)
        gid = live.info.game_id
        live.ev_count = (await self._read("SELECT COUNT(*) FROM events WHERE game_id = ?", (gid,)))[0][0]
        live.hist_count = (await self._read("SELECT COUNT(*) FROM history WHERE game_id = ?", (gid,)))[0][0]
        return live

    async def _recall(self, live: _Live) -> tuple[list[Event], list[dict[str, Any]]]:
        """The part of the log a resolve may read (``Game.recall_from()`` on), from the tables:
        the events from the first of that tick on, the history records likewise."""
        gid, recall = live.info.game_id, live.game.recall_from()
        rows = await self._read(
            "SELECT tick, msg_key, args, audience, ids FROM events WHERE game_id = ? AND idx >= "
            "(SELECT MIN(idx) FROM events WHERE game_id = ? AND tick >= ?) ORDER BY idx", (gid, gid, recall)
        )
        events = [Event(tick=r[0], key=r[1], args=json.loads(r[2]), audience=r[3], ids=json.loads(r[4])) for r in rows]
        rows = await self._read(
            "SELECT record FROM history WHERE game_id = ? AND idx >= "
            "(SELECT MIN(idx) FROM history WHERE game_id = ? AND tick >= ?) ORDER BY idx", (gid, gid, recall)
        )
        return events, [json.loads(r[0]) for r in rows]

    async def _retry_stale(self, live: _Live, step: Callable[[], Any]) -> Any:
        """Run ``step`` (a command, a resolve, a deadline on ``live``, its lock held); when the
        game turns out to have been written by another process meanwhile (nothing was written
        then), reload it and run ``step`` again on the stored game rather than failing this and
        every later command. Gives up after ``STALE_RETRIES`` conflicts in a row."""
        for _ in range(STALE_RETRIES):
            try:
                return await step()
            except StaleGame:
                await self._reload(live)
        return await step()

    async def _reload(self, live: _Live) -> None:
        """Read a game again after someone else wrote it (its version moved on under us): the
        in-memory copy was stale. Called with ``live.lock`` held; keeps that lock object."""
        gid = live.info.game_id
        rows = await self._read(f"SELECT {GAME_COLUMNS}, state FROM games WHERE game_id = ?", (gid,))
        if not rows:
            raise StorageError(f"{self.location}: game {gid!r} is gone from the database.")
        fresh = await self._load_live(rows[0])
        log.warning("%s: game %r was written by another process (version %s → %s); reloaded",
                    self.location, gid, live.info.version, fresh.info.version)
        live.info, live.rules, live.game, live.text = fresh.info, fresh.rules, fresh.game, fresh.text
        live.ev_count, live.hist_count = fresh.ev_count, fresh.hist_count
        self.reloads += 1

    def due(self, now: datetime | None = None) -> list[Due]:
        """Games to resolve now: an unfinished resolve, or a deadline at or before ``now``."""
        now = now or self._clock()
        out = []
        for gid in sorted(self._games):
            info = self._games[gid].info
            if info.status != "running":
                continue
            if info.resolving_tick == info.tick:
                out.append(Due(gid, info.tick, "interrupted", info.deadline, info.resolving_user))
            elif info.deadline is not None and info.deadline <= now:
                out.append(Due(gid, info.tick, "overdue", info.deadline))
        return out

    async def release_finished(self, now: datetime | None = None, *, older_than: timedelta = timedelta(0)) -> list[str]:
        """Drop from memory every finished game that is done with: over, its end shown (the
        bot's reveal, ``meta.revealed``) and every message of it delivered — the games a start
        would not load (``KEPT``) —, last written at least ``older_than`` before ``now``. It
        stays in the database: :meth:`find`, :meth:`snapshot`, :meth:`journal`,
        :meth:`events`, :meth:`game_of_channel`, :meth:`update_meta` and :meth:`load` read it
        on demand. Returns the ids released. Reads only: no transaction."""
        limit = to_ts((now or self._clock()) - older_than)
        done = [gid for gid, live in self._games.items() if live.info.status == "over" and live.info.updated_at <= limit]
        out = []
        for gid in done:
            live = self._games[gid]
            if live.lock.locked():
                continue  # something is being written: the next sweep
            if await self._read(f"SELECT 1 FROM games WHERE game_id = ? AND {KEPT}", (gid,)):
                continue
            if self._games.get(gid) is live and not live.lock.locked():
                del self._games[gid]
                for k in [k for k in self._held if k[0].startswith(f"{gid}/")]:
                    del self._held[k]
                out.append(gid)
        return out

    async def load(self, game_id: str) -> Game | None:
        """The game as last committed, loaded or not (a finished game released from memory is
        read from the database, without its log, and not kept); None if there is none."""
        if game_id in self._games:
            return self._games[game_id].game
        rows = await self._read(f"SELECT {GAME_COLUMNS}, state FROM games WHERE game_id = ?", (game_id,))
        return self._live_from_row(rows[0]).game if rows else None

    # ---- reading ----------------------------------------------------------------------
    def has(self, game_id: str) -> bool:
        return game_id in self._games

    def game(self, game_id: str) -> Game:
        """The game as last committed. Read it (legal actions, rendering); never change it."""
        return self._live(game_id).game

    def info(self, game_id: str) -> GameInfo:
        return self._live(game_id).info

    async def preview(self, game_id: str) -> Game:
        """A private copy of the game holding the part of its log a resolve may read: a dry
        run of the resolve (the GM's preview) goes exactly as the real one would."""
        live = self._live(game_id)
        game = Game.from_dict(live.rules, json.loads(live.text))
        game.state.events, game.state.history = await self._recall(live)
        return game

    async def event(self, game_id: str, idx: int) -> Event | None:
        """The event of index ``idx`` (``Delivery.event_idx``), None if there is none."""
        rows = await self._read("SELECT tick, msg_key, args, audience, ids FROM events WHERE game_id = ? AND idx = ?", (game_id, idx))
        return Event(tick=rows[0][0], key=rows[0][1], args=json.loads(rows[0][2]), audience=rows[0][3], ids=json.loads(rows[0][4])) if rows else None

    def games(self) -> list[GameInfo]:
        return [g.info for g in self._games.values()]

    async def find(self, game_id: str) -> GameInfo | None:
        """A game's row, loaded or not (finished games are not kept in memory)."""
        if game_id in self._games:
            return self._games[game_id].info
        rows = await self._read(f"SELECT {GAME_COLUMNS} FROM games WHERE game_id = ?", (game_id,))
        return self._info(rows[0]) if rows else None

    def deadline(self, game_id: str) -> datetime | None:
        return self._live(game_id).info.deadline

    async def journal(self, game_id: str) -> list[dict[str, Any]]:
        """The command journal in order: seq, tick, kind, args, result, user_id, request_id."""
        rows = await self._read(
            "SELECT seq, tick, kind, args, result, user_id, request_id, created_at FROM commands WHERE game_id = ? ORDER BY seq",
            (game_id,),
        )
        return [
            {"seq": r[0], "tick": r[1], "kind": r[2], "args": json.loads(r[3]), "result": json.loads(r[4]) if r[4] is not None else None,
             "user_id": r[5], "request_id": r[6], "created_at": r[7]}
            for r in rows
        ]

    async def events(self, game_id: str, since: int = 0) -> list[Event]:
        rows = await self._read(
            "SELECT tick, msg_key, args, audience, ids FROM events WHERE game_id = ? AND idx >= ? ORDER BY idx", (game_id, since)
        )
        return [Event(tick=r[0], key=r[1], args=json.loads(r[2]), audience=r[3], ids=json.loads(r[4])) for r in rows]

    async def gm_actions(self, game_id: str) -> list[dict[str, Any]]:
        rows = await self._read(
            "SELECT seq, tick, user_id, action, args, created_at FROM gm_actions WHERE game_id = ? ORDER BY seq", (game_id,)
        )
        return [{"seq": r[0], "tick": r[1], "user_id": r[2], "action": r[3], "args": json.loads(r[4]), "created_at": r[5]} for r in rows]

    async def snapshot(self, game_id: str) -> dict[str, Any]:
        """The game as stored, whole: its snapshot with the event log and the history put back
        from their tables (``Game.to_dict()`` of the game with its whole log)."""
        rows = await self._read("SELECT state FROM games WHERE game_id = ?", (game_id,))
        if not rows:
            raise StorageError(f"{self.location}: no game {game_id!r}")
        data = json.loads(rows[0][0])
        data["events"] = [
            {"tick": r[0], "key": r[1], "args": json.loads(r[2]), "audience": r[3], "ids": json.loads(r[4])}
            for r in await self._read("SELECT tick, msg_key, args, audience, ids FROM events WHERE game_id = ? ORDER BY idx", (game_id,))
        ]
        data["history"] = [json.loads(r[0]) for r in await self._read("SELECT record FROM history WHERE game_id = ? ORDER BY idx", (game_id,))]
        return Game.from_dict(self._rulesets(data["ruleset"]), data).to_dict()

    async def rebuild(self, game_id: str, *, whole: bool = False) -> Game:
        """The game rebuilt from its creation settings by replaying the journal: without its
        log, as the store holds it in memory (it compares equal with :meth:`game`); ``whole``:
        with all of it (it compares equal with :meth:`snapshot`). A finished game released
        from memory is read from the database for it."""
        live = self._games.get(game_id)
        if live is None:
            rows = await self._read(f"SELECT {GAME_COLUMNS}, state FROM games WHERE game_id = ?", (game_id,))
            if not rows:
                raise KeyError(f"no game {game_id!r}")
            live = self._live_from_row(rows[0])
        info = live.info
        game = Game.new(live.rules, info.seed, [PlayerSpec(**p) for p in info.players], info.settings)
        game = replay_entries(game, effective(await self.journal(game_id)))
        if not whole:
            game.state.events, game.state.history = [], []
        return game

    # ---- creating -----------------------------------------------------------------------
    async def create_game(
        self,
        ruleset: str,
        seed: int,
        players: list[PlayerSpec],
        *,
        game_id: str | None = None,
        guild_id: int | None = None,
        gm_user_ids: list[int] | tuple[int, ...] = (),
        settings: dict[str, Any] | None = None,
        meta: dict[str, Any] | None = None,
        deadline: datetime | None = None,
    ) -> GameInfo:
        """Create and commit a new game (``engine.GameError`` for a bad setup: nothing written)."""
        deadline = utc(deadline)
        rules = self._rulesets(ruleset)
        game = Game.new(rules, seed, list(players), settings)
        return await _uncancellable(
            self._create(rules, game, seed, list(players), game_id or uuid.uuid4().hex, guild_id, gm_user_ids, settings, meta, deadline)
        )

    async def _create(self, rules: Ruleset, game: Game, seed: int, players: list[PlayerSpec], game_id: str, guild_id: int | None,
                      gm_user_ids: Any, settings: dict[str, Any] | None, meta: dict[str, Any] | None,
                      deadline: datetime | None) -> GameInfo:
        if game_id in self._games or await self._read("SELECT 1 FROM games WHERE game_id = ?", (game_id,)):
            raise StorageError(f"{self.location}: a game {game_id!r} exists already")
        stamp = self._stamp()
        info = GameInfo(
            game_id=game_id, guild_id=guild_id, ruleset=rules.id, ruleset_fingerprint=fingerprint(rules), seed=seed,
            players=[asdict(p) for p in players], settings=dict(settings or {}), gm_user_ids=list(gm_user_ids),
            meta=dict(meta or {}), status="running", tick=game.state.tick, version=0,
            deadline_tick=game.state.tick if deadline else None, deadline_at=deadline, resolving_tick=None,
            created_at=stamp, updated_at=stamp,
        )
        text = _snapshot(game)
        events, history = list(game.state.events), list(game.state.history)
        async with self._tx("create") as db:
            await db.execute(
                db.sql(f"INSERT INTO games ({GAME_COLUMNS}, state, log_apart) VALUES ({', '.join('?' * 20)}, 1)"),
                (
                    info.game_id, info.guild_id, info.ruleset, info.ruleset_fingerprint, info.seed, dumps(info.players),
                    dumps(info.settings), dumps(info.gm_user_ids), dumps(info.meta), info.status, info.tick, info.version,
                    info.deadline_tick, to_ts(deadline) if deadline else None, None, stamp, stamp, 0, None, text,
                ),
            )
            added = await self._write_channels(db, game_id, {}, info.meta)
            await self._write_events(db, game_id, 0, 0, events, stamp)
            await self._write_history(db, game_id, 0, 0, history)
            self._point("create.before_commit")
        self._channels.update(added)
        # the live game is read back from the stored text, exactly as after a restart
        self._games[game_id] = _Live(info=info, rules=rules, game=_lean(Game.from_dict(rules, json.loads(text))), text=text,
                                     ev_count=len(events), hist_count=len(history))
        return info

    # ---- commands -----------------------------------------------------------------------
    async def apply(self, game_id: str, command: Command, *, posts: Any = ()) -> Applied:
        """Validate ``command`` through the engine and commit it; return only once committed.

        ``posts``: the bot's own messages that belong to the command (:class:`Post`s, or a
        function of the game after the command and the engine's result returning them: a PM's copy to its sender, the
        GM's log line), staged in the same transaction as batches ``<game>/cmd:<seq>:<n>>…``.

        Raises :class:`engine.ActionError` when the engine refuses (nothing is written), and
        :class:`StorageError` when the database cannot take it (nothing changes either).
        """
        if not posts and self.backend.batch_outlives_cancel():
            # one batch, whose outcome a cancelled caller still gets: the command's
            # transaction and the swap of the game in memory happen together without a task
            return await self._apply(game_id, command, posts)
        return await _uncancellable(self._apply(game_id, command, posts))

    async def _apply(self, game_id: str, command: Command, posts: Any = ()) -> Applied:
        live = self._live(game_id)
        async with live.lock:
            return await self._retry_stale(live, lambda: self._apply_locked(live, game_id, command, posts))

    async def _apply_locked(self, live: _Live, game_id: str, command: Command, posts: Any = ()) -> Applied:
        # the engine runs on the live game itself (no copy: a command is short and never reads
        # the log); a refusal, a failed or refused transaction and anything raised give the
        # live game back exactly as committed, from its committed snapshot (``_restore``)
        game = live.game
        st = game.state
        try:
            result = jsonable(command.run(game))
        except BaseException as exc:
            self._restore(live)
            if isinstance(exc, ActionError) and command.request_id is not None:
                # a retry of a command already applied may be refused by the game as it is now
                dup = await self._duplicate(game_id, command.request_id)
                if dup is not None:
                    return dup
            raise
        try:
            events, history = st.events, st.history
            st.events, st.history = [], []
            text = encode_game(game)
            _lean(game)
            tick = st.tick
            seq = live.info.version + 1
            stamp = self._stamp()
            info = self._next_info(live.info, game, seq, stamp)
            bot_posts = list(posts(game, result) if callable(posts) else posts)
            if bot_posts:  # staging posts reads the outbox: the transaction of many statements
                applied = await self._apply_tx(live, game_id, command, result, tick, seq, stamp, info, text, events, history, bot_posts)
            else:
                applied = await self._apply_batch(live, game_id, command, result, tick, seq, stamp, info, text, events, history)
        except BaseException:
            self._restore(live)
            raise
        if applied.duplicate:
            self._restore(live)
            return applied
        self._point("apply.after_commit")
        live.text, live.info = text, info
        live.ev_count, live.hist_count = live.ev_count + len(events), live.hist_count + len(history)
        return applied

    def _restore(self, live: _Live) -> None:
        """The live game as committed again (after a command ran on it and was not committed)."""
        live.game = _lean(Game.from_dict(live.rules, decode_snapshot(live.text)))

    async def _duplicate(self, game_id: str, request_id: str) -> Applied | None:
        row = await self._read("SELECT seq, tick, result FROM commands WHERE game_id = ? AND request_id = ?", (game_id, request_id))
        if not row:
            return None
        seq, tick, result = row[0]
        return Applied(game_id, seq, tick, json.loads(result) if result else None, [], [], duplicate=True)

    def _command_rows(self, live: _Live, game_id: str, command: Command, result: Any, tick: int, seq: int, stamp: str,
                      events: list[Event], history: list[dict[str, Any]]) -> tuple[tuple[Any, ...], list[Any], list[Any], list[Delivery], list[Any]]:
        command_row = (game_id, seq, tick, command.kind, dumps(command.args), dumps(result), command.user_id, command.request_id, stamp)
        ev_rows, outbox, deliveries = _event_rows(game_id, seq, live.ev_count, events, stamp)
        hist_rows = _history_rows(game_id, seq, live.hist_count, history)
        return command_row, ev_rows, outbox, deliveries, hist_rows

    async def _apply_batch(self, live: _Live, game_id: str, command: Command, result: Any, tick: int, seq: int, stamp: str,
                           info: GameInfo, text: str, events: list[Event], history: list[dict[str, Any]]) -> Applied:
        """An accepted command without posts: its whole transaction as one :meth:`Backend.batch`
        (SQLite: one trip to the database's thread instead of one per statement)."""
        db = self.backend
        command_row, ev_rows, outbox, deliveries, hist_rows = self._command_rows(live, game_id, command, result, tick, seq,
                                                                                 stamp, events, history)
        steps = []
        if command.request_id is not None:
            steps.append(Step(db.sql("SELECT seq, tick, result FROM commands WHERE game_id = ? AND request_id = ?"),
                              (game_id, command.request_id), expect="absent"))
        sql, params = self._game_update(live.info, info, text)
        steps.append(Step(db.sql(sql), params, expect="one"))  # first write: a stale copy writes nothing
        steps += [
            Step(db.sql(INSERT_COMMAND), command_row),
            Step(db.sql(INSERT_EVENT), ev_rows, many=True),
            Step(db.sql(INSERT_OUTBOX), outbox, many=True),
            Step(db.sql(INSERT_HISTORY), hist_rows, many=True),
        ]
        if command.is_gm:
            steps.append(Step(db.sql(INSERT_GM_ACTION), (game_id, seq, tick, command.user_id, command.kind, dumps(command.args), stamp)))
        stopped = await self._batch("apply", steps, "apply.before_commit")
        if stopped is not None:
            if steps[stopped.index].expect == "absent":  # this request was applied before
                dup_seq, dup_tick, dup = stopped.rows[0]
                return Applied(game_id, dup_seq, dup_tick, json.loads(dup) if dup else None, [], [], duplicate=True)
            raise self._stale(live.info)
        return Applied(game_id, seq, tick, result, list(events), deliveries)

    async def _apply_tx(self, live: _Live, game_id: str, command: Command, result: Any, tick: int, seq: int, stamp: str,
                        info: GameInfo, text: str, events: list[Event], history: list[dict[str, Any]], bot_posts: list[Any]) -> Applied:
        """An accepted command with the bot's posts: one transaction, statement by statement."""
        command_row, ev_rows, outbox, deliveries, hist_rows = self._command_rows(live, game_id, command, result, tick, seq,
                                                                                 stamp, events, history)
        if command.request_id is not None:
            dup = await self._duplicate(game_id, command.request_id)
            if dup is not None:
                return dup
        async with self._tx("apply") as db:
            await self._update_game(db, live.info, info, text)  # first write: a stale copy writes nothing
            await db.execute(db.sql(INSERT_COMMAND), command_row)
            await db.executemany(db.sql(INSERT_EVENT), ev_rows)
            await db.executemany(db.sql(INSERT_OUTBOX), outbox)
            await db.executemany(db.sql(INSERT_HISTORY), hist_rows)
            if command.is_gm:
                await self._gm_action(db, game_id, seq, tick, command.user_id, command.kind, command.args, stamp)
            await self._write_posts(db, game_id, f"cmd:{seq}", bot_posts, stamp)
            self._point("apply.before_commit")
        return Applied(game_id, seq, tick, result, list(events), deliveries)

    async def resolve(
        self,
        game_id: str,
        *,
        expect_tick: int | None = None,
        next_deadline: datetime | None = None,
        user_id: int | None = None,
        posts: Any = (),
        stage: Callable[[Game, GameInfo, list[Delivery], list[Part]], list[Post]] | None = None,
        meta: Callable[[dict[str, Any], Game], dict[str, Any] | None] | None = None,
        end: Callable[[Game, GameInfo, list[Event], list[dict[str, Any]]], Awaitable[Any]] | None = None,
    ) -> Resolved | None:
        """Resolve the current tick in one transaction; None when there is nothing to do.

        ``expect_tick``: resolve only if the game is still at that tick (a deadline timer and a
        GM's forced resolve cannot both resolve it). ``next_deadline``: the deadline of the
        next tick, committed with the resolve. ``user_id``: the GM who forced it (audited).
        ``posts``: the bot's messages of this resolve (the GM's log line of a forced or early
        end), staged with the resolve's mark (or, for a redo, its transaction) as batches
        ``<game>/resolve:<tick>:<n>>…``: the redo of a forced resolve keeps the GM's line.
        ``stage``: the delivery of the resolve, rendered by the caller and staged **in the
        resolve's own transaction**, its parts claimed by this store (``Resolved.parts``,
        ``Part.held``): a function of the game after the resolve (without its log), its new
        :class:`GameInfo`, the outbox rows not yet staged (those committed before, then the
        resolve's own) and the resolve's own unsent parts (the GM's line staged with the
        mark), returning :class:`Post` objects (with the
        ``keys`` of the rows each delivers); rows left out are delivered as any other. A
        function that raises stages nothing (logged): the resolve is never held up by it.
        ``meta``: a change of the caller's meta that belongs to the resolve (when the new phase
        began), a function of a copy of the meta and the game after the resolve (as
        :meth:`update_meta`'s), written in the resolve's transaction (``meta_version`` + 1).
        ``end``: when the resolve ends the game, the end of the game staged **in the resolve's
        own transaction** too: an async function of the game after the resolve, its new
        :class:`GameInfo` (with ``meta``'s change), every event of the game and its whole
        journal as :meth:`events` and :meth:`journal` will read them once this resolve is
        committed (its own events and entry included), returning ``(posts, change)``: the
        posts (keyed, each its own ``batch``), staged after the delivery and claimed, and a
        change of the meta (a function of a copy, as ``meta``'s) written with them; None for
        nothing. It is awaited before the transaction opens, under the game's lock only (it
        may take seconds: a chart drawn in a worker thread). It runs only when ``stage``
        staged every outbox row not staged yet (else the flush would stage those after the
        end); a function that raises stages nothing of the end (logged): the caller stages
        it later (``bot.finish``).
        """
        return await _uncancellable(self._resolve(game_id, expect_tick, utc(next_deadline), user_id, posts, stage, meta, end))

    async def _resolve(self, game_id: str, expect_tick: int | None, next_deadline: datetime | None, user_id: int | None,
                       posts: Any = (), stage: Any = None, meta: Any = None, end: Any = None) -> Resolved | None:
        live = self._live(game_id)
        async with live.lock:
            return await self._retry_stale(
                live, lambda: self._resolve_locked(live, game_id, expect_tick, next_deadline, user_id, posts, stage, meta, end))

    async def _resolve_locked(self, live: _Live, game_id: str, expect_tick: int | None, next_deadline: datetime | None,
                              user_id: int | None, posts: Any = (), stage: Any = None, meta: Any = None,
                              end: Any = None) -> Resolved | None:
        if live.game.state.over:
            return None
        tick = live.game.state.tick
        if expect_tick is not None and expect_tick != tick:
            return None
        if live.info.resolving_tick == tick and user_id is None:
            user_id = live.info.resolving_user  # a forced resolve cut short is redone as forced, by its GM
        bot_posts = list(posts)
        if live.info.resolving_tick != tick:
            marked = replace(live.info, resolving_tick=tick, resolving_user=user_id)
            async with self._tx("resolve.mark") as db:
                await self._update_game(db, live.info, marked, None, bump=False)
                # staged with the mark: a resolve marked is always done (redone at start if
                # cut short), and its redo cannot render the GM's line as it was
                await self._write_posts(db, game_id, f"resolve:{tick}", bot_posts, self._stamp())
            live.info = marked
            self._point("resolve.marked")
        events, history = await self._recall(live)
        run = await asyncio.to_thread(_run_on_copy, live, Game.resolve, events, history)
        game, text, events = run.game, run.text, run.events
        over = game.state.over
        seq = live.info.version + 1
        stamp = self._stamp()
        info = self._next_info(live.info, game, seq, stamp)
        info = replace(
            info,
            resolving_tick=None,
            resolving_user=None,
            deadline_tick=game.state.tick if next_deadline and not over else None,
            deadline_at=next_deadline if next_deadline and not over else None,
        )
        result = {"events": len(events), "over": over, "winner": game.state.winner,
                  # the deadline the resolved phase had: a GM's undo gives it back
                  "deadline_was": to_ts(live.info.deadline) if live.info.deadline else None}
        args = {"tick": tick}
        new_meta = None
        if meta is not None:
            work = copy.deepcopy(live.info.meta)
            out = meta(work, game)
            new_meta = work if out is None else dict(out)
            if new_meta == live.info.meta:
                new_meta = None
            else:
                info = replace(info, meta=new_meta, meta_version=live.info.meta_version + 1)
        staged: list[Post] = []
        rows: list[Any] = []
        unstaged: set[str] = set()  # the outbox rows no staged post delivers
        if stage is not None:
            rows, outbox, deliveries = _event_rows(game_id, seq, live.ev_count, events, stamp)
            # rows committed before and not staged yet (the resolve before this one in a turn cut
            # short, a command's not flushed) go with this resolve's, as one flush would take them
            earlier = await self.pending_deliveries(game_id)
            own = [p for p in await self.pending_parts(game_id) if p.batch_id.startswith(f"{game_id}/resolve:{tick}:")]
            try:
                staged = list(stage(game, info, earlier + deliveries, own))
            except Exception:  # a rendering bug must not hold up the game: its messages go the usual way
                log.exception("%s: game %r: the delivery of the resolve of tick %d could not be staged with it",
                              self.location, game_id, tick)
                staged = []
            unstaged = {d.key for d in earlier + deliveries} - {k for p in staged for k in p.keys}
        ending: list[Post] = []
        if end is not None and over and stage is not None and not unstaged:
            journal = [*await self.journal(game_id),
                       {"seq": seq, "tick": tick, "kind": "resolve", "args": json.loads(dumps(args)),
                        "result": json.loads(dumps(result)), "user_id": user_id, "request_id": None, "created_at": stamp}]
            every = [*await self.events(game_id),
                     *(Event(tick=r[3], key=r[4], args=json.loads(r[7]), audience=r[5], ids=json.loads(r[6])) for r in rows)]
            try:
                out = await end(game, info, every, journal)
            except Exception:  # the end is staged later by the caller (bot.finish), the resolve goes on
                log.exception("%s: game %r: its end could not be staged with the resolve of tick %d", self.location, game_id, tick)
                out = None
            if out is not None:
                ending, change = list(out[0]), out[1]
                work = copy.deepcopy(info.meta)
                got = change(work) if change is not None else None
                work = work if got is None else dict(got)
                if work != live.info.meta:
                    new_meta = work
                    info = replace(info, meta=new_meta, meta_version=live.info.meta_version + 1)
        async with self._tx("resolve") as db:
            await self._update_game(db, live.info, info, text)  # first: a stale copy writes nothing
            if new_meta is not None:
                await self._meta_write(db, game_id, live.info.meta, live.info.meta_version, lambda _m: new_meta, stamp)
            await db.execute(
                db.sql(
                    "INSERT INTO commands (game_id, seq, tick, kind, args, result, user_id, request_id, created_at) "
                    "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)"
                ),
                (game_id, seq, tick, "resolve", dumps(args), dumps(result), user_id, None, stamp),
            )
            deliveries = await self._write_events(db, game_id, seq, live.ev_count, events, stamp)
            await self._write_history(db, game_id, seq, live.hist_count, run.history)
            if user_id is not None:
                await self._gm_action(db, game_id, seq, tick, user_id, "resolve", args, stamp)
            await self._write_posts(db, game_id, f"resolve:{tick}", bot_posts, stamp)  # a key staged with the mark: skipped
            held = await self._write_posts(db, game_id, f"resolve:{tick}:d", staged, stamp, claim=True)
            held += await self._write_posts(db, game_id, f"resolve:{tick}:end", ending, stamp, claim=True)  # after its news
            self._point("resolve.before_commit")
        until = self._clock() + timedelta(seconds=CLAIM_SECONDS - CLAIM_MARGIN)
        self._held.update({(p.batch_id, p.part_idx): until for p in held})
        self._point("resolve.after_commit")
        live.game, live.text, live.info = game, text, info
        live.ev_count, live.hist_count = live.ev_count + len(events), live.hist_count + len(run.history)
        return Resolved(game_id, seq, tick, list(events), deliveries, over, game.state.winner, held)

    async def set_deadline(self, game_id: str, at: datetime | None, *, user_id: int | None = None) -> bool:
        """Set (or clear, with None) the deadline of the current tick; False if unchanged."""
        return await _uncancellable(self._set_deadline(game_id, utc(at), user_id))

    async def _set_deadline(self, game_id: str, at: datetime | None, user_id: int | None) -> bool:
        live = self._live(game_id)
        async with live.lock:
            return await self._retry_stale(live, lambda: self._set_deadline_locked(live, game_id, at, user_id))

    async def _set_deadline_locked(self, live: _Live, game_id: str, at: datetime | None, user_id: int | None) -> bool:
        info = live.info
        if (info.deadline_tick == info.tick and info.deadline_at == at) or (at is None and info.deadline is None):
            return False
        seq = info.version + 1
        stamp = self._stamp()
        new = replace(info, version=seq, deadline_tick=info.tick if at else None, deadline_at=at, updated_at=stamp)
        args = {"tick": info.tick, "at": to_ts(at) if at else None}
        async with self._tx("deadline") as db:
            await self._update_game(db, info, new, None)  # first: a stale copy writes nothing
            await db.execute(
                db.sql(
                    "INSERT INTO commands (game_id, seq, tick, kind, args, result, user_id, request_id, created_at) "
                    "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)"
                ),
                (game_id, seq, info.tick, "deadline", dumps(args), None, user_id, None, stamp),
            )
            if user_id is not None:
                await self._gm_action(db, game_id, seq, info.tick, user_id, "deadline", args, stamp)
            self._point("deadline.before_commit")
        live.info = new
        return True

    # ---- taking a resolve back (``/gm undo``) ------------------------------------------------
    async def undo_target(self, game_id: str) -> dict[str, Any]:
        """The resolve a GM's undo would take back now (its journal entry), or
        :class:`UndoRefused` with the reason's message key."""
        live = self._live(game_id)
        return _undo_target(live.info, await self.journal(game_id))

    async def undo_resolve(self, game_id: str, *, user_id: int | None = None,
                           meta_fn: Callable[[dict[str, Any], list[dict[str, Any]]], Any] | None = None,
                           key: str | None = None) -> Undone:
        """Take back the last resolve while nothing has happened since (only deadline moves):
        the game becomes exactly what it was before it (rebuilt from the journal), the resolved
        tick is open again with the deadline it had (if still ahead), and the resolve's events
        leave the event log. Their outbox rows and staged parts are renamed out of the way
        (``…~u<seq>``; unsent ones are marked sent, so they never go out), so the redone resolve
        delivers afresh. One transaction, journaled (``undo``) and audited as a GM action.

        ``meta_fn(meta, posted)`` may change the meta in the same transaction (``posted``: the
        messages the resolve had put in Discord: channel key, channel id, message id). ``key``:
        a repeat with the same key (a second click) finds it done and returns that undo.
        """
        return await _uncancellable(self._undo(game_id, user_id, meta_fn, key))

    async def _undo(self, game_id: str, user_id: int | None, meta_fn: Any, key: str | None) -> Undone:
        live = self._live(game_id)
        async with live.lock:
            journal = await self.journal(game_id)
            if key is not None:
                done = [e for e in journal if e["kind"] == "undo" and e["request_id"] == key]
                if done:
                    e = done[0]
                    return Undone(live.info, e["seq"], e["args"]["resolve_seq"], e["args"]["tick"], e["result"]["posted"],
                                  duplicate=True)
            target = _undo_target(live.info, journal)
            before = [e for e in effective(journal) if e["seq"] < target["seq"]]
            info = live.info

            def rebuild() -> tuple[Game, str]:
                g = Game.new(live.rules, info.seed, [PlayerSpec(**p) for p in info.players], info.settings)
                replay_entries(g, before)
                return g, _snapshot(g)  # stored without the log (its tables keep it)

            game, text = await asyncio.to_thread(rebuild)
            if game.state.tick != target["tick"]:
                raise StorageError(f"{self.location}: game {game_id!r}: the journal does not rebuild tick {target['tick']}")
            first, hfirst = len(game.state.events), len(game.state.history)
            stamp = self._stamp()
            seq = info.version + 1
            mark = f"~u{seq}"
            was = from_ts((target["result"] or {}).get("deadline_was"))
            back = was if was is not None and was > self._clock() else None
            new = replace(info, tick=game.state.tick, status="running", version=seq, updated_at=stamp, resolving_tick=None,
                          resolving_user=None, deadline_tick=game.state.tick if back else None, deadline_at=back)
            async with self._tx("undo") as db:
                rows = await db.fetchall(db.sql("SELECT DISTINCT batch_id FROM outbox WHERE game_id = ? AND event_idx >= ? "
                                                "AND batch_id IS NOT NULL"), (game_id, first))
                batches = [r[0] for r in rows]
                since = await _staged_since(db, game_id, batches, f"{game_id}/resolve:{target['tick']}:", first)
                posted: list[dict[str, Any]] = []
                for b in batches:
                    parts = await db.fetchall(db.sql("SELECT channel_key, channel_id, message_id FROM outbox_parts WHERE batch_id = ? "
                                                     "AND message_id IS NOT NULL ORDER BY part_idx"), (b,))
                    if parts:
                        posted.append({"channel": parts[0][0], "channel_id": parts[0][1], "message_id": parts[0][2]})
                for b in [*batches, *since]:
                    await db.execute(db.sql("UPDATE outbox_parts SET batch_id = batch_id || ?, sent_at = COALESCE(sent_at, ?), "
                                            "last_error = COALESCE(last_error, 'undone') WHERE batch_id = ?"), (mark, stamp, b))
                await db.execute(db.sql("UPDATE outbox SET delivery_key = delivery_key || ?, batch_id = batch_id || ?, "
                                        "delivered_at = COALESCE(delivered_at, ?) WHERE game_id = ? AND event_idx >= ?"),
                                 (mark, mark, stamp, game_id, first))
                gone = await db.execute(db.sql("DELETE FROM events WHERE game_id = ? AND idx >= ?"), (game_id, first))
                await db.execute(db.sql("DELETE FROM history WHERE game_id = ? AND idx >= ?"), (game_id, hfirst))
                args = {"resolve_seq": target["seq"], "tick": target["tick"]}
                result = {"events": gone, "deadline": to_ts(back) if back else None, "posted": posted}
                await db.execute(
                    db.sql("INSERT INTO commands (game_id, seq, tick, kind, args, result, user_id, request_id, created_at) "
                           "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)"),
                    (game_id, seq, target["tick"], "undo", dumps(args), dumps(result), user_id, key, stamp),
                )
                await self._gm_action(db, game_id, seq, target["tick"], user_id, "undo", args, stamp)
                await self._update_game(db, info, new, text)
                meta = None
                if meta_fn is not None:
                    meta = await self._meta_write(db, game_id, info.meta, info.meta_version,
                                                  lambda m: meta_fn(m, posted), stamp)
                self._point("undo.before_commit")
            if meta is not None:
                new = replace(new, meta=meta, meta_version=info.meta_version + 1)
            live.game, live.text, live.info = _lean(Game.from_dict(live.rules, json.loads(text))), text, new
            live.ev_count, live.hist_count = first, hfirst
            return Undone(new, seq, target["seq"], target["tick"], posted)

    # ---- the bot's own data: a game's meta, lobbies ---------------------------------------
    async def update_meta(self, game_id: str, fn: Callable[[dict[str, Any]], dict[str, Any] | None], *,
                          posts: Any = (), key: str | None = None, claim: bool = False) -> GameInfo:
        """Change a game's ``meta`` (the caller's data: channel ids, language, a pause…) by a
        function, in one transaction under the game's lock.

        ``fn`` gets a private copy of the meta as last committed and changes it in place (or
        returns the new meta); whatever it raises propagates and nothing is written. The row's
        ``meta_version`` is bumped (compare-and-set), so a change is never lost to a caller
        writing back a copy it held across an await. Not a journal entry (the engine never
        reads it). Works for finished games too. Channel ids under ``meta["channels"]`` are
        recorded as the game's (:meth:`game_of_channel`).

        ``posts`` (:class:`Post`s, or a function of the new meta returning them) are staged in
        the same transaction when the meta changes, as batches ``<game>/<key>:<n>>…`` (``key``
        required with posts: the command's idempotency key, e.g. its interaction id), or under
        a post's own ``batch`` id (a keyed message, ``<game>/reveal>public``: one already
        staged is skipped). ``claim``: the staged parts are claimed by this store in the same
        transaction (``Part.held``: the next flush sends them with no claim of its own, as a
        resolve's), for a caller that flushes next (the end of a game: ``bot.stage_end``).
        The fault point ``meta.before_commit`` is inside the transaction.
        """
        return await _uncancellable(self._update_meta(game_id, fn, posts, key, claim))

    async def set_meta(self, game_id: str, meta: dict[str, Any]) -> GameInfo:
        """Replace a game's ``meta`` whole (a fresh record, e.g. in a test); the bot changes meta
        with :meth:`update_meta` only."""
        fresh = copy.deepcopy(dict(meta))
        return await self.update_meta(game_id, lambda _old: fresh)

    def _meta_lock(self, game_id: str) -> asyncio.Lock:
        live = self._games.get(game_id)
        return live.lock if live is not None else self._meta_locks.setdefault(game_id, asyncio.Lock())

    async def _update_meta(self, game_id: str, fn: Callable[[dict[str, Any]], dict[str, Any] | None],
                           posts: Any = (), key: str | None = None, claim: bool = False) -> GameInfo:
        async with self._meta_lock(game_id):
            stamp = self._stamp()
            held: list[Part] = []
            async with self._tx("meta") as db:
                meta, version = await self._meta_change(db, game_id, fn, stamp)
                if meta is not None and posts:
                    held = await self._write_posts(db, game_id, key or f"meta:{version + 1}",
                                                   list(posts(meta) if callable(posts) else posts), stamp, claim=claim)
                self._point("meta.before_commit")
            if claim and held:
                until = self._clock() + timedelta(seconds=CLAIM_SECONDS - CLAIM_MARGIN)
                self._held.update({(p.batch_id, p.part_idx): until for p in held})
            live = self._games.get(game_id)
            if live is not None and meta is not None:
                live.info = replace(live.info, meta=meta, meta_version=version + 1, updated_at=stamp)
            info = live.info if live is not None else await self.find(game_id)
            assert info is not None
            return info

    async def _meta_change(self, db: Backend, game_id: str, fn: Callable[[dict[str, Any]], dict[str, Any] | None],
                           stamp: str) -> tuple[dict[str, Any] | None, int]:
        """``fn`` applied to the meta as committed, read in this transaction, and written:
        (the new meta or None if unchanged, the meta version it was read at)."""
        rows = await db.fetchall(db.sql("SELECT meta, meta_version FROM games WHERE game_id = ?"), (game_id,))
        if not rows:
            raise KeyError(f"no game {game_id!r}")
        old, version = json.loads(rows[0][0]), rows[0][1]
        return await self._meta_write(db, game_id, old, version, fn, stamp), version

    async def _meta_write(self, db: Backend, game_id: str, old: dict[str, Any], version: int,
                          fn: Callable[[dict[str, Any]], dict[str, Any] | None], stamp: str) -> dict[str, Any] | None:
        """Apply ``fn`` to a copy of ``old`` and write it (inside a transaction); None if unchanged."""
        work = copy.deepcopy(old)
        out = fn(work)
        meta = work if out is None else dict(out)
        if meta == old:
            return None
        n = await db.execute(
            db.sql("UPDATE games SET meta = ?, meta_version = ?, updated_at = ? WHERE game_id = ? AND meta_version = ?"),
            (dumps(meta), version + 1, stamp, game_id, version),
        )
        if n != 1:
            raise StorageError(
                f"{self.location}: the meta of game {game_id!r} was changed by someone else (meta version {version} is gone); "
                "is a second bot process using the same database?"
            )
        added = await self._write_channels(db, game_id, old, meta)
        self._channels.update(added)  # a rollback after this point leaves only extra ids of the same game
        return meta

    async def _write_channels(self, db: Backend, game_id: str, old: dict[str, Any], new: dict[str, Any]) -> dict[int, str]:
        """Record the channel ids ``new["channels"]`` has and ``old`` had not as the game's."""
        before = {str(k): v for k, v in (old.get("channels") or {}).items()}
        added: dict[int, str] = {}
        for key, cid in sorted((new.get("channels") or {}).items()):
            ident = _int(cid)
            if ident is None or before.get(str(key)) == cid:
                continue
            await db.execute(db.sql("DELETE FROM game_channels WHERE channel_id = ?"), (ident,))
            await db.execute(db.sql("INSERT INTO game_channels (channel_id, game_id, channel_key) VALUES (?, ?, ?)"),
                             (ident, game_id, str(key)))
            added[ident] = game_id
        return added

    def game_of_channel(self, channel_id: int | None) -> str | None:
        """The game a Discord channel (or category) belongs to, running or finished; None."""
        return None if channel_id is None else self._channels.get(int(channel_id))

    async def change_deadline(
        self,
        game_id: str,
        fn: Callable[[GameInfo], tuple[datetime | None, Callable[[dict[str, Any]], Any] | None]],
        *,
        user_id: int | None = None,
        key: str | None = None,
        window: timedelta = REPEAT_WINDOW,
        posts: Any = (),
    ) -> DeadlineChange:
        """A GM's change of the current tick's deadline (and of meta with it), in one transaction
        under the game's lock, computed from the game as it is now.

        ``fn(info)`` returns the new deadline (None: none) and a meta change for
        :meth:`update_meta` (or None); what it raises propagates and nothing is written.
        ``key`` (without ``#``) names the change for recognising a repeat: if a deadline change
        with the same key was committed in the last ``window``, nothing is done and the result
        says ``duplicate`` (a retry after a lost reply is a new interaction: its key, not its
        id, shows it is the same command). The journal row's ``request_id`` is ``key#seq``.
        ``posts``: a function of the game's new :class:`GameInfo` returning the :class:`Post`s
        of the change (the public notice, the GM's log line), staged in the same transaction.
        """
        return await _uncancellable(self._change_deadline(game_id, fn, user_id, key, window, posts))

    async def _change_deadline(self, game_id: str, fn: Any, user_id: int | None, key: str | None, window: timedelta,
                               posts: Any = ()) -> DeadlineChange:
        live = self._live(game_id)
        async with live.lock:
            info = live.info
            if key is not None:
                since = to_ts(self._clock() - window)
                rows = await self._read(
                    "SELECT created_at FROM commands WHERE game_id = ? AND kind = 'deadline' AND request_id >= ? "
                    "AND request_id < ? AND tick = ? AND created_at >= ? ORDER BY seq DESC LIMIT 1",
                    (game_id, key + "#", key + "$", info.tick, since),
                )
                if rows:
                    return DeadlineChange(info, changed=False, duplicate=True, first_at=from_ts(rows[0][0]))
            at, meta_fn = fn(info)
            at = utc(at)
            moves = not ((info.deadline_tick == info.tick and info.deadline_at == at) or (at is None and info.deadline is None))
            if not moves and meta_fn is None:
                return DeadlineChange(info, changed=False)
            stamp = self._stamp()
            seq = info.version + 1
            new = replace(info, version=seq, deadline_tick=info.tick if at else None, deadline_at=at, updated_at=stamp) if moves else info
            args = {"tick": info.tick, "at": to_ts(at) if at else None}
            async with self._tx("deadline") as db:
                meta = None
                if meta_fn is not None:
                    meta = await self._meta_write(db, game_id, info.meta, info.meta_version, meta_fn, stamp)
                if moves:
                    await db.execute(
                        db.sql(
                            "INSERT INTO commands (game_id, seq, tick, kind, args, result, user_id, request_id, created_at) "
                            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)"
                        ),
                        (game_id, seq, info.tick, "deadline", dumps(args), None, user_id, f"{key}#{seq}" if key else None, stamp),
                    )
                    if user_id is not None:
                        await self._gm_action(db, game_id, seq, info.tick, user_id, "deadline", args, stamp)
                    await self._update_game(db, info, new, None)
                if posts and (moves or meta is not None):
                    after = replace(new, meta=meta, meta_version=info.meta_version + 1) if meta is not None else new
                    await self._write_posts(db, game_id, f"deadline:{seq}:{info.meta_version + 1}",
                                            list(posts(after) if callable(posts) else posts), stamp)
                self._point("deadline.before_commit")
            if meta is not None:
                new = replace(new, meta=meta, meta_version=info.meta_version + 1, updated_at=stamp)
            live.info = new
            return DeadlineChange(new, changed=moves or meta is not None)

    async def create_lobby(self, lobby_id: str, data: dict[str, Any], *, guild_id: int | None, channel_id: int) -> str | None:
        """Open a lobby in a channel; one transaction. None when done; the id of the lobby
        already open in that channel otherwise (nothing written): one open lobby per channel."""
        stamp = self._stamp()
        async with self._tx("lobby") as db:
            rows = await db.fetchall(db.sql("SELECT lobby_id FROM lobbies WHERE channel_id = ?"), (channel_id,))
            if rows:
                return rows[0][0]
            await db.execute(
                db.sql("INSERT INTO lobbies (lobby_id, guild_id, channel_id, data, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)"),
                (lobby_id, guild_id, channel_id, dumps(data), stamp, stamp),
            )
        return None

    async def update_lobby(self, lobby_id: str, fn: Callable[[dict[str, Any]], Any]) -> tuple[dict[str, Any], Any] | None:
        """Change a lobby by a function, in one transaction: ``fn`` gets the lobby's data as
        committed, changes it in place and returns a result; what it raises propagates and
        nothing is written. ``(data, result)`` after the change, or None if the lobby is gone
        (started or ended meanwhile). A burst of sign-ups all land, one after the other."""
        stamp = self._stamp()
        async with self._tx("lobby") as db:
            rows = await db.fetchall(db.sql("SELECT data FROM lobbies WHERE lobby_id = ?"), (lobby_id,))
            if not rows:
                return None
            old = json.loads(rows[0][0])
            data = copy.deepcopy(old)
            result = fn(data)
            if data != old:
                await db.execute(db.sql("UPDATE lobbies SET data = ?, updated_at = ? WHERE lobby_id = ?"), (dumps(data), stamp, lobby_id))
        return data, result

    async def save_lobby(self, lobby_id: str, data: dict[str, Any], *, guild_id: int | None = None) -> None:
        """Insert or replace a lobby whole (its ``channel_id`` is taken from ``data``); one
        transaction. The bot uses :meth:`create_lobby` and :meth:`update_lobby`."""
        stamp = self._stamp()
        cid = _int(data.get("channel_id"))
        async with self._tx("lobby") as db:
            n = await db.execute(
                db.sql("UPDATE lobbies SET data = ?, guild_id = ?, channel_id = ?, updated_at = ? WHERE lobby_id = ?"),
                (dumps(data), guild_id, cid, stamp, lobby_id),
            )
            if n == 0:
                await db.execute(
                    db.sql("INSERT INTO lobbies (lobby_id, guild_id, channel_id, data, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)"),
                    (lobby_id, guild_id, cid, dumps(data), stamp, stamp),
                )

    async def lobbies(self, guild_id: int | None = None) -> dict[str, dict[str, Any]]:
        """Open lobbies by id (of one guild, or all), oldest first."""
        sql, params = "SELECT lobby_id, data FROM lobbies", ()
        if guild_id is not None:
            sql, params = sql + " WHERE guild_id = ?", (guild_id,)
        rows = await self._read(sql + " ORDER BY created_at, lobby_id", params)
        return {r[0]: json.loads(r[1]) for r in rows}

    async def delete_lobby(self, lobby_id: str) -> bool:
        async with self._tx("lobby") as db:
            n = await db.execute(db.sql("DELETE FROM lobbies WHERE lobby_id = ?"), (lobby_id,))
        return n == 1

    # ---- the outbox -----------------------------------------------------------------------
    async def pending_deliveries(self, game_id: str | None = None, limit: int | None = None) -> list[Delivery]:
        """Undelivered messages in order (per game: event order, then destination order)."""
        sql = (
            "SELECT o.delivery_key, o.game_id, o.tick, o.event_idx, o.dest_kind, o.dest_id, o.attempts, o.last_error, "
            "e.tick, e.msg_key, e.args, e.audience, e.ids "
            "FROM outbox o JOIN events e ON e.game_id = o.game_id AND e.idx = o.event_idx "
            "WHERE o.delivered_at IS NULL AND o.batch_id IS NULL"  # a staged row is sent by its parts
        )
        if self.shards is not None:
            sql += f" AND o.game_id IN (SELECT game_id FROM games WHERE {self._mine()})"
        params: list[Any] = []
        if game_id is not None:
            sql += " AND o.game_id = ?"
            params.append(game_id)
        sql += " ORDER BY o.game_id, o.event_idx, o.dest_ord"
        if limit is not None:
            sql += " LIMIT ?"
            params.append(int(limit))
        rows = await self._read(sql, params)
        return [
            Delivery(
                key=r[0], game_id=r[1], tick=r[2], event_idx=r[3], dest=r[4], dest_id=r[5], attempts=r[6], last_error=r[7],
                event=Event(tick=r[8], key=r[9], args=json.loads(r[10]), audience=r[11], ids=json.loads(r[12])),
            )
            for r in rows
        ]

    async def claim(self, key: str) -> bool:
        """Record that a send of ``key`` starts now (commit it before sending); False if done."""
        return await self._outbox_update("claim", "attempts = attempts + 1, last_attempt_at = ?", (self._stamp(),), key)

    async def mark_delivered(self, key: str) -> bool:
        """Record ``key`` as delivered; False if it was already (or is unknown)."""
        return await self._outbox_update("delivered", "delivered_at = ?", (self._stamp(),), key)

    async def claim_many(self, keys: list[str]) -> int:
        """:meth:`claim` for several messages sent as one (a batch), in one transaction."""
        return await self._outbox_update_many("claim", "attempts = attempts + 1, last_attempt_at = ?", (self._stamp(),), keys)

    async def mark_delivered_many(self, keys: list[str]) -> int:
        """:meth:`mark_delivered` for a batch, in one transaction; how many were pending."""
        return await self._outbox_update_many("delivered", "delivered_at = ?", (self._stamp(),), keys)

    async def _outbox_update_many(self, label: str, assignments: str, params: tuple[Any, ...], keys: list[str]) -> int:
        n = 0
        async with self._tx(label) as db:
            for key in keys:
                n += await db.execute(
                    db.sql(f"UPDATE outbox SET {assignments} WHERE delivery_key = ? AND delivered_at IS NULL"), (*params, key)
                )
            self._point(f"{label}.before_commit")
        return n

    async def mark_failed(self, key: str, error: str) -> bool:
        """Record why a send failed; the delivery stays pending."""
        return await self._outbox_update("failed", "last_error = ?", (error[:1000],), key)

    # ---- channel creation intents (v6) ------------------------------------------------------
    async def intend_channel(self, owner_id: str, channel_key: str, *, guild_id: int, kind: int, name: str,
                             parent_id: int | None) -> ChannelIntent | None:
        """Record, before the REST call, that a channel is about to be created; one transaction.
        Returns the intent already recorded for that key when there is one (a creation that
        may have happened: look for its channel first), else None (recorded now)."""
        async with self._tx("intent") as db:
            rows = await db.fetchall(db.sql(f"SELECT {INTENT_COLS} FROM channel_intents WHERE owner_id = ? AND channel_key = ?"),
                                     (owner_id, channel_key))
            if rows:
                # an intent of an attempt before keeps its id only while it is open (that attempt's
                # channel, made and not saved); a settled one's channel is another attempt's
                was = _intent(rows[0])
                cid = was.channel_id if was.settled_at is None else None
                await db.execute(db.sql("UPDATE channel_intents SET name = ?, parent_id = ?, channel_id = ?, settled_at = NULL "
                                        "WHERE owner_id = ? AND channel_key = ?"), (name, parent_id, cid, owner_id, channel_key))
                return replace(was, name=name, parent_id=parent_id, channel_id=cid, settled_at=None)
            await db.execute(
                db.sql("INSERT INTO channel_intents (owner_id, channel_key, guild_id, kind, name, parent_id, created_at) "
                       "VALUES (?, ?, ?, ?, ?, ?, ?)"),
                (owner_id, channel_key, guild_id, kind, name, parent_id, self._stamp()),
            )
            self._point("intent.before_commit")
        return None

    async def channel_made(self, owner_id: str, channel_key: str, channel_id: int) -> None:
        """The channel of an open intent exists (Discord answered the create): its id, recorded
        at once, is what crash recovery matches first (the intent stays open until its owner
        saved the id)."""
        async with self._tx("intent.made") as db:
            await db.execute(db.sql("UPDATE channel_intents SET channel_id = ? WHERE owner_id = ? AND channel_key = ? "
                                    "AND settled_at IS NULL"), (channel_id, owner_id, channel_key))

    async def settle_channel(self, owner_id: str, channel_key: str, channel_id: int | None) -> bool:
        """The intent is done: its channel's id is saved by its owner (or it was dropped)."""
        async with self._tx("intent.settled") as db:
            n = await db.execute(
                db.sql("UPDATE channel_intents SET channel_id = ?, settled_at = ? WHERE owner_id = ? AND channel_key = ?"),
                (channel_id, self._stamp(), owner_id, channel_key),
            )
        return n == 1

    async def channel_intents(self, owner_id: str | None = None, *, open_only: bool = True) -> list[ChannelIntent]:
        """Intents (of one owner, or all), the unsettled ones only unless ``open_only=False``."""
        sql = f"SELECT {INTENT_COLS} FROM channel_intents WHERE 1 = 1"
        params: list[Any] = []
        if open_only:
            sql += " AND settled_at IS NULL"
        if owner_id is not None:
            sql += " AND owner_id = ?"
            params.append(owner_id)
        return [_intent(r) for r in await self._read(sql + " ORDER BY created_at, owner_id, channel_key", params)]

    # ---- message parts (v5): render once, store, send and mark each part on its own ---------
    async def stage(self, game_id: str, batch_id: str, channel_key: str, channel_id: int | None,
                    parts: list[dict[str, Any]], keys: list[str] = (), *, absorb: list[Part] = ()) -> list[Part]:
        """Store a batch rendered into its final parts, claiming its outbox rows ``keys`` in the
        same transaction; each part: ``content``, ``nonce``, optional ``mention``, ``view``,
        ``files``, ``uncertain`` (it may have been sent already). A batch already staged is not staged again: its stored parts are returned
        (so a retry never renders anew). Outbox rows staged elsewhere or delivered are skipped.
        ``absorb``: unsent parts whose text the new batch carries (a resolve's own line joining
        its channel's batch): marked sent, without a message id, in the same transaction."""
        rows = await self._read(f"SELECT {PARTS_COLS} FROM outbox_parts WHERE batch_id = ? ORDER BY part_idx", (batch_id,))
        if rows:  # staged before (a keyed post repeated, a resolve's batch): nothing to write
            return self._mark_held(list(map(_part, rows)))
        async with self._tx("stage") as db:
            rows = await db.fetchall(db.sql(f"SELECT {PARTS_COLS} FROM outbox_parts WHERE batch_id = ? ORDER BY part_idx"),
                                     (batch_id,))
            if rows:
                return [_part(r) for r in rows]
            top = await db.fetchall(db.sql("SELECT MAX(batch_ord) FROM outbox_parts"), ())
            order = (top[0][0] or 0) + 1
            stamp = self._stamp()
            parts = await _attempted(db, keys, parts)
            for key in keys:
                await db.execute(
                    db.sql("UPDATE outbox SET batch_id = ?, attempts = attempts + 1, last_attempt_at = ? "
                           "WHERE delivery_key = ? AND delivered_at IS NULL AND batch_id IS NULL"),
                    (batch_id, stamp, key),
                )
            out = await self._insert_parts(db, game_id, batch_id, order, channel_key, channel_id, parts, stamp)
            for p in absorb:
                await db.execute(db.sql("UPDATE outbox_parts SET sent_at = ?, last_error = ? WHERE batch_id = ? AND part_idx = ? "
                                        "AND sent_at IS NULL"), (stamp, f"sent within {batch_id}"[:1000], p.batch_id, p.part_idx))
            self._point("stage.before_commit")
        self._point("stage.after_commit")
        return out

    async def stage_posts(self, game_id: str, key: str, posts: list[Post]) -> list[Part]:
        """Stage several bot messages together in one transaction, as batches
        ``<game>/<key>:<n>>…`` (``key``: the idempotency key of what they belong to, e.g.
        ``ia:<interaction id>``); a key already staged stages nothing again."""
        async with self._tx("stage") as db:
            out = await self._write_posts(db, game_id, key, posts, self._stamp())
            self._point("stage.before_commit")
        self._point("stage.after_commit")
        return out

    async def _write_posts(self, db: Backend, game_id: str, key: str, posts: list[Post], stamp: str, *,
                           claim: bool = False) -> list[Part]:
        """Stage ``posts`` inside a transaction (the command's own): batch ``<game>/<key>:<n>>…``
        (or the post's own ``batch`` id); a post's ``keys`` (outbox rows) are staged with it.
        ``claim``: the parts are claimed by this store at once (it sends them next)."""
        out: list[Part] = []
        claimed = (self._stamp(), to_ts(self._clock() + timedelta(seconds=CLAIM_SECONDS))) if claim else None
        for n, post in enumerate(posts):
            batch_id = post.batch or f"{game_id}/{key}:{n}>{post.channel_key}"
            rows = await db.fetchall(db.sql("SELECT COUNT(*) FROM outbox_parts WHERE batch_id = ?"), (batch_id,))
            if rows[0][0]:
                continue
            top = await db.fetchall(db.sql("SELECT MAX(batch_ord) FROM outbox_parts"), ())
            specs = [{**p, "nonce": p.get("nonce") or part_nonce(batch_id, i)} for i, p in enumerate(post.parts)]
            if post.channel_id is None:
                specs = [{"content": "", "nonce": part_nonce(batch_id, 0)}]
            specs = await _attempted(db, post.keys, specs)
            for k in post.keys:
                await db.execute(
                    db.sql("UPDATE outbox SET batch_id = ?, attempts = attempts + 1, last_attempt_at = ? "
                           "WHERE delivery_key = ? AND delivered_at IS NULL AND batch_id IS NULL"),
                    (batch_id, stamp, k),
                )
            out += await self._insert_parts(db, game_id, batch_id, (top[0][0] or 0) + 1, post.channel_key, post.channel_id,
                                            specs, stamp, claimed)
            for p in post.absorb:
                await db.execute(db.sql("UPDATE outbox_parts SET sent_at = ?, last_error = ? WHERE batch_id = ? AND part_idx = ? "
                                        "AND sent_at IS NULL"), (stamp, f"sent within {batch_id}"[:1000], p.batch_id, p.part_idx))
        return out

    async def _insert_parts(self, db: Backend, game_id: str, batch_id: str, order: int, channel_key: str,
                            channel_id: int | None, parts: list[dict[str, Any]], stamp: str,
                            claimed: tuple[str, str] | None = None) -> list[Part]:
        """``claimed``: (now, until) — the parts are claimed by this store as they are stored."""
        out = []
        generation = await _generation(db, batch_id)
        for i, p in enumerate(parts):
            if generation:
                p = {**p, "nonce": part_nonce(batch_id, i, generation)}
            files = p.get("files") or None
            attempts = 1 if p.get("uncertain") or claimed else 0  # claimed by an older build: look before sending
            # the attempt a message of this part is searched from: an older build's claim of its
            # rows when it may have been sent already, else this store's claim (none: not tried)
            attempted = (p.get("uncertain") and p.get("attempted_at")) or (claimed[0] if claimed else None)
            await db.execute(
                db.sql("INSERT INTO outbox_parts (batch_id, part_idx, batch_ord, game_id, channel_key, channel_id, content, "
                       "nonce, mention, view, files, created_at, attempts, last_attempt_at, claim_owner, claim_until) "
                       "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"),
                (batch_id, i, order, game_id, channel_key, channel_id, p["content"], p["nonce"], p.get("mention"),
                 p.get("view"), dumps(files) if files else None, stamp, attempts,
                 attempted, self.owner if claimed else None, claimed[1] if claimed else None),
            )
            out.append(Part(batch_id, i, game_id, channel_key, channel_id, p["content"], p["nonce"], p.get("mention"),
                            p.get("view"), files, attempts, attempted,
                            held=claimed is not None and not p.get("uncertain")))
        return out

    def _my_parts(self) -> str:
        """An SQL condition on ``outbox_parts``: the part is this store's to send."""
        if self.shards is None:
            return "1 = 1"
        # the bot's posts of no game ("-") go with shard 0
        return (f"(game_id IN (SELECT game_id FROM games WHERE {self._mine()}) OR "
                f"(game_id NOT IN (SELECT game_id FROM games) AND {int(0 in self.shards[1])} = 1))")

    async def _release_dead_claims(self) -> None:
        """At start, the claims of this store's unsent parts held by another owner were made by
        a process that is gone when no other can be running: the database is this process's
        alone (SQLite's lock) or the parts are of the shards it holds the locks of. They are
        released (the parts keep their ``attempts``: each is looked for in its channel before it
        is sent), instead of waiting for the claims to expire. Shared otherwise: they expire."""
        if not self.backend.exclusive and self.shards is None:
            return
        where = f"sent_at IS NULL AND claim_owner IS NOT NULL AND claim_owner <> ? AND {self._my_parts()}"
        if not (await self._read(f"SELECT COUNT(*) FROM outbox_parts WHERE {where}", (self.owner,)))[0][0]:
            return
        async with self._tx("part.release") as db:
            await db.execute(db.sql(f"UPDATE outbox_parts SET claim_owner = NULL, claim_until = NULL WHERE {where}"), (self.owner,))

    async def pending_parts(self, game_id: str | None = None) -> list[Part]:
        """Parts not yet sent, in the order they were staged."""
        sql = f"SELECT {PARTS_COLS} FROM outbox_parts WHERE sent_at IS NULL"
        if self.shards is not None:
            sql += f" AND {self._my_parts()}"
        params: list[Any] = []
        if game_id is not None:
            sql += " AND game_id = ?"
            params.append(game_id)
        out = [_part(r) for r in await self._read(sql + " ORDER BY batch_ord, part_idx", params)]
        return self._mark_held(out)

    def _mark_held(self, parts: list[Part]) -> list[Part]:
        """``held`` on the parts whose claim this store took at staging and still holds."""
        if not self._held:
            return parts
        now = self._clock()
        for k in [k for k, until in self._held.items() if until <= now]:
            del self._held[k]  # the claim is about to expire: claim it again before sending
        return [replace(p, held=True) if (p.batch_id, p.part_idx) in self._held else p for p in parts]

    async def parts(self, batch_id: str) -> list[Part]:
        """Every part of a batch, sent or not (tests, diagnostics)."""
        rows = await self._read(f"SELECT {PARTS_COLS} FROM outbox_parts WHERE batch_id = ? ORDER BY part_idx", (batch_id,))
        return [_part(r) for r in rows]

    async def held_messages(self, channel_id: int | None, message_ids: list[int]) -> set[int]:
        """Which of these Discord messages of a channel are recorded as some part's message: a
        message accounted for is no evidence that another part went out."""
        if channel_id is None or not message_ids:
            return set()
        marks = ", ".join("?" for _ in message_ids)
        rows = await self._read(f"SELECT message_id FROM outbox_parts WHERE channel_id = ? AND message_id IN ({marks})",
                                (channel_id, *message_ids))
        return {int(r[0]) for r in rows}

    async def claim_part(self, part: Part) -> bool:
        """A send of this part starts now (committed before the send): True when this store
        holds the part's claim for the next ``CLAIM_SECONDS``; False when it was sent, or
        another process holds a claim that has not expired (send nothing then)."""
        self._held.pop((part.batch_id, part.part_idx), None)
        now = self._clock()
        stamp, until = to_ts(now), to_ts(now + timedelta(seconds=CLAIM_SECONDS))
        async with self._tx("part.claim") as db:
            n = await db.execute(
                db.sql("UPDATE outbox_parts SET attempts = attempts + 1, last_attempt_at = ?, claim_owner = ?, claim_until = ? "
                       "WHERE batch_id = ? AND part_idx = ? AND sent_at IS NULL "
                       "AND (claim_owner IS NULL OR claim_owner = ? OR claim_until < ?)"),
                (stamp, self.owner, until, part.batch_id, part.part_idx, self.owner, stamp),
            )
            self._point("part.claim.before_commit")
        return n == 1

    async def mark_part_failed(self, part: Part, error: str) -> bool:
        self._held.pop((part.batch_id, part.part_idx), None)  # tried: the next try looks for it first
        return await self._part_update("part.failed", "last_error = ?", (error[:1000],), part)

    async def mark_part_sent(self, part: Part, message_id: int | None) -> bool:
        """The part is in its channel (``message_id``: the message, if known); when it was the
        batch's last unsent part, its outbox rows are delivered in the same transaction."""
        return await self.mark_parts_sent([(part, message_id)]) == 1

    async def mark_parts_sent(self, sent: list[tuple[Part, int | None]], *,
                              meta: tuple[str, Callable[[dict[str, Any]], dict[str, Any] | None]] | None = None) -> int:
        """:meth:`mark_part_sent` for every part of a flush, in one transaction (a crash before
        it leaves them claimed and unsent: the next start looks for each in its channel before
        sending it). Returns how many were still unsent.

        ``meta`` (``(game_id, fn)``): a change of that game's meta committed in the same
        transaction, exactly as :meth:`update_meta` would (the fresh meta read, ``fn`` run on a
        copy, compare-and-set on ``meta_version``, under the game's lock); the bot's record of
        the overwrites its channel sync applied rides here. With nothing to mark it is
        committed on its own (:meth:`update_meta`)."""
        if meta is not None:
            if not sent:
                await self.update_meta(*meta)
                return 0
            return await _uncancellable(self._mark_parts_sent_with_meta(sent, *meta))
        if not sent:
            return 0
        return await self._mark_parts_sent(sent, None)

    async def _mark_parts_sent_with_meta(self, sent: list[tuple[Part, int | None]], game_id: str,
                                         fn: Callable[[dict[str, Any]], dict[str, Any] | None]) -> int:
        async with self._meta_lock(game_id):
            changed: dict[str, Any] = {}
            n = await self._mark_parts_sent(sent, (game_id, fn, changed))
            live = self._games.get(game_id)
            if live is not None and changed:
                live.info = replace(live.info, meta=changed["meta"], meta_version=changed["version"],
                                    updated_at=changed["stamp"])
            return n

    async def _mark_parts_sent(self, sent: list[tuple[Part, int | None]], meta: tuple[str, Any, dict[str, Any]] | None) -> int:
        n = 0
        stamp = self._stamp()
        async with self._tx("part.sent") as db:
            batches: dict[str, None] = {}
            for part, message_id in sent:
                n += await db.execute(
                    db.sql("UPDATE outbox_parts SET sent_at = ?, message_id = ? WHERE batch_id = ? AND part_idx = ? AND sent_at IS NULL"),
                    (stamp, message_id, part.batch_id, part.part_idx),
                )
                batches[part.batch_id] = None
            for batch_id in batches:
                left = await db.fetchall(db.sql("SELECT COUNT(*) FROM outbox_parts WHERE batch_id = ? AND sent_at IS NULL"),
                                         (batch_id,))
                if not left[0][0]:
                    await db.execute(db.sql("UPDATE outbox SET delivered_at = ? WHERE batch_id = ? AND delivered_at IS NULL"),
                                     (stamp, batch_id))
            if meta is not None:  # the caller's meta change, as update_meta writes it (compare-and-set)
                game_id, fn, changed = meta
                new, version = await self._meta_change(db, game_id, fn, stamp)
                if new is not None:
                    changed.update(meta=new, version=version + 1, stamp=stamp)
            self._point("part.sent.before_commit")
        for p, _ in sent:
            self._held.pop((p.batch_id, p.part_idx), None)
        return n

    async def _part_update(self, label: str, assignments: str, params: tuple[Any, ...], part: Part) -> bool:
        async with self._tx(label) as db:
            n = await db.execute(
                db.sql(f"UPDATE outbox_parts SET {assignments} WHERE batch_id = ? AND part_idx = ? AND sent_at IS NULL"),
                (*params, part.batch_id, part.part_idx),
            )
            self._point(f"{label}.before_commit")
        return n == 1

    async def _outbox_update(self, label: str, assignments: str, params: tuple[Any, ...], key: str) -> bool:
        async with self._tx(label) as db:
            n = await db.execute(
                db.sql(f"UPDATE outbox SET {assignments} WHERE delivery_key = ? AND delivered_at IS NULL"), (*params, key)
            )
            self._point(f"{label}.before_commit")
        return n == 1

    # ---- internals --------------------------------------------------------------------------
    def _live(self, game_id: str) -> _Live:
        try:
            return self._games[game_id]
        except KeyError:
            raise KeyError(f"no loaded game {game_id!r}") from None

    def _stamp(self) -> str:
        return to_ts(self._clock())

    def _point(self, name: str) -> None:
        if self.fault is not None:
            self.fault(name)

    def _count(self, label: str) -> None:
        self.transactions[label] += 1
        self.transactions["total"] += 1

    def _info(self, row: tuple[Any, ...]) -> GameInfo:
        (gid, guild, ruleset, fp, seed, players, settings, gms, meta, status, tick, version,
         dl_tick, dl_at, resolving, created, updated, meta_version, resolving_user) = row
        try:
            return GameInfo(
                game_id=gid, guild_id=guild, ruleset=ruleset, ruleset_fingerprint=fp, seed=seed,
                players=json.loads(players), settings=json.loads(settings), gm_user_ids=json.loads(gms),
                meta=json.loads(meta), status=status, tick=tick, version=version, deadline_tick=dl_tick,
                deadline_at=from_ts(dl_at), resolving_tick=resolving, created_at=created, updated_at=updated,
                meta_version=meta_version, resolving_user=resolving_user,
            )
        except (ValueError, TypeError) as exc:
            raise StorageError(f"{self.location}: the row of game {gid!r} cannot be read ({exc}); restore a backup.") from exc

    @staticmethod
    def _next_info(info: GameInfo, game: Game, seq: int, stamp: str) -> GameInfo:
        return replace(
            info, tick=game.state.tick, status="over" if game.state.over else "running", version=seq, updated_at=stamp
        )

    async def _update_game(self, db: Backend, old: GameInfo, new: GameInfo, text: str | None, bump: bool = True) -> None:
        """Write the game row, only if nobody else changed it since ``old`` (compare-and-set)."""
        sql, params = self._game_update(old, new, text, bump)
        if await db.execute(db.sql(sql), params) != 1:
            raise self._stale(old)

    @staticmethod
    def _game_update(old: GameInfo, new: GameInfo, text: str | None, bump: bool = True) -> tuple[str, tuple[Any, ...]]:
        """The compare-and-set UPDATE of a game row (``?`` placeholders) and its parameters."""
        cols = ("tick = ?, status = ?, version = ?, deadline_tick = ?, deadline_at = ?, resolving_tick = ?, "
                "resolving_user = ?, updated_at = ?")
        params: list[Any] = [
            new.tick, new.status, new.version if bump else old.version, new.deadline_tick,
            to_ts(new.deadline_at) if new.deadline_at else None, new.resolving_tick, new.resolving_user, new.updated_at,
        ]
        if text is not None:
            cols += ", state = ?"
            params.append(text)
        return f"UPDATE games SET {cols} WHERE game_id = ? AND version = ?", (*params, old.game_id, old.version)

    def _stale(self, old: GameInfo) -> StaleGame:
        return StaleGame(
            f"{self.location}: game {old.game_id!r} was changed by someone else (version {old.version} is gone); "
            "is a second bot process using the same database?"
        )

    async def _gm_action(self, db: Backend, game_id: str, seq: int, tick: int, user_id: int | None, action: str,
                         args: dict[str, Any], stamp: str) -> None:
        await db.execute(
            db.sql("INSERT INTO gm_actions (game_id, seq, tick, user_id, action, args, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)"),
            (game_id, seq, tick, user_id, action, dumps(args), stamp),
        )

    async def _write_events(self, db: Backend, game_id: str, seq: int, first: int, events: list[Event], stamp: str) -> list[Delivery]:
        """The events (from index ``first``) and one outbox row per destination of each."""
        rows, outbox, deliveries = _event_rows(game_id, seq, first, events, stamp)
        await db.executemany(
            db.sql("INSERT INTO events (game_id, idx, seq, tick, msg_key, audience, ids, args) VALUES (?, ?, ?, ?, ?, ?, ?, ?)"), rows
        )
        await db.executemany(
            db.sql(
                "INSERT INTO outbox (delivery_key, game_id, tick, event_idx, dest_ord, dest_kind, dest_id, created_at) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?)"
            ),
            outbox,
        )
        return deliveries

    async def _write_history(self, db: Backend, game_id: str, seq: int, first: int, records: list[dict[str, Any]]) -> None:
        """The engine's new history records (from index ``first``), append-only (v8)."""
        if records:
            await db.executemany(
                db.sql("INSERT INTO history (game_id, idx, seq, tick, record) VALUES (?, ?, ?, ?, ?)"),
                [(game_id, first + n, seq, h["tick"], dumps(h)) for n, h in enumerate(records)],
            )

    async def _read(self, sql: str, params: Any = ()) -> list[tuple[Any, ...]]:
        async with self._db_lock:
            try:
                return await self.backend.fetchall(self.backend.sql(sql), tuple(params))
            except Exception as exc:
                if self.backend.is_driver_error(exc):
                    why = self.backend.explain(exc)
                    raise StorageError(f"cannot read the database: {why}" if why else
                                       f"{self.location}: cannot read the database ({exc}).") from exc
                raise

    async def _batch(self, label: str, steps: list[Step], point: str) -> Any:
        """One write transaction of known statements (:meth:`Backend.batch`), the fault point
        ``point`` inside it before its commit; counted as ``label`` when committed."""
        db = self.backend
        async with self._db_lock:
            try:
                stopped = await db.batch(steps, lambda: self._point(point))
            except Exception as exc:
                self._raise_unwritten(label, exc)
                raise
        if stopped is None:
            self._count(label)
        return stopped

    def _raise_unwritten(self, label: str, exc: Exception) -> None:
        """A database driver's error of a write transaction as a :class:`StorageError` (nothing
        was written); any other error is left to the caller to raise as it is."""
        db = self.backend
        if db.is_driver_error(exc):
            why = db.explain(exc)
            raise StorageError(f"{label} failed, nothing was written: {why}" if why else
                               f"{self.location}: {label} failed ({exc}); nothing was written.") from exc

    @asynccontextmanager
    async def _tx(self, label: str) -> AsyncIterator[Backend]:
        """One write transaction; committed at the end of the block, rolled back on error."""
        db = self.backend
        async with self._db_lock:
            try:
                await db.begin()
                try:
                    yield db
                    await db.commit()
                except BaseException:
                    await db.rollback()
                    raise
            except Exception as exc:
                self._raise_unwritten(label, exc)
                raise
        self._count(label)


INTENT_COLS = "owner_id, channel_key, guild_id, kind, name, parent_id, channel_id, settled_at"


def _intent(r: tuple[Any, ...]) -> ChannelIntent:
    return ChannelIntent(owner_id=r[0], channel_key=r[1], guild_id=r[2], kind=r[3], name=r[4], parent_id=r[5],
                         channel_id=r[6], settled_at=r[7])


PARTS_COLS = "batch_id, part_idx, game_id, channel_key, channel_id, content, nonce, mention, view, files, attempts, last_attempt_at, message_id"


def _part(r: tuple[Any, ...]) -> Part:
    return Part(batch_id=r[0], part_idx=r[1], game_id=r[2], channel_key=r[3], channel_id=r[4], content=r[5], nonce=r[6],
                mention=r[7], view=r[8], files=json.loads(r[9]) if r[9] else None, attempts=r[10], last_attempt_at=r[11],
                message_id=r[12])


def _undo_target(info: GameInfo, journal: list[dict[str, Any]]) -> dict[str, Any]:
    """The last resolve still in force, if nothing but deadline moves came after it."""
    if info.status != "running":
        raise UndoRefused("err.undo_over")
    if info.resolving_tick == info.tick:
        raise UndoRefused("err.undo_resolving")
    lived = effective(journal)
    last = next((i for i in range(len(lived) - 1, -1, -1) if lived[i]["kind"] == "resolve"), None)
    if last is None:
        raise UndoRefused("err.undo_nothing")
    if any(e["kind"] != "deadline" for e in lived[last + 1:]):
        raise UndoRefused("err.undo_moved_on")
    return lived[last]


def _int(value: Any) -> int | None:
    try:
        return int(value)
    except (TypeError, ValueError):
        return None


INSERT_COMMAND = ("INSERT INTO commands (game_id, seq, tick, kind, args, result, user_id, request_id, created_at) "
                  "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)")
INSERT_EVENT = "INSERT INTO events (game_id, idx, seq, tick, msg_key, audience, ids, args) VALUES (?, ?, ?, ?, ?, ?, ?, ?)"
INSERT_OUTBOX = ("INSERT INTO outbox (delivery_key, game_id, tick, event_idx, dest_ord, dest_kind, dest_id, created_at) "
                 "VALUES (?, ?, ?, ?, ?, ?, ?, ?)")
INSERT_HISTORY = "INSERT INTO history (game_id, idx, seq, tick, record) VALUES (?, ?, ?, ?, ?)"
INSERT_GM_ACTION = "INSERT INTO gm_actions (game_id, seq, tick, user_id, action, args, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)"


def _event_rows(game_id: str, seq: int, first: int, events: list[Event], stamp: str) -> tuple[list[Any], list[Any], list[Delivery]]:
    """The ``events`` rows (from index ``first``), one ``outbox`` row per destination of each,
    and the deliveries: a command's (one batch) and a resolve's (``Store._write_events``)."""
    rows, outbox, deliveries = [], [], []
    for n, ev in enumerate(events):
        idx = first + n
        rows.append((game_id, idx, seq, ev.tick, ev.key, ev.audience, dumps(ev.ids), dumps(ev.args)))
        for order, (kind, ident) in enumerate(destinations(ev)):
            key = delivery_key(game_id, ev.tick, idx, kind, ident)
            outbox.append((key, game_id, ev.tick, idx, order, kind, ident, stamp))
            deliveries.append(Delivery(key=key, game_id=game_id, tick=ev.tick, event_idx=idx, dest=kind, dest_id=ident, event=ev))
    return rows, outbox, deliveries


def _history_rows(game_id: str, seq: int, first: int, records: list[dict[str, Any]]) -> list[Any]:
    return [(game_id, first + n, seq, h["tick"], dumps(h)) for n, h in enumerate(records)]


@dataclass(frozen=True)
class _Run:
    game: Game  # the copy after the action, without its log (as the store keeps games in memory)
    result: Any  # what the action returned
    text: str  # the new snapshot (without the log)
    events: list[Event]  # the new events
    history: list[dict[str, Any]]  # the new history records


def _run_on_copy(live: _Live, action: Callable[[Game], Any], events: list[Event], history: list[dict[str, Any]]) -> _Run:
    """Run ``action`` on a private copy of the committed game (its snapshot ``live.text``)
    holding the part of the log given (what a resolve's rules may read; none for a command)."""
    game = Game.from_dict(live.rules, json.loads(live.text))
    st = game.state
    st.events, st.history = events, history
    first, hfirst = len(events), len(history)
    result = action(game)
    new_events, new_history = st.events[first:], st.history[hfirst:]
    st.events, st.history = [], []
    text = dumps(game.to_dict())
    _lean(game)
    return _Run(game, result, text, new_events, new_history)


def _lean(game: Game) -> Game:
    """A game kept in memory holds no copy of its generator's state in ``state.rng_state``
    (25 KiB of Python ints): the generator itself has it, and ``Game.to_dict``/``Game.copy``
    copy it back (``World.sync_rng``)."""
    game.state.rng_state = None
    return game


def _snapshot(game: Game) -> str:
    """``Game.to_dict()`` as stored: without the event log and the history (in their tables)."""
    st = game.state
    events, history = st.events, st.history
    st.events, st.history = [], []
    try:
        return dumps(game.to_dict())
    finally:
        st.events, st.history = events, history


async def _uncancellable(coro: Any) -> Any:
    """Run ``coro`` to its end even if the caller is cancelled meanwhile.

    A command's transaction and the swap of the in-memory game happen together or not at
    all: a caller cancelled (a timeout, a closing interaction) between the COMMIT and the swap
    would otherwise leave memory behind the database.
    """
    task = asyncio.ensure_future(coro)
    task.add_done_callback(lambda t: t.cancelled() or t.exception())
    return await asyncio.shield(task)


def destinations(ev: Event) -> list[tuple[str, str | None]]:
    """Where an event goes: the public channel, each player, a faction, or the GM.

    An audience the store does not know goes to the GM, so that nothing is silently dropped.
    """
    if ev.audience == "public":
        return [("public", None)]
    if ev.audience == "players":
        return [("player", str(pid)) for pid in dict.fromkeys(ev.ids)]
    if ev.audience == "faction":
        return [("faction", str(fid)) for fid in dict.fromkeys(ev.ids)]
    return [("gm", None)]


def delivery_key(game_id: str, tick: int, idx: int, kind: str, ident: str | None) -> str:
    """Unique per game, tick, event index and destination: ``g1/4/37/player:2``."""
    dest = kind if ident is None else f"{kind}:{ident}"
    return f"{game_id}/{tick}/{idx}/{dest}"

