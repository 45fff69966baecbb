"""The bench's yardsticks on the real bot: ``/bench-noop``, a slash command that only replies
ephemerally, and ``/bench-pm-floor``, the floor of a PM (a short row committed, the reply,
two posts, another row committed), both added to the bot's tree before it starts. What a
command costs beyond them is the bot's own work (the Discord rows, the PM rows). And
:func:`stop`, how every bench row ends its bot under SimCord."""

from __future__ import annotations

import gc
from typing import Any

from storage.backend import Step

#: the PM floor's rows, in the bench's database only
PM_FLOOR_TABLE = "CREATE TABLE IF NOT EXISTS bench_pm_floor (request_id TEXT NOT NULL)"
PM_FLOOR_INSERT = "INSERT INTO bench_pm_floor (request_id) VALUES (?)"


def add_noop(bot: Any) -> None:
    """Add ``/bench-noop`` to the bot's command tree (before SimCord starts it)."""
    # imported here: discord.py is for the Discord rows only; the engine sections need none
    import discord
    from discord import app_commands

    @app_commands.command(name="bench-noop", description="does nothing (altmafia bench's yardstick)")
    async def noop(interaction: discord.Interaction) -> None:
        await interaction.response.send_message("ok", ephemeral=True)

    bot.tree.add_command(noop)


def add_pm_floor(bot: Any) -> None:
    """Add ``/bench-pm-floor`` (before SimCord starts the bot): the REST calls a PM makes and
    the two commits its goal allows (``pm.transactions`` ≤ 2), nothing else — one short row
    committed as the store commits a command (one trip to aiosqlite's thread,
    ``synchronous=FULL``; its table made by :data:`PM_FLOOR_TABLE`), the reply as the first
    response, a post in the sender's channel and one in the recipient's (``mine``, ``theirs``:
    channel ids), then a second row committed as a flush marks its sends."""
    # imported here: discord.py is for the Discord rows only; the engine sections need none
    import discord
    from discord import app_commands

    @app_commands.command(name="bench-pm-floor", description="a PM's REST calls and two commits (altmafia bench's floor)")
    async def pm_floor(interaction: discord.Interaction, mine: str, theirs: str, message: str) -> None:
        await bot.store.backend.batch([Step(PM_FLOOR_INSERT, (str(interaction.id),))])
        await interaction.response.send_message("ok", ephemeral=True)
        for cid in (mine, theirs):
            await bot.get_partial_messageable(int(cid)).send(message)
        await bot.store.backend.batch([Step(PM_FLOOR_INSERT, (f"{interaction.id}:sent",))])

    bot.tree.add_command(pm_floor)


async def stop(env: Any) -> None:
    """A SimCord env and its bot stopped as a process's end stops them: the env shut down, the
    bot's store closed, and what the bot's start froze (``AltMafiaBot.open_store``) given back
    to the collector, so that the rows after it run on the heap they would alone (SimCord never
    closes the bot, whose ``close`` would do that)."""
    await env.shutdown()
    await env.bot.store.close()
    gc.unfreeze()
