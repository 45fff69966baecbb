"""Load ruleset files and check them against the schema, with errors a GM can act on."""

from __future__ import annotations

import copy
from functools import lru_cache
from pathlib import Path
from typing import Any

import yaml
from pydantic import ValidationError

from engine.ruleset import Ruleset

RULESETS_DIR = Path(__file__).parent / "rulesets"
_Loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # the C parser when PyYAML has it
# the test-only mini rulesets of a checkout: served only to callers that ask (include_tests)
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
        problems: list[str] = []
        for err in exc.errors():
            where = _path_of(err["loc"], data)
            msg = str(err["msg"]).removeprefix("Value error, ")
            if not err["loc"]:
                # the cross-checks of the whole ruleset: one ``path: message`` per line
                problems += msg.splitlines()
            else:
                problems.append(f"{where}: {msg}")
        n = len(problems)
        lines = [f"{source}: the ruleset is not valid ({n} problem{'' if n == 1 else 's'}):"]
        lines += [f"  - at {p}" for p in problems]
        raise RulesetFileError("\n".join(lines)) from None


def _read_yaml(path: Path) -> Any:
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise RulesetFileError(f"{path}: cannot read the ruleset file ({exc.strerror or exc})") from None
    text = decode_utf8(raw, path, RulesetFileError)
    try:
        return yaml.load(text, Loader=_Loader)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark else ""
        raise RulesetFileError(f"{path}: not valid YAML{where}: {getattr(exc, 'problem', exc)}") from None


def decode_utf8(raw: bytes, path: Path | str, error: type[Exception]) -> str:
    """The text of a file that must be UTF-8; ``error`` names the file and the first bad byte."""
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        column = exc.start - (raw.rfind(b"\n", 0, exc.start) + 1) + 1
        raise error(
            f"{path}: not UTF-8 text (byte 0x{raw[exc.start]:02x} at line {line}, column {column}); "
            "save the file as UTF-8"
        ) from None


def merge_data(base: dict[str, Any], over: dict[str, Any]) -> dict[str, Any]:
    """``over`` on top of ``base``: mappings merge key by key, anything else (a list such as
    ``roles``) is replaced whole."""
    out = copy.deepcopy(base)
    for k, v in over.items():
        if isinstance(v, dict) and isinstance(out.get(k), dict):
            out[k] = merge_data(out[k], v)
        else:
            out[k] = copy.deepcopy(v)
    return out


def _with_base(data: Any, path: Path, seen: tuple[Path, ...] = ()) -> Any:
    """A file with ``extends: <ruleset id or path>`` is that ruleset with this file's keys on
    top (:func:`merge_data`): e.g. a GM's own role table over a shipped framework."""
    if not isinstance(data, dict) or "extends" not in data:
        return data
    ref = str(data["extends"])
    known = available_rulesets()  # a shipped ruleset by id, else a path beside this file
    base_path = known.get(ref) or (path.parent / ref)
    if base_path.resolve() in seen or base_path.resolve() == path.resolve():
        raise RulesetFileError(f"{path}: 'extends: {ref}' goes round in a circle")
    if not base_path.exists():
        raise RulesetFileError(f"{path}: 'extends: {ref}': no such ruleset; known: {', '.join(sorted(known))}")
    base = _with_base(_read_yaml(base_path), base_path, (*seen, path.resolve()))
    if not isinstance(base, dict):
        raise RulesetFileError(f"{base_path}: a ruleset must be a mapping at the top level")
    return merge_data(base, {k: v for k, v in data.items() if k != "extends"})


def load_ruleset_file(path: str | Path) -> Ruleset:
    path = Path(path)
    data = _with_base(_read_yaml(path), path)
    return parse_ruleset(data, str(path))


def available_rulesets(include_tests: bool = False) -> dict[str, Path]:
    dirs = [RULESETS_DIR] + ([TEST_RULESETS_DIR] if include_tests and TEST_RULESETS_DIR.is_dir() else [])
    out: dict[str, Path] = {}
    for d in dirs:
        for f in sorted(d.glob("*.yaml")):
            out[f.stem] = f
    return out


# Short names people use for the shipped rulesets (the issues and the GMs say "friday").
ALIASES = {"friday": "eternal_friday", "stats": "stats_mafia", "board": "council"}


@lru_cache(maxsize=32)
def load_ruleset(ref: str, *, include_tests: bool = False, files: bool = False) -> Ruleset:
    """A shipped ruleset by id or short name. Only when asked: a test-only one (``include_tests``:
    tests/rulesets/, for the tests and the tools) or a ``.yaml`` file by path (``files``: the
    command-line tools). The bot asks for neither, so what a user types reaches neither."""
    known = available_rulesets(include_tests=include_tests)
    ref = ALIASES.get(ref, ref) if ref not in known else ref
    if ref in known:
        return load_ruleset_file(known[ref])
    p = Path(ref)
    if files and p.suffix in (".yaml", ".yml") and p.exists():
        return load_ruleset_file(p)
    raise RulesetFileError(f"no ruleset {ref!r}; known: {', '.join(sorted(known))}")
