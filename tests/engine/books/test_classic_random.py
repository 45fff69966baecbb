"""Seeded classic games with random legal play, run to the end: the ruleset's invariants.

Tables of 5 to 64 seats are dealt by the engine (the deal per size); every living player
submits random legal night actions (teammates sometimes give a mafioso's kill) and votes at
random, with the action order switched to the peer's natural resolution in some games. After
every resolve:

- the deal is the size's deck, every other seat a villager; the Mafia is one faction of
  exactly its members;
- the dead never act, are never targeted and never vote;
- a night kills at most one player for the Mafia plus one per vigilante shot;
- a day lynches at most one player;
- no role reaches the public report but a dead player's, and a check's answer only the cop;
- the game ends, and the winners are the town when no Mafia is left, else the Mafia at half.
"""

from __future__ import annotations

import contextlib
import json
import random
from collections import Counter

import pytest

from config import load_ruleset
from engine import DEAL, ActionError, Game, PlayerSpec
from engine.books.classic.abilities import team

GAMES = 24
SIZES = [5, 6, 8, 9, 12, 16, 24, 32, 64]


def play(seed: int) -> None:
    rules = load_ruleset("classic")
    rnd = random.Random(seed)
    n = SIZES[seed % len(SIZES)]
    settings = {"action_order": "dependencies"} if seed % 3 == 0 else {}
    g = Game.new(rules, seed, [PlayerSpec(f"P{i}", DEAL) for i in range(n)], settings=settings)
    deck = rules.table.deck(n)
    want = Counter({**{"villager": n - sum(deck.cards.values())}, **deck.cards})
    assert Counter(p.role for p in g.state.players) == want
    mafia = {p.pid for p in g.state.players if team(g, p) == "mafia"}
    assert set(g.state.factions) == {"mafia"} and set(g.state.factions["mafia"].members) == mafia

    for _ in range(200):
        if g.state.over:
            break
        night = g.info.kind == "night"
        dead_before = {p.pid for p in g.state.players if not g.alive(p)}
        for p in g.state.players:
            legal = g.legal_actions(p.pid)
            if not g.alive(p):
                assert legal == []
                for v in g.open_votes():
                    with pytest.raises(ActionError):
                        g.vote(p.pid, v.id, next(q.pid for q in g.living()))
                continue
            for a in legal:
                assert not set(a.targets) & dead_before, "the dead are never targets"
                if rnd.random() < 0.8:
                    with contextlib.suppress(ActionError):
                        g.submit(p.pid, a.key, rnd.sample(sorted(a.targets), a.ability.targets), a.any_option(rnd))
            if p.pid in mafia and rnd.random() < 0.1:  # a teammate gives this mafioso's kill
                mate = next((m for m in sorted(mafia) if m != p.pid and g.alive(g.player(m))), None)
                legal = g.legal_actions(p.pid)
                if mate is not None and legal:
                    with contextlib.suppress(ActionError):
                        g.submit(p.pid, legal[0].key, rnd.sample(sorted(legal[0].targets), 1), by=mate)
            for v in g.open_votes():
                if rnd.random() < 0.9:
                    with contextlib.suppress(ActionError):
                        g.vote(p.pid, v.id, rnd.choice([q.pid for q in g.living()]))
        shots = sum(1 for i in g.state.intents if i.ability.endswith(":vigilante_kill") and i.tick == g.state.tick)
        events = g.resolve()
        died = {p.pid for p in g.state.players if not g.alive(p)} - dead_before
        if night:
            assert len(died) <= 1 + shots
        else:
            assert len(died) <= 1
        for e in events:
            if e.audience == "public" and e.key == "death.role":
                assert e.args["player"] in died
            if e.key.startswith("classic.check"):
                assert e.audience == "players" and g.player(e.ids[0]).role == "cop"
            assert not (e.audience == "public" and e.key.startswith("classic.check"))
        data = json.loads(json.dumps(g.to_dict()))
        assert Game.from_dict(rules, data).to_dict() == data
    assert g.state.over
    alive = Counter(team(g, p) for p in g.living())
    winners = set(g.state.winner)
    if not g.living():
        assert winners == set()
    elif alive["mafia"] == 0:
        assert winners == {p.pid for p in g.state.players if team(g, p) == "town"}
    elif alive["mafia"] * 2 >= len(g.living()):
        assert winners == mafia
    else:
        assert winners == set()  # the time ran out


@pytest.mark.parametrize("seed", range(GAMES))
def test_random_classic_game(seed):
    play(seed)
