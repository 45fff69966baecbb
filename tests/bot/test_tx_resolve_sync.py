"""A resolve after which the channels' overwrites change (a death: the dead stop writing in
public and gain the channel of the dead) takes four transactions with its delivery (the mark,
the resolve, the delivery staged, the parts marked sent): the sync's record of what it put
(``meta.access``) is committed in the transaction that marks the delivery's parts sent. A crash before that commit leaves the meta
as it was; at the next start the sync puts the same overwrites again and records them."""

from __future__ import annotations

import json
import random

import discord
import pytest
from simcord.builders import ChannelHandle

from altmafia.tools.bench import _play_tick
from engine.visibility import NONE, RO, RW
from storage import Command

from .test_restart import restart

RULESET = "council"  # random play kills at night from night 2 on (seed 20260101, moves of Random(5))


async def open_council(env):
    guild = env.create_guild("Совет")
    lobby = guild.create_text_channel("набор")
    gm = guild.add_member(env.create_user("ведущий"))
    members = [guild.add_member(env.create_user(f"p{i}", global_name=f"Игрок{i + 1}")) for i in range(13)]
    spectator = guild.add_member(env.create_user("s0", global_name="Зритель"))
    r = await gm.slash(lobby, "lobby create", ruleset=RULESET)
    assert r.response is not None and not r.response.ephemeral, r.response
    r = await gm.slash(lobby, "lobby options", dead_channel=True, living_role=True)
    assert not r.response.content.startswith("⛔"), r.response.content
    for m in members:
        await m.slash(lobby, "lobby join")
    await spectator.slash(lobby, "lobby spectate")
    r = await gm.slash(lobby, "lobby start")
    assert r.response is not None and "<#" in r.response.content, r.response
    await env.settle()
    return guild, env.bot.store.games.games()[0].game_id


def can(env, guild_id: int, channel_id: int, user_id: int) -> tuple[bool, bool]:
    """What a member may do in a channel, by SimCord's own permission model."""
    p = discord.Permissions(env.backend.compute_permissions(guild_id, user_id, channel_id))
    return p.view_channel, p.view_channel and p.send_messages


def channel(env, guild, meta: dict, key: str) -> ChannelHandle:
    """A game's channel as SimCord holds it."""
    return ChannelHandle(env, guild, env.backend.channels[int(meta["channels"][key])])


async def stored_meta(store, gid: str) -> dict:
    rows = await store.db.read("SELECT meta FROM games WHERE game_id = ?", (gid,))
    return json.loads(rows[0][0])


def dead_users(store, gid: str) -> set[int]:
    game = store.games.game(gid)
    return {int(p.user_id) for p in game.state.players if p.user_id and not game.alive(p)}


async def play_to_a_death(env, gid: str, rnd: random.Random, before_resolve=None):
    """Random legal moves (the bench's), delivered, then a deadline's resolve, until a resolve
    kills someone and the game goes on; returns the transactions it spent and who died."""
    bot, store = env.bot, env.bot.store
    for _ in range(20):
        await _play_tick(store, gid, rnd)
        await bot.deliverer.flush(gid)
        await env.settle()
        dead = dead_users(store, gid)
        if before_resolve is not None:
            before_resolve()
        tx = store.transactions.copy()
        await bot.scheduler.resolve(gid)
        await env.settle()
        spent = store.transactions - tx
        died = dead_users(store, gid) - dead
        assert not store.games.game(gid).state.over, "the game ended before a death the test can look at"
        if died:
            return spent, died
        assert spent["total"] <= 4, spent
    raise AssertionError("nobody died in 20 resolves")


def assert_access(env, guild_id: int, meta: dict, died: set[int], living: set[int]) -> None:
    """The overwrites in Discord and the record in the meta say the same, and say it right;
    so do the holders of the living players' role."""
    rid = int(meta["living_role"])
    held = {uid for uid, m in env.backend.get_guild(guild_id).members.items() if rid in m.role_ids}
    assert held == living and set(meta["living_holders"]) == living
    public, dead = int(meta["channels"]["public"]), int(meta["channels"]["dead"])
    for uid in died:
        assert can(env, guild_id, public, uid) == (True, False), "the dead read the public channel and no longer write"
        assert can(env, guild_id, dead, uid) == (True, True), "the dead talk in the channel of the dead"
        assert meta["access"]["public"][str(uid)] == RO
        assert meta["access"]["dead"][str(uid)] == RW
    for uid in living:
        assert can(env, guild_id, public, uid) == (True, True)
        assert can(env, guild_id, dead, uid) == (False, False)
        assert meta["access"]["public"][str(uid)] == RW
        assert str(uid) not in meta["access"]["dead"]


async def test_a_resolve_that_kills_takes_four_transactions_with_its_delivery(env):
    guild, gid = await open_council(env)
    store = env.bot.store
    requests = len(env.http_requests)
    spent, died = await play_to_a_death(env, gid, random.Random(5))
    # the mark, the resolve, its delivery staged from what it committed, one transaction marking
    # the parts sent and recording the overwrites the sync put and the living role's holders
    assert spent == {"resolve.mark": 1, "resolve": 1, "stage": 1, "part.sent": 1, "total": 4}, spent
    edits = [c for c in env.http_requests[requests:] if c.method == "PUT" and "/permissions/" in c.path]
    assert edits, "the death changed overwrites through REST"
    living = dead_users(store, gid) ^ {int(p.user_id) for p in store.games.game(gid).state.players}
    meta = await stored_meta(store, gid)
    assert meta == store.games.info(gid).meta  # the committed record is what the bot holds
    assert_access(env, guild.id, meta, dead_users(store, gid), living)
    assert died <= dead_users(store, gid)


async def test_the_record_alone_when_the_flush_marks_nothing(env):
    """A sync's record with a delivery that has nothing to mark is committed on its own."""
    guild, gid = await open_council(env)
    store, bot = env.bot.store, env.bot
    uid = int(store.games.game(gid).player(0).user_id)

    await store.games.apply(gid, Command.gm("remove", pid=0, mode="left", user_id=1))  # journaled, channels not moved
    await bot.deliverer.flush(gid)
    await env.settle()
    tx = store.transactions.copy()
    record = await bot.channel_manager.sync(gid, commit=False)
    assert record is not None and store.transactions == tx, "nothing committed by the sync itself"
    assert (await stored_meta(store, gid))["access"]["public"][str(uid)] == RW
    assert await bot.deliverer.flush(gid, meta=record) == 0
    assert store.transactions - tx == {"meta": 1, "total": 1}
    meta = await stored_meta(store, gid)
    assert meta["access"]["public"][str(uid)] == RO and meta["access"]["dead"][str(uid)] == RW
    assert meta == store.games.info(gid).meta


async def test_a_crash_before_the_marks_leaves_the_meta_and_the_start_puts_it_right(env, settings):
    guild, gid = await open_council(env)
    store = env.bot.store
    dead_before: set[int] = set()

    def dies_in_the_marks(point: str) -> None:
        """The process dies inside the transaction marking a killing resolve's parts sent (its
        statements and the sync's record written, not committed: rolled back)."""
        if point == "part.sent.before_commit" and dead_users(store, gid) - dead_before:
            raise RuntimeError("killed before the marks")

    store.fault = dies_in_the_marks
    rnd = random.Random(5)
    with pytest.raises(RuntimeError, match="killed before the marks"):
        for _ in range(20):
            dead_before = dead_users(store, gid)
            await _play_tick(store, gid, rnd)
            await env.bot.deliverer.flush(gid)
            await env.settle()
            await env.bot.scheduler.resolve(gid)
            await env.settle()
    store.fault = None
    died = dead_users(store, gid) - dead_before
    assert died
    meta = await stored_meta(store, gid)
    public = int(meta["channels"]["public"])
    for uid in died:  # the overwrites were put; their record was not committed, nor the marks
        assert can(env, guild.id, public, uid) == (True, False)
        assert meta["access"]["public"][str(uid)] == RW
    assert await store.outbox.pending_parts(gid), "the resolve's parts are sent and not marked"
    keys = [k for k in meta["channels"] if not k.startswith("category")]
    shown = {k: [m.content for m in channel(env, guild, meta, k).history()] for k in keys}
    requests = len(env.http_requests)
    await restart(env, settings)
    await env.settle()
    store = env.bot.store
    redone = [c for c in env.http_requests[requests:] if c.method == "PUT" and "/permissions/" in c.path]
    assert len(redone) == 2 * len(died), redone  # the same edits again (public, the dead's channel), no others
    # the role was taken from the dead before the crash: nothing to do again, the holders recorded
    meta = await stored_meta(store, gid)
    living = dead_users(store, gid) ^ {int(p.user_id) for p in store.games.game(gid).state.players}
    assert_access(env, guild.id, meta, dead_users(store, gid), living)
    assert not await store.outbox.pending_parts(gid)
    assert {k: [m.content for m in channel(env, guild, meta, k).history()] for k in keys} == shown, "nothing sent twice"
    # nothing left to put: a later sync changes nothing and commits nothing
    tx, requests = store.transactions.copy(), len(env.http_requests)
    await env.bot.channel_manager.sync(gid)
    assert store.transactions == tx and len(env.http_requests) == requests


async def test_a_channel_change_before_the_delivery_commits_the_record_first(env):
    """A GM takes a spectator away while a resolve's record waits for its delivery: the record
    is committed first (the GM's sync diffs against what Discord has), and the delivery's
    commit of it then changes nothing (it would put back the spectator's old access)."""
    guild, gid = await open_council(env)
    store, bot = env.bot.store, env.bot
    uid = int(store.games.game(gid).player(0).user_id)
    spectator = int(store.games.info(gid).meta["spectators"][0])
    await store.games.apply(gid, Command.gm("remove", pid=0, mode="left", user_id=1))
    await bot.deliverer.flush(gid)
    await env.settle()
    record = await bot.channel_manager.sync(gid, commit=False)
    assert record is not None and (await stored_meta(store, gid))["access"]["public"][str(uid)] == RW
    assert await bot.channel_manager.remove_spectator(gid, spectator)
    meta = await stored_meta(store, gid)
    assert meta["access"]["public"][str(uid)] == RO, "the record went first"
    assert meta["access"]["public"].get(str(spectator), NONE) == NONE
    version = store.games.info(gid).meta_version
    await bot.deliverer.flush(gid, meta=record)
    assert store.games.info(gid).meta_version == version and await stored_meta(store, gid) == meta
    public = int(meta["channels"]["public"])
    assert can(env, guild.id, public, spectator) == (False, False)
    assert can(env, guild.id, public, uid) == (True, False)
