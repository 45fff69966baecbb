"""Seed 000, Godfather's Legacy «Наследие крестного отца» (ruleset ``godfather``).

Grouped by mechanic: player factions (``factions``), information (``info``), action
modifiers (``modifiers``), the prison vote and thresholds (``prison``), and the sentences
abilities pass (``sentences``).
"""

from . import factions, info, modifiers, params, prison, sentences  # noqa: F401  (register)
