"""Every flush sends each channel's posts in order and different channels at the same time
(``Deliverer._send_parts``): a PM and the sender's copy reach Discord in one round trip, the
seats of a resolve read their news together. Asserted on the strict layer's request log (how
many other requests were in flight as each went out) and on the channels, never on timing."""

from __future__ import annotations

import re
from collections import defaultdict

from .helpers import force_resolve, gather, start


def posts(log) -> list[object]:
    return [c for c in log if c.method == "POST" and re.fullmatch(r"/channels/\d+/messages", c.path) and c.status == 200]


def channel_of(call) -> int:
    return int(call.path.split("/")[2])


async def test_a_pm_and_the_senders_copy_go_out_side_by_side(env):
    t = await start(await gather(env, 13))
    a, b = (p.pid for p in t.game.living()[:2])
    n0 = len(env.strict.log)
    r = await t.member(a).slash(t.hidden(a), "pm send", to=t.game.player(b).name, message="встреча у мельницы")
    assert not r.response.content.startswith("⛔"), r.response.content
    await env.settle()
    sent = posts(env.strict.log[n0:])
    assert {channel_of(c) for c in sent} == {t.hidden(a).id, t.hidden(b).id}, [c.path for c in sent]
    assert len(sent) == 2 and max(c.alongside for c in sent) >= 1, [c.alongside for c in sent]
    assert "встреча у мельницы" in t.hidden(b).history()[-1].content
    assert "встреча у мельницы" in t.hidden(a).history()[-1].content


async def test_a_resolve_reaches_the_seats_side_by_side_each_channel_in_order(env):
    t = await start(await gather(env, 13))
    n0 = len(env.strict.log)
    await force_resolve(t)
    await env.settle()
    sent = posts(env.strict.log[n0:])
    seats = {t.hidden(p.pid).id for p in t.game.state.players}
    assert seats <= {channel_of(c) for c in sent}, "every seat told of the new phase"
    assert max(c.alongside for c in sent) >= 2, [c.alongside for c in sent]
    # each channel's posts reached it in the order they went out, whatever the others did
    by_channel: dict[int, list[str]] = defaultdict(list)
    for c in sent:
        by_channel[channel_of(c)].append(c.body["content"])
    for cid, contents in by_channel.items():
        history = [m.content for m in env.backend.messages[cid].values()]
        assert history[-len(contents):] == contents, (cid, contents, history[-len(contents):])
