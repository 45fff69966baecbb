"""Finished games leave memory: once the end is shown and delivered, the
scheduler's loop releases the game from the store (after ``RELEASE_AFTER``); the GM's last
clicks (publish the review, archive the channels) still work on it, read from the database."""

from __future__ import annotations

from datetime import timedelta

from altmafia.bot import scheduler as scheduler_mod
from altmafia.text.i18n import text

from .conftest import perms
from .helpers import force_resolve, gather, start


async def test_a_finished_game_is_released_and_its_last_buttons_still_work(env, monkeypatch):
    t = await start(await gather(env, 4, spectators=0, days=1))
    for _ in range(6):
        if t.store.games.info(t.game_id).status == "over":
            break
        await force_resolve(t)
    store, gid = t.store, t.game_id
    assert store.games.info(gid).status == "over" and store.games.info(gid).meta.get("revealed")
    channels = dict(store.games.info(gid).meta["channels"])
    gm_ch, public = t.channel("gm"), t.channel("public")  # while the game is at hand (t.channel reads its meta)
    await env.bot.scheduler.tick()
    assert store.games.has(gid)  # within RELEASE_AFTER of its end: kept at hand
    monkeypatch.setattr(scheduler_mod, "RELEASE_AFTER", timedelta(0))
    await env.bot.scheduler.tick()
    assert not store.games.has(gid) and gid not in store.state.games  # the game left memory
    assert (await store.games.find(gid)).status == "over" and (await store.games.load(gid)).state.over
    assert store.meta.game_of_channel(int(channels["public"])) == gid
    # the GM publishes the review and archives the channels: both work on the released game
    review = next(m for m in gm_ch.history() if m.components and "report.html" in [a.filename for a in m.attachments])
    r = await t.gm.click(review, label=text("ru", "btn.publish"))
    assert r.response.content == text("en", "reveal.published_done"), r.response  # the GM reads English
    assert (await store.games.find(gid)).meta.get("review_published")
    ask = next(m for m in gm_ch.history() if m.components and "Что сделать с каналами" in m.content)
    await t.gm.click(ask, label="В архив")
    p = perms(env, public, t.players[0])
    assert p.view_channel and not p.send_messages
    assert not store.games.has(gid)  # read on demand, not loaded back
