"""One package per rule book: everything that book alone needs, registered when imported.

This is the one explicit list of books: a book's package imports its own modules, and each
module registers its implementations (impls, checks, steps, vote counters, mail policies,
victories) in :mod:`engine.registry` as it is imported.
"""

from . import classic, council, eternal_friday, godfather, stats_mafia  # noqa: F401  (register)
