"""REST calls counted from SimCord's request log: one call per channel created (overwrites
included), and a resolve posts at most one message per channel: each player with news, the
public report, the vote channel, the GM channel; the new phase's action panel of each living
seat (altmafia/bot/panel.py) rides on that seat's news, or comes alone when it has none."""

from __future__ import annotations

import random
import re
from collections import Counter

from altmafia.bot.deadlines import card_times_line
from altmafia.bot.delivery import LIMIT
from altmafia.text.cards import role_card
from altmafia.text.split import split

from .helpers import act, force_resolve, gather, start

MSG = re.compile(r"^/channels/(\d+)/messages$")


def since(env, n):
    return env.http_requests[n:]


def is_panel(call) -> bool:
    """A post of an action panel (its buttons' custom ids start with ``amy:``)."""
    rows = (call.json or {}).get("components") or []
    return any(str(c.get("custom_id", "")).startswith("amy:") for row in rows for c in row.get("components", []))


def split_posts(calls) -> tuple[Counter, Counter]:
    """Messages posted by channel id: the panels apart from everything else."""
    posts = [c for c in calls if c.method == "POST" and MSG.match(c.path)]
    return (Counter(MSG.match(c.path).group(1) for c in posts if not is_panel(c)),
            Counter(MSG.match(c.path).group(1) for c in posts if is_panel(c)))


async def test_channel_creation_costs_one_call_each(env):
    t = await gather(env, 13, spectators=2)
    n0 = len(env.http_requests)
    await start(t)
    calls = since(env, n0)
    created = [c for c in calls if c.method == "POST" and c.path == f"/guilds/{t.guild.id}/channels"]
    assert len(created) == len(t.info.meta["channels"]) == 1 + 4 + 13
    assert all(c.json.get("permission_overwrites") for c in created)
    assert not [c for c in calls if c.path.startswith("/channels/") and "/permissions/" in c.path]
    assert not [c for c in calls if c.method == "PATCH" and c.path.startswith("/channels/")]
    posts, panels = split_posts(calls)
    # one intro per shared channel; one role card per hidden channel, in as few parts as
    # Discord's limit allows (the card says what every ability does, so a long card
    # is the delivery's parts of ≤2000 characters)
    game, meta = t.game, t.info.meta
    for key, cid in meta["channels"].items():
        if key.startswith("player:"):
            p = game.player(int(key.split(":", 1)[1]))
            plang = meta["langs"][str(p.pid)]
            card = (f"<@{p.user_id}>\n" + role_card(game, p.pid, plang, meta["tz"]) + "\n"
                    + card_times_line(game.rules, meta, plang, env.bot.settings.min_phase_minutes))
            assert posts[str(cid)] == len(split(card, LIMIT)), key
        elif key == "gm":  # the deal, then the GM's briefing, in parts past 2000 characters
            gm_posts = [m.content for m in t.channel("gm").history()]
            assert posts[str(cid)] == len(gm_posts) <= 3 and sum(c.startswith("📋") for c in gm_posts) == 1, gm_posts
        elif str(cid) in posts:
            assert posts[str(cid)] == 1, key
    hidden = {str(v) for k, v in t.info.meta["channels"].items() if k.startswith("player:")}
    assert set(panels) == hidden and set(panels.values()) == {1}  # and one panel in each hidden channel
    print(f"start: {len(created)} channel creations, {sum(posts.values())} messages, {len(calls)} REST calls in all")


async def test_a_resolve_posts_at_most_one_message_per_channel(env):
    t = await start(await gather(env, 13, spectators=1))
    rnd = random.Random(3)
    report = []
    for _ in range(3):  # day 1.1, day 1.2 (the turn's end: penalties, the vote), night 1
        for p in t.game.living():
            await act(t, p.pid, rnd)
        for p in t.game.living()[:4]:
            await t.member(p.pid).slash(t.hidden(p.pid), "anon post", message=f"анонимка {p.pid}")
        n0 = len(env.http_requests)
        await force_resolve(t)
        calls = since(env, n0)
        posts, panels = split_posts(calls)
        by_key = {str(v): k for k, v in t.info.meta["channels"].items()}
        assert Counter({by_key[cid]: n for cid, n in panels.items()}) == Counter({f"player:{p.pid}": 1 for p in t.game.living()})
        named = Counter({by_key.get(cid, cid): n for cid, n in posts.items()})
        assert all(n == 1 for n in named.values()), named
        every = Counter({by_key.get(cid, cid): n for cid, n in (posts + panels).items()})
        assert all(n == 1 for n in every.values()), every  # the panels included: one message a channel
        players_with_news = sum(1 for k in named if k.startswith("player:"))
        assert players_with_news <= 13
        assert named["public"] == 1
        report.append((t.game.clock.info(t.info.tick - 1).label, len(calls), sum(posts.values()), players_with_news))
    for label, calls, messages, players in report:
        print(f"resolve {label}: {calls} REST calls, {messages} messages ({players} hidden channels)")
