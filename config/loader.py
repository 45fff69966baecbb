"""Load ruleset files and check them against the schema, with errors a GM can act on."""

from __future__ import annotations

import copy
from dataclasses import replace
from functools import lru_cache
from pathlib import Path
from typing import Any

import yaml
from pydantic import ValidationError

from engine.ruleset import Problem, Ruleset, RulesetProblems

from .texts import known_values, say

RULESETS_DIR = Path(__file__).parent / "rulesets"
_Loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # the C parser when PyYAML has it
# the test-only mini rulesets of a checkout: served only to callers that ask (include_tests)
TEST_RULESETS_DIR = Path(__file__).resolve().parent.parent / "tests" / "rulesets"


class RulesetFileError(Exception):
    """A ruleset file that cannot be used: the message names the file and the bad entry.

    ``key`` is a text of ``config/messages/<lang>.variants.yaml`` (section ``variants``) filled
    with ``args``; a schema error adds one :class:`~engine.ruleset.Problem` per line. ``str()``
    is the English text, :meth:`render` the text in either language. A plain message (no such
    key) reads the same in both."""

    def __init__(self, key: str, problems: list[Problem] | None = None, /, *, hint: tuple[Any, Any] | None = None,
                 **args: Any) -> None:
        self.key, self.args_, self.problems = key, {k: str(v) for k, v in args.items()}, list(problems or [])
        self.hint = (str(hint[0]), [str(k) for k in hint[1]]) if hint else None  # (unknown name, known names)
        super().__init__(self.render("en"))

    def render(self, lang: str) -> str:
        head = say(lang, self.key, **self.args_) + (known_values(lang, *self.hint) if self.hint else "")
        return "\n".join([head, *(say(lang, "loader.at", where=p.where, what=problem_text(lang, p)) for p in self.problems)])


def problem_text(lang: str, p: Problem) -> str:
    """One problem of a ruleset in ``lang``: the table's text (the engine's English when the
    table lacks it), then the known values and the close ones when a name is unknown."""
    text = say(lang, f"problem.{p.key}", p.text, **p.args) if p.key else p.text
    if p.name is not None and p.known:
        text += known_values(lang, p.name, p.known)
    return text


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
        raise RulesetFileError("loader.not_mapping", file=source)
    try:
        return Ruleset.model_validate(data)
    except ValidationError as exc:
        problems: list[Problem] = []
        for err in exc.errors():
            where = _path_of(err["loc"], data) if err["loc"] else ""
            cause = (err.get("ctx") or {}).get("error")
            if isinstance(cause, RulesetProblems):
                # the cross-checks of the whole ruleset (or of one entry): one problem per line
                problems += [replace(p, where=".".join(w for w in (where, p.where) if w) or "(top level)") for p in cause.problems]
                continue
            msg = str(err["msg"]).removeprefix("Value error, ")
            ctx = {k: v for k, v in (err.get("ctx") or {}).items() if k != "error"}
            key = None if cause is not None else err["type"]
            problems.append(Problem(where or "(top level)", f"pydantic.{key}" if key else "", msg, ctx))
        raise RulesetFileError("loader.not_valid", problems, file=source, n=len(problems),
                               s="" if len(problems) == 1 else "s") from None


def _read_yaml(path: Path) -> Any:
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise RulesetFileError("loader.cannot_read", file=path, why=exc.strerror or exc) from None
    return _parse_yaml(decode_utf8(raw, path, RulesetFileError), path)


def _parse_yaml(text: str, path: Path | str) -> Any:
    """The data of a YAML text (safe YAML: plain data, never an object of Python)."""
    try:
        return yaml.load(text, Loader=_Loader)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line, column = (mark.line + 1, mark.column + 1) if mark else ("?", "?")
        raise RulesetFileError("loader.not_yaml", file=path, line=line, column=column, why=getattr(exc, "problem", exc)) from None


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


# A variant (``extends:``) edits its base's lists entry by entry: an entry is found by the first
# of these keys that every entry of the base's list has (``id``; a table's decks by ``upto``).
ENTRY_KEYS = ("id", "upto")
# a variant's instructions on an entry, not the entry's data (docs/variants.md)
EDIT_KEYS = ("remove", "after", "before")
# a variant that keeps fewer than half of a base's list of at least this many entries is told so
DROP_NOTE_FROM = 4


def entry_key(entries: list[Any]) -> str | None:
    """The key a list's entries are found by, or None (a list of plain values: replaced whole)."""
    if not entries or not all(isinstance(e, dict) for e in entries):
        return None
    return next((k for k in ENTRY_KEYS if all(k in e for e in entries)), None)


class Merge:
    """A variant's keys on top of its base. Mappings merge key by key. A list whose entries
    have ids merges entry by entry: an entry with a new id is added (at the end, or ``after:`` /
    ``before:`` another id), an entry with an id of the base changes only the keys it names
    (its own lists merge the same way), ``{id: x, remove: true}`` takes entry ``x`` out, and
    ``{replace: [...]}`` replaces the whole list. Any other list is replaced whole. ``notes``
    collects what a GM should check: a list that keeps fewer than half of its base."""

    def __init__(self, source: Path, base: str) -> None:
        self.source, self.base = source, base
        self.notes: list[tuple[str, dict[str, Any]]] = []

    def fail(self, code: str, /, hint: tuple[Any, Any] | None = None, **args: Any) -> RulesetFileError:
        return RulesetFileError(code, file=self.source, hint=hint, **args)

    def mapping(self, base: dict[str, Any], over: dict[str, Any], where: str = "") -> dict[str, Any]:
        out = copy.deepcopy(base)
        for k, v in over.items():
            at = f"{where}.{k}" if where else str(k)
            old = out.get(k)
            if isinstance(old, dict) and isinstance(v, dict):
                out[k] = self.mapping(old, v, at)
            elif isinstance(old, list):
                out[k] = self.list(old, v, at)
            else:
                out[k] = copy.deepcopy(v)
        return out

    def list(self, base: list[Any], over: Any, where: str) -> Any:
        key = entry_key(base)
        if isinstance(over, dict) and set(over) == {"replace"}:
            new = copy.deepcopy(over["replace"])
            self.dropped(base, new, key, where)
            return new
        if isinstance(over, dict) and key is not None:
            raise self.fail("loader.list_edit", where=where, key=key)
        if key is None or not isinstance(over, list):
            return copy.deepcopy(over)
        out = copy.deepcopy(base)
        for i, entry in enumerate(over):
            if not isinstance(entry, dict) or key not in entry:
                raise self.fail("loader.entry_without_key", where=f"{where}[{i}]", key=key)
            ident = entry[key]
            at = f"{where}[{i}] ({ident})"
            ids = [e.get(key) for e in out]
            edits = {k: entry[k] for k in EDIT_KEYS if k in entry}
            body = {k: v for k, v in entry.items() if k not in EDIT_KEYS}
            if edits.get("remove") is True:
                if ident not in ids:
                    raise self.fail("loader.remove_unknown", where=at, id=ident, base=self.base, hint=(ident, ids))
                if len(body) > 1 or len(edits) > 1:
                    raise self.fail("loader.remove_only", where=at)
                del out[ids.index(ident)]
                continue
            if "remove" in edits:
                raise self.fail("loader.remove_only", where=at)
            if ident in ids:
                j = ids.index(ident)
                body = self.mapping(out.pop(j), body, f"{where}.{ident}")
                if not edits:
                    out.insert(j, body)
                    continue
            self.place(out, body, edits, key, at)
        self.dropped(base, out, key, where)
        return out

    def place(self, out: list[Any], entry: dict[str, Any], edits: dict[str, Any], key: str, at: str) -> None:
        if "after" in edits and "before" in edits:
            raise self.fail("loader.after_and_before", where=at)
        anchor = edits.get("after", edits.get("before"))
        if anchor is None:
            out.append(entry)
            return
        ids = [e.get(key) for e in out]
        if anchor not in ids:
            raise self.fail("loader.no_anchor", where=at, id=anchor, hint=(anchor, ids))
        out.insert(ids.index(anchor) + (1 if "after" in edits else 0), entry)

    def dropped(self, base: list[Any], new: Any, key: str | None, where: str) -> None:
        if key is None or len(base) < DROP_NOTE_FROM or not isinstance(new, list):
            return
        new_ids = {e.get(key) for e in new if isinstance(e, dict)}
        kept = sum(1 for e in base if e.get(key) in new_ids)
        if kept * 2 < len(base):
            self.notes.append(("loader.drops_most", {"where": where, "kept": kept, "total": len(base), "base": self.base,
                                                      "now": len(new)}))


def merge_data(base: dict[str, Any], over: dict[str, Any]) -> dict[str, Any]:
    """``over`` on top of ``base`` as a variant does (:class:`Merge`)."""
    return Merge(Path("(variant)"), "(base)").mapping(base, over)


def _with_base(data: Any, path: Path, notes: list[str] | None = None, seen: tuple[Path, ...] = (), *,
               beside: bool = True) -> Any:
    """A file with ``extends: <ruleset id or path>`` is that ruleset with this file's keys on
    top (:class:`Merge`): e.g. a GM's tweak of a shipped book, or their own role table.
    ``beside=False`` (an upload, which has no folder): a shipped ruleset by id only."""
    if not isinstance(data, dict) or "extends" not in data:
        return data
    ref = str(data["extends"])
    known = available_rulesets()  # a shipped ruleset by id, else a path beside this file
    base_path = known.get(ref) or (path.parent / ref)
    if not beside and ref not in known:
        raise RulesetFileError("loader.no_base", file=path, ref=ref, hint=(ref, known))
    if base_path.resolve() in seen or base_path.resolve() == path.resolve():
        raise RulesetFileError("loader.circle", file=path, ref=ref)
    if not base_path.exists():
        raise RulesetFileError("loader.no_base", file=path, ref=ref, hint=(ref, known))
    base = _with_base(_read_yaml(base_path), base_path, notes, (*seen, path.resolve()))
    if not isinstance(base, dict):
        raise RulesetFileError("loader.not_mapping", file=base_path)
    merge = Merge(path, ref)
    out = merge.mapping(base, {k: v for k, v in data.items() if k != "extends"})
    if notes is not None:
        notes += [RulesetFileError(k, file=path, **a) for k, a in merge.notes]
    return out


def resolved_data(path: str | Path, notes: list[Any] | None = None) -> Any:
    """The data of a ruleset file with its base (``extends:``) merged in, before the schema."""
    path = Path(path)
    return _with_base(_read_yaml(path), path, notes)


def load_ruleset_file(path: str | Path, notes: list[Any] | None = None) -> Ruleset:
    """The ruleset of a file. Its ``id`` must be its file name (the bot finds a ruleset by it).
    ``notes`` (when given) receives what a GM should check although the file loads, as
    :class:`RulesetFileError` texts: a variant that drops most of a list of its base."""
    path = Path(path)
    rules = parse_ruleset(resolved_data(path, notes), str(path))
    if rules.id != path.stem:
        raise RulesetFileError("loader.id_not_file_name", file=path, id=rules.id, stem=path.stem)
    return rules


#: an uploaded file's data may hold at most this many values, its YAML aliases spelt out (a
#: file of a few kilobytes can otherwise stand for billions of values, «billion laughs»)
MAX_VALUES = 200_000


def _count_values(data: Any, limit: int) -> int:
    """How many values ``data`` holds with every alias spelt out, counting stopped past ``limit``."""
    seen, todo = 0, [data]
    while todo and seen <= limit:
        node = todo.pop()
        seen += 1
        if isinstance(node, dict):
            todo += [*node.keys(), *node.values()]
        elif isinstance(node, list):
            todo += node
    return seen


def load_ruleset_text(raw: bytes, file_name: str, notes: list[Any] | None = None) -> Ruleset:
    """The ruleset of an uploaded file (``raw``, named ``file_name``), checked as
    :func:`load_ruleset_file` checks a file (its ``id`` must be its file name), with what an
    upload may not do refused: a text that is not UTF-8 or spells out more than
    :data:`MAX_VALUES` values, and an ``extends:`` of anything but a shipped ruleset by id (an
    upload has no folder; a path would read the server's files)."""
    path = Path(Path(file_name).name or "ruleset.yaml")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        column = exc.start - (raw.rfind(b"\n", 0, exc.start) + 1) + 1
        raise RulesetFileError("loader.not_utf8", file=path, byte=f"0x{raw[exc.start]:02x}", line=line, column=column) from None
    data = _parse_yaml(text, path)
    if _count_values(data, MAX_VALUES) > MAX_VALUES:
        raise RulesetFileError("loader.too_many_values", file=path, max=MAX_VALUES)
    rules = parse_ruleset(_with_base(data, path, notes, beside=False), str(path))
    if rules.id != path.stem:
        raise RulesetFileError("loader.id_not_file_name", file=path, id=rules.id, stem=path.stem)
    return rules


def available_rulesets(include_tests: bool = False) -> dict[str, Path]:
    dirs = [RULESETS_DIR] + ([TEST_RULESETS_DIR] if include_tests and TEST_RULESETS_DIR.is_dir() else [])
    out: dict[str, Path] = {}
    for d in dirs:
        for f in sorted(d.glob("*.yaml")):
            out[f.stem] = f
    return out


# Short names people use for the shipped rulesets (the issues and the GMs say "friday").
ALIASES = {"friday": "eternal_friday", "stats": "stats_mafia", "board": "council"}


def shipped_ids() -> set[str]:
    """Every name that finds a shipped ruleset: its id and its short names (:data:`ALIASES`)."""
    return set(available_rulesets()) | set(ALIASES)


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
    raise RulesetFileError("loader.no_ruleset", ref=repr(ref), hint=(ref, known))
