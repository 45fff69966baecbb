"""200 seeded «Совет директоров» games with random legal play, run to the end: the book's
invariants hold (docs/rules/council.md).

Random players submit a legal action most of the time (the rest get the book's random action),
vote in both votes (players, «против всех», amnesty or execution), write PMs and make faction
moves at night. To keep the 200 games within about a minute, one game in five has a table of 8 to
16 players and the others 6 to 10 (the rules do not change with the size of the table).
"""

from __future__ import annotations

import contextlib
import random
from collections import Counter

import pytest

from config import load_ruleset
from engine import DEAL, ActionError, Game, PlayerSpec
from engine.factions import max_size

from ...players import submit_random

GAMES = 200
CHUNKS = 10


def barred_from_prison(g: Game, pid: int) -> bool:
    """A protection against prison in force («Подарить раба тюремщику»)."""
    p = g.player(pid)
    return any(
        sid.startswith("protected") and g.active(p, sid) and {"prison", "*"} & set(s.data.get("against", []))
        for sid, s in p.statuses.items()
    )


def acted_now(g: Game, pid: int) -> bool:
    """The turn's action is spent, or submitted in this period."""
    spent = "action" in g.player(pid).spent.get(g.info.turn, [])
    return spent or any(i.pid == pid and i.lane == "action" and i.tick == g.state.tick for i in g.state.intents)


def can_act(g: Game, pid: int) -> bool:
    return any(a.via is None and g.counts_as_action(a.ability) for a in g.legal_actions(pid))


def play_one(seed: int) -> Game:
    rules = load_ruleset("council")
    rnd = random.Random(seed)
    n = rnd.choice([8, 10, 12, 16]) if seed % 5 == 0 else rnd.choice([6, 8, 10])
    g = Game.new(rules, seed, [PlayerSpec(f"P{i}", DEAL, DEAL) for i in range(n)])
    acted: Counter[tuple[str, int]] = Counter()
    while not g.state.over:
        tick, info = g.state.tick, g.info
        last_of_turn = g.clock.is_turn_end(tick)
        alive = {p.pid for p in g.living()}
        jailed = {p.pid for p in g.state.players if p.has("prison")}
        votes = g.open_votes()
        for p in g.living():
            # one action a turn: a player who has acted only may use what is not an action (rarely)
            wants = rnd.random() < (0.05 if acted_now(g, p.pid) else 0.45)
            legal = g.legal_actions(p.pid) if wants else []
            if legal:
                submit_random(g, p.pid, rnd, legal)
            for v in votes:
                if rnd.random() < 0.5:
                    choice = rnd.choice([*range(n), "against_all", "amnesty", "execution"])
                    with contextlib.suppress(ActionError):
                        g.vote(p.pid, v.id, choice)
            if rnd.random() < 0.2:
                with contextlib.suppress(ActionError):
                    g.send_pm(p.pid, rnd.randrange(n), "…")
            if info.kind == "night" and rnd.random() < 0.3:
                op = rnd.choice(["invite", "invite", "accept", "leave", "kick", "overthrow"])
                with contextlib.suppress(ActionError):
                    g.faction_op(p.pid, op, rnd.randrange(n))
        # who must have acted when this turn is over: everyone who still can
        owed = {p.pid for p in g.living() if last_of_turn and not acted_now(g, p.pid) and can_act(g, p.pid)}
        events = g.resolve()
        for e in events:
            if e.key != "trace.action":
                continue
            actor = e.args["actor"]
            assert actor in alive, f"seed {seed}: a dead player acted at tick {tick}"
            if actor in jailed:
                assert g.passives(g.player(actor), "acts_in_prison"), f"seed {seed}: a prisoner acted"
            if g.counts_as_action(g.ability_def(e.args["ability"])):
                acted[(info.turn, actor)] += 1
        for pid in owed:  # «Бездействовать нельзя»: a missing action was drawn for them
            assert "action" in g.player(pid).spent.get(info.turn, []), f"seed {seed}: {g.player(pid).name} did not act in {info.turn}"
        for p in g.state.players:
            assert p.stats["tv"] >= 0, f"seed {seed}: negative ТВ"
            if not g.alive(p):
                assert not p.has("prison") and p.pid not in {m for f in g.state.factions.values() for m in f.members}
                continue
            # ±15 «тут же»: nobody at −15 is free (unless immune to prison), nobody at 15 stays in
            # prison beyond the resolve that put them there (a sentence carried out at 22:00)
            if p.stats["vs"] <= -15 and not p.has("prison"):
                assert barred_from_prison(g, p.pid), f"seed {seed}: {p.name} at {p.stats['vs']} is free"
            if p.stats["vs"] >= 15 and p.has("prison"):
                assert p.statuses["prison"].since == tick, f"seed {seed}: {p.name} at {p.stats['vs']} is in prison"
        for f in g.state.factions.values():
            assert 2 <= len(f.members) <= max_size(g, f) == 4, f"seed {seed}: faction {f.fid} has {len(f.members)}"
            assert f.leader in f.members
            if g.player(f.leader).has("prison"):
                # «Лидер фракции, попадающий в тюрьму, теряет свой статус лидера»: only a leader
                # who was already in prison when the lead came to them keeps it
                assert all(g.player(m).has("prison") for m in f.members) or f.leader in jailed
    for (turn, pid), count in acted.items():
        allowed = 1 + (1 if g.passives(g.player(pid), "extra_action") else 0)
        assert count <= allowed, f"seed {seed}: {g.player(pid).name} acted {count} times in {turn}"
    return g


@pytest.mark.parametrize("chunk", range(CHUNKS))
def test_random_council_games_run_to_the_end(chunk):
    for seed in range(chunk * GAMES // CHUNKS, (chunk + 1) * GAMES // CHUNKS):
        g = play_one(seed)
        assert g.state.over
        assert g.state.tick == g.end_tick, f"seed {seed}: ended at {g.state.tick}, end day {g.state.end_day}"
        # one winner — a faction's leader (with its Преданный members) or a free player; the
        # faction's other members are its lesser winners, never among the winners
        winners = g.state.winner
        loyal = [w for w in winners if any(x.get("as_member") for x in g.passives(g.player(w), "victory"))]
        assert len(winners) - len(loyal) <= 1, f"seed {seed}: winners {winners}"
        lesser = g.state.to_dict()["memo"].get("lesser_winners", [])
        assert not set(lesser) & set(winners)
        if lesser:
            f = next(f for f in g.state.factions.values() if set(winners) <= set(f.members))
            assert set(lesser) < set(f.members)
        for p in g.state.players:
            if p.has("executed"):
                assert not g.alive(p)
