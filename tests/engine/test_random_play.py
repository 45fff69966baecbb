"""The same random-play invariants for every ruleset, shipped and test-only."""

from __future__ import annotations

import contextlib
import json
import random

import pytest

from config import available_rulesets, load_ruleset_file
from engine import ActionError, Game, PlayerSpec

from ..players import submit_random

RULESETS = available_rulesets(include_tests=True)


def new_game(rules, seed: int) -> Game:
    """One player per role, as many as the table takes (Eternal Friday: 20 seats of 21 open roles)."""
    chars = [c.id for c in rules.characters] or [None]
    specs = [PlayerSpec(name=f"P{i}", role=r.id, character=chars[i % len(chars)]) for i, r in enumerate(rules.roles[: rules.table.max])]
    return Game.new(rules, seed, specs)


def random_turn(g: Game, rnd: random.Random) -> None:
    for p in g.state.players:
        legal = g.legal_actions(p.pid)
        if not g.alive(p):
            assert legal == []
            continue
        if legal and rnd.random() < 0.9:
            submit_random(g, p.pid, rnd, legal)
        for v in g.open_votes():
            choice = rnd.choice([q.pid for q in g.living()] + (["peace"] if v.params.get("peace") else []))
            with contextlib.suppress(ActionError):
                g.vote(p.pid, v.id, choice)
        if rnd.random() < 0.2:
            others = [q.pid for q in g.living() if q.pid != p.pid]
            if others:
                with contextlib.suppress(ActionError):
                    g.send_pm(p.pid, rnd.choice(others), "привет")


@pytest.mark.parametrize("rid", sorted(RULESETS))
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_random_play_keeps_invariants(rid, seed):
    rules = load_ruleset_file(RULESETS[rid])
    g = new_game(rules, seed)
    rnd = random.Random(seed)
    for _ in range(60):
        if g.state.over:
            break
        before = g.state.tick
        random_turn(g, rnd)
        events = g.resolve()
        assert g.state.tick == before + 1
        assert not g.state.intents, "intents are cleared by the resolve"
        for e in events:
            assert e.audience in ("public", "players", "faction", "gm")
            if e.audience == "public":
                # nothing secret in the public report: no secret or hidden stat is ever named
                secret = {s.id for s in rules.stats if s.visibility != "public"}
                assert e.args.get("stat") not in secret
        for p in g.state.players:
            for s in rules.stats:
                v = p.stats[s.id]
                assert s.min is None or v >= s.min, (p.name, s.id, v)
                assert s.max is None or v <= s.max, (p.name, s.id, v)
        data = json.loads(json.dumps(g.to_dict()))
        assert Game.from_dict(rules, data).to_dict() == data
    if rules.victory.kind == "highest_stat":
        assert g.state.over and len(g.state.winner) == 1


@pytest.mark.parametrize("rid", sorted(RULESETS))
def test_same_seed_same_game(rid):
    rules = load_ruleset_file(RULESETS[rid])
    runs = []
    for _ in range(2):
        g = new_game(rules, 42)
        rnd = random.Random(42)
        for _ in range(12):
            if g.state.over:
                break
            random_turn(g, rnd)
            g.resolve()
        runs.append(json.dumps(g.to_dict(), sort_keys=True))
    assert runs[0] == runs[1]
