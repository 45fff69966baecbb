"""The one error storage raises for a database it cannot use."""

from __future__ import annotations


class StorageError(Exception):
    """The database cannot be opened, read or written as expected.

    The message always names the database (a file path for SQLite) and says what to do; the
    bot stops on it rather than starting with an empty database.
    """


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


class UndoRefused(Exception):
    """A GM's undo that cannot be done now; ``key`` is the message key saying why."""

    def __init__(self, key: str) -> None:
        super().__init__(key)
        self.key = key
