"""The meta room: the bot's own data of a game (``meta``) and its channels.
"""

from __future__ import annotations

import asyncio
import copy
import json
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from . import writes
from .backend import Backend
from .errors import StorageError
from .games import Games
from .outbox import Outbox
from .records import GameInfo, Part, _uncancellable, dumps
from .state import StoreState


class Meta:
    """A game's meta and the channels recorded from it."""

    def __init__(self, state: StoreState, games: Games, outbox: Outbox) -> None:
        self.state = state
        self.db = state.db
        #: a game not loaded (finished) is read from the database; the posts of a change are staged in the outbox
        self.games = games
        self.outbox = outbox
        self._meta_locks: dict[str, asyncio.Lock] = {}  # for games not loaded (finished)

    # ---- the bot's own data of a game ------------------------------------------------------
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
        resolve's delivery), for a caller that flushes next (the end of a game: ``bot.stage_end``).
        The fault point ``meta.before_commit`` is inside the transaction.
        """
        return await _uncancellable(self._update_meta(game_id, fn, posts, key, claim))

    async def set_meta(self, game_id: str, meta: dict[str, Any]) -> GameInfo:
        """Replace a game's ``meta`` whole (a fresh record, e.g. in a test); the bot changes meta
        with :meth:`update_meta` only."""
        fresh = copy.deepcopy(dict(meta))
        return await self.update_meta(game_id, lambda _old: fresh)

    def _meta_lock(self, game_id: str) -> asyncio.Lock:
        live = self.state.games.get(game_id)
        return live.lock if live is not None else self._meta_locks.setdefault(game_id, asyncio.Lock())

    async def _update_meta(self, game_id: str, fn: Callable[[dict[str, Any]], dict[str, Any] | None],
                           posts: Any = (), key: str | None = None, claim: bool = False) -> GameInfo:
        async with self._meta_lock(game_id):
            stamp = self.db.stamp()
            held: list[Part] = []
            async with self.db.tx("meta") as db:
                meta, version = await self._meta_change(db, game_id, fn, stamp)
                if meta is not None and posts:
                    held = await self.outbox.write_posts(db, game_id, key or f"meta:{version + 1}",
                                                   list(posts(meta) if callable(posts) else posts), stamp, claim=claim)
                self.db.point("meta.before_commit")
            if claim:
                self.outbox.hold(held)
            live = self.state.games.get(game_id)
            if live is not None and meta is not None:
                live.info = replace(live.info, meta=meta, meta_version=version + 1, updated_at=stamp)
            info = live.info if live is not None else await self.games.find(game_id)
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
        return await self.meta_write(db, game_id, old, version, fn, stamp), version

    async def meta_write(self, db: Backend, game_id: str, old: dict[str, Any], version: int,
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
                f"{self.db.location}: the meta of game {game_id!r} was changed by someone else (meta version {version} is gone); "
                "is a second bot process using the same database?"
            )
        added = await writes.write_channels(db, game_id, old, meta)
        self.state.channels.update(added)  # a rollback after this point leaves only extra ids of the same game
        return meta

    # ---- the marks of a flush with a meta change --------------------------------------------
    async def mark_parts_sent(self, sent: list[tuple[Part, int | None]], *,
                              meta: tuple[str, Callable[[dict[str, Any]], dict[str, Any] | None]]) -> int:
        """:meth:`storage.outbox.Outbox.mark_parts_sent` with ``meta`` (``(game_id, fn)``): a
        change of that game's meta committed in the same transaction, exactly as
        :meth:`update_meta` would (the fresh meta read, ``fn`` run on a copy, compare-and-set on
        ``meta_version``, under the game's lock); the bot's record of the overwrites its channel
        sync applied rides here. With nothing to mark it is committed on its own
        (:meth:`update_meta`). Returns how many parts were still unsent."""
        if not sent:
            await self.update_meta(*meta)
            return 0
        return await _uncancellable(self._mark_parts_sent_with_meta(sent, *meta))

    async def _mark_parts_sent_with_meta(self, sent: list[tuple[Part, int | None]], game_id: str,
                                         fn: Callable[[dict[str, Any]], dict[str, Any] | None]) -> int:
        async with self._meta_lock(game_id):
            changed: dict[str, Any] = {}

            async def within(db: Backend, stamp: str) -> None:
                new, version = await self._meta_change(db, game_id, fn, stamp)
                if new is not None:
                    changed.update(meta=new, version=version + 1, stamp=stamp)

            n = await self.outbox.mark_parts_sent(sent, within=within)
            live = self.state.games.get(game_id)
            if live is not None and changed:
                live.info = replace(live.info, meta=changed["meta"], meta_version=changed["version"],
                                    updated_at=changed["stamp"])
            return n

    def game_of_channel(self, channel_id: int | None) -> str | None:
        """The game a Discord channel (or category) belongs to, running or finished; None."""
        return None if channel_id is None else self.state.channels.get(int(channel_id))
