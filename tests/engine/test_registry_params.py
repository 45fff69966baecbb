"""Every registered behaviour declares its parameters (engine/registry_params.py), and the
declarations fit what they describe: their defaults are of their types."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from pydantic import TypeAdapter

from engine import registry
from engine.registry_params import REQUIRED, TABLES

REGISTRIES = {"effect": registry.EFFECTS, "impl": registry.IMPLS, "step": registry.STEPS, "vote": registry.VOTES,
              "victory": registry.VICTORIES, "check": registry.CHECKS}


@pytest.mark.parametrize("table", sorted(REGISTRIES))
def test_every_registered_name_declares_its_params(table):
    registered = set(REGISTRIES[table]) | ({"actions"} if table == "step" else set())  # a step's default kind
    declared = set(TABLES[table])
    assert registered - declared == set(), f"registered without a declaration in engine/registry_params.py: {sorted(registered - declared)}"
    assert declared - registered == set(), f"declared but not registered: {sorted(declared - registered)}"


def test_every_passive_kind_declares_its_params():
    from engine.ruleset import PASSIVE_KINDS, PASSIVE_PREFIXES

    assert set(TABLES["passive"]) == set(PASSIVE_KINDS) | {f"{p}<status>" for p in PASSIVE_PREFIXES}


def test_the_registries_are_the_ones_the_issue_counts():
    assert len(registry.IMPLS) >= 93 and len(registry.EFFECTS) >= 19 and len(registry.VOTES) >= 6 and len(registry.VICTORIES) >= 5


@pytest.mark.parametrize("table", sorted(TABLES))
def test_each_default_is_of_its_type(table):
    bad = []
    for name, spec in TABLES[table].items():
        assert spec.doc, f"{table} {name}: no doc"
        for key, p in spec.fields.items():
            if p.default is REQUIRED:
                continue
            try:
                TypeAdapter(p.type).validate_python(p.default)
            except Exception as exc:  # noqa: BLE001  (any refusal is the finding)
                bad.append(f"{table} {name}.{key}: {p.default!r}: {exc}")
    assert not bad, "\n".join(bad)


# a parameter read in the engine: ``eff.params.get("x")``, ``sd.params["x"]``, ``prm.get("x")`` …
READ = re.compile(r'\b(?:eff|sd|vdef|ck|c|e|step|effect|ab)\.params(?:\.get\(|\[)"([a-z_]+)"|\bprm(?:\.get\(|\[)"([a-z_]+)"')


def test_every_parameter_the_engine_reads_is_declared():
    """A key read from a behaviour's params that no declaration names would be refused in every
    ruleset that uses it: declare it where the behaviour's parameters are."""
    declared = {k for table in TABLES.values() for spec in table.values() for k in spec.fields}
    read: dict[str, str] = {}
    for path in sorted((Path(__file__).resolve().parents[2] / "engine").rglob("*.py")):
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            for m in READ.finditer(line):
                read.setdefault(m.group(1) or m.group(2), f"{path.name}:{n}")
    assert len(read) > 50
    undeclared = {k: at for k, at in read.items() if k not in declared}
    assert not undeclared, undeclared
