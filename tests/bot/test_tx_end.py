"""The resolve that ends a game, then the game's end, by one path: the mark; the resolve (the
game and its events, nothing rendered); its delivery staged from what it committed; the flush
that marks it sent; then ``bot.finish``: the end staged in one transaction — the reveal, the
GM's report and the cleanup prompt with the flags ``revealed`` and ``cleanup_offered`` — and the
flush that marks it sent. Six transactions, each obvious. A crash inside the resolve's
transaction commits nothing of it: the start redoes the resolve (its mark) and the end after it,
and nothing goes out twice."""

from __future__ import annotations

import base64
import json
from dataclasses import replace

import pytest
from simcord.builders import ChannelHandle

from altmafia.text.i18n import text

from .helpers import gather, start
from .test_restart import restart

REVEAL = "Кто был кем"
CLEANUP = text("ru", "cleanup.ask")
REPORT = text("ru", "reveal.report")


def files_of(message) -> set[str]:
    return {a.filename for a in message.attachments}


async def stored_meta(store, gid: str) -> dict:
    rows = await store.db.read("SELECT meta FROM games WHERE game_id = ?", (gid,))
    return json.loads(rows[0][0])


def history(env, t, channels: dict, key: str) -> list:
    """A game's channel as SimCord holds it (the game need not be loaded: a finished one is
    released after a restart)."""
    return ChannelHandle(env, t.guild, env.backend.channels[int(channels[key])]).history()


def shown(env, t, channels: dict) -> dict[str, list[str]]:
    """Every message of the game's channels, by channel key (what the players have seen)."""
    return {k: [m.content for m in history(env, t, channels, k)] for k in channels if not k.startswith("category")}


def assert_end_shown_once(env, t, channels: dict) -> None:
    public, gm = history(env, t, channels, "public"), history(env, t, channels, "gm")
    reveals = [m for m in public if REVEAL in m.content]
    assert len(reveals) == 1, [m.content[:40] for m in reveals]
    assert files_of(reveals[0]) == {"chart.png", "timeline.txt"}
    reports = [m for m in gm if REPORT in m.content]
    assert len(reports) == 1 and files_of(reports[0]) == {"report.html", "timeline-full.txt"}
    assert [c.label for row in reports[0].components for c in row.children] == [text("ru", "btn.publish")]
    asks = [m for m in gm if CLEANUP in m.content]
    assert len(asks) == 1
    assert [c.label for row in asks[0].components for c in row.children] == [text("ru", "btn.archive"),
                                                                              text("ru", "btn.delete")]
    # the end comes after the last resolve's own news, in each channel
    assert public.index(reveals[0]) > max(i for i, m in enumerate(public) if "**— " in m.content)




async def test_the_game_ending_resolve_and_the_end_take_six_transactions_and_arrive_once(env, settings):
    t = await start(await gather(env, 4, spectators=0, days=1))
    await env.settle()
    store, bot = t.store, t.bot
    spent = None
    for _ in range(6):
        tx = store.transactions.copy()
        sent = bot.deliverer.sent.copy()
        await bot.scheduler.resolve(t.game_id)
        await env.settle()
        spent = store.transactions - tx
        if store.games.info(t.game_id).status == "over":
            break
        # a resolve that does not end the game: the mark, the resolve, its delivery, its marks
        assert spent == {"resolve.mark": 1, "resolve": 1, "stage": 1, "part.sent": 1, "total": 4}, spent
    assert store.games.info(t.game_id).status == "over"
    # the resolve and its delivery as any other (4), then the end: its posts and both flags in
    # one transaction ("meta"), and the flush that marks them sent
    assert spent == {"resolve.mark": 1, "resolve": 1, "stage": 1, "meta": 1, "part.sent": 2, "total": 6}, spent
    news = bot.deliverer.sent - sent
    assert news[(t.game_id, "gm")] >= 2 and news[(t.game_id, "public")] >= 2, news  # its news, then the end
    meta = await stored_meta(store, t.game_id)
    assert meta["revealed"] is True and meta["cleanup_offered"] is True and meta == store.games.info(t.game_id).meta
    assert not await store.outbox.pending_parts(t.game_id) and not await store.outbox.pending_deliveries(t.game_id)
    for once in ("reveal>public", "reveal:report>gm", "cleanup>gm"):
        parts = await store.outbox.parts(f"{t.game_id}/{once}")
        assert parts and all(p.attempts == 1 for p in parts), (once, parts)  # claimed at staging, never again
    channels = dict(store.games.info(t.game_id).meta["channels"])
    assert_end_shown_once(env, t, channels)
    before = shown(env, t, channels)

    # a restart shows nothing again, and commits nothing for the end
    await restart(env, settings)
    await env.settle()
    assert shown(env, t, channels) == before
    tx = t.store.transactions.copy()
    await t.bot.finish(t.game_id)
    await t.bot.offer_cleanup(t.game_id)
    assert t.store.transactions == tx


async def test_a_crash_inside_the_game_ending_resolve_and_the_start_shows_it_once(env, settings):
    t = await start(await gather(env, 4, spectators=0, days=1))
    await env.settle()
    store = t.store
    while store.games.game(t.game_id).state.tick < 2:  # a 1-day game: the next resolve ends it
        await t.bot.scheduler.resolve(t.game_id)
        await env.settle()
        assert store.games.info(t.game_id).status == "running"
    last_tick = store.games.info(t.game_id).tick

    def dies_in_the_resolve(point: str) -> None:
        """The process dies inside the game-ending resolve's transaction (its snapshot and
        events written, not committed: rolled back)."""
        if point == "resolve.before_commit":
            raise RuntimeError("killed in the resolve")

    store.fault = dies_in_the_resolve
    with pytest.raises(RuntimeError, match="killed in the resolve"):
        await t.bot.scheduler.resolve(t.game_id)
    store.fault = None
    assert store.games.info(t.game_id).status == "running" and store.games.info(t.game_id).resolving_tick == last_tick
    meta = await stored_meta(store, t.game_id)
    assert not meta.get("revealed") and not meta.get("cleanup_offered"), "neither flag without the posts"
    for once in ("reveal>public", "reveal:report>gm", "cleanup>gm"):
        assert not await store.outbox.parts(f"{t.game_id}/{once}"), once
    channels = dict(store.games.info(t.game_id).meta["channels"])
    assert not any(REVEAL in m.content for m in history(env, t, channels, "public"))

    await restart(env, settings)  # the mark: the resolve is redone at start, and the end with it
    await env.settle()
    assert t.store.games.info(t.game_id).status == "over"
    assert [e["tick"] for e in await t.store.games.journal(t.game_id) if e["kind"] == "resolve"].count(last_tick) == 1
    assert_end_shown_once(env, t, channels)
    for key in ("public", "gm"):  # the last resolve's news arrived, once, before the end
        news = [m.content for m in history(env, t, channels, key) if "**— " in m.content]
        assert news and len(news) == len(set(news)), news
    assert not await t.store.outbox.pending_parts(t.game_id) and not await t.store.outbox.pending_deliveries(t.game_id)
    meta = await stored_meta(t.store, t.game_id)
    assert meta["revealed"] is True and meta["cleanup_offered"] is True
    before = shown(env, t, channels)
    await restart(env, settings)
    await env.settle()
    assert shown(env, t, channels) == before, "nothing twice"


async def test_the_end_staged_is_what_end_posts_renders_from_the_committed_game(env):
    """The end staged and shown is byte for byte what :meth:`end_posts` renders from the
    committed game (the store as it reads after the commit, without the two flags): a
    restart that stages it derives the same posts."""
    t = await start(await gather(env, 4, spectators=0, days=1))
    await env.settle()
    store, bot = t.store, t.bot
    for _ in range(6):
        await bot.scheduler.resolve(t.game_id)
        await env.settle()
        if store.games.info(t.game_id).status == "over":
            break
    info = store.games.info(t.game_id)
    assert info.meta["revealed"] is True
    before = replace(info, meta={k: v for k, v in info.meta.items() if k not in ("revealed", "cleanup_offered")})
    posts, ended = await bot.end_posts(t.game_id, store.games.game(t.game_id), before,
                                       await store.games.events(t.game_id), await store.games.journal(t.game_id))
    assert [p.batch for p in posts] == [f"{t.game_id}/{k}" for k in ("reveal>public", "reveal:report>gm", "cleanup>gm")]
    channels = dict(info.meta["channels"])
    for post in posts:
        stored = await store.outbox.parts(post.batch)
        assert [(p.content, p.view, p.files) for p in stored] == [(s["content"], s["view"], s["files"]) for s in post.parts]
        shown_ = [m for m in history(env, t, channels, post.channel_key) if m.content == post.parts[0]["content"]]
        assert len(shown_) == 1, post.batch
        got = {a.filename: await a.read() for a in shown_[0].attachments}  # what the channel shows, byte for byte
        assert got == {f["name"]: base64.b64decode(f["data"]) for f in post.parts[0]["files"] or []}, post.batch
    flags: dict = {}
    ended(flags)
    assert flags == {"revealed": True, "cleanup_offered": True}


async def test_rows_the_last_resolve_did_not_stage_go_out_before_the_end(env, monkeypatch):
    """When the resolve stages none of its delivery (its rendering raised: logged, the resolve
    goes on), the flush would stage those rows after the end: so they go first, then the end
    is staged and sent, and every channel still reads its last news before the reveal."""
    t = await start(await gather(env, 4, spectators=0, days=1))
    await env.settle()
    store, bot = t.store, t.bot
    while store.games.game(t.game_id).state.tick < 2:  # a 1-day game: the next resolve ends it
        await bot.scheduler.resolve(t.game_id)
        await env.settle()
        assert store.games.info(t.game_id).status == "running"

    def fails(*_args, **_kw):
        raise RuntimeError("the rendering failed")

    monkeypatch.setattr(bot.deliverer, "resolve_posts", fails)
    tx = store.transactions.copy()
    await bot.scheduler.resolve(t.game_id)
    await env.settle()
    spent = store.transactions - tx
    assert store.games.info(t.game_id).status == "over"
    assert spent["meta"] == 1 and spent["part.sent"] == 2, spent  # the news' flush, then the end's
    channels = dict(store.games.info(t.game_id).meta["channels"])
    assert_end_shown_once(env, t, channels)
    gm = [m.content for m in history(env, t, channels, "gm")]
    report = next(i for i, c in enumerate(gm) if REPORT in c)
    assert any("**— " in c for c in gm[:report]) and not any("**— " in c for c in gm[report:])
    assert not await store.outbox.pending_parts(t.game_id) and not await store.outbox.pending_deliveries(t.game_id)
