"""Rewrite a scenario's text expectations as typed facts: ``altmafia scenario --typify <paths>``.

Each file is played; for each substring expected in a reader's news (``public``, ``private``,
``gm``) the event of that news whose line holds it becomes a fact: its key and the arguments
the substring shows (a player, a stat, an amount), more of them where that is needed to pick
out only events whose line holds the substring. Events of one line merge into one fact. In the
``_absent`` lists a player's name becomes ``{about: name}``, and a word of a few catalog lines
becomes the keys of those lines, where such events reach that reader in the files played.
Whatever has no such fact (a number that must not be printed, a text across lines) stays a
substring. Only the scalars are replaced, so comments stay; a file that fails after the
rewrite, or failed before it, is left as it was.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from altmafia.text.i18n import PLAYER_ARGS, PLAYER_LIST_ARGS, Renderer, catalog
from config.loader import RulesetFileError
from engine.state import Event

from .scenario import POSTS, Runner, ScenarioError, run_file

TEXT_LISTS = ("public", "private", "gm", "public_absent", "private_absent")
#: an absent word is typed only when this few catalog lines hold it
MAX_KEYS = 3
#: a fact of one list: the fact (or facts), and the event it came from (None: an absent one)
Found = tuple[dict[str, Any] | list[dict[str, Any]], int | None]


@dataclass
class Outcome:
    path: Path
    typed: int = 0
    note: str = ""  # why the file was left as it was


def _plain(s: str) -> bool:
    return (bool(re.fullmatch(r"[A-Za-zА-Яа-яЁё_][A-Za-zА-Яа-яЁё0-9_.\- ]*", s)) and s == s.strip()
            and s.lower() not in ("yes", "no", "true", "false", "null", "on", "off", "y", "n"))


def emit(v: Any) -> str:
    """A value in YAML flow style."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if v is None:
        return "null"
    if isinstance(v, int | float):
        return str(v)
    if isinstance(v, str):
        return v if _plain(v) else json.dumps(v, ensure_ascii=False)
    if isinstance(v, list | tuple):
        return "[" + ", ".join(emit(x) for x in v) + "]"
    return "{" + ", ".join(f"{emit(str(k))}: {emit(x)}" for k, x in v.items()) + "}"


def template_keys(sub: str) -> list[str]:
    """The event keys whose Russian line holds ``sub`` outside its placeholders (a variant line,
    ``report.stat_correction``, counts for its event key too)."""
    lines = catalog("ru")["event"]
    out: set[str] = set()
    for key, line in lines.items():
        if isinstance(line, str) and sub in re.sub(r"\{[^}]*\}", "\0", line):
            out.add(key)
            parts = key.split("_")
            out |= {"_".join(parts[:i]) for i in range(1, len(parts)) if "_".join(parts[:i]) in lines}
    return sorted(out)


class _Finder(Runner):
    """Plays a file as the runner does and, at each check, finds the facts of its text lists."""

    def __init__(self, data: dict[str, Any], path: str, seen: dict[str, set[str]]) -> None:
        super().__init__(data, path)
        self.seen = seen  # event key -> the audiences it came with, over the files played
        self.found: dict[tuple[str, str, str | None, int], Found] = {}

    def written(self, key: str, v: Any) -> Any:
        """An event's argument as a scenario writes it: players by name, abilities by id."""
        g = self.game

        def name(x: Any) -> Any:
            return g.player(x).name if isinstance(x, int) and not isinstance(x, bool) else x

        if key in PLAYER_ARGS:
            return name(v)
        if key in PLAYER_LIST_ARGS and isinstance(v, list):
            return [name(x) for x in v]
        if key in ("tally", "ballots") and isinstance(v, list):
            return [[name(x[0]), *x[1:]] if isinstance(x, list | tuple) and x else x for x in v]
        if isinstance(v, str) and v.count(":") == 2:
            try:
                return g.ability_def(v).id
            except (KeyError, ValueError):
                return v
        return list(v) if isinstance(v, tuple) else v

    def partly_shown(self, key: str, v: Any, sub: str) -> bool:
        """A list of players (a tally's candidates) the substring shows a part of: the whole list
        is the fact (``Итоги голосования: Вера: 2`` of a tally of three)."""
        if key not in PLAYER_LIST_ARGS and key not in ("tally", "ballots") or not isinstance(v, list):
            return False
        named = self.written(key, v)
        return any(isinstance(x, str) and x in sub for x in (n[0] if isinstance(n, list) else n for n in named))

    def fact_for(self, sub: str, ev: Event, news: list[Event], ru: Renderer) -> dict[str, Any] | None:
        """The fact of ``ev`` for ``sub``: the arguments the substring shows, or all of them,
        whichever first picks out only events of that news whose line holds ``sub``."""
        shown: dict[str, Any] = {}
        for k, v in ev.args.items():
            try:
                text = ru.value(k, ev.args).strip() if v is not None else ""
            except (KeyError, IndexError, TypeError, ValueError, AttributeError):
                continue
            if (text and text in sub) or k == "correction" or self.partly_shown(k, v, sub):
                shown[k] = self.written(k, v)
        every = {k: self.written(k, v) for k, v in ev.args.items() if v is not None}
        for args in (shown, every):
            fact: dict[str, Any] = {"key": ev.key, **({"args": args} if args else {})}
            hits = [e for e in news if self.fact_matches(e, fact)]
            if hits and all(sub in ru.event(e) for e in hits):
                return fact
        return None

    def check(self, where: str, expect: dict[str, Any], events: list[Event]) -> None:
        for e in events:
            self.seen.setdefault(e.key, set()).add(e.audience)
        ru = Renderer(self.game, "ru")
        at = where.split(" (")[0]
        public = [e for e in events if e.audience == "public" and e.key not in POSTS]
        names = {p.name for p in self.game.state.players}
        for key in TEXT_LISTS:
            value = expect.get(key) or {}
            lists = value.items() if isinstance(value, dict) else [(None, value)]
            for who, subs in lists:
                news = (public if key.startswith("public") else [e for e in events if e.audience == "gm"] if key == "gm"
                        else self.private_news(events, self.pid(who)))
                for i, sub in enumerate(subs or []):
                    if isinstance(sub, str | int) and not isinstance(sub, bool):
                        found = self.absent_fact(str(sub), key, news, names) if key.endswith("_absent") else \
                            self.present_fact(str(sub), news, ru)
                        if found:
                            self.found[(at, key, None if who is None else str(who), i)] = found
        super().check(where, expect, events)

    def present_fact(self, sub: str, news: list[Event], ru: Renderer) -> Found | None:
        best: tuple[dict[str, Any], int, int] | None = None
        for ev in news:
            line = ru.event(ev)
            if sub in line and (fact := self.fact_for(sub, ev, news, ru)) and (best is None or len(line) < best[1]):
                best = (fact, len(line), id(ev))  # the shortest line: the one the substring is most of
        return (best[0], best[2]) if best else None

    def absent_fact(self, sub: str, key: str, news: list[Event], names: set[str]) -> Found | None:
        if sub in names:
            fact = {"about": sub}
            return None if any(self.fact_matches(e, fact) for e in news) else (fact, None)
        reach = {"public"} if key == "public_absent" else {"players", "faction"}
        facts = [{"key": k} for k in template_keys(sub) if self.seen.get(k, set()) & reach]
        if not 1 <= len(facts) <= MAX_KEYS or any(self.fact_matches(e, f) for e in news for f in facts):
            return None
        return (facts if len(facts) > 1 else facts[0], None)


def _get(node: yaml.Node, key: str) -> yaml.Node | None:
    if isinstance(node, yaml.MappingNode):
        for k, v in node.value:
            if str(k.value) == key:
                return v
    return None


def _edits(text: str, root: yaml.Node, found: dict[tuple[str, str, str | None, int], Found]) -> tuple[list[tuple[int, int, str]], int]:
    """The replacements of the text, and how many substrings they type."""
    expects = [("start", _get(root, "start"))]
    steps = _get(root, "steps")
    expects += [(f"step {n}", _get(st, "expect")) for n, st in enumerate(steps.value if isinstance(steps, yaml.SequenceNode) else [], 1)]
    edits: list[tuple[int, int, str]] = []
    typed = 0
    for at, ex in expects:
        for key in TEXT_LISTS:
            node = _get(ex, key) if ex is not None else None
            if node is None:
                continue
            seqs = [(str(k.value), v) for k, v in node.value] if isinstance(node, yaml.MappingNode) else [(None, node)]
            for who, seq in seqs:
                if not isinstance(seq, yaml.SequenceNode):
                    continue
                items: list[tuple[yaml.Node, Any]] = []  # an item and its fact, or "merged" into an earlier one
                origin: dict[int, dict[str, Any]] = {}
                for i, item in enumerate(seq.value):
                    fact, ev = found.get((at, key, who, i), (None, None)) if isinstance(item, yaml.ScalarNode) else (None, None)
                    if isinstance(fact, dict) and ev is not None and ev in origin:  # a line already typed: one fact
                        origin[ev].setdefault("args", {}).update(fact.get("args", {}))
                        fact = "merged"
                    elif isinstance(fact, dict) and ev is not None:
                        origin[ev] = fact
                    items.append((item, fact))
                if not any(f for _, f in items):
                    continue
                span = text[seq.start_mark.index:seq.end_mark.index]
                if seq.flow_style and "#" not in span:  # the whole list, written again
                    out: list[str] = []
                    for item, fact in items:
                        typed += bool(fact)
                        if fact == "merged":
                            continue
                        new = [emit(f) for f in (fact if isinstance(fact, list) else [fact])] if fact else \
                            [text[item.start_mark.index:item.end_mark.index]]
                        out += [x for x in new if x not in out or not fact]
                    edits.append((seq.start_mark.index, seq.end_mark.index, "[" + ", ".join(out) + "]"))
                else:  # a block list or one with comments inside: item by item, one fact each
                    for item, fact in items:
                        if isinstance(fact, dict):
                            typed += 1
                            edits.append((item.start_mark.index, item.end_mark.index, emit(fact)))
    return edits, typed


def typify(files: list[Path]) -> list[Outcome]:
    """Rewrite each file in place; the outcome says how many substrings became facts."""
    seen: dict[str, set[str]] = {}
    texts: dict[Path, str] = {}
    for f in files:  # first the audiences each event key comes with, over all the files
        try:
            texts[f] = f.read_text(encoding="utf-8")
            _Finder(yaml.safe_load(texts[f]), str(f), seen).run()
        except (OSError, UnicodeDecodeError, yaml.YAMLError, ScenarioError, RulesetFileError):
            continue  # a file that cannot be played is left as it is (below)
    out: list[Outcome] = []
    for f in files:
        res = Outcome(f)
        out.append(res)
        text = texts.get(f)
        if text is None or not run_file(f).ok:
            res.note = "it does not pass as it is"
            continue
        finder = _Finder(yaml.safe_load(text), str(f), seen)
        finder.run()
        edits, typed = _edits(text, yaml.compose(text), finder.found)
        if not edits:
            continue
        new = text
        for a, b, rep in sorted(edits, reverse=True):
            new = new[:a] + rep + new[b:]
        f.write_text(new, encoding="utf-8")
        if not run_file(f).ok:
            f.write_text(text, encoding="utf-8")
            res.note = "it would fail typed: left as it was"
            continue
        res.typed = typed
    return out


__all__ = ["Outcome", "emit", "template_keys", "typify"]
