"""The random players of the tests: one way to pick a random legal move, the simulator's own
draw (:func:`altmafia.tools.simulate.table.draw`), so that the random games of the tests and
``altmafia simulate`` play alike. Every draw comes from the game's seeded ``rnd``; the order
of the draws (the move, its targets, its option) is part of each seeded test."""

from __future__ import annotations

import random

from altmafia.tools.simulate.table import draw
from engine import Game, LegalAction


def random_move(rnd: random.Random, legal: list[LegalAction]) -> tuple[LegalAction, list[int], str | None]:
    """One of ``legal``, the fewest targets it takes and a random option or number."""
    a = rnd.choice(legal)
    targets, option = draw(rnd, a, fewest=True)
    return a, targets, option


def submit_random(g: Game, pid: int, rnd: random.Random, legal: list[LegalAction]) -> LegalAction:
    """Player ``pid`` submits a random one of ``legal`` (the engine may refuse: ActionError)."""
    a, targets, option = random_move(rnd, legal)
    g.submit(pid, a.key, targets, option, via=a.via)
    return a


def submit_drawn(g: Game, pid: int, rnd: random.Random, a: LegalAction) -> None:
    """Player ``pid`` submits ``a`` with random targets and option (the fewest targets)."""
    targets, option = draw(rnd, a, fewest=True)
    g.submit(pid, a.key, targets, option, via=a.via)
