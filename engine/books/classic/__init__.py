"""The classic mafia (ruleset ``classic``): the test bed of the shared primitives."""

from . import abilities, params  # noqa: F401  (register)
