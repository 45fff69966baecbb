"""The ability table of a ruleset: what is implemented and which scenarios play it."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import yaml

from engine.ruleset import AbilityDef, Ruleset, default_step

from .scenario import run_file

SCENARIOS = Path(__file__).resolve().parents[2] / "tests" / "scenarios"


@dataclass
class Row:
    owner: str
    kind: str  # role or character
    ability: AbilityDef
    step: str
    frequency: str
    implemented: str  # "yes", "GM task (book)", "NO"
    scenarios: list[str]


def _frequency(rules: Ruleset, ab: AbilityDef, lang: str) -> str:
    slot = rules.slot(ab.slot)
    cd = ab.cooldown_cycles if ab.cooldown_cycles is not None else slot.cooldown_cycles
    parts = []
    if cd:
        parts.append(f"1/{cd} cyc" if lang == "en" else f"1 раз в {cd} цикла")
    if ab.uses_per_game is not None:
        parts.append(f"{ab.uses_per_game}/game" if lang == "en" else f"{ab.uses_per_game} за игру")
    counts = ab.counts_as_action if ab.counts_as_action is not None else slot.counts_as_action
    if not counts:
        parts.append("not an action" if lang == "en" else "не действие")
    return ", ".join(parts) or ("each turn" if lang == "en" else "каждый ход")


@dataclass
class FeatureRow:
    owner: str
    kinds: list[str]
    scenarios: list[str]


def scenario_use(rules: Ruleset) -> dict[str, set[str]]:
    """Which ability keys each passing scenario of this ruleset really submitted (and, as
    ``character:<id>``, which characters were in play)."""
    out = {}
    for f in sorted(SCENARIOS.rglob("*.yaml")):
        try:
            data = yaml.safe_load(f.read_text(encoding="utf-8"))
        except yaml.YAMLError:
            continue
        if isinstance(data, dict) and data.get("ruleset") == rules.id:
            res = run_file(f)
            if res.ok:
                out[str(f.relative_to(SCENARIOS))] = res.used | {f"character:{c}" for c in res.characters}
    return out


def features(rules: Ruleset, lang: str = "ru", use: dict[str, set[str]] | None = None) -> list[FeatureRow]:
    """Each character's feature (its passives) and the scenarios that play that character."""
    use = scenario_use(rules) if use is None else use
    out = []
    for c in rules.characters:
        if c.passives:
            hits = [f for f, used in use.items() if f"character:{c.id}" in used]
            out.append(FeatureRow(getattr(c.name, lang), [p.kind for p in c.passives], hits))
    return out


def table(rules: Ruleset, lang: str = "ru", use: dict[str, set[str]] | None = None) -> list[Row]:
    use = scenario_use(rules) if use is None else use
    rows = []
    for kind, group in (("role", rules.roles), ("character", rules.characters)):
        for src in group:
            for ab in src.abilities:
                ops = {e.op for effs in [ab.effects, *ab.options.values()] for e in effs}
                if "gm_task" in ops and ab.book_undefined:
                    impl = "GM task (book)" if lang == "en" else "задача ведущему (по книге)"
                elif "gm_task" in ops:
                    impl = "NO"
                else:
                    impl = "yes" if lang == "en" else "да"
                key = f"{kind}:{src.id}:{ab.id}"
                hits = [f for f, used in use.items() if key in used]
                rows.append(Row(getattr(src.name, lang), kind, ab, ab.step or default_step(ab), _frequency(rules, ab, lang), impl, hits))
    return rows


def gaps(rows: list[Row]) -> list[str]:
    out = []
    for r in rows:
        if r.implemented == "NO":
            out.append(f"{r.owner}: «{r.ability.name.ru}» has no implementation")
        if not r.scenarios:
            out.append(f"{r.owner}: «{r.ability.name.ru}» has no scenario")
        if r.ability.text is None:
            out.append(f"{r.owner}: «{r.ability.name.ru}» has no text (what it does, for the role card)")
    return out


def text_gaps(rules: Ruleset) -> list[str]:
    """What the role card cannot say of this ruleset: a stat its players see without its
    meaning (a hidden one is the GM's bookkeeping unless its text says otherwise, seed 002's
    health), a team without its win condition (and no win condition for everyone)."""
    out = [f"stat {s.abbr.ru}: no text (what it means)" for s in rules.stats if s.text is None and s.visibility != "hidden"]
    teams = sorted({r.team for r in [*rules.roles, *rules.characters] if r.team})
    for t in teams:
        team = rules.team(t)
        if (team is None or team.text is None) and rules.victory.text is None:
            out.append(f"team {t}: no win condition (teams: [{{id: {t}, names: ..., text: ...}}])")
    if not teams and rules.victory.text is None:
        out.append("victory: no text (the win condition)")
    return out
