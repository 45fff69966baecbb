"""One bot process of a sharded bot (``tests/bot/test_shards.py``): the real bot on SimCord,
owning shard ``SHARD`` of ``COUNT`` on a shared PostgreSQL database, plays one game in a guild
of its shard (sign-up, start, a forced resolve, then two deadlines) and prints what it saw as
JSON: its game, the games its store held at start and at the end, and every message that
reached the game's channels. ``python -m tests.bot.shard_child URL COUNT SHARD``."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path

import pytest
import simcord

from altmafia.bot.bot import create_bot
from altmafia.bot.settings import Settings

from . import strict_discord
from .conftest import open_gm_commands
from .helpers import NAMES, force_resolve


async def main(url: str, count: int, shard: int) -> dict:
    settings = Settings(token=None, db_path=Path("unused.sqlite3"), db_url=url, shard_count=count, shard_ids=(shard,),
                        scheduler_seconds=3600.0, remind_minutes=0, min_phase_minutes=30,
                        sync_commands=True)  # each simulated Discord is its own: each syncs
    with pytest.MonkeyPatch.context() as patch:
        strict_discord.install(patch)
        return await play(settings, shard)


async def play(settings: Settings, shard: int) -> dict:
    bot = create_bot(settings)
    env = simcord.Env(bot, settle_timeout=60.0)
    strict = strict_discord.StrictDiscord(env)  # the strict test Discord, as in the env fixture
    await env.start()
    open_gm_commands(env)  # as the env fixture does: the servers' admins open /gm
    try:
        at_start = sorted(g.game_id for g in bot.store.report.games)
        guild = env.create_guild(f"Мафия {shard}", shard_id=shard)
        lobby = guild.create_text_channel("набор")
        gm = guild.add_member(env.create_user(f"gm{shard}"))
        players = [guild.add_member(env.create_user(f"p{shard}-{i}", global_name=NAMES[i])) for i in range(5)]
        await gm.slash(lobby, "lobby create")
        for p in players:
            await p.slash(lobby, "lobby join")
        r = await gm.slash(lobby, "lobby start")
        assert r.response is not None and "<#" in r.response.content, r
        mine = [g.game_id for g in bot.store.games.games() if g.guild_id == guild.id]
        assert len(mine) == 1, bot.store.games.games()
        gid = mine[0]

        class T:  # what helpers.force_resolve reads
            pass

        t = T()
        t.gm = gm
        t.channel = lambda key: next(c for c in guild.channels.values() if c.id == int(bot.store.games.info(gid).meta["channels"][key]))
        await force_resolve(t)
        for _ in range(2):  # two deadlines pass: the scheduler resolves them
            info = bot.store.games.info(gid)
            if info.status != "running" or info.deadline is None:
                break
            await env.advance_time((info.deadline - env.now()).total_seconds() + 60)
        await bot.deliverer.flush()
        channels = {int(cid): key for key, cid in bot.store.games.info(gid).meta["channels"].items()}
        seen = [[channels[c.id], m.content] for c in guild.channels.values() if c.id in channels for m in c.history()]
        return {"game": gid, "guild": guild.id, "at_start": at_start, "held": sorted(g.game_id for g in bot.store.games.games()),
                "tick": bot.store.games.info(gid).tick, "messages": seen, "owner": bot.store.owner,
                "refused": strict.problems()}
    finally:
        await env.shutdown()
        await bot.store.close()


if __name__ == "__main__":
    out = asyncio.run(main(sys.argv[1], int(sys.argv[2]), int(sys.argv[3])))
    print("RESULT " + json.dumps(out, ensure_ascii=False))
