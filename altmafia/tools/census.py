"""The census of scenario expectations: how many assert the rule (typed) and how many the wording.

``altmafia scenario --census <paths>`` reads the files (it plays nothing) and counts, per
ruleset and overall, every expectation of every ``start`` and step:

* **text**: a substring of the rendered news (a string in ``public``, ``public_absent``,
  ``private``, ``private_absent``, ``gm``): it breaks when a catalog line is reworded;
* **state**: what the game holds (``stats`` and ``true_stats`` per stat, ``status``, ``alive``,
  ``dead``, ``characters``, ``roles``, ``teams`` per player, ``faction`` per faction, ``legal`` and
  ``not_legal`` per ability, ``winner``, ``phase``, ``end_day``, ``gm_tasks``, ``waiting``,
  ``owed``, ``ends_early``);
* **events**: an entry of ``events`` / ``events_absent``, or a typed fact (a mapping) in one of the
  text lists: an event by key and arguments, read by whom it is for;
* **refusals**: an entry of ``rejected`` or ``refused_or_void``, and a table ``refused``.

The typed share is (state + events + refusals) / all. ``tests/tools/test_census.py`` keeps the
share of ``tests/scenarios`` at or above :data:`FLOOR`.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

#: the typed share of ``tests/scenarios`` must not fall below this (a floor, not a target)
FLOOR = 0.8

TEXT_KEYS = ("public", "public_absent", "private", "private_absent", "gm")
#: state read per entry of a mapping by name (stats: per stat of each player)
PER_NAME = ("status", "characters", "roles", "teams", "faction")
PER_ITEM = ("alive", "dead")
SINGLE = ("winner", "phase", "end_day", "gm_tasks", "waiting", "owed", "ends_early")
KINDS = ("text", "state", "events", "refusals")


@dataclass
class Tally:
    files: int = 0
    counts: Counter[str] = field(default_factory=Counter)

    @property
    def typed(self) -> int:
        return self.counts["state"] + self.counts["events"] + self.counts["refusals"]

    @property
    def total(self) -> int:
        return self.typed + self.counts["text"]

    @property
    def share(self) -> float:
        return self.typed / self.total if self.total else 1.0


def count_expect(expect: dict[str, Any], out: Counter[str]) -> None:
    """Add the expectations of one ``expect`` (or ``start``) mapping to ``out``."""
    for key in TEXT_KEYS:
        value = expect.get(key) or []
        lists = value.values() if isinstance(value, dict) else [value]
        for entries in lists:
            for e in entries or []:
                out["events" if isinstance(e, dict) else "text"] += 1
    out["events"] += len(expect.get("events") or []) + len(expect.get("events_absent") or [])
    for key in ("stats", "true_stats", "legal", "not_legal"):
        out["state"] += sum(len(v or []) for v in (expect.get(key) or {}).values())
    for key in PER_NAME:
        out["state"] += len(expect.get(key) or {})
    for key in PER_ITEM:
        out["state"] += len(expect.get(key) or [])
    out["state"] += sum(1 for key in SINGLE if key in expect)


def count_file(data: Any) -> Counter[str]:
    out: Counter[str] = Counter()
    if not isinstance(data, dict):
        return out
    if data.get("refused"):
        out["refusals"] += 1
    if isinstance(data.get("start"), dict):
        count_expect(data["start"], out)
    for step in data.get("steps") or []:
        if not isinstance(step, dict):
            continue
        out["refusals"] += len(step.get("rejected") or []) + len(step.get("refused_or_void") or [])
        if isinstance(step.get("expect"), dict):
            count_expect(step["expect"], out)
    return out


def census(files: list[Path]) -> dict[str, Tally]:
    """Per ruleset (the file's ``ruleset``, a path by its stem), then ``all``."""
    by: dict[str, Tally] = {}
    total = Tally()
    for f in files:
        try:
            data = yaml.safe_load(f.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, yaml.YAMLError):
            continue  # the runner reports an unreadable file; the census counts what it can read
        ref = str(data.get("ruleset", "?")) if isinstance(data, dict) else "?"
        rid = Path(ref).stem if ref.endswith((".yaml", ".yml")) else ref
        c = count_file(data)
        for t in (by.setdefault(rid, Tally()), total):
            t.files += 1
            t.counts.update(c)
    return {**dict(sorted(by.items())), "all": total}


def table(tallies: dict[str, Tally]) -> list[str]:
    head = f"{'ruleset':20} {'files':>5} {'text':>5} {'state':>5} {'events':>6} {'refusals':>8} {'typed':>6}"
    rows = [head]
    for rid, t in tallies.items():
        c = t.counts
        rows.append(f"{rid:20} {t.files:5} {c['text']:5} {c['state']:5} {c['events']:6} {c['refusals']:8} {t.share:6.1%}")
    return rows


__all__ = ["FLOOR", "KINDS", "Tally", "census", "count_expect", "count_file", "table"]
