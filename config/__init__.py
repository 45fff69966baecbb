"""Rulesets and message catalogs shipped as data files, and their loader."""

from .loader import (
    RULESETS_DIR,
    RulesetFileError,
    available_rulesets,
    load_ruleset,
    load_ruleset_file,
)

__all__ = ["RULESETS_DIR", "RulesetFileError", "available_rulesets", "load_ruleset", "load_ruleset_file"]
