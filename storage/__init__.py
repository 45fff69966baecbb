"""Persistence: every game survives a crash or a restart, nothing lost or applied twice.

``Store`` keeps games on aiosqlite (a real SQLite file, path from ``ALTMAFIA_DB``): the
engine snapshot, the command journal, the event log with audiences, deadlines, GM actions and
the delivery outbox. See ``docs/storage.md`` for the schema and the recovery rules.
"""

from .commands import ENGINE_KINDS, Command
from .errors import DatabaseInUse, ShardInUse, StaleGame, StorageError, UndoRefused
from .schema import latest_version
from .store import (
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
    Store,
    Undone,
    Upload,
    default_db_path,
    part_nonce,
)

__all__ = [
    "ENGINE_KINDS",
    "Applied",
    "ChannelIntent",
    "Command",
    "DatabaseInUse",
    "ShardInUse",
    "StaleGame",
    "DeadlineChange",
    "Delivery",
    "Due",
    "GameInfo",
    "Part",
    "Post",
    "Resolved",
    "StartReport",
    "StorageError",
    "Store",
    "UndoRefused",
    "Undone",
    "Upload",
    "default_db_path",
    "part_nonce",
    "latest_version",
]
