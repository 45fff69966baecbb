"""The bench's players: every living player of a stored game submits one random legal move,
through the store as the bot's commands go. One definition for every bench section that plays
games (the store, the restart, PostgreSQL, the deadline)."""

from __future__ import annotations

import random
import uuid
from collections.abc import Callable
from typing import Any

from engine import ActionError, LegalAction
from storage import Command, Store

from .simulate.table import Table


def move(pid: int, a: LegalAction, targets: list[int], opt: str | None) -> dict[str, Any]:
    """The arguments of a ``submit`` command of ``pid`` for the legal move ``a``."""
    args: dict[str, Any] = {"pid": pid, "ability": a.key, "targets": targets}
    if opt is not None:
        args["option"] = opt
    if a.via is not None:
        args["via"] = a.via
    return args


async def play_tick(store: Store, gid: str, rnd: random.Random, *, keyed: bool = False,
                    each: Callable[[], Any] | None = None) -> list[Any]:
    """Every living player submits one random legal move (the first lane the engine accepts);
    ``keyed``: with a request id, as the bot's commands have; ``each()`` before and after each
    accepted one (what it returns, in pairs)."""
    g = store.games.game(gid)
    table = Table(g, ["random"] * len(g.state.players), rnd)
    out = []
    for p in g.living():
        for acts in table.lanes(p.pid).values():
            a = rnd.choice(acts)
            targets, opt = table.draw(a)
            before = each() if each else None
            try:
                await store.games.apply(gid, Command("submit", move(p.pid, a, targets, opt), user_id=p.pid,
                                               request_id=uuid.uuid4().hex if keyed else None))
            except ActionError:
                continue
            out.append((before, each() if each else None))
            break
    return out
