"""The rows every room writes inside its transactions: a game row read and written
compare-and-set, its events with their outbox rows, its history, the GM's audit line and the
game's channels. Plain functions over the transaction's :class:`Backend`: what rooms that do
not hold one another both write.
"""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

from engine import Game
from engine.state import Event

from .backend import Backend
from .errors import StaleGame, StorageError
from .records import Delivery, GameInfo, _event_rows, _int, dumps, from_ts, to_ts


def game_info(row: tuple[Any, ...], location: str) -> GameInfo:
    """A game's record from its row (``records.GAME_COLUMNS``)."""
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
        raise StorageError(f"{location}: the row of game {gid!r} cannot be read ({exc}); restore a backup.") from exc


def next_info(info: GameInfo, game: Game, seq: int, stamp: str) -> GameInfo:
    """The game's record after a write at ``seq``: its tick and status from the game."""
    return replace(info, tick=game.state.tick, status="over" if game.state.over else "running", version=seq, updated_at=stamp)


def game_update(old: GameInfo, new: GameInfo, text: str | None, bump: bool = True) -> tuple[str, tuple[Any, ...]]:
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


def stale(location: str, old: GameInfo) -> StaleGame:
    """The error of a game row another process wrote since ``old`` was read."""
    return StaleGame(
        f"{location}: game {old.game_id!r} was changed by someone else (version {old.version} is gone); "
        "is a second bot process using the same database?"
    )


async def update_game(db: Backend, old: GameInfo, new: GameInfo, text: str | None, bump: bool = True) -> None:
    """Write the game row, only if nobody else changed it since ``old`` (compare-and-set)."""
    sql, params = game_update(old, new, text, bump)
    if await db.execute(db.sql(sql), params) != 1:
        raise stale(db.location, old)


async def gm_action(db: Backend, game_id: str, seq: int, tick: int, user_id: int | None, action: str,
                    args: dict[str, Any], stamp: str) -> None:
    """The GM's audit line (``gm_actions``) of a command, resolve, deadline move or undo."""
    await db.execute(
        db.sql("INSERT INTO gm_actions (game_id, seq, tick, user_id, action, args, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)"),
        (game_id, seq, tick, user_id, action, dumps(args), stamp),
    )


async def write_events(db: Backend, game_id: str, seq: int, first: int, events: list[Event], stamp: str) -> list[Delivery]:
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


async def write_history(db: Backend, game_id: str, seq: int, first: int, records: list[dict[str, Any]]) -> None:
    """The engine's new history records (from index ``first``), append-only."""
    if records:
        await db.executemany(
            db.sql("INSERT INTO history (game_id, idx, seq, tick, record) VALUES (?, ?, ?, ?, ?)"),
            [(game_id, first + n, seq, h["tick"], dumps(h)) for n, h in enumerate(records)],
        )


async def write_channels(db: Backend, game_id: str, old: dict[str, Any], new: dict[str, Any]) -> dict[int, str]:
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
