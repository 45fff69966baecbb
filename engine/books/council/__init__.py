"""Seed 001, the Board of Directors (ruleset ``council``)."""

from . import abilities  # noqa: F401  (register)
