"""/anon: queue an anonymous post; the engine publishes it at the next resolve in the public
channel. The answer is ephemeral and names nobody; only the GM channel learns the author: at
once, with a button to refuse the post before it is published (altmafia.bot.buttons)."""

from __future__ import annotations

from typing import Any

import discord
from discord import app_commands
from discord.ext import commands

from altmafia.bot.interact import D, N, as_player, defer, lang, refuse_engine, reply
from altmafia.text.i18n import text
from engine import ActionError
from storage import Command


class Anon(commands.GroupCog, group_name=N("anon"), group_description=D("anon")):
    def __init__(self, bot: Any) -> None:
        self.bot = bot
        super().__init__()

    @app_commands.command(name=N("anon.post"), description=D("anon.post"))
    @app_commands.rename(message=N("anon.post.message"))
    @app_commands.describe(message=D("anon.post.message"))
    async def post(self, interaction: discord.Interaction, message: app_commands.Range[str, 1, 1500]) -> None:
        found = await as_player(self.bot, interaction)
        if found is None:
            return
        gid, game, p = found
        await defer(interaction)
        try:
            await self.bot.store.apply(gid, Command.post_anon(p.pid, message, user_id=interaction.user.id, request_id=str(interaction.id)))
        except ActionError as err:
            await refuse_engine(interaction, game, err)
            return
        await reply(interaction, text(lang(interaction), "anon.queued"))
        await self.bot.deliverer.flush(gid)  # the queued post in the GM channel, with its refuse button


async def setup(bot: Any) -> None:
    await bot.add_cog(Anon(bot))
