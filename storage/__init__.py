"""Persistence: every game survives a crash or a restart, nothing lost or applied twice.

``Store`` keeps games on aiosqlite (a real SQLite file, path from ``ALTMAFIA_DB``): the
engine snapshot, the command journal, the event log with audiences, deadlines, GM actions and
the delivery outbox. See ``docs/storage.md`` for the schema and the recovery rules.
"""

from .commands import ENGINE_KINDS, Command
from .errors import DatabaseInUse, StorageError, UndoRefused
from .schema import latest_version
from .store import (
    Applied,
    DeadlineChange,
    Delivery,
    Due,
    GameInfo,
    Part,
    Resolved,
    StartReport,
    Store,
    Undone,
    default_db_path,
)

__all__ = [
    "ENGINE_KINDS",
    "Applied",
    "Command",
    "DatabaseInUse",
    "DeadlineChange",
    "Delivery",
    "Due",
    "GameInfo",
    "Part",
    "Resolved",
    "StartReport",
    "StorageError",
    "Store",
    "UndoRefused",
    "Undone",
    "default_db_path",
    "latest_version",
]
