"""The lobbies room: open sign-ups, one per channel.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from typing import Any

from .records import _int, dumps
from .state import StoreState


class Lobbies:
    """Lobbies: create, change, save, list, delete."""

    def __init__(self, state: StoreState) -> None:
        self.state = state
        self.db = state.db

    async def create_lobby(self, lobby_id: str, data: dict[str, Any], *, guild_id: int | None, channel_id: int) -> str | None:
        """Open a lobby in a channel; one transaction. None when done; the id of the lobby
        already open in that channel otherwise (nothing written): one open lobby per channel."""
        stamp = self.db.stamp()
        async with self.db.tx("lobby") as db:
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
        stamp = self.db.stamp()
        async with self.db.tx("lobby") as db:
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
        stamp = self.db.stamp()
        cid = _int(data.get("channel_id"))
        async with self.db.tx("lobby") as db:
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
        sql = "SELECT lobby_id, data FROM lobbies"
        params: tuple[Any, ...] = ()
        if guild_id is not None:
            sql, params = sql + " WHERE guild_id = ?", (guild_id,)
        rows = await self.db.read(sql + " ORDER BY created_at, lobby_id", params)
        return {r[0]: json.loads(r[1]) for r in rows}

    async def delete_lobby(self, lobby_id: str) -> bool:
        async with self.db.tx("lobby") as db:
            n = await db.execute(db.sql("DELETE FROM lobbies WHERE lobby_id = ?"), (lobby_id,))
        return n == 1
