"""200 seeded stats-mafia games with random legal play, run to the end: the book's invariants hold.

Every phase each free living player submits a random share of what is legal (any number of
different abilities, as the book allows), votes by day, writes letters; the GM jails at random
now and then. Tables of 6–15 players (the deck is dealt by the game's generator); 10 chunks of
20 games.
"""

from __future__ import annotations

import contextlib
import json
import random
from collections import Counter

import pytest

from config import load_ruleset
from engine import DEAL, ActionError, Game, PlayerSpec
from engine.books.stats_mafia.core import memo

from ...players import submit_drawn

GAMES = 200
RULES = load_ruleset("stats_mafia")


def team(g: Game, pid: int) -> str | None:
    return g.rules.character(g.player(pid).character).team


def play_one(seed: int) -> Game:
    rnd = random.Random(seed)
    n = rnd.choice([15, 15, 12, 9, 6])
    g = Game.new(RULES, seed, [PlayerSpec(f"P{i}", DEAL, DEAL) for i in range(n)])
    while not g.state.over:
        tick = g.state.tick
        alive = {p.pid for p in g.living()}
        jailed = {p.pid for p in g.living() if g.active(p, "prison")}
        for p in g.living():
            for a in g.legal_actions(p.pid):
                if rnd.random() < 0.35:
                    with contextlib.suppress(ActionError):  # an irrevocable lane, a spent option
                        submit_drawn(g, p.pid, rnd, a)
            for v in g.open_votes():
                with contextlib.suppress(ActionError):
                    g.vote(p.pid, v.id, rnd.choice(sorted(alive)))
            if rnd.random() < 0.3:
                with contextlib.suppress(ActionError):
                    g.send_pm(p.pid, rnd.randrange(n), "письмо")
            if rnd.random() < 0.05:
                with contextlib.suppress(ActionError):
                    g.post_anon(p.pid, "всем")
        if rnd.random() < 0.03 and alive - jailed:  # the GM jails someone for two сутки
            g.gm_set_status(rnd.choice(sorted(alive - jailed)), "prison", 2)
        assert set(g.waiting_for()) <= alive - jailed
        events = g.resolve()
        used = Counter()
        for e in events:
            if e.key == "trace.action":
                actor = e.args["actor"]
                ab = g.ability_def(e.args["ability"])
                assert actor in alive, f"seed {seed}: the dead acted at tick {tick}"
                assert actor not in jailed or ab.slot == "prison", f"seed {seed}: a prisoner used {ab.id}"
                used[(actor, ab.lane or e.args["ability"])] += 1
            if e.key in ("sm.mail", "sm.mail_town"):
                assert "sender" not in e.args, "an anonymous letter carries its author"
            if e.audience == "public":
                assert e.args.get("stat") not in {"initiative", "defense", "stealth"}
        assert all(k <= 1 for k in used.values()), f"seed {seed}: an ability or lane used twice in a phase: {used}"
        for p in g.state.players:
            h = p.statuses.get("hospital")
            if h is not None:
                assert h.until is not None and h.until > g.state.tick, f"seed {seed}: hospital days below zero"
            if not g.alive(p):
                assert not {"hospital", "prison", "life_sentence"} & set(p.statuses), f"seed {seed}: the dead in hospital or prison"
            if "life_sentence" in p.statuses:
                assert p.statuses["prison"].until is None
        assert g.state.tick <= g.clock.cycles(12), f"seed {seed}: the game went past day 12"
        if tick % 7 == 0:
            data = json.loads(json.dumps(g.to_dict()))
            assert Game.from_dict(RULES, data).to_dict() == data
    return g


@pytest.mark.parametrize("chunk", range(10))
def test_random_games_keep_the_books_invariants(chunk):
    for seed in range(chunk * GAMES // 10, (chunk + 1) * GAMES // 10):
        g = play_one(seed)
        assert g.state.over and g.state.tick <= g.clock.cycles(12)
        winners = g.state.winner
        if winners:
            # one team, or the Maniac alone («Я легенда!»); winners are alive and free
            assert len({team(g, w) for w in winners}) == 1, f"seed {seed}: winners of two teams"
            assert all(g.alive(g.player(w)) and not g.active(g.player(w), "prison") for w in winners)
            if team(g, winners[0]) == "maniac":
                assert len(g.living()) == 1
        half = memo(g).half_winners
        assert not half or (not winners and g.state.tick == g.clock.cycles(12))


def test_contacts_tell_the_mafia_one_another():
    """«Контакты - в начале игры все члены Мафии узнают Явные роли друг друга.»"""
    specs = [
        PlayerSpec("Аня", "Политик", "Босс"), PlayerSpec("Борис", "Миллионер", "Киллер"),
        PlayerSpec("Вера", "Повар", "Агент"), PlayerSpec("Глеб", "Доктор", "Мирный житель"),
        PlayerSpec("Ира", "Гик", "Маньяк"),
    ]
    g = Game.new(RULES, 1, specs)
    (ev,) = [e for e in g.state.events if e.key == "sm.contacts"]
    assert sorted(ev.ids) == [0, 1, 2] and ev.audience == "players"
    assert ev.args["players"] == [0, 1, 2]
    # without the Boss nobody learns anything («Контакты» is his)
    g2 = Game.new(RULES, 1, [PlayerSpec(s.name, s.role, "Мирный житель" if s.character == "Босс" else s.character) for s in specs])
    assert not [e for e in g2.state.events if e.key == "sm.contacts"]


def test_the_deck_holds_the_books_fifteen_secret_roles():
    g = Game.new(RULES, 3, [PlayerSpec(f"P{i}", DEAL, DEAL) for i in range(15)])
    dealt = Counter(p.character for p in g.state.players)
    assert dealt["civilian"] == 3 and dealt["criminalist"] == 2
    assert sum(dealt.values()) == 15 and len(dealt) == 12
    assert len({p.role for p in g.state.players}) == 15


def test_a_phase_may_end_early():
    """«Ночь может закончиться раньше, если все, кто могли дать заявки, их дали ... Слоупоки не
    задерживают ночь»; «День может быть закончен раньше, если голосование завершено»."""
    specs = [PlayerSpec("Аня", "Политик", "Киллер"), PlayerSpec("Борис", "Миллионер", "Мирный житель"),
             PlayerSpec("Вера", "Журналист", "Сыщик")]
    g = Game.new(RULES, 2, specs)
    assert g.waiting_for() == [0, 1, 2]
    g.submit(0, "Убийство", [1])
    assert g.waiting_for({2}) == [1]                   # Вера told the GM she does nothing
    g.gm_set_status(1, "slowpoke")
    assert g.waiting_for({2}) == []                    # a Слоупок holds up nobody
    g.resolve()
    assert g.info.kind == "day" and g.waiting_for() == [0, 2]   # Борис is in the Morgue
    g.vote(0, "veche", 2)
    g.submit(2, "Расследование", [0])                   # instead of the vote
    assert g.waiting_for() == []
