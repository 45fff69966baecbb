"""200 seeded «Вечная пятница» games with random legal play, run to the end: the book's invariants.

Each game has 18–20 players (the book's table: open roles claimed, secret roles dealt from the
deck), who submit random legal night and day actions (extra pistol shots and shuriken too),
vote (for players or «за мир»), write PMs and, in Mafia and Yakuza, give actions for their
teammates, for now or for a later phase. After every resolve:

- the dead never act, are never targeted (but by the marauder, who loots the dead), never vote;
- a comatose player acts in no way; a hospital patient uses no night ability but those the
  book allows from hospital;
- HP stays within bounds: a living player has 1 … their maximum (a mortally wounded avenger
  counts 100), a dead one 0 or less; the health words are exactly one per living player;
- no HP number and no secret role reaches the public report;
- nothing private reaches a player who is dead or in a coma after the resolve;
- the game ends with one team's win or a draw, and the winners' team is the last one alive.
"""

from __future__ import annotations

import contextlib
import json
import random
from collections import Counter

import pytest

from config import load_ruleset
from engine import DEAL, ActionError, Game, PlayerSpec
from engine.books.eternal_friday.core import WOUND, effective_hp, team_of, word_ids

GAMES = 200
CHUNKS = 4


def new_game(seed: int, rnd: random.Random) -> Game:
    rules = load_ruleset("eternal_friday")
    n = rnd.choice([18, 18, 19, 20])
    roles = sorted(r.id for r in rules.roles)
    rnd.shuffle(roles)  # «На каждую явную роль может быть только один представитель»
    return Game.new(rules, seed, [PlayerSpec(f"P{i}", roles[i], DEAL) for i in range(n)])


def random_targets(rnd: random.Random, a) -> list[int]:
    ab = a.ability
    if not ab.targets:
        return []
    n = ab.targets
    if ab.max_targets and rnd.random() < 0.2:
        n = rnd.randint(n, n + 2)  # more shots than saved are refused: that is fine
    if ab.repeat_targets:
        return [rnd.choice(a.targets) for _ in range(n)]
    return rnd.sample(a.targets, min(n, len(a.targets)))


def play_turn(g: Game, rnd: random.Random) -> None:
    for p in g.living():
        teammates = [m for f in g.factions_of(p.pid) for m in sorted(f.members) if m != p.pid]
        for a in g.legal_actions(p.pid):
            if rnd.random() < 0.4:
                continue
            with contextlib.suppress(ActionError):
                g.submit(p.pid, a.key, random_targets(rnd, a), a.any_option(rnd), via=a.via)
        for v in g.open_votes():
            if rnd.random() < 0.85:
                choice = rnd.choice([q.pid for q in g.living()] + ["peace"])
                with contextlib.suppress(ActionError):
                    g.vote(p.pid, v.id, choice)
        if rnd.random() < 0.1:
            with contextlib.suppress(ActionError):
                g.send_pm(p.pid, rnd.randrange(len(g.state.players)), "…")
        if teammates and rnd.random() < 0.15:  # an action given for an absent teammate
            m = rnd.choice(teammates)
            legal = g.legal_actions(m)
            if legal:
                a = rnd.choice(legal)
                later = g.state.tick + 2 if rnd.random() < 0.3 else None
                with contextlib.suppress(ActionError):
                    g.submit(m, a.key, random_targets(rnd, a), a.any_option(rnd), by=p.pid, tick=later)


def check_resolve(g: Game, seed: int, before: dict, events: list) -> None:
    rules = g.rules
    tick = before["tick"]
    kind = g.clock.info(tick).kind
    for e in events:
        if e.key == "trace.action":
            actor = e.args["actor"]
            assert actor in before["alive"], f"seed {seed}: the dead {actor} acted at {tick}"
            assert actor not in before["coma"], f"seed {seed}: a comatose player acted at {tick}"
            ab = g.ability_def(e.args["ability"])
            if kind == "night" and actor in before["hospital"]:
                assert ab.slot == "night_hospital", f"seed {seed}: {ab.id} from hospital at {tick}"
            if not ab.dead_targets:
                for t in e.args["targets"]:
                    assert t in before["alive"], f"seed {seed}: a dead target of {ab.id} at {tick}"
            assert g.clock.info(tick).kind == rules.slot(ab.slot).phase
        if e.audience == "public":
            assert e.args.get("stat") is None, f"seed {seed}: a stat in the public report: {e.key}"
            assert "value" not in e.args and "amount" not in e.args, f"seed {seed}: a number in public: {e.key}"
        if e.audience == "players":
            for pid in e.ids:
                p = g.player(pid)
                assert g.alive(p) and not g.active(p, "coma"), f"seed {seed}: {e.key} reached {p.name} (dead or in a coma)"
    if kind == "day":
        # every day's vote is told once: its tally, or «Никто не проголосовал» alone
        counted = [e for e in events if e.key == "vote.tally"]
        nobody = [e for e in events if e.key == "vote.nobody"]
        assert len(counted) + (not counted and len(nobody)) == 1
        assert all(c in before["alive"] for e in counted for c, _ in e.args["tally"] if isinstance(c, int)), f"seed {seed}: a vote for the dead"
    for p in g.state.players:
        hp, cap = p.stats["hp"], p.stats["hp_max"]
        word = [s for s in p.statuses if s in word_ids(g)]
        if g.alive(p):
            if g.active(p, WOUND):
                assert effective_hp(g, p) == 100 and not word
            else:
                assert 1 <= hp <= cap, f"seed {seed}: {p.name} alive with {hp}/{cap} HP at {tick}"
                assert len(word) == 1, f"seed {seed}: {p.name} has words {word}"
        else:
            assert hp <= 0, f"seed {seed}: {p.name} dead with {hp} HP"
            assert not word
        assert p.stats["shots"] >= 0


def play_one(seed: int) -> Game:
    rnd = random.Random(seed)
    g = new_game(seed, rnd)
    # «в начале игры узнают всех игроков своей фракции»: a channel per team, nobody else in it
    for team in ("mafia", "yakuza"):
        f = g.state.factions[team]
        assert sorted(f.members) == sorted(p.pid for p in g.state.players if team_of(g, p) == team)
    deck = Counter(p.character for p in g.state.players)
    assert deck["boss"] == deck["thug"] == deck["killer"] == deck["sensei"] == deck["ninja"] == deck["shinobi"] == 1
    assert deck["punisher"] == 2 and 6 <= deck["civilian"] <= 8
    assert g.info.label == "night 1"  # «Игра начинается с ночи»
    while not g.state.over:
        before = {
            "tick": g.state.tick,
            "alive": {p.pid for p in g.living()},
            "coma": {p.pid for p in g.living() if g.active(p, "coma")},
            "hospital": {p.pid for p in g.living() if g.active(p, "hospital")},
        }
        play_turn(g, rnd)
        events = g.resolve()
        check_resolve(g, seed, before, events)
        if g.state.tick in (6, 15):  # the state round-trips through JSON mid-game
            data = json.loads(json.dumps(g.to_dict()))
            assert Game.from_dict(g.rules, data).to_dict() == data
    return g


@pytest.mark.parametrize("chunk", range(CHUNKS))
def test_random_games_run_to_the_end(chunk):
    for seed in range(chunk * GAMES // CHUNKS, (chunk + 1) * GAMES // CHUNKS):
        g = play_one(seed)
        assert g.state.over
        teams = {team_of(g, g.player(w)) for w in g.state.winner}
        alive = {team_of(g, p) for p in g.living()}
        if g.state.winner:
            assert len(teams) == 1, f"seed {seed}: winners of several teams {teams}"
            assert alive <= teams, f"seed {seed}: {teams} won while {alive} live"
            (team,) = teams
            assert set(g.state.winner) == {p.pid for p in g.state.players if team_of(g, p) == team}
        else:
            assert not alive or g.state.tick >= g.end_tick, f"seed {seed}: a draw with {alive} alive"
