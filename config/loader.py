"""Load ruleset files and check them against the schema, with errors a GM can act on."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Any

import yaml
from pydantic import ValidationError

from engine.ruleset import Ruleset

RULESETS_DIR = Path(__file__).parent / "rulesets"
_Loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # the C parser when PyYAML has it
TEST_RULESETS_DIR = Path(__file__).resolve().parent.parent / "tests" / "rulesets"


class RulesetFileError(Exception):
    """A ruleset file that cannot be used: the message names the file and the bad entry."""


def _path_of(loc: tuple[Any, ...], data: Any) -> str:
    """A readable path such as ``roles[3] (Ростовщик).abilities[1].slot``."""
    parts: list[str] = []
    node = data
    for item in loc:
        if isinstance(item, int):
            label = ""
            if isinstance(node, list) and 0 <= item < len(node) and isinstance(node[item], dict):
                ident = node[item].get("id")
                name = node[item].get("name")
                if isinstance(name, dict):
                    name = name.get("ru")
                label = f" ({name or ident})" if (name or ident) else ""
            parts.append(f"[{item}]{label}")
        else:
            parts.append(("." if parts else "") + str(item))
        try:
            node = node[item]
        except (KeyError, IndexError, TypeError):
            node = None
    return "".join(parts) or "(top level)"


def parse_ruleset(data: Any, source: str) -> Ruleset:
    if not isinstance(data, dict):
        raise RulesetFileError(f"{source}: a ruleset must be a mapping at the top level")
    try:
        return Ruleset.model_validate(data)
    except ValidationError as exc:
        lines = [f"{source}: the ruleset is not valid ({exc.error_count()} problem(s)):"]
        for err in exc.errors():
            lines.append(f"  - at {_path_of(err['loc'], data)}: {err['msg']}")
        raise RulesetFileError("\n".join(lines)) from None


def load_ruleset_file(path: str | Path) -> Ruleset:
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise RulesetFileError(f"{path}: cannot read the ruleset file ({exc.strerror})") from None
    try:
        data = yaml.load(text, Loader=_Loader)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark else ""
        raise RulesetFileError(f"{path}: not valid YAML{where}: {getattr(exc, 'problem', exc)}") from None
    return parse_ruleset(data, str(path))


def available_rulesets(include_tests: bool = False) -> dict[str, Path]:
    dirs = [RULESETS_DIR] + ([TEST_RULESETS_DIR] if include_tests and TEST_RULESETS_DIR.is_dir() else [])
    out: dict[str, Path] = {}
    for d in dirs:
        for f in sorted(d.glob("*.yaml")):
            out[f.stem] = f
    return out


@lru_cache(maxsize=32)
def load_ruleset(ref: str) -> Ruleset:
    """A ruleset by id (a shipped file, or a test-only one) or by file path."""
    known = available_rulesets(include_tests=True)
    if ref in known:
        return load_ruleset_file(known[ref])
    p = Path(ref)
    if p.suffix in (".yaml", ".yml") and p.exists():
        return load_ruleset_file(p)
    raise RulesetFileError(f"no ruleset {ref!r}; known: {', '.join(sorted(known))}")
