"""The same vanilla night in our engine (ruleset ``classic``) and in a peer engine, for
``altmafia bench``'s comparison.

The peer is calder/mafia (PyPI ``mafia==1.0.0``, the optional ``bench`` extra): an engine of
the classic night with natural action resolution. Its API is used as its own documentation
shows (``Game``, factions, roles, ``Night.add_action``, ``Game.resolve``); nothing of its code
is copied here.

The table at ``n`` seats: per 8 seats one mafioso, one doctor, one cop and one roleblocker, the
rest villagers. Every player with a night action uses it on a target drawn from one seeded
generator, the same targets in both engines (the mafia's kill by its first member, on a
non-mafioso). What is timed is the night's resolution only, in a fresh game each time: in ours
``Game.resolve()`` after the submissions, in the peer ``Game.resolve(night)`` after
``Night.add_action``. Building the games and submitting are outside the clock in both.
"""

from __future__ import annotations

import importlib.util
import random
import time
from dataclasses import dataclass
from typing import Any

from config import load_ruleset
from engine import Game, PlayerSpec

#: our ability of each acting role of the table
ACTIONS = {"mafioso": "role:mafioso:mafia_kill", "doctor": "role:doctor:heal", "cop": "role:cop:investigate",
           "roleblocker": "role:roleblocker:roleblock"}


def peer_available() -> bool:
    return importlib.util.find_spec("mafia") is not None


def table(n: int) -> list[str]:
    """The roles of the seats at a table of ``n`` (``n`` ≥ 5)."""
    k = max(1, n // 8)
    roles = ["mafioso"] * k + ["doctor"] * k + ["cop"] * k + ["roleblocker"] * k
    return roles + ["villager"] * (n - len(roles))


@dataclass(frozen=True)
class Night:
    """One night's plan: the roles and who targets whom (seat -> seat)."""

    roles: tuple[str, ...]
    targets: tuple[tuple[int, int], ...]


def plan(n: int, seed: int) -> Night:
    roles = table(n)
    rnd = random.Random(seed)
    town = [i for i, r in enumerate(roles) if r != "mafioso"]
    out: list[tuple[int, int]] = []
    killer_done = False
    for i, r in enumerate(roles):
        if r == "villager":
            continue
        if r == "mafioso":
            if killer_done:
                continue  # one kill for the team, by its first member
            killer_done = True
            out.append((i, rnd.choice(town)))
        else:
            out.append((i, rnd.choice([j for j in range(n) if j != i])))
    return Night(tuple(roles), tuple(out))


_RULES: list[Any] = []
#: the peer's rule of order (natural action resolution), a setting of ours: like for like
SETTINGS = {"action_order": "dependencies"}


def build_ours(night: Night, seed: int) -> Game:
    """A fresh game of ours with the night's actions submitted."""
    if not _RULES:
        _RULES.append(load_ruleset("classic"))
    g = Game.new(_RULES[0], seed, [PlayerSpec(f"p{i}", r) for i, r in enumerate(night.roles)], dict(SETTINGS))
    for actor, target in night.targets:
        g.submit(actor, ACTIONS[night.roles[actor]], [target])
    return g


def build_theirs(night: Night, seed: int) -> tuple[Any, Any, list[Any]]:
    """A fresh game of the peer, its night with the same actions, and its players by seat."""
    # imported here: the peer library is an optional extra, and only the peer comparison needs it
    import mafia as peer

    game = peer.Game(seed=seed)
    town = game.add_faction(peer.Town())
    maf = game.add_faction(peer.Mafia("Mafia"))
    kinds = {"mafioso": (peer.Goon, maf), "doctor": (peer.Doctor, town), "cop": (peer.Cop, town),
             "roleblocker": (peer.Roleblocker, town), "villager": (peer.Villager, town)}
    players = [game.add_player(f"p{i}", kinds[r][0](kinds[r][1])) for i, r in enumerate(night.roles)]
    game.begin()
    n0 = peer.Night(0)
    simple = {"doctor": peer.Protect, "cop": peer.Investigate, "roleblocker": peer.Roleblock}
    for actor, target in night.targets:
        role = night.roles[actor]
        if role == "mafioso":
            n0.add_action(peer.FactionAction(maf, peer.Kill(players[actor], players[target])))
        else:
            n0.add_action(simple[role](players[actor], players[target]))
    return game, n0, players


def ours(night: Night, seed: int) -> float:
    """Seconds our engine takes to resolve the night (a fresh game)."""
    g = build_ours(night, seed)
    t0 = time.perf_counter()
    g.resolve()
    return time.perf_counter() - t0


def theirs(night: Night, seed: int) -> float:
    """Seconds the peer takes to resolve the same night (a fresh game)."""
    game, n0, _ = build_theirs(night, seed)
    t0 = time.perf_counter()
    game.resolve(n0)
    return time.perf_counter() - t0


def deaths(night: Night, seed: int) -> tuple[set[int], set[int] | None]:
    """Who dies in the night in ours and in the peer (None when it is not installed)."""
    g = build_ours(night, seed)
    g.resolve()
    mine = {p.pid for p in g.state.players if not g.alive(p)}
    if not peer_available():
        return mine, None
    game, n0, players = build_theirs(night, seed)
    game.resolve(n0)
    return mine, {i for i, p in enumerate(players) if not p.alive}
