"""Unique abilities: one small registered implementation each, grouped by rule book."""

from . import (  # noqa: F401  (register)
    classic,
    council,
    eternal_friday,
    eternal_friday_full,
    godfather_factions,
    godfather_info,
    godfather_modifiers,
    godfather_prison,
    stats_mafia,
    stats_mafia_full,
)
