"""The one error storage raises for a database it cannot use."""

from __future__ import annotations


class StorageError(Exception):
    """The database cannot be opened, read or written as expected.

    The message always names the database (a file path for SQLite) and says what to do; the
    bot stops on it rather than starting with an empty database.
    """
