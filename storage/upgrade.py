"""What a start does to rows an older schema left, after the schema's own migrations: the data
those migrations could not fill by SQL alone. Each step runs in transactions of its own and may
run again after a crash (it only fills what is still missing).
"""

from __future__ import annotations

import json

from .database import Database
from .records import _int, dumps
from .writes import write_channels


async def backfill_channels(database: Database) -> None:
    """Fill what migration 0004 added from the JSON kept so far: each lobby's channel (the
    oldest lobby of a channel keeps it; a later one of the same channel, made before the
    rule, stays without and can still be ended by its GM) and every game's channels."""
    async with database.tx("migrate.backfill") as db:
        taken: set[int] = set()
        rows = await db.fetchall(db.sql("SELECT lobby_id, data FROM lobbies ORDER BY created_at, lobby_id"))
        for lobby_id, data in rows:
            cid = _int(json.loads(data).get("channel_id"))
            if cid is not None and cid not in taken:
                taken.add(cid)
                await db.execute(db.sql("UPDATE lobbies SET channel_id = ? WHERE lobby_id = ?"), (cid, lobby_id))
        for game_id, meta in await db.fetchall(db.sql("SELECT game_id, meta FROM games ORDER BY created_at, game_id")):
            await write_channels(db, game_id, {}, json.loads(meta))


async def split_logs(database: Database) -> None:
    """Move the event log and the history out of every snapshot written before migration
    0008 (``log_apart = 0``), one game a transaction: the events were in their table
    already (any missing there is added), the history goes to its own; the snapshot is
    written again without them. Runs at every start while such a game is left."""
    for gid, version, state in await database.read("SELECT game_id, version, state FROM games WHERE log_apart = 0 ORDER BY game_id"):
        data = json.loads(state)
        events, history = data.get("events") or [], data.get("history") or []
        data["events"], data["history"] = [], []
        async with database.tx("migrate.split") as db:
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
