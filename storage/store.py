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
import os
import socket
import uuid
from collections import Counter, OrderedDict
from collections.abc import Awaitable, Callable
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
    _Live,
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
from .turns import Turns

#: what callers import from here (the rooms' records and helpers, for one import path)
__all__ = [
    "CLAIM_MARGIN", "CLAIM_SECONDS", "DEFAULT_DB", "GAME_COLUMNS", "REPEAT_WINDOW", "Applied", "ChannelIntent",
    "DeadlineChange", "Delivery", "Due", "GameInfo", "Part", "Post", "Resolved", "StartReport", "Store", "Undone", "Upload",
    "decode_snapshot", "default_db_path", "delivery_key", "destinations", "dumps", "encode_game", "encode_snapshot",
    "fingerprint", "make_backend", "part_nonce",
]


# ---- the store ----------------------------------------------------------------------------
class Store(Games, Turns, Meta, Outbox, Lobbies, Rulesets):
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
        if rulesets is None:
            rulesets = load_ruleset
        self._rulesets = rulesets
        self._clock = clock or (lambda: datetime.now(UTC))
        #: the connection, its lock, transactions (counted by label) and the fault points
        self.db = Database(backend or make_backend(path if path is not None else default_db_path(), synchronous),
                           self._clock)
        self._games: dict[str, _Live] = {}
        self._meta_locks: dict[str, asyncio.Lock] = {}  # for games not loaded (finished)
        self._channels: dict[int, str] = {}  # Discord channel id -> game id (v4)
        self._rules_cache: OrderedDict[str, Ruleset] = OrderedDict()  # uploaded rulesets by fingerprint (v9)
        #: parts this store claimed when it staged them and has not tried to send yet (Part.held),
        #: with when that claim expires: past it (less a margin) the part is claimed again normally
        self._held: dict[tuple[str, int], datetime] = {}
        #: parts whose claim at staging expired before they were tried, in a database no other
        #: process sends from (``Part.untried``): claimed again, but nothing to look for first
        self._untried: set[tuple[str, int]] = set()
        self.report: StartReport | None = None
        #: what a command on a game waits for before it runs (:meth:`apply`): the bot's recovery
        #: of that game after a start (``Scheduler.settled``); None: nothing
        self.before_command: Callable[[str], Awaitable[object]] | None = None
        #: the database's integrity check, when ``open`` left it for after the start (a large file)
        self._checking: asyncio.Future[None] | None = None
        #: games reloaded because another process had written them (``_reload``)
        self.reloads = 0
        #: who this store is when it claims a message part (several processes may share a database)
        self.owner = f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"

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

    async def __aenter__(self) -> Store:
        await self.open()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()
