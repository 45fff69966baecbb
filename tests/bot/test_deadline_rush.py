"""Many games at one deadline under the strict test Discord (its round trip, its 429s): every
game commits its resolve at once, the deliveries of different games run side by side, each
post goes out exactly once and in its channel's order. ``ALTMAFIA_LONG=1``: 500 games."""

from __future__ import annotations

import os
import random
import statistics
from datetime import timedelta

import pytest

from altmafia.bot.deadlines import now

from .helpers import act, gather

LONG = os.environ.get("ALTMAFIA_LONG") == "1"
GAMES = 500 if LONG else 30
# wall clock the env may take to advance through the deadline: 500 games' deliveries take
# minutes of it, as in the bench's deadline rows (``altmafia/tools/deadline.py``)
SETTLE_SECONDS = 900.0 if LONG else 60.0
SEATS = 7


async def _tables(env, n: int) -> list:
    tables = []
    for _ in range(n):
        t = await gather(env, SEATS, spectators=0, others=0)
        r = await t.gm.slash(t.lobby, "lobby start")
        assert r.response is not None and "<#" in r.response.content, r
        t.game_id = next(g.game_id for g in t.store.games.games() if g.guild_id == t.guild.id)
        tables.append(t)
    return tables


@pytest.mark.round_trip(0.1)
async def test_a_deadline_of_many_games_commits_all_first_and_delivers_each_once_in_order(env):
    tables = await _tables(env, GAMES)
    bot, store, strict = env.bot, env.bot.store, env.strict
    rnd = random.Random(5)
    for t in tables:  # a few players act in each game: the resolve has news for their channels
        for pid in range(3):
            await act(t, pid, rnd)
    await env.settle()
    ticks = {t.game_id: t.info.tick for t in tables}
    deadline = now() + timedelta(minutes=1)
    for t in tables:
        assert await store.turns.set_deadline(t.game_id, deadline)
    bot.scheduler.poke()
    committed: list[float] = []
    sent: dict[str, float] = {}

    def clock(point: str) -> None:
        if point == "resolve.after_commit":
            committed.append(strict.now)

    store.db.fault = clock
    bot.deliverer.fault = lambda key: sent.__setitem__(key, strict.now)
    start_at = strict.now + (deadline - now()).total_seconds()
    env.settle_timeout = SETTLE_SECONDS
    await env.advance_time(60 + GAMES * 2)
    await env.settle()
    store.db.fault = None

    assert {t.game_id: t.info.tick for t in tables} == {g: k + 1 for g, k in ticks.items()}
    assert len(committed) == GAMES
    # every part of every game sent exactly once, each channel's in the order it was staged
    rows = await store.db.read("SELECT game_id, channel_id, batch_id, part_idx, message_id, sent_at FROM outbox_parts "
                               "ORDER BY batch_ord, part_idx")
    assert rows and all(r[5] is not None for r in rows)
    by_channel: dict[int, list[int]] = {}
    for _, cid, _, _, mid, _ in rows:
        if mid is not None:
            by_channel.setdefault(int(cid), []).append(int(mid))
    me = bot.user.id
    for cid, ids in by_channel.items():
        assert ids == sorted(ids), f"channel {cid}: messages out of order"
        posted = [m.id for m in env.backend.messages.get(cid, {}).values() if m.author_id == me and m.interaction_metadata is None and m.webhook_id is None]
        assert sorted(posted) == sorted(ids), f"channel {cid}: {len(posted)} messages for {len(ids)} parts"
    # no game waited for another's delivery: the last commit came before most deliveries ended
    finished: dict[str, float] = {}
    for key, at in sent.items():
        gid = key.split("/", 1)[0]
        finished[gid] = max(finished.get(gid, 0.0), at)
    ends = sorted(finished[t.game_id] for t in tables)
    assert ends[0] >= start_at  # (each game's last post is its resolve's)
    last_commit = max(committed)
    assert last_commit <= statistics.median(ends), (last_commit - start_at, [e - start_at for e in ends])
    # … and they ran side by side: the games' sends interleave (in the order they were sent, a
    # game's first and last part have other games' parts between them). How close they come to
    # Discord's pace is the bench's deadline.delivered_ratio, not a test's: the virtual clock
    # charges overlapping calls only within a few loop turns, which the database thread's
    # timing makes vary from run to run.
    order = [key.split("/", 1)[0] for key in sent]
    span = {gid: (order.index(gid), len(order) - 1 - order[::-1].index(gid)) for gid in set(order)}
    overlapping = [g for g, (a, b) in span.items() if any(h != g and a < span[h][1] and span[h][0] < b for h in span)]
    assert len(overlapping) >= GAMES // 2, (len(overlapping), GAMES)
