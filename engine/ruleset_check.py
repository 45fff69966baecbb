"""The cross-checks of a whole ruleset: every id it refers to exists, every named behaviour is
registered and takes the parameters it is given (:mod:`engine.registry_params`), the calendar
and the steps fit each other, and nothing a GM writes is silently ignored.

Each problem is a :class:`~engine.ruleset.Problem`: a path (``roles.don.abilities.hit.slot``),
a message key of the loader's table (``config/messages/<lang>.variants.yaml``, ``problem.<key>``),
its arguments and the English text; an unknown name carries the names it may be.
"""

from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, TypeAdapter, ValidationError

from . import registry
from .registry_params import REQUIRED, REVEAL_FACTS, TABLES, Param, Params
from .ruleset import PASSIVE_PREFIXES, Names, Problem, default_step

#: what would ping or point at someone if a name held it (Discord's mention syntax)
MENTIONS = ("@everyone", "@here", "<@", "<#", "</")

if TYPE_CHECKING:
    from .ruleset import Effect, Requirement, RoleDef, Ruleset, Selector

# the effect fields every op may carry: whom it reaches, the card's text
ALWAYS_READ = ("op", "to", "where", "text", "params")
# the ops whose default target (``to: target``) is a chosen player: with no target they reach no one
REACHES_TARGETS = {"stat", "modifier", "block", "protect", "guard", "poison", "cure", "heal", "damage", "status", "kill", "reveal", "message"}


@lru_cache(maxsize=256)
def _adapter(type_: Any) -> TypeAdapter[Any]:
    return TypeAdapter(type_)


def _names(value: Any) -> list[str]:
    """The names a parameter's value holds: itself, each item of a list, each key and value of a mapping."""
    if isinstance(value, dict):
        return [x for k, v in value.items() for x in (str(k), *_names(v))]
    if isinstance(value, list | tuple):
        return [x for v in value for x in _names(v)]
    return [] if value is None or isinstance(value, bool | int | float) else [str(value)]


class Checker:
    def __init__(self, rules: Ruleset) -> None:
        self.r = rules
        self.problems: list[Problem] = []
        self.teams = sorted({x.team for x in [*rules.roles, *rules.characters] if x.team})
        self.refs: dict[str, set[str]] = {
            "stat": {s.id for s in rules.stats},
            "status": {s.id for s in rules.statuses},
            "team": set(self.teams),
            "role": {x.id for x in rules.roles},
            "character": {x.id for x in rules.characters},
            "slot": {s.id for s in rules.slots},
            # a block's scope: slots, or every action of a character or of a role
            "block_scope": {s.id for s in rules.slots} | {"character", "role"},
            "step": {s.id for v in rules.steps.values() for s in v},
            "ability": {f"{g}:{x.id}:{a.id}" for g, xs in (("role", rules.roles), ("character", rules.characters))
                        for x in xs for a in x.abilities},
            # an implementation some ability of the ruleset uses (``op: impl``, in any option)
            "ability_impl": {e.impl for x in [*rules.roles, *rules.characters] for a in x.abilities
                             for e in [*a.effects, *(f for fs in a.options.values() for f in fs)] if e.impl},
        }

    def add(self, where: str, code: str, template: str, name: Any = None, known: Any = (), **args: Any) -> None:
        if name is not None:
            args.setdefault("name", name)
        self.problems.append(Problem(where, code, template.format(**args), {k: str(v) for k, v in args.items()},
                                     None if name is None else str(name), tuple(sorted(str(k) for k in known))))

    def known(self, table: dict[str, Any], name: str | None, what: str, where: str) -> None:
        # an empty table: the engine's behaviour modules are not imported (cannot judge)
        if table and name is not None and name not in table:
            self.add(where, "unknown_" + what.replace(" ", "_"), "unknown {what} {name!r}", name=name, known=table, what=what)

    def ref(self, kind: str, value: Any, where: str) -> None:
        """``value`` is the id (or, for stats and statuses, a name) of a ``kind`` of the ruleset."""
        if value is None:
            return
        if kind == "stat":
            ok = self.r._resolves("stats", value, "abbr") is not None
        elif kind == "status":
            ok = self.r._resolves("statuses", value, "names") is not None
        elif kind == "role":
            ok = self.r._resolves("roles", value, "name") is not None
        elif kind == "character":
            ok = self.r._resolves("characters", value, "name") is not None
        else:
            ok = str(value) in self.refs[kind]
        if not ok:
            self.add(where, f"unknown_{kind}", f"unknown {kind} {{value!r}}", name=value, known=self.refs[kind], value=value)

    # ---- parameters ---------------------------------------------------------------------------
    def params(self, table: str, name: str, given: dict[str, Any], where: str, skip: tuple[str, ...] = ()) -> Params | None:
        """``given`` fits the declared params of ``name`` (``engine.registry_params``)."""
        spec = TABLES[table].get(name)
        if spec is None:
            return None
        for key, value in given.items():
            if key in skip:
                continue
            param = spec.fields.get(key)
            if param is None and spec.extra is not None:  # any key that names a ``extra.ref``
                if spec.extra.ref:
                    self.ref(spec.extra.ref, key, f"{where}.{key}")
                param = Param(spec.extra.type, doc=spec.extra.doc)
            if param is None:
                self.add(f"{where}.{key}", f"unknown_param.{table}", "{what} {owner!r} takes no parameter {key!r}", name=key,
                         known=[k for k in spec.fields if k not in skip] or ["—"], what=table, owner=name, key=key)
                continue
            self.value(param, value, f"{where}.{key}")
        for key, param in spec.fields.items():
            if key in skip:
                continue
            if param.default is REQUIRED and key not in given:
                self.add(f"{where}.{key}", f"missing_param.{table}", "{what} {name!r} needs the parameter {key!r}", what=table, name=name, key=key)
        return spec

    def value(self, param: Param, value: Any, where: str) -> None:
        try:
            _adapter(param.type).validate_python(value)
        except ValidationError as exc:
            self.add(where, "param_type", "{value!r} does not fit: {why}", value=value,
                     why="; ".join(e["msg"] for e in exc.errors()))
            return
        if param.ref:
            for v in _names(value):
                self.ref(param.ref, v, where)

    # ---- the whole ruleset ----------------------------------------------------------------------
    def run(self) -> list[Problem]:
        r = self.r
        self.duplicates()
        self.one_line_names()
        for t in r.teams:
            if t.id not in self.refs["team"]:
                self.add(f"teams.{t.id}", "team_of_no_one", "no role or character is of team {team!r}", name=t.id,
                         known=self.teams or ["—"], team=t.id)
        for sd in r.stats:
            for i, b in enumerate(sd.bands):
                self.ref("status", b.status, f"stats.{sd.id}.bands[{i}].status")
        for s in r.statuses:
            for key in ("clears", "covers"):  # ids, not names: the engine looks them up as ids
                for c in getattr(s, key):
                    if c not in self.refs["status"]:
                        self.add(f"statuses.{s.id}.{key}", "unknown_status", "unknown status {value!r}", name=c,
                                 known=self.refs["status"], value=c)
            self.ref("team", s.appears_as, f"statuses.{s.id}.appears_as")
            for sl in s.blocks_slots:
                if sl != "*":
                    self.ref("slot", sl, f"statuses.{s.id}.blocks_slots")
            for st in s.stat_modifiers:
                self.ref("stat", st, f"statuses.{s.id}.stat_modifiers")
        for sl in r.slots:
            self.requirements(sl.requires, f"slots.{sl.id}")
        for group in ("roles", "characters"):
            for x in getattr(r, group):
                self.role(group, x)
        self.steps()
        for d in r.table.decks:
            for rid in [*d.cards, *(x for group in d.one_of for x in group)]:
                if rid not in self.refs["role"]:
                    self.add(f"table.decks(upto {d.upto})", "unknown_role", "unknown role {value!r}", name=rid,
                             known=self.refs["role"], value=rid)
            for i, group in enumerate(d.one_of):
                if not group:
                    self.add(f"table.decks(upto {d.upto}).one_of[{i}]", "empty_one_of", "a card drawn from no role")
            if d.size > d.upto:
                self.add(f"table.decks(upto {d.upto})", "deck_too_big", "{cards} cards for {seats} seats",
                         cards=d.size, seats=d.upto)
        for v in r.votes:
            self.known(registry.VOTES, v.kind, "vote kind", f"votes.{v.id}.kind")
            self.params("vote", v.kind, v.params, f"votes.{v.id}.params")
            if v.step not in self.refs["step"]:
                self.add(f"votes.{v.id}.step", "unknown_step", "unknown step {value!r}", name=v.step, known=self.refs["step"], value=v.step)
        self.known(registry.VICTORIES, r.victory.kind, "victory kind", "victory.kind")
        spec = self.params("victory", r.victory.kind, r.victory.params, "victory.params")
        if spec is not None:  # a default the victory reads unless told (highest_stat: vo, tv) must exist too
            for key, param in spec.fields.items():
                if key not in r.victory.params and param.ref and param.default not in (REQUIRED, None):
                    for v in _names(param.default):
                        self.ref(param.ref, v, f"victory.params.{key} (default)")
        self.known(registry.MAIL, r.mail, "mail policy", "mail")
        self.factions()
        for st in r.inactivity.stats:
            self.ref("stat", st, "inactivity.stats")
        if r.table.fill is not None and r._resolves("roles", r.table.fill, "name") is None \
                and r._resolves("characters", r.table.fill, "name") is None:
            self.add("table.fill", "unknown_fill", "unknown role or character {value!r}", name=r.table.fill,
                     known=self.refs["role"] | self.refs["character"], value=r.table.fill)
        return self.problems

    def one_line_names(self) -> None:
        """Every name a person reads (a role's, an ability's, a stat's, the ruleset's own…) is one
        line that mentions nobody: the bot shows it as written, beside its own lines, in every
        channel of a game (an uploaded ruleset is a GM's text)."""
        def walk(node: Any, where: str) -> None:
            if isinstance(node, Names):
                for lang in ("ru", "en"):
                    value = getattr(node, lang)
                    if any(c in value for c in "\n\r\u2028\u2029") or any(m in value for m in MENTIONS):
                        self.add(where, "name_markup", "the name {value!r} ({lang}) must be one line and mention nobody",
                                 value=value, lang=lang)
            elif isinstance(node, BaseModel):
                for field in type(node).model_fields:
                    walk(getattr(node, field), f"{where}.{field}" if where else field)
            elif isinstance(node, list | tuple):
                for i, item in enumerate(node):
                    walk(item, f"{where}.{getattr(item, 'id', i)}")
            elif isinstance(node, dict):
                for k, item in node.items():
                    walk(item, f"{where}.{k}")
        walk(self.r, "")

    def duplicates(self) -> None:
        r = self.r
        for group, items in (("stats", r.stats), ("statuses", r.statuses), ("slots", r.slots), ("votes", r.votes),
                             ("teams", r.teams), ("roles", r.roles), ("characters", r.characters)):
            ids = [x.id for x in items]
            dups = sorted({i for i in ids if ids.count(i) > 1})
            if dups:
                self.add(group, "duplicate_id", "duplicate id {ids}", ids=", ".join(map(repr, dups)))
        for group, items in (("roles", r.roles), ("characters", r.characters)):
            for lang in ("ru", "en"):
                names = [getattr(x.name, lang) for x in items]
                for n in sorted({n for n in names if names.count(n) > 1}):
                    owners = ", ".join(x.id for x in items if getattr(x.name, lang) == n)
                    self.add(group, "duplicate_name", "two entries named {value!r} ({lang}): {owners}", value=n, lang=lang, owners=owners)

    def requirements(self, reqs: list[Requirement], where: str) -> None:
        # (their statuses may be markers an implementation puts on without declaring them,
        # seed 002's ``friday_nagan``: only the stats are checked)
        for i, rq in enumerate(reqs):
            self.ref("stat", rq.stat, f"{where}.requires[{i}].stat")

    def selector(self, sel: Selector | None, where: str) -> None:
        if sel is not None:
            self.ref("stat", sel.stat, f"{where}.stat")
            self.ref("status", sel.status, f"{where}.status")
            self.ref("status", sel.not_status, f"{where}.not_status")

    def role(self, group: str, x: RoleDef) -> None:
        for st in x.stats:
            if st not in self.refs["stat"]:
                self.add(f"{group}.{x.id}.stats", "unknown_stat", "unknown stat {value!r}", name=st, known=self.refs["stat"], value=st)
        for pv in x.passives:
            where = f"{group}.{x.id}.passives.{pv.kind}"
            prefix = next((p for p in PASSIVE_PREFIXES if pv.kind.startswith(p)), None)
            if prefix is not None:
                self.ref("status", pv.kind.removeprefix(prefix), where)
                self.params("passive", f"{prefix}<status>", pv.params, f"{where}.params")
            else:
                self.params("passive", pv.kind, pv.params, f"{where}.params")
        ids = [a.id for a in x.abilities]
        for d in sorted({i for i in ids if ids.count(i) > 1}):
            self.add(f"{group}.{x.id}.abilities", "duplicate_id", "duplicate id {ids}", ids=repr(d))
        for ab in x.abilities:
            where = f"{group}.{x.id}.abilities.{ab.id}"
            self.requirements(ab.requires, where)
            self.selector(ab.target_where, f"{where}.target_where")
            for i, ck in enumerate(ab.checks):
                self.known(registry.CHECKS, ck.kind, "check", f"{where}.checks[{i}].kind")
                self.params("check", ck.kind, ck.params, f"{where}.checks[{i}].params")
            most = None if ab.max_targets == "unlimited" else (ab.max_targets or ab.targets)
            for opt, effs in [("", ab.effects), *ab.options.items()]:
                at = f"{where}{'.options.' + opt if opt else '.effects'}"
                for i, e in enumerate(effs):
                    self.effect(e, f"{at}[{i}]", most)
            if ab.slot not in self.refs["slot"]:
                self.add(f"{where}.slot", "unknown_slot", "unknown slot {value!r}", name=ab.slot, known=self.refs["slot"], value=ab.slot)
                continue
            slot = self.r.slot(ab.slot)
            kinds = ["day", "night"] if slot.phase == "any" else [slot.phase]
            steps = {ab.step} if ab.step else {default_step(ab, o) for o in ab.options or [None]}
            for k in kinds:
                known = {s.id for s in self.r.steps.get(k, [])}
                for step in sorted(steps):
                    if step not in known:
                        self.add(f"{where}.step", "not_a_step_of", "{step!r} is not a {kind} step", name=step, known=known, step=step, kind=k)

    def effect(self, e: Effect, at: str, most: int | None) -> None:
        self.ref("stat", e.stat, f"{at}.stat")
        if e.status and e.status not in self.refs["status"]:
            self.ref("status", e.status, f"{at}.status")
        self.selector(e.where, f"{at}.where")
        self.known(registry.EFFECTS, e.op, "effect op", f"{at}.op")
        if e.op == "impl":
            if e.impl is None:
                self.add(f"{at}.impl", "impl_needs_name", "op impl needs the name of an implementation")
            else:
                self.known(registry.IMPLS, e.impl, "implementation", f"{at}.impl")
                self.params("impl", e.impl, e.params, f"{at}.params")
            return
        spec = self.params("effect", e.op, e.params, f"{at}.params")
        if spec is None:
            return
        set_fields = [k for k in e.model_fields_set if k not in ALWAYS_READ and getattr(e, k) not in (None, [], {})]
        for k in set_fields:
            if k not in spec.effect_fields:
                self.add(f"{at}.{k}", "field_not_read", "op {op!r} does not read {field!r}", name=k,
                         known=[f for f in spec.effect_fields] or ["—"], op=e.op, field=k)
        for k in spec.needs:
            if getattr(e, k) is None:
                self.add(f"{at}.{k}", "field_needed", "op {op!r} needs {field!r}", op=e.op, field=k)
        if e.op == "stat" and e.delta is None and e.amount is None:
            self.add(f"{at}.delta", "field_needed", "op {op!r} needs {field!r}", op=e.op, field="delta")
        if e.op == "reveal" and e.fact is not None and e.fact not in REVEAL_FACTS:
            self.add(f"{at}.fact", "unknown_fact", "unknown fact {value!r}", name=e.fact, known=REVEAL_FACTS, value=e.fact)
        if e.op == "reveal" and e.fact == "team":  # the answer names the team: each needs its name
            named = {t.id for t in self.r.teams}
            if not self.teams:
                self.add(f"{at}.fact", "no_teams", "fact 'team' tells a team, but no role or character has one")
            for team in self.teams:
                if team not in named:
                    self.add(f"{at}.fact", "team_without_name", "fact 'team' tells a team, but team {team!r} has no entry in teams: (its names)",
                             team=team)
        if most is not None and most < spec.min_targets:
            self.add(at, "too_few_targets", "op {op!r} needs {need} targets, the ability takes {most}", op=e.op, need=spec.min_targets, most=most)
        if e.op in REACHES_TARGETS and e.to == "target" and most == 0:
            self.add(f"{at}.to", "reaches_no_one", "op {op!r} reaches the target, but the ability takes no target (say to: self, all …)", op=e.op)

    def steps(self) -> None:
        r = self.r
        period_kinds = {p.kind for p in r.calendar.periods}
        for kind in sorted(period_kinds):
            if not r.steps.get(kind):
                self.add(f"steps.{kind}", "no_steps", "the calendar has {kind} periods but the ruleset no {kind} steps", kind=kind)
        for kind, steps in r.steps.items():
            if kind != "start" and steps and kind not in period_kinds:
                self.add(f"steps.{kind}", "steps_never_run", "the calendar has no {kind} period, so these steps would never run", kind=kind)
            ids = [s.id for s in steps]
            for d in sorted({i for i in ids if ids.count(i) > 1}):
                self.add(f"steps.{kind}", "duplicate_id", "duplicate id {ids}", ids=repr(d))
            for i, sd in enumerate(steps):
                where = f"steps.{kind}[{i}] ({sd.id})"
                if sd.kind != "actions":
                    self.known(registry.STEPS, sd.kind, "step kind", f"{where}.kind")
                if sd.kind == "impl":
                    name = sd.params.get("impl", "")
                    self.known(registry.IMPLS, name, "implementation", f"{where}.params.impl")
                    if name not in TABLES["impl"]:
                        continue
                    self.params("impl", name, sd.params, f"{where}.params", skip=("impl",))  # its own beside its name
                else:
                    self.params("step", sd.kind, sd.params, f"{where}.params")

    def factions(self) -> None:
        f = self.r.factions
        self.ref("stat", f.bonus_stat, "factions.bonus_stat")
        self.ref("stat", f.overthrow_stat, "factions.overthrow_stat")
        for st in f.rank_stats:
            self.ref("stat", st, "factions.rank_stats")
        for key in ("overthrow_win", "overthrow_lose", "overthrow_fail"):
            for st in getattr(f, key):
                self.ref("stat", st, f"factions.{key}")
        self.requirements(f.invite_requires, "factions.invite_requires")


def cross_check(rules: Ruleset) -> list[Problem]:
    return Checker(rules).run()


registry.RULESET_CHECKS.append(cross_check)

