"""Seed 001, the Board of Directors (ruleset ``council``)."""

from . import abilities, params  # noqa: F401  (register)
