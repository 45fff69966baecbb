"""Resolving a tick: the pipeline and the shared pieces every book's steps use.

``pipeline`` runs one resolve; ``context`` is what it knows while it runs; ``targeting`` says
whom an effect reaches; ``effects`` and ``swaps`` are the parameterised primitives (``op``),
``steps`` the built-in steps, ``order`` the order of one step's actions, ``faction_moves`` the
night's faction moves, ``upkeep`` the bookkeeping around a resolve.
"""

from . import effects, steps, swaps  # noqa: F401  (register the primitives and built-in steps)
