"""engine/visibility.py: who may read and write where, as plain data by seat.

The living write in public, the dead and the silenced read only; spectators read the public
channels; each seat has its own hidden channel; a faction's members talk in its channel; a
team the ruleset names in ``settings.team_talk`` (not a literal "mafia") has a channel its free
members write in on its nights only.
"""

from __future__ import annotations

import contextlib
import random

from config import load_ruleset
from engine import DEAL, ActionError, Game, PlayerSpec
from engine.visibility import NONE, RO, RW, channel, channels, may_talk, talk_teams

from ..players import submit_drawn


def stats_game(settings: dict | None = None) -> Game:
    ps = [("Аня", "Политик", "Киллер"), ("Борис", "Миллионер", "Мирный житель"), ("Вера", "Здоровяк", "Мирный житель"),
          ("Глеб", "Омоновец", "Агент"), ("Дима", "Параноик", "Полицейский"), ("Ева", "Доктор", "Сыщик")]
    return Game.new(load_ruleset("stats_mafia"), 1, [PlayerSpec(n, r, c) for n, r, c in ps], settings)


def test_the_fixed_channels():
    g = stats_game()
    keys = [c.key for c in channels(g)]
    assert keys[:4] == ["public", "votes", "spectators", "gm"]
    assert [k for k in keys if k.startswith("player:")] == [f"player:{i}" for i in range(6)]
    votes, spect, gm = channel(g, "votes"), channel(g, "spectators"), channel(g, "gm")
    assert votes.readers == frozenset(range(6)) and not votes.writers and votes.spectators
    assert not spect.readers and spect.spectators
    assert not gm.readers and not gm.writers and not gm.spectators
    mine = channel(g, "player:3")
    assert mine.access(3) == RW and mine.access(2) == NONE and not mine.spectators


def test_public_the_dead_and_the_silenced_read_only():
    g = stats_game()
    pub = channel(g, "public")
    assert pub.writers == frozenset(range(6)) and pub.spectators
    g.gm_remove(1)
    g.gm_set_status(2, "prison", 2)  # settings.silenced_statuses: [prison]
    pub = channel(g, "public")
    assert pub.access(1) == RO and pub.access(2) == RO and pub.access(0) == RW
    assert not may_talk(g, 1) and not may_talk(g, 2)


def test_the_team_channel_comes_from_the_ruleset_and_opens_on_its_nights():
    g = stats_game()
    assert talk_teams(g) == {"mafia": [1]}
    team = channel(g, "team:mafia")
    mafia = {p.pid for p in g.state.players if g.team(p) == "mafia"}
    assert mafia and team.readers == frozenset(mafia) and team.owner == "mafia"
    assert g.info.kind == "night" and g.info.day == 1 and team.writers == frozenset(mafia)
    g.resolve()  # day 1: the channel stays, read-only
    team = channel(g, "team:mafia")
    assert team.readers == frozenset(mafia) and not team.writers
    g.resolve()  # night 2: not a night to talk
    assert not channel(g, "team:mafia").writers


def test_no_literal_mafia():
    g = stats_game({"team_talk": {"law": [1, 2]}})
    assert channel(g, "team:mafia") is None
    law = channel(g, "team:law")
    members = {p.pid for p in g.state.players if g.team(p) == "law"}
    assert law is not None and law.readers == frozenset(members) and law.writers == frozenset(members)
    assert not [c for c in channels(stats_game({"team_talk": {}})) if c.kind == "team"]


def test_faction_channels_follow_the_members():
    rules = load_ruleset("eternal_friday")
    g = Game.new(rules, 2, [PlayerSpec(f"P{i}", DEAL, DEAL) for i in range(18)])
    facs = [c for c in channels(g) if c.kind == "faction"]
    assert facs, "Eternal Friday's teams get channels"
    for c in facs:
        assert c.readers == frozenset(g.state.factions[c.owner].members)
        assert c.writers <= c.readers


def test_writers_are_readers_over_random_games():
    for ruleset, n in (("godfather", 8), ("stats_mafia", 9), ("classic", 9), ("council", 8)):
        g = Game.new(load_ruleset(ruleset), 5, [PlayerSpec(f"P{i}", DEAL, DEAL) for i in range(n)])
        rnd = random.Random(5)
        for _ in range(6):
            if g.state.over:
                break
            for c in channels(g):
                assert c.writers <= c.readers, (ruleset, c)
                assert all(g.alive(g.player(pid)) or c.kind == "player" for pid in c.writers), (ruleset, c)
            for p in g.living():
                legal = g.legal_actions(p.pid)
                if legal:
                    with contextlib.suppress(ActionError):
                        submit_drawn(g, p.pid, rnd, rnd.choice(legal))
            g.resolve()
