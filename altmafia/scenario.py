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

from config.loader import RulesetFileError, available_rulesets, load_ruleset, parse_ruleset
from engine import ActionError, Game, GameError, PlayerSpec, Ruleset
from engine.state import Event

from .i18n import Renderer, audience_of, catalog

STEP_KEYS = {"phase", "actions", "rejected", "votes", "pms", "anon", "refuse_anon", "faction", "gm", "bonus", "cancel", "expect", "note",
             "resolve"}
EXPECT_KEYS = {
    "stats", "true_stats", "status", "faction", "public", "public_absent", "private", "private_absent",
    "gm", "winner", "phase", "end_day", "legal", "not_legal", "gm_tasks", "alive", "dead",
}


class ScenarioError(Exception):
    """The scenario file itself is wrong (not the rules)."""


@dataclass
class Result:
    path: str
    failures: list[str] = field(default_factory=list)
    steps: int = 0
    ruleset: str | None = None
    used: set[str] = field(default_factory=set)  # ability keys submitted and accepted
    characters: set[str] = field(default_factory=set)  # characters in play (their features)

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
    base = load_ruleset(ref)
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

    # setup ---------------------------------------------------------------------------
    def setup(self) -> None:
        d = self.data
        missing = [k for k in ("ruleset", "players", "steps") if k not in d]
        if missing:
            raise ScenarioError(f"missing keys: {', '.join(missing)}")
        self.rules, settings = ruleset_for(str(d["ruleset"]), d.get("settings") or {})
        self.result.ruleset = self.rules.id
        specs = []
        for p in d["players"]:
            specs.append(
                PlayerSpec(
                    name=str(p["name"]), role=str(p["role"]), character=p.get("character"),
                    stats={self.stat_id(k): v for k, v in (p.get("stats") or {}).items()},
                    statuses=[self.status_id(s) for s in p.get("status", p.get("statuses", [])) or []],
                    faction=p.get("faction"), leader=bool(p.get("leader", False)),
                )
            )
        try:
            self.game = Game.new(self.rules, int(d.get("seed", 0)), specs, settings)
        except KeyError as exc:
            raise ScenarioError(f"unknown role or character {exc}") from None
        self.result.characters = {p.character for p in self.game.state.players if p.character}

    # one step ------------------------------------------------------------------------
    def submit_action(self, e: dict[str, Any]) -> None:
        g = self.game
        # ``for``: a teammate (``by``) gives this player's action; ``at``: for a later phase
        p = g.player(self.pid(e.get("for", e["by"])))
        by = self.pid(e["by"]) if "for" in e else None
        tick = g.clock.parse(str(e["at"])) if "at" in e else None
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
        label = g.info.label
        where = f"step {n} ({step.get('phase', label)})"
        if "phase" in step and str(step["phase"]) != label:
            want = g.clock.parse(str(step["phase"]))
            if want < g.state.tick:
                self.fail(where, f"expected phase {step['phase']}, the game is at {label}")
                return
            while g.state.tick < want and not g.state.over:
                g.resolve()  # phases in between pass with nobody acting
        start = len(g.state.events)
        for e in step.get("gm") or []:
            self.gm_op(where, e)
        for e in step.get("bonus") or []:
            try:
                g.choose_bonus(self.pid(e["by"]), str(e["stat"]))
            except ActionError as err:
                self.fail(where, f"{e['by']}: bonus choice was refused: {err}")
        for e in step.get("actions") or []:
            try:
                self.submit_action(e)
            except ActionError as err:
                self.fail(where, f"{e['by']}: «{e['ability']}» was refused: {err}")
        for e in step.get("cancel") or []:
            g.cancel(self.pid(e["by"]), e.get("lane", "action"))
        for e in step.get("votes") or []:
            try:
                g.vote(self.pid(e["by"]), e.get("vote") or self.default_vote(), self.choice(e.get("for")))
            except ActionError as err:
                self.fail(where, f"{e['by']}: vote was refused: {err}")
        for e in step.get("pms") or []:
            try:
                g.send_pm(self.pid(e["from"]), self.pid(e["to"]), str(e["text"]))
            except ActionError as err:
                self.fail(where, f"{e['from']}: PM was refused: {err}")
        for e in step.get("anon") or []:
            try:
                g.post_anon(self.pid(e["by"]), str(e["text"]))
            except ActionError as err:
                self.fail(where, f"{e['by']}: anonymous post was refused: {err}")
        for e in step.get("refuse_anon") or []:
            try:
                g.gm_refuse_anon(self.anon_seq(e))
            except ActionError as err:
                self.fail(where, f"refusing {e}: refused: {err}")
        for e in step.get("faction") or []:
            try:
                g.faction_op(self.pid(e["by"]), str(e["op"]), self.pid(e["target"]) if e.get("target") is not None else None, e.get("fid"))
            except ActionError as err:
                self.fail(where, f"{e['by']}: faction {e['op']} was refused: {err}")
        for e in step.get("rejected") or []:
            self.expect_rejected(where, e)
        expect = step.get("expect") or {}
        self.check_legal(where, expect)
        if step.get("resolve", True) and not g.state.over:
            g.resolve()
        self.check(where, expect, g.state.events[start:])

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
            elif "text" in e:
                g.post_anon(self.pid(e["by"]), str(e["text"]))
            else:
                raise ScenarioError(f"{where}: a rejected entry needs ability, for, op, to, text, bonus or refuse_anon")
        except ActionError as err:
            if e.get("reason") and err.key != e["reason"]:
                self.fail(where, f"{e.get('by', e.get('from'))}: refused with {err.key}, expected {e['reason']}")
            return
        self.fail(where, f"{e.get('by', e.get('from'))}: {e} was accepted, expected a refusal")

    def anon_seq(self, e: dict[str, Any]) -> int:
        """The anonymous post an entry names: ``seq``, or the last one queued by ``by`` (with
        ``text``, the one with that text); failing that, the last one ``by`` had published."""
        if "seq" in e:
            return int(e["seq"])
        pid = self.pid(e["by"])
        queued = [a.seq for a in self.game.state.anons if a.pid == pid and ("text" not in e or a.text == str(e["text"]))]
        published = [x.get("seq", -1) for x in self.game.state.memo.get("anons", []) if x["pid"] == pid]
        found = queued or published
        if not found:
            raise ScenarioError(f"{e['by']} has no anonymous post to refuse")
        return found[-1]

    def gm_op(self, where: str, e: dict[str, Any]) -> None:
        g = self.game
        ((op, arg),) = e.items()
        if op == "set_stat":
            g.gm_set_stat(self.pid(arg["player"]), self.stat_id(arg["stat"]), int(arg["value"]))
        elif op == "set_status":
            g.gm_set_status(self.pid(arg["player"]), self.status_id(arg["status"]), arg.get("cycles"))
        elif op == "clear_status":
            g.gm_clear_status(self.pid(arg["player"]), self.status_id(arg["status"]))
        elif op == "message":
            g.gm_message(self.pid(arg["player"]), str(arg["text"]))
        elif op == "set_end_day":
            g.gm_set_end_day(int(arg))
        else:
            raise ScenarioError(f"{where}: unknown GM operation {op!r}")

    # checks --------------------------------------------------------------------------
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
        ru = Renderer(g, "ru")
        public = [ru.event(e) for e in events if e.audience == "public"]
        gm = [ru.event(e) for e in events if e.audience == "gm"]
        self._substrings(where, "public report", public, expect.get("public") or [], True)
        self._substrings(where, "public report", public, expect.get("public_absent") or [], False)
        self._substrings(where, "GM trace", gm, expect.get("gm") or [], True)
        for key, present in (("private", True), ("private_absent", False)):
            for name, subs in (expect.get(key) or {}).items():
                pid = self.pid(name)
                mine = [ru.event(e) for e in events if e.audience != "public" and (aud := audience_of(g, e)) and pid in aud]
                self._substrings(where, f"{name}'s private news", mine, subs or [], present)
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

    def _substrings(self, where: str, what: str, texts: list[str], subs: list[str], present: bool) -> None:
        blob = "\n".join(texts)
        for sub in subs:
            if (str(sub) in blob) != present:
                shown = blob if blob else "(nothing)"
                verb = "missing" if present else "should not be there"
                self.fail(where, f"{what}: {sub!r} {verb}; it reads:\n      " + shown.replace("\n", "\n      "))

    def run(self) -> Result:
        self.setup()
        for n, step in enumerate(self.data["steps"], 1):
            self.run_step(n, step)
            self.result.steps += 1
        return self.result


def _opt(v: Any) -> str | None:
    """Options are strings; an integer is written signed (``+1``) unless it names a number."""
    if v is None:
        return None
    if isinstance(v, int) and not isinstance(v, bool):
        return f"{v:+d}" if v < 0 else str(v)
    return str(v)


def run_file(path: str | Path) -> Result:
    path = Path(path)
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
        if not isinstance(data, dict):
            raise ScenarioError("a scenario must be a mapping")
        return Runner(data, str(path)).run()
    except (ScenarioError, GameError, RulesetFileError, yaml.YAMLError, KeyError, TypeError, ValueError) as exc:
        return Result(path=str(path), failures=[f"invalid scenario: {exc}"])


def collect(paths: list[str]) -> list[Path]:
    out: list[Path] = []
    for p in map(Path, paths):
        if p.is_dir():
            out += sorted(x for x in p.rglob("*") if x.suffix in (".yaml", ".yml"))
        else:
            out.append(p)
    return out


__all__ = ["Result", "ScenarioError", "available_rulesets", "collect", "run_file"]
