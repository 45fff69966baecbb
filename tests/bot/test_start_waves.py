"""A start makes its channels and first posts in waves, the requests of a wave at the same time
(bounded; discord.py's rate limiter and the strict Discord's 429s pace them, never a sleep of
the bot's): the category alone, then every channel in it, each told its place (``position``:
requests at the same time reach Discord in any order), then the first posts, the channels at
once and each channel's posts in order. Asserted on the strict layer's request log (how many
other requests were in flight as each went out), never on timing."""

from __future__ import annotations

import re

from .helpers import gather, start


def created(log) -> list[object]:
    return [c for c in log if c.method == "POST" and re.fullmatch(r"/guilds/\d+/channels", c.path) and c.status == 200]


async def test_a_start_creates_its_channels_at_once_and_in_their_order(env):
    t = await gather(env, 13, spectators=1)
    n0 = len(env.strict.log)
    await start(t)
    log = env.strict.log[n0:]
    creates = created(log)
    meta = t.info.meta
    assert creates[0].body["type"] == 4, "the category first: its channels need its id"
    plan = ["public", "votes", "gm", "spectators", *(f"player:{p.pid}" for p in t.game.state.players)]
    children = creates[1:1 + len(plan)]
    # every channel of the plan went out while others of its wave were in flight
    assert max(c.alongside for c in children) >= len(plan) // 2, [c.alongside for c in children]
    assert [c.body.get("position") for c in children] == list(range(len(plan))), "each channel told its place"
    # Discord orders a category's channels by position (then id): the order of the plan, the
    # channels a sync made after the start (the first night's) after them
    category = int(meta["channels"]["category"])
    mine = sorted((c for c in env.backend.channels.values() if c.parent_id == category), key=lambda c: (c.position, c.id))
    key_of = {int(v): k for k, v in meta["channels"].items()}
    order = [key_of[c.id] for c in mine]
    assert order[:len(plan)] == plan, order
    assert len(order) == len(set(order)) == len(meta["channels"]) - 1, "each channel once, none left over"
    assert not await t.store.outbox.channel_intents()


async def test_a_start_sends_its_first_posts_side_by_side(env):
    t = await gather(env, 13, spectators=1)
    n0 = len(env.strict.log)
    await start(t)
    log = env.strict.log[n0:]
    # the first posts: the channels at the same time, each channel's in the order staged
    posts = [c for c in log if c.method == "POST" and re.fullmatch(r"/channels/\d+/messages", c.path)]
    assert max(c.alongside for c in posts) >= 2, [c.alongside for c in posts]
    for p in t.game.state.players:
        hidden = [m.content for m in t.hidden(p.pid).history()]
        assert len(hidden) >= 2 and "🎛" not in hidden[0] and "🎛" in hidden[-1], hidden  # the role card, then the panel
