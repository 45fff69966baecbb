"""What the rooms of one store share: the database, the games in memory, the clock, the shards.

Every room of a :class:`storage.store.Store` is handed the same :class:`StoreState` when it is
built; what only one room uses stays in that room (the rulesets' cache, the meta locks).
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime

from .database import Database
from .records import _Live


class StoreState:
    """The state the rooms of one store share (``docs/storage.md``, "Where it lives")."""

    def __init__(self, db: Database, clock: Callable[[], datetime], shards: tuple[int, tuple[int, ...]] | None,
                 owner: str) -> None:
        #: the connection, its lock, transactions (counted by label) and the fault points
        self.db = db
        self.clock = clock
        #: ``(shard_count, shard_ids)``: this process loads, resolves and delivers only the games
        #: of the guilds on these shards (Discord: ``(guild_id >> 22) % shard_count``); None: all
        self.shards = shards
        #: who this store is when it claims a message part (several processes may share a database)
        self.owner = owner
        #: every game kept in memory (the last committed state), by id
        self.games: dict[str, _Live] = {}
        self.channels: dict[int, str] = {}  # Discord channel id -> game id (v4)
        #: parts this store claimed when it staged them and has not tried to send yet (Part.held),
        #: with when that claim expires: past it (less a margin) the part is claimed again normally
        self.held: dict[tuple[str, int], datetime] = {}
        #: parts whose claim at staging expired before they were tried, in a database no other
        #: process sends from (``Part.untried``): claimed again, but nothing to look for first
        self.untried: set[tuple[str, int]] = set()

    def mine(self) -> str:
        """An SQL condition on ``games.guild_id``: the game is on one of this store's shards (a
        game of no guild — tests, the bench — is on shard 0, as Discord puts DMs)."""
        if self.shards is None:
            return "1 = 1"
        count, ids = self.shards
        shard = f"(CASE WHEN guild_id IS NULL THEN 0 ELSE (guild_id / {1 << 22}) % {count} END)"
        return f"{shard} IN ({', '.join(str(i) for i in ids)})"
