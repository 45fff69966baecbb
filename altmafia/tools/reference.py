"""What a GM tunes in a ruleset, and what they may use: ``altmafia rules <file>`` and
``altmafia rules --reference``.

``summary`` lists a ruleset's calendar, table and deck, quotas, slots with their thresholds and
cooldowns, the steps' and votes' parameters, inactivity, factions and victory, in the GM's
language (labels from ``config/messages/<lang>.variants.yaml``, names from the ruleset).
``reference`` is generated from the registries (``engine.registry``) and the declared
parameters (``engine.registry_params``): every op, implementation, step kind, vote kind,
victory kind, submission check and passive kind, with its parameters, defaults and an example.
"""

from __future__ import annotations

import types
import typing
from typing import Any

import yaml

from config.texts import say
from engine import registry
from engine.registry_params import REQUIRED, TABLES, Param, Params
from engine.ruleset import Requirement, Ruleset
from engine.settings import GameSettings


def _name(obj: Any, lang: str) -> str:
    names = getattr(obj, "names", None) or getattr(obj, "name", None) or getattr(obj, "abbr", None)
    return getattr(names, lang) if names is not None else str(obj)


def _stat(rules: Ruleset, sid: str, lang: str) -> str:
    try:
        return getattr(rules.stat(sid).abbr, lang)
    except KeyError:
        return sid


def _requirement(rules: Ruleset, rq: Requirement, lang: str) -> str:
    parts = []
    if rq.in_faction is not None:
        parts.append(say(lang, "rules.in_faction" if rq.in_faction else "rules.not_in_faction"))
    if rq.stat and rq.at_least is not None:
        parts.append(f"{_stat(rules, rq.stat, lang)} ≥ {rq.at_least}")
    if rq.stat and rq.below is not None:
        parts.append(f"{_stat(rules, rq.stat, lang)} < {rq.below}")
    for s in rq.status:
        parts.append(say(lang, "rules.with_status", status=_status(rules, s, lang)))
    for s in rq.not_status:
        parts.append(say(lang, "rules.without_status", status=_status(rules, s, lang)))
    return ", ".join(parts)


def _status(rules: Ruleset, sid: str, lang: str) -> str:
    try:
        return getattr(rules.status(sid).names, lang)
    except KeyError:
        return sid


def _yaml(value: Any) -> str:
    """A value as a GM writes it in YAML (``null``, ``false``, ``[mafia]``)."""
    return yaml.safe_dump(value, default_flow_style=True, allow_unicode=True, width=10_000).strip().removesuffix("...").strip()


def _params(params: dict[str, Any]) -> str:
    return ", ".join(f"{k}: {_yaml(v)}" for k, v in params.items())


def summary(rules: Ruleset, lang: str) -> list[str]:
    """Everything a GM tunes, one topic a line (a list of slots, steps, votes and roles below)."""
    r, out = rules, []
    cal = r.calendar
    periods = " · ".join(f"{_name(p, lang) if p.names else say(lang, 'rules.kind.' + p.kind)} {p.start}–{p.end}" for p in cal.periods)
    out.append(say(lang, "rules.calendar", zone=cal.timezone, periods=periods, days=cal.days, lo=cal.min_days, hi=cal.max_days))
    t = r.table
    out.append(say(lang, "rules.table", default=t.default, lo=t.min, hi=t.max,
                   distinct=say(lang, "rules.distinct" if t.distinct_roles else "rules.repeated")))
    for d in sorted(t.decks, key=lambda d: d.upto):
        cards = ", ".join([f"{_name(r.role(rid), lang)} ×{n}" for rid, n in d.cards.items()]
                          + [say(lang, "rules.one_of", roles=" / ".join(_name(r.role(rid), lang) for rid in group)) for group in d.one_of])
        out.append("  " + say(lang, "rules.deck", upto=d.upto, cards=cards))
    if t.fill:
        fill = r._resolves("roles", t.fill, "name") or r._resolves("characters", t.fill, "name")
        out.append("  " + say(lang, "rules.fill", fill=_name(fill, lang) if fill else t.fill))
    q = r.quotas
    none = say(lang, "rules.unlimited")
    out.append(say(lang, "rules.quotas", pm=none if q.pm_per_day is None else q.pm_per_day,
                   anon=none if q.anon_per_day is None else q.anon_per_day, actions=r.actions_per_turn))
    out.append(say(lang, "rules.slots"))
    for s in r.slots:
        bits = [say(lang, "rules.phase." + s.phase)]
        if s.cooldown_cycles:
            bits.append(say(lang, "rules.cooldown", n=s.cooldown_cycles))
        bits += [x for x in (_requirement(r, rq, lang) for rq in s.requires) if x]
        if not s.counts_as_action:
            bits.append(say(lang, "rules.not_an_action"))
        out.append(f"  {_name(s, lang)} [{s.id}]: " + "; ".join(bits))
    for kind, steps in r.steps.items():
        tuned = [f"{s.id} ({_params(s.params)})" for s in steps if s.params]
        if tuned:
            out.append(say(lang, "rules.step_params", kind=kind, steps="; ".join(tuned)))
    for v in r.votes:
        out.append(say(lang, "rules.vote", name=_name(v, lang), kind=v.kind, step=v.step, params=_params(v.params) or "—"))
    pen = r.inactivity
    out.append(say(lang, "rules.inactivity", mode=pen.mode,
                   stats=", ".join(f"{_stat(r, k, lang)} {v:+d}" for k, v in pen.stats.items()) or "—"))
    f = r.factions
    if f.enabled:
        out.append(say(lang, "rules.factions", lo=f.min_size, hi=f.max_size, invites=f.invites_per_night,
                       bonus=f"{_stat(r, f.bonus_stat, lang)} / {f.bonus_step}" if f.bonus_stat else "—"))
    else:
        out.append(say(lang, "rules.no_factions"))
    out.append(say(lang, "rules.victory", kind=r.victory.kind, params=_params(r.victory.params) or "—"))
    if r.victory.text:
        out.append("  " + getattr(r.victory.text, lang))
    if r.settings:
        out.append(say(lang, "rules.settings", settings=_params(r.settings)))
    out.append(say(lang, "rules.roles", n=len(r.roles), m=len(r.characters)))
    for group in (r.roles, r.characters):
        for x in group:
            stats = ", ".join(f"{_stat(r, k, lang)} {v}" for k, v in x.stats.items())
            abilities = ", ".join(_name(a, lang) for a in x.abilities)
            team = f" · {x.team}" if x.team else ""
            copies = f" ×{x.copies}" if x.copies != 1 else ""
            out.append(f"  {_name(x, lang)} [{x.id}]{copies}{team}" + (f" ({stats})" if stats else "") + (f": {abilities}" if abilities else ""))
    return out


# ---- the reference --------------------------------------------------------------------------
def type_name(t: Any, lang: str = "en") -> str:
    """A parameter's type in words: ``list of text``, ``integer | null``, ``'all' | 'thresholds'``."""
    origin, args = typing.get_origin(t), typing.get_args(t)
    if origin is typing.Literal:
        return " | ".join(repr(a) for a in args)
    if origin in (typing.Union, types.UnionType):
        return " | ".join(say(lang, "reference.type.null") if a is type(None) else type_name(a, lang) for a in args)
    if origin is list:
        return say(lang, "reference.type.list", of=type_name(args[0], lang))
    if origin is dict:
        return say(lang, "reference.type.map", key=type_name(args[0], lang), value=type_name(args[1], lang))
    word = {int: "integer", float: "number", bool: "bool", str: "text"}.get(t)
    return say(lang, f"reference.type.{word}") if word else getattr(t, "__name__", str(t))


def _example_value(p: Param) -> Any:
    if p.default is not REQUIRED and p.default not in (None, [], {}):
        return p.default
    base = p.type
    if typing.get_origin(base) in (typing.Union, types.UnionType):
        base = next(a for a in typing.get_args(base) if a is not type(None))
    if typing.get_origin(base) is typing.Literal:
        return typing.get_args(base)[0]
    if typing.get_origin(base) is list or base is list:
        return [f"<{p.ref}>"] if p.ref else []
    if typing.get_origin(base) is dict:
        return {f"<{p.ref or 'key'}>": 1}
    return {int: 1, float: 0.5, bool: True, str: f"<{p.ref or 'text'}>"}.get(base, "…")


FIELD_EXAMPLES = {"stat": "<stat>", "status": "<status>", "delta": 1, "impl": "<implementation>", "text": {"ru": "…", "en": "…"}}


def example(table: str, name: str, spec: Params) -> str:
    params = {k: _example_value(p) for k, p in spec.fields.items() if p.default is REQUIRED or k in list(spec.fields)[:2]}
    if table == "impl":
        data: dict[str, Any] = {"op": "impl", "impl": name}
    elif table == "effect":
        data = {"op": name, **{f: FIELD_EXAMPLES[f] for f in spec.needs}}
        if name == "stat":
            data["delta"] = 1
    elif table == "step":
        data = {"id": f"my_{name}", "kind": name}
    elif table == "vote":
        data = {"id": f"my_{name}", "names": {"ru": "…", "en": "…"}, "kind": name, "step": "<step>"}
    elif table == "victory":
        data = {"kind": name}
    else:
        data = {"kind": name}
    if params:
        data["params"] = params
    return yaml.safe_dump(data, default_flow_style=True, allow_unicode=True, width=10_000, sort_keys=False).strip()


SECTIONS = (("effect", registry.EFFECTS), ("impl", registry.IMPLS), ("step", registry.STEPS), ("vote", registry.VOTES),
            ("victory", registry.VICTORIES), ("check", registry.CHECKS), ("passive", TABLES["passive"]))


def reference(lang: str) -> list[str]:
    out = [say(lang, "reference.title"), ""]
    for table, names in SECTIONS:
        out.append(say(lang, f"reference.section.{table}", n=len(names)))
        for name in sorted(names):
            spec = TABLES[table].get(name, Params())
            out.append(f"  {name}: {spec.doc}")
            if table == "effect" and spec.effect_fields:
                out.append("    " + say(lang, "reference.fields", fields=", ".join(spec.effect_fields)))
            if spec.min_targets:
                out.append("    " + say(lang, "reference.min_targets", n=spec.min_targets))
            for key, p in spec.fields.items():
                default = say(lang, "reference.required") if p.default is REQUIRED else say(lang, "reference.default", value=_yaml(p.default))
                ref = f" ({say(lang, 'reference.ref', ref=p.ref)})" if p.ref else ""
                out.append(f"    {key}: {type_name(p.type, lang)}{ref}, {default}" + (f" — {p.doc}" if p.doc else ""))
            if spec.extra is not None:
                out.append("    " + say(lang, "reference.extra", ref=spec.extra.ref, type=type_name(spec.extra.type, lang), doc=spec.extra.doc))
            out.append("    " + say(lang, "reference.example", example=example(table, name, spec)))
        out.append("")
    out.append(say(lang, "reference.section.settings", n=len(GameSettings.model_fields)))
    for key, f in GameSettings.model_fields.items():
        default = say(lang, "reference.default", value=_yaml(f.get_default(call_default_factory=True)))
        out.append(f"  {key}: {type_name(f.annotation, lang)}, {default} — {f.description}")
    out.append("")
    out.append(say(lang, "reference.section.mail", names=", ".join(sorted(registry.MAIL)) or "—"))
    out.append(say(lang, "reference.section.early_end", names=", ".join(sorted(registry.EARLY_ENDS)) or "—"))
    return out
