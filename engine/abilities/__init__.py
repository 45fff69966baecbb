"""Unique abilities: one small registered implementation each, grouped by rule book."""

from . import eternal_friday, stats_mafia  # noqa: F401  (register)
