"""A crash between creating a Discord channel and saving its id leaves no second channel: the
intent is recorded first (``Store.outbox.intend_channel``), the next attempt or the next start finds
the channel by its marker and adopts it; a channel whose game and lobby are gone is deleted."""

from __future__ import annotations

import copy

from ..helpers import gather, start
from ..test_restart import restart


class Killed(Exception):
    pass


def die_saving_the_votes_channel(store) -> None:
    """The process dies when the lobby would save the votes channel's id: made, not saved."""
    real = store.lobbies.update_lobby

    async def dies_on_the_votes_channel(lobby_id, fn):
        data = copy.deepcopy((await store.lobbies.lobbies())[lobby_id])
        fn(data)
        if "votes" in data.get("channels", {}):  # the votes channel exists; the process dies now
            raise Killed("after create, before save")
        return await real(lobby_id, fn)

    store.lobbies.update_lobby = dies_on_the_votes_channel


async def test_a_start_cut_after_a_channel_was_made_and_before_its_id_was_saved(env, settings):
    t = await gather(env, 5, spectators=0)
    store = t.store
    die_saving_the_votes_channel(store)
    await t.gm.slash(t.lobby, "lobby start")
    assert [e for e in env.errors if "before save" in str(e)]
    assert not store.games.games()
    [open_intent] = await store.outbox.channel_intents()
    assert open_intent.channel_key == "votes"
    before = len(env.backend.channels)
    await restart(env, settings)
    store = env.bot.store
    # the start reconciled it: the channel is the lobby's now
    assert not await store.outbox.channel_intents()
    [(lobby_id, lobby)] = (await store.lobbies.lobbies()).items()
    assert "votes" in lobby["channels"]
    t.env = env
    await start(t)
    game_channels = t.store.games.info(t.game_id).meta["channels"]
    assert game_channels["votes"] == lobby["channels"]["votes"]
    # the restart created only the channels not made before: one votes channel in all
    assert len(env.backend.channels) == before + len(game_channels) - len(lobby["channels"])
    votes_name = env.backend.channels[game_channels["votes"]].name
    assert len([c for c in env.backend.channels.values() if c.name == votes_name]) == 1
    assert not await t.store.outbox.channel_intents()


async def test_the_next_attempt_adopts_the_channel_without_a_restart(env, settings):
    """An intent left open (the REST call went through, its answer was lost): the next
    creation of that key looks in the guild and adopts the channel found."""
    t = await gather(env, 5, spectators=0)
    store = t.store
    real = env.bot.http.create_channel
    lost = {"done": False}

    async def answer_lost(guild_id, kind, **options):
        data = await real(guild_id, kind, **options)
        if not lost["done"] and options.get("name") and kind == 0 and options.get("topic") is None and "parent_id" in options:
            lost["done"] = True
            raise Killed("the answer never came")
        return data

    env.bot.http.create_channel = answer_lost
    await t.gm.slash(t.lobby, "lobby start")
    assert lost["done"] and [e for e in env.errors if "never came" in str(e)]
    # the channels of the attempt saved: every one but the lost (the others of its wave were made with it)
    lost["before"] = len((await store.lobbies.lobbies())[next(iter(await store.lobbies.lobbies()))].get("channels", {}))
    env.bot.http.create_channel = real
    count = len(env.backend.channels)
    await start(t)
    meta = t.store.games.info(t.game_id).meta
    ids = set(meta["channels"].values())
    assert len(ids) == len(meta["channels"])
    # every channel the game has was created once: the one whose answer was lost is adopted
    made_now = len(env.backend.channels) - count
    assert made_now == len(ids) - lost["before"] - 1, (made_now, len(ids), lost["before"])
    assert not await t.store.outbox.channel_intents()


async def test_an_orphan_whose_lobby_is_gone_is_deleted_at_start(env, settings):
    t = await start(await gather(env, 4, spectators=0))
    store = t.store
    cat = t.info.meta["channels"]["category"]
    made = await env.bot.http.create_channel(t.guild.id, 0, name="осиротевший", parent_id=cat, permission_overwrites=[])
    await store.outbox.intend_channel("gone-lobby", "votes", guild_id=t.guild.id, kind=0, name="осиротевший", parent_id=cat)
    await restart(env, settings)
    assert int(made["id"]) not in env.backend.channels
    assert not await env.bot.store.outbox.channel_intents()
    assert all(c in env.backend.channels for c in t.info.meta["channels"].values())
