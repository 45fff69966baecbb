"""The game store: every accepted command and every resolve committed before anyone is told.

One :class:`Store` per bot process owns the database. It keeps every running game in memory
(the last *committed* state) and changes a game only through:

* :meth:`Store.games.apply` — a player's or GM's command: the engine validates it on a copy of the
  game; a refusal (:class:`engine.ActionError`) writes nothing; an accepted command, the new
  snapshot, its events and their outbox rows are committed in one transaction, and only then
  does the in-memory game change and the call return;
* :meth:`Store.turns.resolve` — a phase end: a small transaction marks the resolve as started, then
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

import os
import socket
import uuid
from collections import Counter
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

from config.loader import load_ruleset
from engine import Ruleset

from .backend import Backend
from .database import Database, _check_shards, make_backend
from .games import Games
from .lobbies import Lobbies
from .meta import Meta
from .outbox import Outbox, part_nonce
from .records import (
    CLAIM_MARGIN,
    CLAIM_SECONDS,
    DEFAULT_DB,
    GAME_COLUMNS,
    REPEAT_WINDOW,
    Applied,
    ChannelIntent,
    DeadlineChange,
    Delivery,
    Due,
    GameInfo,
    Part,
    Post,
    Resolved,
    StartReport,
    Undone,
    Upload,
    decode_snapshot,
    default_db_path,
    delivery_key,
    destinations,
    dumps,
    encode_game,
    encode_snapshot,
    fingerprint,
)
from .rulesets import Rulesets
from .state import StoreState
from .turns import Turns

#: what callers import from here (the rooms' records and helpers, for one import path)
__all__ = [
    "CLAIM_MARGIN", "CLAIM_SECONDS", "DEFAULT_DB", "GAME_COLUMNS", "REPEAT_WINDOW", "Applied", "ChannelIntent",
    "DeadlineChange", "Delivery", "Due", "GameInfo", "Part", "Post", "Resolved", "StartReport", "Store", "Undone", "Upload",
    "decode_snapshot", "default_db_path", "delivery_key", "destinations", "dumps", "encode_game", "encode_snapshot",
    "fingerprint", "make_backend", "part_nonce",
]


# ---- the store ----------------------------------------------------------------------------
class Store:
    """All games of one bot process. ``async with Store() as store: ...`` or open()/close().

    Its rooms are parts it holds, each of one concern, sharing one :class:`StoreState`:
    ``store.games`` (opening, reading, creating, commands), ``store.turns`` (resolves,
    deadlines, undo), ``store.meta`` (the bot's data of a game, its channels),
    ``store.outbox`` (deliveries, channel intents, message parts), ``store.lobbies``,
    ``store.rulesets`` (uploads)."""

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
        now = clock or (lambda: datetime.now(UTC))
        #: the connection, its lock, transactions (counted by label) and the fault points
        self.db = Database(backend or make_backend(path if path is not None else default_db_path(), synchronous), now)
        #: what the rooms share: the games in memory, their channels, the clock, the shards, the owner
        self.state = StoreState(self.db, now, _check_shards(shards),
                                f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}")
        self.rulesets = Rulesets(self.state)
        self.lobbies = Lobbies(self.state)
        self.outbox = Outbox(self.state)
        self.games = Games(self.state, self.rulesets, self.outbox, rulesets or load_ruleset)
        self.meta = Meta(self.state, self.games, self.outbox)
        self.turns = Turns(self.state, self.games, self.outbox, self.meta)

    @property
    def shards(self) -> tuple[int, tuple[int, ...]] | None:
        """``(shard_count, shard_ids)`` this process runs; None: all (:attr:`StoreState.shards`)."""
        return self.state.shards

    @property
    def owner(self) -> str:
        """Who this store is when it claims a message part (several processes may share a database)."""
        return self.state.owner

    @property
    def report(self) -> StartReport | None:
        """What :meth:`open` found (None before it)."""
        return self.games.report

    @property
    def reloads(self) -> int:
        """Games reloaded because another process had written them."""
        return self.games.reloads

    @property
    def backend(self) -> Backend:
        return self.db.backend

    @property
    def location(self) -> str:
        return self.db.location

    @property
    def transactions(self) -> Counter[str]:
        """Committed transactions by label ("apply", "resolve", "resolve.mark", "stage", …)."""
        return self.db.transactions

    @property
    def fault(self) -> Callable[[str], None] | None:
        """A test hook called at named points ("apply.before_commit"…); None in production."""
        return self.db.fault

    @fault.setter
    def fault(self, hook: Callable[[str], None] | None) -> None:
        self.db.fault = hook

    async def open(self, now: datetime | None = None) -> StartReport:
        """Open, migrate, load every running game; report what must happen first
        (:meth:`storage.games.Games.open`)."""
        return await self.games.open(now)

    def acquire(self) -> None:
        """Take the database for this process now (:meth:`storage.games.Games.acquire`)."""
        self.games.acquire()

    async def close(self) -> None:
        await self.games.close()

    async def __aenter__(self) -> Store:
        await self.open()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()
