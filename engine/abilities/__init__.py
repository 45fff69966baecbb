"""Unique abilities: one small registered implementation each, grouped by rule book."""

from . import (  # noqa: F401  (register)
    eternal_friday,
    godfather_factions,
    godfather_info,
    godfather_modifiers,
    godfather_prison,
    stats_mafia,
)
