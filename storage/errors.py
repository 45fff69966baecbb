"""The one error storage raises for a database it cannot use."""

from __future__ import annotations


class StorageError(Exception):
    """The database cannot be opened, read or written as expected.

    The message always names the database (a file path for SQLite) and says what to do; the
    bot stops on it rather than starting with an empty database.
    """


class StaleGame(StorageError):
    """A game's row was written by someone else since this process read it (compare-and-set on
    its version failed); nothing was written. The store reloads the game and runs the command
    again on the stored one."""


class DatabaseInUse(StorageError):
    """Another bot process holds the database: a second one must not start on it.

    ``location`` is the database, ``owner`` what the holder wrote about itself (its process
    id, host and start time), as text; the CLI renders the catalog's ``cli.db_in_use``.
    """

    def __init__(self, location: str, owner: str) -> None:
        super().__init__(
            f"{location}: the database is in use by another altmafia process ({owner}). Two bot "
            "processes on one database would fail each other's games; stop the other one first, "
            "or set ALTMAFIA_DB to another file."
        )
        self.location, self.owner = location, owner


class ShardInUse(StorageError):
    """Another bot process owns a shard this one was told to run: it must not start."""

    def __init__(self, location: str, shard: int, count: int) -> None:
        super().__init__(
            f"{location}: shard {shard} of {count} is already run by another bot process on this database. "
            "Give each process its own ALTMAFIA_SHARD_IDS, or stop the other one first."
        )
        self.shard, self.count = shard, count


class UndoRefused(Exception):
    """A GM's undo that cannot be done now; ``key`` is the message key saying why."""

    def __init__(self, key: str) -> None:
        super().__init__(key)
        self.key = key
