"""A connection to Discord that breaks: before Discord saw the request, after Discord did it
(the answer lost), or timed out on the bot's side. Nothing crashes, and nothing is lost or
doubled: a post stays pending and is looked for in its channel before it goes out again (the
dangerous case is the lost answer: the message is there, and Discord's memory of the nonce is
over by the retry); a start is rolled back and can be started again."""

from __future__ import annotations

import collections

import pytest

from altmafia.text.i18n import text

from .discord_limits import NONCE_WINDOW_SECONDS
from .helpers import force_resolve, gather, start
from .strict_discord import DROPS

LATER = NONCE_WINDOW_SECONDS + 60  # past Discord's memory of a nonce: only the channel's history tells


@pytest.mark.parametrize("kind", DROPS)
async def test_a_pm_whose_connection_breaks_arrives_once(env, kind):
    t = await start(await gather(env, 5, spectators=0))
    await env.advance_time(2)  # the scheduler's look after the start (poked) is over: no flush of its own below
    to = t.hidden(3)
    env.strict.drop("POST", f"/channels/{to.id}/messages", kind)
    r = await t.member(1).slash(t.hidden(1), "pm send", to=t.game.player(3).name, message="встреча в полночь")
    assert not r.response.content.startswith("⛔"), r.response.content  # recorded; the delivery is the bot's worry
    assert env.strict.dropped and env.strict.dropped[0][0] == kind
    pending = await t.store.outbox.pending_parts(t.game_id)
    assert [p.channel_key for p in pending] == ["player:3"] and pending[0].attempts >= 1
    await env.advance_time(LATER)
    await t.member(2).slash(t.hidden(2), "pm send", to=t.game.player(4).name, message="позже")  # its flush tries again
    received = [m for m in to.history() if "встреча в полночь" in m.content]
    copies = [m for m in t.hidden(1).history() if "встреча в полночь" in m.content]
    assert len(received) == 1 and len(copies) == 1, (kind, [m.content for m in to.history()])
    assert not await t.store.outbox.pending_parts(t.game_id)


async def test_a_phase_report_whose_answer_is_lost_goes_out_once(env):
    """The resolve's public report is posted, the connection closes before the answer, and no
    connection is made for a while; the loop's next flush finds the message (no nonce helps by
    then) and sends the rest."""
    t = await start(await gather(env, 5, spectators=0))
    public = t.channel("public")
    before = len(public.history())
    path = f"/channels/{public.id}/messages"
    env.strict.drop("POST", path, "after")
    outage = env.strict.drop("POST", path, "before", times=None)  # then no connection, a while
    await force_resolve(t)
    assert env.strict.dropped[0] == ("after", "POST", path)
    await env.advance_time(LATER)
    env.strict.drops.remove(outage)
    await env.bot.scheduler._iteration()  # the loop's next look: it flushes what is pending
    assert not await t.store.outbox.pending_parts(t.game_id)
    new = [m.content for m in public.history()[before:]]  # oldest first
    twice = [c for c, n in collections.Counter(new).items() if n > 1]
    assert new and not twice, twice
    assert t.game.state.tick == 1


@pytest.mark.parametrize("kind", DROPS)
async def test_a_start_whose_channel_creation_breaks_is_rolled_back_and_starts_again(env, kind):
    t = await gather(env, 5, spectators=0)
    guild = env.backend.get_guild(t.guild.id)
    channels_before = set(guild.channel_ids)
    env.strict.drop("POST", f"/guilds/{t.guild.id}/channels", kind)
    r = await t.gm.slash(t.lobby, "lobby start")
    said = r.response.content
    assert r.response.ephemeral and text("en", "start.unreached", why="\0").split("\0")[0] in said, said
    assert not t.store.games.games()
    assert set(guild.channel_ids) == channels_before  # the channel made (and its answer lost) deleted
    await start(t)
    made = {int(c) for c in t.info.meta["channels"].values()}
    assert set(guild.channel_ids) == channels_before | made  # each channel once, none left over
    assert not await t.store.outbox.channel_intents()


async def test_a_faction_whose_channel_cannot_be_made_yet_gets_its_news_later_once(env, caplog):
    """Night 1: Вера invites Глеб, who accepts; the resolve's channel sync cannot reach Discord
    (every channel creation fails for a while). The faction's news is neither dropped nor
    sent elsewhere: it waits for its channel, and arrives once when the loop can make it."""
    t = await start(await gather(env, 6, spectators=0))
    gm_ch = t.channel("gm")
    await force_resolve(t)
    await force_resolve(t)
    assert t.game.info.kind == "night"
    await t.gm.slash(gm_ch, "gm setstat", player="2", stat="tv", value=5)
    await t.member(2).slash(t.hidden(2), "faction invite", player="3")
    await t.member(3).slash(t.hidden(3), "faction accept", inviter="2")
    outage = env.strict.drop("POST", f"/guilds/{t.guild.id}/channels", "before", times=None)
    await force_resolve(t)
    key = f"faction:{next(iter(t.game.state.factions))}"
    assert key not in t.info.meta["channels"] and env.strict.dropped
    pending = await t.store.outbox.pending_deliveries(t.game_id)
    assert pending and {d.dest for d in pending} == {"faction"}  # waiting, not dropped; the rest went out
    assert not await t.store.outbox.pending_parts(t.game_id)
    assert not [r for r in caplog.records if r.levelname == "ERROR"], [r.getMessage() for r in caplog.records]
    env.strict.drops.remove(outage)
    await env.bot.scheduler._iteration()
    assert not await t.store.outbox.pending_deliveries(t.game_id) and not await t.store.outbox.pending_parts(t.game_id)
    news = [m.content for m in t.channel(key).history()]
    joined = [c for c in news if "Во фракцию вступает" in c or "joined" in c]
    assert len(joined) == 1, news


async def test_a_dm_whose_answer_is_lost_arrives_once_and_the_gm_is_not_told_it_failed(env):
    """``/gm unspectate`` tells the member by DM; the DM is posted and the answer lost. It is
    not a failure to reach them (the GM is not asked to tell them another way): the loop's
    next flush finds it in the DM channel, and it is there once."""
    t = await start(await gather(env, 4, spectators=1, others=0))
    gone = t.spectators[0]
    game_channels = "|".join(str(c) for c in t.info.meta["channels"].values())
    env.strict.drop("POST", rf"/channels/(?!(?:{game_channels})/)\d+/messages", "after")
    r = await t.gm.slash(t.channel("gm"), "gm unspectate", member=gone)
    assert not r.response.content.startswith("⛔"), r.response.content
    assert env.strict.dropped, "the DM was never sent"
    await env.advance_time(LATER)
    await env.bot.scheduler._iteration()
    assert not await t.store.outbox.pending_parts(t.game_id)
    told = text("ru", "notice.unspectated", title=t.info.meta["title"])
    dms = [m for cid, msgs in env.backend.messages.items() if str(cid) not in game_channels.split("|")
           for m in msgs.values() if m.content == told]
    assert len(dms) == 1, dms
    failed = text("ru", "notice.dm_failed", name=f"<@{gone.id}>", text=told)
    assert not [m for m in t.channel("gm").history() if m.content == failed]
