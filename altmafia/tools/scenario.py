"""Scenario files: a game written down step by step, with what everyone must see.

The format is documented in ``docs/scenarios.md``. ``run_file`` plays one file through the
engine and returns the differences between what was expected and what happened.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from altmafia.text.i18n import PLAYER_ARGS, PLAYER_LIST_ARGS, Renderer, audience_of, catalog
from config.loader import (
    RulesetFileError,
    available_rulesets,
    decode_utf8,
    load_ruleset,
    parse_ruleset,
)
from engine import ActionError, Game, GameError, PlayerSpec, Ruleset
from engine.state import AUDIENCES, Event
from engine.votes import BALLOT_EVENTS, OPEN_EVENTS

STEP_KEYS = {"phase", "actions", "rejected", "votes", "pms", "anon", "refuse_anon", "faction", "gm", "bonus", "cancel", "expect", "note",
             "resolve", "idle", "withdraw", "refused_or_void"}
EXPECT_KEYS = {
    "stats", "true_stats", "status", "faction", "public", "public_absent", "private", "private_absent",
    "gm", "winner", "phase", "end_day", "legal", "not_legal", "gm_tasks", "alive", "dead",
    "waiting", "owed", "ends_early", "events", "events_absent", "characters", "roles", "teams",
}
#: what ``start`` (the messages and the deal of the start, before any step) may check: what
#: ``expect`` checks after a resolve, less what is read before a resolve
START_KEYS = EXPECT_KEYS - {"legal", "not_legal", "waiting", "owed", "ends_early"}
#: an entry of ``expect.events`` / ``events_absent``: the event key, a subset of its arguments,
#: its audience, (``players`` / ``faction``) whom it names, and how many such events (``count``)
EVENT_KEYS = {"key", "args", "audience", "to", "count"}
#: a typed entry of ``public``, ``private``, ``gm`` and their ``_absent`` lists: an event of that
#: reader's news by its key and a subset of its arguments, or (``about``) one that names a player
FACT_KEYS = {"key", "args", "count", "about"}
#: the lists of rendered text, whose entries may be typed facts instead of substrings
TEXT_KEYS = ("public", "public_absent", "private", "private_absent", "gm")

#: the posts made at the moment of a command, outside the resolve's report
POSTS = frozenset(BALLOT_EVENTS + OPEN_EVENTS)

TOP_KEYS = {"ruleset", "seed", "settings", "players", "steps", "start", "refused"}
#: a starting status written with its time left: ``{id: hospital, cycles: 3}``
STATUS_KEYS = {"id", "cycles"}
PLAYER_KEYS = {"name", "role", "character", "stats", "status", "statuses", "faction", "leader"}
# what each list of a step holds: its entries' required keys, then every key they may have
ACTION_KEYS = {"by", "ability", "target", "targets", "option", "lane", "via", "for", "at"}
ENTRY_KEYS: dict[str, tuple[set[str], set[str]]] = {
    "actions": ({"by", "ability"}, ACTION_KEYS),
    "rejected": (set(), ACTION_KEYS | {"reason", "vote", "op", "to", "from", "text", "fid", "bonus", "refuse_anon", "idle",
                                      "withdraw", "gm"}),
    "refused_or_void": ({"by", "ability"}, ACTION_KEYS | {"reason"}),
    "votes": ({"by"}, {"by", "for", "vote"}),
    "withdraw": ({"by"}, {"by", "vote"}),
    "pms": ({"from", "to", "text"}, {"from", "to", "text"}),
    "anon": ({"by", "text"}, {"by", "text"}),
    "faction": ({"by", "op"}, {"by", "op", "target", "fid"}),
    "cancel": ({"by"}, {"by", "lane"}),
    "bonus": ({"by", "stat"}, {"by", "stat"}),
    "refuse_anon": (set(), {"by", "text", "seq"}),
}
GM_OPS = {
    "set_stat": {"player", "stat", "value"},
    "set_status": {"player", "status"},
    "clear_status": {"player", "status"},
    "message": {"player", "text"},
    "set_end_day": set(),
    "substitute": {"player", "user"},
    "remove": {"player"},
    "settle_task": {"task"},
}


class ScenarioError(Exception):
    """The scenario file itself is wrong (not the rules)."""


class _Loader(yaml.SafeLoader):
    """YAML as ``safe_load`` reads it, but a key written twice in one mapping is an error: the
    later would silently replace the earlier (a second ``expect`` of a step, its checks lost)."""

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
        seen: set[Any] = set()
        for key_node, _ in node.value:
            key = self.construct_object(key_node, deep=True)
            if isinstance(key, str | int) and key in seen:
                raise ScenarioError(f"line {key_node.start_mark.line + 1}: the key {key!r} is written twice in one mapping")
            seen.add(key)
        return super().construct_mapping(node, deep)


def _kind(v: Any) -> str:
    return {dict: "a mapping", list: "a list", str: "a string", int: "a number", float: "a number",
            bool: "true/false", type(None): "empty"}.get(type(v), type(v).__name__)


def _integer(v: Any, where: str) -> int:
    if isinstance(v, bool) or not isinstance(v, int | str):
        raise ScenarioError(f"{where}: {v!r} is not a whole number")
    try:
        return int(v)
    except ValueError:
        raise ScenarioError(f"{where}: {v!r} is not a whole number") from None


def check_shape(data: Any) -> None:
    """The file's structure (mappings, lists and keys where the format has them), before any
    of it is played: a mistake is named by its place, ``players[2]``, ``step 3: actions[1]``."""
    if not isinstance(data, dict):
        raise ScenarioError(f"a scenario must be a mapping with keys {', '.join(sorted(TOP_KEYS))}, not {_kind(data)}")
    missing = [k for k in ("ruleset", "players", "steps") if k not in data and not (k == "steps" and data.get("refused"))]
    if missing:
        raise ScenarioError(f"missing keys: {', '.join(missing)}")
    unknown = sorted(map(str, set(data) - TOP_KEYS))
    if unknown:
        raise ScenarioError(f"unknown top-level keys {unknown}; known: {', '.join(sorted(TOP_KEYS))}")
    if "seed" in data:
        _integer(data["seed"], "seed")
    if not isinstance(data.get("settings") or {}, dict):
        raise ScenarioError(f"settings: must be a mapping, not {_kind(data['settings'])}")
    players, steps = data["players"], data.get("steps") or []
    _check_players(players)
    if "start" in data:
        _check_expect(data["start"] or {}, "start", "start", START_KEYS)
    if "refused" in data and not isinstance(data["refused"], str | bool):
        raise ScenarioError(f"refused: a part of the refusal's text or true, not {_kind(data['refused'])}")
    if data.get("refused") not in (None, False) and steps:
        raise ScenarioError("refused: a refused table plays no steps (steps: [])")
    if not isinstance(steps, list):
        raise ScenarioError(f"steps: must be a list of steps, not {_kind(steps)}")
    for n, step in enumerate(steps, 1):
        at = f"step {n}"
        if not isinstance(step, dict):
            raise ScenarioError(f"{at}: a step is a mapping such as {{phase: day 1.1, actions: [...]}}, not {_kind(step)} {step!r}")
        unknown = sorted(map(str, set(step) - STEP_KEYS))
        if unknown:
            raise ScenarioError(f"{at}: unknown keys {unknown}")
        for key, (required, allowed) in ENTRY_KEYS.items():
            _entries(step.get(key) or [], f"{at}: {key}", "a list of entries", "an entry is a mapping such as {by: Аня, ...}",
                     required, allowed)
        gm = step.get("gm") or []
        if not isinstance(gm, list):
            raise ScenarioError(f"{at}: gm: must be a list of operations, not {_kind(gm)}")
        for i, e in enumerate(gm):
            _check_gm_op(e, f"{at}: gm[{i}]")
        for i, e in enumerate(step.get("rejected") or []):
            if "gm" in e:
                _check_gm_op(e["gm"], f"{at}: rejected[{i}].gm")
        _check_expect(step.get("expect") or {}, at, "expect", EXPECT_KEYS)
        idle = step.get("idle") or []
        if not isinstance(idle, list):
            raise ScenarioError(f"{at}: idle: must be a list of names, not {_kind(idle)}")


def _check_players(players: Any) -> None:
    if not isinstance(players, list) or not players:
        raise ScenarioError(f"players: must be a list of players, not {_kind(players)}")
    for i, p in enumerate(players):
        at = f"players[{i}]"
        if not isinstance(p, dict):
            raise ScenarioError(f"{at}: a player is a mapping such as {{name: Аня, role: ...}}, not {_kind(p)} {p!r}")
        for k in ("name", "role"):
            if p.get(k) is None:
                raise ScenarioError(f"{at}: missing key {k!r}")
        bad = sorted(map(str, set(p) - PLAYER_KEYS))
        if bad:
            raise ScenarioError(f"{at} ({p['name']}): unknown keys {bad}; known: {', '.join(sorted(PLAYER_KEYS))}")
        if not isinstance(p.get("stats") or {}, dict):
            raise ScenarioError(f"{at} ({p['name']}).stats: must be a mapping such as {{ВО: 3}}, not {_kind(p['stats'])}")
        for st, v in (p.get("stats") or {}).items():
            _integer(v, f"{at} ({p['name']}).stats.{st}")
        for k in ("status", "statuses"):
            if not isinstance(p.get(k) or [], list):
                raise ScenarioError(f"{at} ({p['name']}).{k}: must be a list, not {_kind(p[k])}")
            for j, st in enumerate(p.get(k) or []):
                here = f"{at} ({p['name']}).{k}[{j}]"
                if isinstance(st, dict):
                    if "id" not in st:
                        raise ScenarioError(f"{here}: missing key 'id'")
                    extra = sorted(map(str, set(st) - STATUS_KEYS))
                    if extra:
                        raise ScenarioError(f"{here}: unknown keys {extra}; known: {', '.join(sorted(STATUS_KEYS))}")
                    if "cycles" in st and _integer(st["cycles"], f"{here}.cycles") < 1:
                        raise ScenarioError(f"{here}.cycles: at least 1")


def _entries(entries: Any, where: str, listed: str, shape: str, required: set[str], allowed: set[str]) -> None:
    """A list of mappings (a step's entries, expected events): each with its ``required`` keys
    and no key outside ``allowed``."""
    if not isinstance(entries, list):
        raise ScenarioError(f"{where}: must be {listed}, not {_kind(entries)}")
    for i, e in enumerate(entries):
        here = f"{where}[{i}]"
        if not isinstance(e, dict):
            raise ScenarioError(f"{here}: {shape}, not {_kind(e)} {e!r}")
        lacking = sorted(required - set(e))
        if lacking:
            raise ScenarioError(f"{here}: missing key {', '.join(map(repr, lacking))}")
        extra = sorted(map(str, set(e) - allowed))
        if extra:
            raise ScenarioError(f"{here}: unknown keys {extra}; known: {', '.join(sorted(allowed))}")


def _check_gm_op(e: Any, where: str) -> None:
    if not isinstance(e, dict) or len(e) != 1:
        raise ScenarioError(f"{where}: a GM operation is a mapping with one key ({', '.join(GM_OPS)}), not {e!r}")
    ((op, arg),) = e.items()
    if op not in GM_OPS:
        raise ScenarioError(f"{where}: unknown GM operation {op!r}; known: {', '.join(GM_OPS)}")
    if op == "set_end_day":
        _integer(arg, f"{where}.set_end_day")
        return
    if not isinstance(arg, dict):
        raise ScenarioError(f"{where}.{op}: must be a mapping with {', '.join(sorted(GM_OPS[op]))}, not {_kind(arg)}")
    lacking = sorted(GM_OPS[op] - set(arg))
    if lacking:
        raise ScenarioError(f"{where}.{op}: missing key {', '.join(map(repr, lacking))}")
    if op == "set_stat":
        _integer(arg["value"], f"{where}.set_stat.value")
    if op == "settle_task":
        _integer(arg["task"], f"{where}.settle_task.task")


def _check_expect(expect: Any, at: str, name: str, known: set[str]) -> None:
    """An ``expect`` mapping (or the file's ``start``): its keys and the kinds of their values."""
    if not isinstance(expect, dict):
        raise ScenarioError(f"{at}: {name}: must be a mapping, not {_kind(expect)}")
    unknown = sorted(map(str, set(expect) - known))
    if unknown:
        raise ScenarioError(f"{at}: unknown {name} keys {unknown}")
    for key in ("stats", "true_stats", "status", "faction", "private", "private_absent", "legal", "not_legal",
                "characters", "roles", "teams"):
        if not isinstance(expect.get(key) or {}, dict):
            raise ScenarioError(f"{at}: {name}.{key}: must be a mapping by name, not {_kind(expect[key])}")
    for key in ("public", "public_absent", "gm", "alive", "dead", "waiting", "owed"):
        if not isinstance(expect.get(key) or [], list):
            raise ScenarioError(f"{at}: {name}.{key}: must be a list, not {_kind(expect[key])}")
    for key in TEXT_KEYS:
        lists = (expect.get(key) or {}).items() if key.startswith("private") else [(None, expect.get(key) or [])]
        for who, entries in lists:
            for i, fact in enumerate(entries or []):
                if isinstance(fact, dict):
                    _check_fact(fact, f"{at}: {name}.{key}{'' if who is None else f'.{who}'}[{i}]")
    for key in ("events", "events_absent"):
        entries = expect.get(key) or []
        _entries(entries, f"{at}: {name}.{key}", "a list", "must be a mapping such as {key: vote.cast}", {"key"}, EVENT_KEYS)
        for i, ev in enumerate(entries):
            here = f"{at}: {name}.{key}[{i}]"
            if not isinstance(ev.get("args") or {}, dict):
                raise ScenarioError(f"{here}.args: must be a mapping, not {_kind(ev['args'])}")
            if "audience" in ev and ev["audience"] not in AUDIENCES:
                raise ScenarioError(f"{here}.audience: {ev['audience']!r} is not one of {', '.join(AUDIENCES)}")
            if "count" in ev:
                _integer(ev["count"], f"{here}.count")
            if not isinstance(ev.get("to", []), list):
                raise ScenarioError(f"{here}.to: must be a list of names, not {_kind(ev['to'])}")
    for key in ("stats", "true_stats"):
        for who, stats in (expect.get(key) or {}).items():
            if not isinstance(stats, dict):
                raise ScenarioError(f"{at}: {name}.{key}.{who}: must be a mapping such as {{ВО: 3}}, not {_kind(stats)}")
            for st, v in stats.items():
                _integer(v, f"{at}: {name}.{key}.{who}.{st}")


def _check_fact(fact: dict[str, Any], here: str) -> None:
    """A typed entry of a text list: ``{key, args, count}`` or ``{about: name}`` (or both)."""
    extra = sorted(map(str, set(fact) - FACT_KEYS))
    if extra:
        raise ScenarioError(f"{here}: unknown keys {extra}; known: {', '.join(sorted(FACT_KEYS))}")
    if "key" not in fact and "about" not in fact:
        raise ScenarioError(f"{here}: a typed entry needs 'key' (an event key) or 'about' (a player)")
    if not isinstance(fact.get("args") or {}, dict):
        raise ScenarioError(f"{here}.args: must be a mapping, not {_kind(fact['args'])}")
    if "count" in fact:
        _integer(fact["count"], f"{here}.count")


@dataclass
class Result:
    path: str
    failures: list[str] = field(default_factory=list)
    steps: int = 0
    ruleset: str | None = None
    used: set[str] = field(default_factory=set)  # ability keys submitted and accepted
    characters: set[str] = field(default_factory=set)  # characters in play (their features)
    refused: bool = False  # the table was refused, as the file says (``refused``): nothing to play

    @property
    def ok(self) -> bool:
        return not self.failures


def _merge(base: dict[str, Any], over: dict[str, Any]) -> dict[str, Any]:
    out = copy.deepcopy(base)
    for k, v in over.items():
        if isinstance(v, dict) and isinstance(out.get(k), dict):
            out[k] = _merge(out[k], v)
        else:
            out[k] = v
    return out


def ruleset_for(ref: str, settings: dict[str, Any]) -> tuple[Ruleset, dict[str, Any]]:
    """The ruleset with the scenario's overrides: ruleset fields merge in, the rest are settings."""
    base = load_ruleset(ref, include_tests=True, files=True)
    fields = {k: v for k, v in settings.items() if k in Ruleset.model_fields and k != "settings"}
    game_settings = {k: v for k, v in settings.items() if k not in fields}
    if not fields:
        return base, game_settings
    data = _merge(base.model_dump(), fields)
    return parse_ruleset(data, f"{ref} (with scenario overrides)"), game_settings


class Runner:
    def __init__(self, data: dict[str, Any], path: str) -> None:
        self.data = data
        self.path = path
        self.result = Result(path=path)
        self.at = ""  # the key of the step being played, for errors: ``actions[1]``

    # helpers -------------------------------------------------------------------------
    def fail(self, where: str, msg: str) -> None:
        self.result.failures.append(f"{where}: {msg}")

    def pid(self, name: Any) -> int:
        try:
            return self.game.player(str(name)).pid
        except Exception:
            raise ScenarioError(f"no player named {name!r}") from None

    def targets(self, entry: dict[str, Any]) -> list[int]:
        t = entry.get("targets", entry.get("target"))
        if t is None:
            return []
        if isinstance(t, list):
            return [self.pid(x) for x in t]
        return [self.pid(t)]

    def tick_of(self, label: Any) -> int:
        """The tick of a phase label, or a ScenarioError that shows how labels are written."""
        try:
            tick = self.game.clock.parse(str(label))
        except ValueError:
            kinds = sorted({p.kind for p in self.rules.calendar.periods})
            raise ScenarioError(f"{label!r} is not a phase of this ruleset (write {' or '.join(k + ' 1' for k in kinds)}, "
                                "with .2 for the second period of a day: day 1.2)") from None
        if tick < 0:
            raise ScenarioError(f"{label!r}: days are counted from 1")
        return tick

    def stat_id(self, key: str) -> str:
        try:
            return self.rules.stat(str(key)).id
        except KeyError:
            raise ScenarioError(f"unknown stat {key!r}") from None

    def status_id(self, key: str) -> str:
        try:
            return self.rules.status(str(key)).id
        except KeyError:
            raise ScenarioError(f"unknown status {key!r}") from None

    @staticmethod
    def statuses_of(entry: dict[str, Any]) -> list[Any]:
        return list(entry.get("status", entry.get("statuses", [])) or [])

    # setup ---------------------------------------------------------------------------
    def setup(self) -> bool:
        """Deal the table; False when it was (rightly or wrongly) refused: nothing to play."""
        d = self.data
        self.rules, settings = ruleset_for(str(d["ruleset"]), d.get("settings") or {})
        self.result.ruleset = self.rules.id
        specs = []
        for i, p in enumerate(d["players"]):
            self.at = f"players[{i}] ({p['name']})"
            specs.append(
                PlayerSpec(
                    name=str(p["name"]), role=str(p["role"]), character=p.get("character"),
                    stats={self.stat_id(k): v for k, v in (p.get("stats") or {}).items()},
                    statuses=[self.status_id(s["id"] if isinstance(s, dict) else s) for s in self.statuses_of(p)],
                    faction=p.get("faction"), leader=bool(p.get("leader", False)),
                )
            )
        self.at = "players"
        refused = d.get("refused")
        try:
            self.game = Game.new(self.rules, _integer(d.get("seed", 0), "seed"), specs, settings)
        except KeyError as exc:
            raise ScenarioError(f"unknown role or character {exc}") from None
        except (GameError, ActionError) as exc:
            if not refused:
                raise
            if refused is not True and str(refused) not in str(exc):
                self.fail("players", f"the table was refused with «{exc}», expected «{refused}»")
            self.result.refused = True
            return False
        if refused:
            self.fail("players", "the table was accepted, expected a refusal")
            return False
        # a starting status with its time left: in force for ``cycles`` cycles from the start,
        # as if the GM had set it for that long just before the first phase
        for p, entry in zip(self.game.state.players, d["players"], strict=True):
            for st in self.statuses_of(entry):
                if isinstance(st, dict) and "cycles" in st:
                    sid = self.status_id(st["id"])
                    p.statuses[sid].until = self.game.clock.lasts_until(-1, _integer(st["cycles"], "cycles"))
        self.result.characters = {p.character for p in self.game.state.players if p.character}
        return True

    # one step ------------------------------------------------------------------------
    def submit_action(self, e: dict[str, Any]) -> None:
        g = self.game
        # ``for``: a teammate (``by``) gives this player's action; ``at``: for a later phase
        p = g.player(self.pid(e.get("for", e["by"])))
        by = self.pid(e["by"]) if "for" in e else None
        tick = self.tick_of(e["at"]) if "at" in e else None
        option = _opt(e.get("option"))
        if option is not None and option.isdigit():
            # ``option: 1`` means "+1" for an ability whose choices are signed
            try:
                ab = g.ability_def(g.find_ability(p, str(e["ability"]), e.get("via")))
                if ab.options and option not in ab.options and f"+{option}" in ab.options:
                    option = f"+{option}"
            except (ActionError, KeyError):
                pass
        intent = g.submit(p.pid, str(e["ability"]), self.targets(e), option, e.get("via"), by=by, tick=tick)
        self.result.used.add(intent.ability)
        if intent.via and intent.via.count(":") == 2:  # performed through a borrowing ability
            self.result.used.add(intent.via)

    def run_step(self, n: int, step: dict[str, Any]) -> None:
        g = self.game
        unknown = set(step) - STEP_KEYS
        if unknown:
            raise ScenarioError(f"step {n}: unknown keys {sorted(unknown)}")
        label = "over" if g.state.over else g.info.label  # a step after the end: ``phase: over``
        where = f"step {n} ({step.get('phase', label)})"
        if "phase" in step and str(step["phase"]) != label:
            want = self.tick_of(step["phase"])
            if want < g.state.tick:
                self.fail(where, f"expected phase {step['phase']}, the game is at {label}")
                return
            while g.state.tick < want and not g.state.over:
                g.resolve()  # phases in between pass with nobody acting
        start = len(g.state.events)
        self.at = "phase"
        for i, e in enumerate(step.get("gm") or []):
            self.at = f"gm[{i}]"
            try:
                self.gm_op(where, e)
            except ActionError as err:
                self.fail(where, f"gm[{i}]: {next(iter(e))} was refused: {err}")
        for e in step.get("bonus") or []:
            try:
                g.choose_bonus(self.pid(e["by"]), str(e["stat"]))
            except ActionError as err:
                self.fail(where, f"{e['by']}: bonus choice was refused: {err}")
        for i, e in enumerate(step.get("actions") or []):
            self.at = f"actions[{i}]"
            try:
                self.submit_action(e)
            except ActionError as err:
                self.fail(where, f"{e['by']}: «{e['ability']}» was refused: {err}")
        for i, e in enumerate(step.get("cancel") or []):
            self.at = f"cancel[{i}]"
            g.cancel(self.pid(e["by"]), e.get("lane", "action"))
        for i, e in enumerate(step.get("votes") or []):
            self.at = f"votes[{i}]"
            try:
                g.vote(self.pid(e["by"]), e.get("vote") or self.default_vote(), self.choice(e.get("for")))
            except ActionError as err:
                self.fail(where, f"{e['by']}: vote was refused: {err}")
        for i, e in enumerate(step.get("withdraw") or []):
            self.at = f"withdraw[{i}]"
            try:
                g.unvote(self.pid(e["by"]), e.get("vote") or self.default_vote())
            except ActionError as err:
                self.fail(where, f"{e['by']}: taking the vote back was refused: {err}")
        for i, e in enumerate(step.get("pms") or []):
            self.at = f"pms[{i}]"
            try:
                g.send_pm(self.pid(e["from"]), self.pid(e["to"]), str(e["text"]))
            except ActionError as err:
                self.fail(where, f"{e['from']}: PM was refused: {err}")
        for i, e in enumerate(step.get("anon") or []):
            self.at = f"anon[{i}]"
            try:
                g.post_anon(self.pid(e["by"]), str(e["text"]))
            except ActionError as err:
                self.fail(where, f"{e['by']}: anonymous post was refused: {err}")
        for e in step.get("refuse_anon") or []:
            try:
                g.gm_refuse_anon(self.anon_seq(e))
            except ActionError as err:
                self.fail(where, f"refusing {e}: refused: {err}")
        for i, e in enumerate(step.get("faction") or []):
            self.at = f"faction[{i}]"
            try:
                g.faction_op(self.pid(e["by"]), str(e["op"]), self.pid(e["target"]) if e.get("target") is not None else None, e.get("fid"))
            except ActionError as err:
                self.fail(where, f"{e['by']}: faction {e['op']} was refused: {err}")
        for i, name in enumerate(step.get("idle") or []):
            self.at = f"idle[{i}]"
            try:
                g.declare_idle(self.pid(name))
            except ActionError as err:
                self.fail(where, f"{name}: declaring idle was refused: {err}")
        for i, e in enumerate(step.get("rejected") or []):
            self.at = f"rejected[{i}]"
            self.expect_rejected(where, e)
        void = []  # ``refused_or_void``: the ones accepted, whose result must be void
        for i, e in enumerate(step.get("refused_or_void") or []):
            self.at = f"refused_or_void[{i}]"
            try:
                self.submit_action(e)
            except ActionError as err:
                if e.get("reason") and err.key != e["reason"]:
                    self.fail(where, f"{e['by']}: «{e['ability']}» refused with {err.key}, expected {e['reason']}")
                continue
            void.append(e)
        expect = step.get("expect") or {}
        self.at = "expect"
        self.check_legal(where, expect)
        self.check_phase_end(where, expect)
        if step.get("resolve", True) and not g.state.over:
            g.resolve()
        events = g.state.events[start:]
        for e in void:
            self.check_void(where, e, events)
        self.check(where, expect, events)

    def check_void(self, where: str, e: dict[str, Any], events: list[Event]) -> None:
        """An action accepted where ``refused_or_void`` allowed it: its result must be void
        (blocked, protected against, no effect: anything but applied), or it lapsed unplayed."""
        pid = self.pid(e.get("for", e["by"]))
        ability = self.game.find_ability(self.game.player(pid), str(e["ability"]), e.get("via"))
        played = [ev for ev in events if ev.key == "trace.action" and ev.args.get("actor") == pid and ev.args.get("ability") == ability]
        applied = [ev for ev in played if ev.args.get("result") == "applied"]
        if applied:
            self.fail(where, f"{e['by']}: «{e['ability']}» was accepted and applied, expected a refusal or no effect")

    def default_vote(self) -> str:
        votes = self.game.open_votes() or self.rules.votes
        if not votes:
            raise ScenarioError("this ruleset has no votes")
        return votes[0].id

    def choice(self, v: Any) -> int | str | None:
        if v is None:
            return None
        if str(v) in ("peace", "за мир"):
            return "peace"
        if str(v) in ("against all", "против всех"):
            return "against_all"
        if any(p.name == str(v) for p in self.game.state.players):
            return self.pid(v)
        # a named choice of a vote: its id («amnesty») or its word in a catalog («амнистия»)
        for lang in ("ru", "en"):
            for k, w in catalog(lang).get("words", {}).items():
                if k.startswith("choice.") and w == str(v):
                    return k.removeprefix("choice.")
        return str(v)

    def expect_rejected(self, where: str, e: dict[str, Any]) -> None:
        g = self.game
        try:
            if "ability" in e:
                self.submit_action(e)
            elif e.get("withdraw"):
                g.unvote(self.pid(e["by"]), e.get("vote") or self.default_vote())
            elif "for" in e:
                g.vote(self.pid(e["by"]), e.get("vote") or self.default_vote(), self.choice(e["for"]))
            elif "op" in e:
                g.faction_op(self.pid(e["by"]), str(e["op"]), self.pid(e["target"]) if e.get("target") is not None else None)
            elif "to" in e:
                g.send_pm(self.pid(e["from"] if "from" in e else e["by"]), self.pid(e["to"]), str(e.get("text", "…")))
            elif "bonus" in e:
                g.choose_bonus(self.pid(e["by"]), str(e["bonus"]))
            elif "refuse_anon" in e:
                g.gm_refuse_anon(self.anon_seq(e["refuse_anon"]))
            elif "idle" in e:
                g.declare_idle(self.pid(e["idle"]))
            elif "gm" in e:
                self.gm_op(where, e["gm"])
            elif "text" in e:
                g.post_anon(self.pid(e["by"]), str(e["text"]))
            else:
                raise ScenarioError(f"{where}: a rejected entry needs ability, for, op, to, text, bonus, refuse_anon, idle or gm")
        except ActionError as err:
            if e.get("reason") and err.key != e["reason"]:
                self.fail(where, f"{e.get('by', e.get('from', e.get('idle', 'GM')))}: refused with {err.key}, expected {e['reason']}")
            return
        self.fail(where, f"{e.get('by', e.get('from', e.get('idle', 'GM')))}: {e} was accepted, expected a refusal")

    def anon_seq(self, e: dict[str, Any]) -> int:
        """The anonymous post an entry names: ``seq``, or the last one queued by ``by`` (with
        ``text``, the one with that text); failing that, the last one ``by`` had published."""
        if "seq" in e:
            return int(e["seq"])
        pid = self.pid(e["by"])
        queued = [a.seq for a in self.game.state.anons if a.pid == pid and ("text" not in e or a.text == str(e["text"]))]
        published = [x.seq for x in self.game.state.core.anons if x.pid == pid]
        found = queued or published
        if not found:
            raise ScenarioError(f"{e['by']} has no anonymous post to refuse")
        return found[-1]

    def gm_op(self, where: str, e: dict[str, Any]) -> None:
        g = self.game
        ((op, arg),) = e.items()
        if op == "set_stat":
            g.gm_set_stat(self.pid(arg["player"]), self.stat_id(arg["stat"]), _integer(arg["value"], f"{where}: set_stat.value"))
        elif op == "set_status":
            g.gm_set_status(self.pid(arg["player"]), self.status_id(arg["status"]), arg.get("cycles"))
        elif op == "clear_status":
            g.gm_clear_status(self.pid(arg["player"]), self.status_id(arg["status"]))
        elif op == "message":
            g.gm_message(self.pid(arg["player"]), str(arg["text"]))
        elif op == "set_end_day":
            g.gm_set_end_day(_integer(arg, f"{where}: set_end_day"))
        elif op == "substitute":
            g.gm_substitute(self.pid(arg["player"]), _integer(arg["user"], f"{where}: substitute.user"), arg.get("name"))
        elif op == "remove":
            g.gm_remove(self.pid(arg["player"]), str(arg.get("mode", "modkill")))
        elif op == "settle_task":
            # tasks are numbered from 1, as the GM reads them (the engine counts from 0)
            g.gm_settle_task(_integer(arg["task"], f"{where}: settle_task.task") - 1, str(arg.get("note") or ""))
        else:
            raise ScenarioError(f"{where}: unknown GM operation {op!r}")

    # checks --------------------------------------------------------------------------
    def check_phase_end(self, where: str, expect: dict[str, Any]) -> None:
        """``waiting``, ``owed``, ``ends_early``: read before the resolve (engine.phase_end)."""
        g = self.game
        names = lambda pids: sorted(g.player(p).name for p in pids)  # noqa: E731
        if "waiting" in expect:
            got = g.waiting_for()
            want = sorted(str(x) for x in expect["waiting"] or [])
            if got is None:
                self.fail(where, "waiting: this ruleset never ends a phase early")
            elif names(got) != want:
                self.fail(where, f"waiting: the phase waits for {names(got)}, expected {want}")
        if "owed" in expect:
            got_owed = names(o.pid for o in g.owed())
            want = sorted(str(x) for x in expect["owed"] or [])
            if got_owed != want:
                self.fail(where, f"owed: {got_owed} owe an action or a vote, expected {want}")
        if "ends_early" in expect and g.may_end_early() != bool(expect["ends_early"]):
            self.fail(where, f"ends_early: the phase {'may' if g.may_end_early() else 'may not'} end early, expected the opposite")

    def check_legal(self, where: str, expect: dict[str, Any]) -> None:
        for key, want_in in (("legal", True), ("not_legal", False)):
            for name, abilities in (expect.get(key) or {}).items():
                p = self.game.player(str(name))
                have = {a.key for a in self.game.legal_actions(p.pid)}
                for ref in abilities:
                    try:
                        k = self.game.find_ability(p, str(ref))
                    except ActionError:
                        k = None
                    if (k in have) != want_in:
                        self.fail(where, f"{name}: «{ref}» should {'' if want_in else 'not '}be available now")

    def check(self, where: str, expect: dict[str, Any], events: list[Event]) -> None:
        g = self.game
        unknown = set(expect) - EXPECT_KEYS
        if unknown:
            raise ScenarioError(f"{where}: unknown expect keys {sorted(unknown)}")
        for key, reader in (("stats", lambda p, s: p.stats[s]), ("true_stats", lambda p, s: g.true_stat(p, s))):
            for name, stats in (expect.get(key) or {}).items():
                p = g.player(str(name))
                for st, want in stats.items():
                    got = reader(p, self.stat_id(st))
                    if got != want:
                        self.fail(where, f"{name} {st}: expected {want}, got {got}")
        for name, want in (expect.get("status") or {}).items():
            p = g.player(str(name))
            got = sorted(s.id for s in g.status_flags(p))
            want_ids = sorted(self.status_id(s) for s in want or [])
            if got != want_ids:
                self.fail(where, f"{name} statuses: expected {want_ids}, got {got}")
        for key, read in (("characters", lambda p: (p.character, self.rules.character)),
                          ("roles", lambda p: (p.role, self.rules.role))):
            for name, want in (expect.get(key) or {}).items():
                got, lookup = read(g.player(str(name)))
                try:
                    want_id = lookup(str(want)).id if want is not None else None
                except KeyError:
                    raise ScenarioError(f"expect.{key}.{name}: unknown {key[:-1]} {want!r}") from None
                if got != want_id:
                    self.fail(where, f"{name}'s {key[:-1]}: expected {want_id}, got {got}")
        for name, want in (expect.get("teams") or {}).items():
            got = g.team(g.player(str(name)))
            if got != (str(want) if want is not None else None):
                self.fail(where, f"{name}'s team: expected {want}, got {got}")
        for fid, want in (expect.get("faction") or {}).items():
            f = g.state.factions.get(str(fid))
            if want is None:
                if f is not None:
                    self.fail(where, f"faction {fid} should not exist")
                continue
            if f is None:
                self.fail(where, f"faction {fid} does not exist")
                continue
            if "leader" in want and g.player(f.leader).name != str(want["leader"]):
                self.fail(where, f"faction {fid} leader: expected {want['leader']}, got {g.player(f.leader).name}")
            if "members" in want:
                got = sorted(g.player(m).name for m in f.members)
                if got != sorted(map(str, want["members"])):
                    self.fail(where, f"faction {fid} members: expected {sorted(want['members'])}, got {got}")
        # the report: a ballot's or an open ability's post at the moment it is made is not part
        # of it (assert those with ``events``)
        public = [e for e in events if e.audience == "public" and e.key not in POSTS]
        gm = [e for e in events if e.audience == "gm"]
        self.news(where, "public report", public, expect.get("public") or [], True)
        self.news(where, "public report", public, expect.get("public_absent") or [], False)
        self.news(where, "GM trace", gm, expect.get("gm") or [], True)
        for key, present in (("private", True), ("private_absent", False)):
            for name, subs in (expect.get(key) or {}).items():
                mine = self.private_news(events, self.pid(name))
                self.news(where, f"{name}'s private news", mine, subs or [], present)
        for want in expect.get("events") or []:
            found = [e for e in events if self.event_matches(e, want)]
            if not found or ("count" in want and len(found) != want["count"]):
                what = "missing" if not found else f"found {len(found)} times"
                self.fail(where, f"event {self.shown(want)} {what}; the step's events:\n      " + self.listed(events))
        for want in expect.get("events_absent") or []:
            found = [e for e in events if self.event_matches(e, want)]
            if found:
                self.fail(where, f"event {self.shown(want)} should not be there; found:\n      " + self.listed(found))
        if "winner" in expect:
            want = expect["winner"]
            got = None if not g.state.over else sorted(g.player(w).name for w in g.state.winner or [])
            if want is None:
                if got is not None:
                    self.fail(where, f"the game should go on, it ended with winners {got}")
            elif got is None:
                self.fail(where, f"expected the game to end with winners {want}, it goes on")
            elif got != sorted(map(str, want if isinstance(want, list) else [want])):
                self.fail(where, f"winners: expected {want}, got {got}")
        if "phase" in expect:
            got = "over" if g.state.over else g.info.label
            if got != str(expect["phase"]):
                self.fail(where, f"next phase: expected {expect['phase']}, got {got}")
        if "end_day" in expect and g.state.end_day != expect["end_day"]:
            self.fail(where, f"end day: expected {expect['end_day']}, got {g.state.end_day}")
        if "gm_tasks" in expect:
            open_tasks = [t for t in g.state.gm_tasks if not t.get("settled")]
            if len(open_tasks) != expect["gm_tasks"]:
                self.fail(where, f"open GM tasks: expected {expect['gm_tasks']}, got {len(open_tasks)}")
        for key, want_alive in (("alive", True), ("dead", False)):
            for name in expect.get(key) or []:
                if g.alive(g.player(str(name))) != want_alive:
                    self.fail(where, f"{name} should be {'alive' if want_alive else 'out of the game'}")

    # events ------------------------------------------------------------------------
    def event_matches(self, e: Event, want: dict[str, Any]) -> bool:
        """``want`` (an entry of ``expect.events``) fits ``e``: the same key, the audience if
        given, whom it names if given (``to``), and each argument given (a subset)."""
        if e.key != str(want["key"]):
            return False
        if "audience" in want and e.audience != want["audience"]:
            return False
        if "to" in want:
            names = [self.choice(x) if e.audience == "players" else str(x) for x in want["to"]]
            if sorted(map(str, names)) != sorted(map(str, e.ids)):
                return False
        args = want.get("args") or {}
        return all(k in e.args and self.arg_matches(k, e.args[k], v) for k, v in args.items())

    def arg_matches(self, key: str, got: Any, want: Any) -> bool:
        """An argument as written in a scenario: a player by name, «за мир» or a named choice
        by its word, an ability by its id or name, a stat or status by its id, abbreviation or
        name; lists element by element (a tally: ``[[Даша, 2]]``)."""
        if isinstance(want, list):
            return isinstance(got, (list, tuple)) and len(got) == len(want) and all(
                self.arg_matches(key, g_, w) for g_, w in zip(got, want, strict=True))
        if want == got or (want is None) != (got is None):
            return want == got
        if isinstance(want, str):
            if isinstance(got, int) and not isinstance(got, bool):
                return self.choice(want) == got
            if self.choice(want) == got:
                return True
            if isinstance(got, str) and got.count(":") == 2:  # an ability key: role:<id>:<ability>
                try:
                    ab = self.game.ability_def(got)
                except (KeyError, ValueError):
                    return got.rsplit(":", 1)[-1] == want
                return want in (ab.id, ab.name.ru, ab.name.en)
            for lookup in (self.rules.stat, self.rules.status):
                try:
                    if lookup(want).id == got:
                        return True
                except KeyError:
                    continue
        return False

    @staticmethod
    def shown(want: dict[str, Any]) -> str:
        return ", ".join(f"{k}: {v}" for k, v in want.items())

    def listed(self, events: list[Event]) -> str:
        ru = Renderer(self.game, "ru")
        lines = [f"{e.key} [{e.audience}{' ' + ','.join(map(str, e.ids)) if e.ids else ''}] {e.args} «{ru.event(e)}»" for e in events]
        return "\n      ".join(lines) or "(none)"

    def private_news(self, events: list[Event], pid: int) -> list[Event]:
        """What seat ``pid`` received privately among ``events``: its own, its faction's."""
        return [e for e in events if e.audience != "public" and (aud := audience_of(self.game, e)) and pid in aud]

    def news(self, where: str, what: str, events: list[Event], wants: list[Any], present: bool) -> None:
        """A text list of ``expect``: substrings of the rendered news, and typed facts (events
        of that news by key and arguments, or naming a player) checked without the wording."""
        ru = Renderer(self.game, "ru")
        self._substrings(where, what, [ru.event(e) for e in events], [w for w in wants if not isinstance(w, dict)], present)
        for want in wants:
            if not isinstance(want, dict):
                continue
            found = [e for e in events if self.fact_matches(e, want)]
            if present and (not found or ("count" in want and len(found) != want["count"])):
                how = "missing" if not found else f"found {len(found)} times"
                self.fail(where, f"{what}: {{{self.shown(want)}}} {how}; its events:\n      " + self.listed(events))
            elif not present and found:
                self.fail(where, f"{what}: {{{self.shown(want)}}} should not be there; found:\n      " + self.listed(found))

    def fact_matches(self, e: Event, want: dict[str, Any]) -> bool:
        """A typed fact fits ``e``: its key and arguments as in ``events``, and ``about``: the
        event names that player in an argument that holds players."""
        if "key" in want and not self.event_matches(e, want):
            return False
        return "about" not in want or self.pid(want["about"]) in players_named(e)

    def _substrings(self, where: str, what: str, texts: list[str], subs: list[str], present: bool) -> None:
        blob = "\n".join(texts)
        for sub in subs:
            if (str(sub) in blob) != present:
                shown = blob if blob else "(nothing)"
                verb = "missing" if present else "should not be there"
                self.fail(where, f"{what}: {sub!r} {verb}; it reads:\n      " + shown.replace("\n", "\n      "))

    def run(self) -> Result:
        check_shape(self.data)
        where = "players"
        try:
            if not self.setup():
                return self.result
            if "start" in self.data:
                # the messages of the start (a role's contacts, a team learning its members)
                # and what the deal gave, before anything is submitted
                where, self.at = "start", ""
                self.check("start", self.data["start"] or {}, list(self.game.state.events))
                where = "players"
            for n, step in enumerate(self.data.get("steps") or [], 1):
                where = f"step {n} ({step.get('phase', 'over' if self.game.state.over else self.game.info.label)})"
                self.at = "phase"
                self.run_step(n, step)
                self.result.steps += 1
        except RulesetFileError:
            raise
        except (ScenarioError, GameError, ActionError, KeyError, TypeError, ValueError, AttributeError) as exc:
            # say where: the step and its key (a value of the wrong kind deep in an entry too,
            # a refusal where the format expects none)
            detail = (f"no key {exc}" if isinstance(exc, KeyError) else f"refused: {exc}" if isinstance(exc, ActionError)
                      else str(exc))
            if detail.startswith("step "):  # already located (``run_step``'s own checks)
                raise ScenarioError(detail) from None
            at = (self.at or where) if where == "players" else f"{where}: {self.at}" if self.at else where
            raise ScenarioError(f"{at}: {detail}") from None
        return self.result


def players_named(e: Event) -> set[int]:
    """The seats an event names in its arguments that hold players (a tally's candidates too)."""
    out: set[int] = set()
    for k, v in e.args.items():
        if k in PLAYER_ARGS and isinstance(v, int):
            out.add(v)
        elif k in PLAYER_LIST_ARGS and isinstance(v, list):
            out |= {x for x in v if isinstance(x, int)}
        elif k in ("tally", "ballots") and isinstance(v, list):
            out |= {x[0] for x in v if isinstance(x, (list, tuple)) and x and isinstance(x[0], int)}
    return out


def _opt(v: Any) -> str | None:
    """Options are strings; an integer is written signed (``+1``) unless it names a number."""
    if v is None:
        return None
    if isinstance(v, int) and not isinstance(v, bool):
        return f"{v:+d}" if v < 0 else str(v)
    return str(v)


def run_file(path: str | Path) -> Result:
    """Play one file; a file that cannot be read or played is one failure naming the file and,
    inside it, the step and the key."""
    path = Path(path)
    try:
        try:
            raw = path.read_bytes()
        except OSError as exc:
            raise ScenarioError(f"cannot read the file ({exc.strerror or exc})") from None
        text = decode_utf8(raw, path.name, ScenarioError)
        try:
            data = yaml.load(text, Loader=_Loader)  # a SafeLoader that refuses a key written twice
        except yaml.YAMLError as exc:
            mark = getattr(exc, "problem_mark", None)
            at = f" at line {mark.line + 1}, column {mark.column + 1}" if mark else ""
            raise ScenarioError(f"not valid YAML{at}: {getattr(exc, 'problem', None) or exc}") from None
        return Runner(data, str(path)).run()
    except RulesetFileError as exc:
        return Result(path=str(path), failures=[f"invalid scenario {path}: its ruleset: {exc}"])
    except ScenarioError as exc:
        msg = str(exc).removeprefix(f"{path.name}: ")
        return Result(path=str(path), failures=[f"invalid scenario {path}: {msg}"])


def collect(paths: list[str]) -> list[Path]:
    out: list[Path] = []
    for p in map(Path, paths):
        if p.is_dir():
            out += sorted(x for x in p.rglob("*") if x.suffix in (".yaml", ".yml"))
        else:
            out.append(p)
    return out


__all__ = ["Result", "ScenarioError", "available_rulesets", "collect", "run_file"]
