"""200 seeded Godfather games with random legal play, run to the end: the invariants hold."""

from __future__ import annotations

import contextlib
import random
from collections import Counter

import pytest

from config import load_ruleset
from engine import DEAL, ActionError, Game, PlayerSpec

from ...players import submit_random

GAMES = 200


def play_one(seed: int) -> Game:
    rules = load_ruleset("godfather")
    rnd = random.Random(seed)
    n = rnd.choice([13, 13, 13, 10, 16])
    g = Game.new(rules, seed, [PlayerSpec(f"P{i}", DEAL, DEAL) for i in range(n)])
    while not g.state.over:
        tick = g.state.tick
        before_alive = {p.pid for p in g.living()}
        before_prison = {p.pid for p in g.state.players if p.has("prison")}
        for p in g.living():
            legal = g.legal_actions(p.pid)
            if legal and rnd.random() < 0.85:
                submit_random(g, p.pid, rnd, legal)
            for v in g.open_votes():
                with contextlib.suppress(ActionError):
                    g.vote(p.pid, v.id, rnd.choice(list(range(len(g.state.players)))))
            if rnd.random() < 0.3:
                with contextlib.suppress(ActionError):
                    g.send_pm(p.pid, rnd.randrange(len(g.state.players)), "…")
            if rnd.random() < 0.05:
                with contextlib.suppress(ActionError):
                    g.post_anon(p.pid, "слух")
            if g.info.kind == "night" and rnd.random() < 0.3:
                op = rnd.choice(["invite", "invite", "accept", "leave", "kick", "overthrow"])
                target = rnd.randrange(len(g.state.players))
                with contextlib.suppress(ActionError):
                    g.faction_op(p.pid, op, target)
        events = g.resolve()
        acted = Counter()
        for e in events:
            if e.key != "trace.action":
                continue
            actor = e.args["actor"]
            assert actor in before_alive, f"seed {seed}: a dead player acted at tick {tick}"
            if actor in before_prison:
                assert g.passives(g.player(actor), "acts_in_prison"), f"seed {seed}: a prisoner acted"
            ab = g.ability_def(e.args["ability"])
            acted[actor] += 1 if g.counts_as_action(ab) else 0
        for pid, n_actions in acted.items():
            allowed = 1 + (1 if g.passives(g.player(pid), "extra_action") else 0)
            assert n_actions <= allowed, f"seed {seed}: {g.player(pid).name} acted {n_actions} times at tick {tick}"
        for p in g.state.players:
            assert p.stats["tv"] >= 0, f"seed {seed}: negative ТВ"
        for f in g.state.factions.values():
            from engine.factions import max_size

            assert 2 <= len(f.members) <= max(max_size(g, f), 4), f"seed {seed}: faction {f.fid} has {len(f.members)}"
            assert f.leader in f.members
        assert g.state.tick <= g.clock.cycles(g.rules.calendar.max_days)
    return g


@pytest.mark.parametrize("chunk", range(10))
def test_random_games_run_to_the_end(chunk):
    for seed in range(chunk * GAMES // 10, (chunk + 1) * GAMES // 10):
        g = play_one(seed)
        assert g.state.over
        assert g.state.tick == g.end_tick, f"seed {seed}: ended at {g.state.tick}, end day {g.state.end_day}"
        # one winner, and with a faction's leader its Преданный members («Может победить не будучи лидером»)
        loyal = [w for w in g.state.winner if any(x.get("as_member") for x in g.passives(g.player(w), "victory"))]
        assert len(g.state.winner) - len(loyal) <= 1
