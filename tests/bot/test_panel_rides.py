"""A resolve's delivery sends one message per channel with something new: each living
seat's new action panel rides on the last message of its news (a seat without news gets the
panel alone), the phase's announcement rides on the public report; both stay staged under their
own ``once`` ids, so a restart, ``post_panels`` or ``announce_phase`` never posts them twice; a
redraw of a panel keeps the news above it; the fallback path (``flush``) does the same."""

from __future__ import annotations

import random
import re
from collections import Counter

from altmafia.bot.panel import panel_batch

from .helpers import act, force_resolve, gather, start
from .test_restart import restart

MSG = re.compile(r"^/channels/(\d+)/messages$")
TITLE = "🎛 **Action panel** — "  # the panel's first line (SimCord's users read English)


def ids(message) -> list[str]:
    return [c.custom_id for row in message.components for c in row.children if getattr(c, "custom_id", None)]


def posted(env, n0: int) -> Counter:
    """Messages posted since ``n0``, by channel id."""
    return Counter(MSG.match(c.path).group(1) for c in env.http_requests[n0:] if c.method == "POST" and MSG.match(c.path))


def contents(t, key: str) -> list[str]:
    return [m.content for m in t.channel(key).history()]


async def everyone_acts(t, seed: int) -> None:
    rnd = random.Random(seed)
    for p in t.game.living():
        await act(t, p.pid, rnd)


async def test_each_seat_gets_one_message_with_its_news_and_its_panel(env):
    t = await start(await gather(env, 13, spectators=0))
    for rnd in range(3):  # day 1.1, day 1.2 (the turn's end, the vote), night 1
        await everyone_acts(t, rnd)
        shown = {p.pid: len(t.hidden(p.pid).history()) for p in t.game.state.players}
        n0 = len(env.http_requests)
        await force_resolve(t)
        by_key = {str(v): k for k, v in t.info.meta["channels"].items()}
        named = Counter({by_key[cid]: n for cid, n in posted(env, n0).items()})
        assert all(n == 1 for n in named.values()), named  # one message per channel with something new
        with_news = 0
        for p in t.game.living():
            new = t.hidden(p.pid).history()[shown[p.pid]:]
            assert len(new) == 1, (p.pid, [m.content[:60] for m in new])
            msg = new[0]
            assert any(i.startswith("amy:go:") or i.startswith("amy:pm:") for i in ids(msg)), ids(msg)  # its controls
            assert all(i.endswith(f":{p.pid}:{t.info.tick}") for i in ids(msg)), ids(msg)
            head, _, panel = msg.content.rpartition(TITLE)
            assert panel, msg.content  # the panel's text is the message's last lines
            parts = await t.store.outbox.parts(panel_batch(t.game_id, t.info.tick, p.pid))
            assert parts and parts[-1].message_id == msg.id and parts[-1].view.startswith(f"panel:{p.pid}:{t.info.tick}:")
            if head:  # the seat's news, above its panel, in the same message
                with_news += 1
                assert head.startswith(f"<@{p.user_id}>\n**— "), head
        assert with_news, "no seat had news: the test plays nothing"
        assert named["public"] == 1 and named["gm"] == 1


async def test_the_announcement_rides_on_the_public_report(env, settings):
    t = await gather(env, 6, spectators=0)
    await t.gm.slash(t.lobby, "lobby options", living_role=True)
    await start(t)
    rid = t.info.meta["living_role"]
    before = len(contents(t, "public"))
    await force_resolve(t)
    new = contents(t, "public")[before:]
    assert len(new) == 1, new
    report = new[0]
    assert report.startswith("**— день 1.1 —**") and report.rstrip().splitlines()[-1].startswith(f"<@&{rid}>"), report
    tick, version = t.info.tick, t.info.version
    assert await t.store.outbox.parts(f"{t.game_id}/phase:{tick}:{version}>public")  # staged under the announcement's key
    # a restart, and the calls that post the announcement and the panels: nothing again
    await restart(env, settings)
    await env.settle()
    from altmafia.bot.living import announce_phase

    await announce_phase(env.bot.store, env.bot.deliverer, t.game_id)
    await env.bot.post_panels(t.game_id)
    assert contents(t, "public")[before:] == new
    assert all(sum(TITLE in c for c in contents(t, f"player:{p.pid}")) == 2 for p in t.game.living())


async def test_a_redraw_keeps_the_news_above_the_panel(env):
    t = await start(await gather(env, 13, spectators=0))
    await everyone_acts(t, 1)
    await force_resolve(t)
    seat = next(p.pid for p in t.game.living()
                if not t.hidden(p.pid).history()[-1].content.startswith("🎛") and t.game.legal_actions(p.pid))
    m, msg = t.member(seat), t.hidden(seat).history()[-1]
    news = msg.content[: msg.content.rindex(TITLE)]
    la = t.game.legal_actions(seat)[0]
    value = (la.via + "|" if la.via else "") + la.key
    ab = next(i for i in ids(msg) if i.startswith("amx:ab:"))
    r = await m.select(msg, [value], custom_id=ab)
    assert r.response is None or not r.ephemeral
    now = t.hidden(seat).history()[-1]
    assert now.id == msg.id and now.content.startswith(news) and "Chosen:" in now.content, now.content


async def test_a_crash_after_the_first_sends_posts_nothing_twice(env, settings):
    t = await start(await gather(env, 13, spectators=0))
    await everyone_acts(t, 3)  # news for many seats: their panels ride on it
    sends = []

    def dies(key: str) -> None:  # the process dies at its third send, before any mark: that
        sends.append(key)  # send and those beside it in other channels went out, none marked
        if len(sends) >= 3:
            raise RuntimeError("killed mid-delivery")

    env.bot.deliverer.fault = dies
    keys = ["public", "gm", "votes"] + [f"player:{p}" for p in range(13)]
    before = {k: len(contents(t, k)) for k in keys}
    await force_resolve(t)  # the button's callback dies in the flush, after its third send (logged by discord.py)
    assert len(sends) >= 3
    env.bot.deliverer.fault = None
    await restart(env, settings)
    await env.settle()
    await env.bot.scheduler.tick()  # what the loop does: flush, the panels cut short
    await env.bot.post_panels(t.game_id)
    assert not await env.bot.store.outbox.pending_parts(t.game_id) and not await env.bot.store.outbox.pending_deliveries(t.game_id)
    tick = env.bot.store.games.info(t.game_id).tick
    for p in env.bot.store.games.game(t.game_id).living():
        new = contents(t, f"player:{p.pid}")[before[f"player:{p.pid}"]:]
        assert sum(TITLE in c for c in new) == 1, (p.pid, new)  # its new panel, once
        assert len(new) == len(set(new)), new  # nothing twice
        assert len(await env.bot.store.outbox.parts(panel_batch(t.game_id, tick, p.pid))) >= 1
    for k in ["public", "gm"]:
        new = contents(t, k)[before[k]:]
        assert new and len(new) == len(set(new)), (k, new)


async def test_the_fallback_flush_carries_the_panel_too(env):
    """When the resolve could not stage its delivery (``resolve_posts`` gave nothing: channels
    being created, a riot), the flush after it stages the same: the panel on the news."""
    t = await start(await gather(env, 13, spectators=0))
    await everyone_acts(t, 2)
    env.bot.deliverer.resolve_posts = lambda *a, **k: []  # the resolve stages nothing
    shown = {p.pid: len(t.hidden(p.pid).history()) for p in t.game.living()}
    await force_resolve(t)
    del env.bot.deliverer.resolve_posts
    with_news = 0
    for p in t.game.living():
        new = t.hidden(p.pid).history()[shown[p.pid]:]
        assert len(new) == 1 and TITLE in new[0].content, [m.content for m in new]
        assert any(i.startswith("amy:") for i in ids(new[0]))
        with_news += not new[0].content.startswith("🎛")
    assert with_news, "no seat had news: the test plays nothing"
    await env.bot.post_panels(t.game_id)  # staged under the panel's key: not posted again
    assert all(len(t.hidden(p.pid).history()) == shown[p.pid] + 1 for p in t.game.living())


def test_a_long_batch_carries_the_panel_on_its_last_part_never_cut():
    from altmafia.bot.delivery import LIMIT, PANEL_ROOM, ride
    from altmafia.bot.panel import news_above
    from altmafia.text.split import chunks

    block = "🎛 **Action panel** — day 1.2\nYour submissions: —\nPhase deadline: soon"
    short = chunks(["<@1>", "**— day 1.1 —**", "• news"], LIMIT)
    assert ride(short, block, PANEL_ROOM) == [short[0] + "\n" + block]
    long = chunks(["<@1>"] + [f"• line {i} " + "x" * 80 for i in range(30)], LIMIT)
    assert len(long) == 2 and len(long[-1]) + len(block) + PANEL_ROOM < LIMIT
    out = ride(long, block, PANEL_ROOM)  # on the last chunk, the chunks before it as they were
    assert out == [long[0], long[1] + "\n" + block] and all(len(p) <= LIMIT for p in out)
    full = chunks(["x" * (LIMIT - 100)], LIMIT)  # no room left for the panel and its redraws: a part of its own
    assert ride(full, block, PANEL_ROOM) == [*full, block]
    assert ride([], block) == [block]
    # a redraw keeps the news above the panel, and stays within Discord's limit
    assert news_above(short[0] + "\n" + block, "🎛 new") == short[0] + "\n🎛 new"
    assert news_above(block, "🎛 new") == "🎛 new"
    grown = news_above("y" * 1900 + "\n" + block, "🎛 " + "z" * 400)
    assert len(grown) <= 2000 and grown.startswith("…") and grown.endswith("z" * 400)
