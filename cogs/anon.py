"""/anon: queue an anonymous post; the engine publishes it at the next resolve in the public
channel. The answer is ephemeral and names nobody; only the GM channel learns the author: at
once, with a button to refuse the post before it is published (altmafia.bot.buttons).

``/anon form`` (and the panel's button) opens :class:`altmafia.bot.mail.AnonForm`, a modal whose
text may span several lines; it goes through :func:`altmafia.bot.mail.post_anon`, like ``/anon post``."""

from __future__ import annotations

import discord
from discord import app_commands
from discord.ext import commands

from altmafia.bot.bot import AltMafiaBot
from altmafia.bot.interact import D, N
from altmafia.bot.mail import MAX_TEXT, open_anon_form, post_anon


class Anon(commands.GroupCog, group_name=N("anon"), group_description=D("anon")):
    def __init__(self, bot: AltMafiaBot) -> None:
        self.bot = bot
        super().__init__()

    @app_commands.command(name=N("anon.post"), description=D("anon.post"))
    @app_commands.rename(message=N("anon.post.message"))
    @app_commands.describe(message=D("anon.post.message"))
    async def post(self, interaction: discord.Interaction, message: app_commands.Range[str, 1, MAX_TEXT]) -> None:
        await post_anon(self.bot, interaction, message)

    @app_commands.command(name=N("anon.form"), description=D("anon.form"))
    async def form(self, interaction: discord.Interaction) -> None:
        await open_anon_form(self.bot, interaction)


async def setup(bot: AltMafiaBot) -> None:
    await bot.add_cog(Anon(bot))
