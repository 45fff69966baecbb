"""/pm: a private message to another player, relayed into the recipient's hidden channel
(the engine's ``pm.received`` event) with a copy in the sender's; the engine counts the daily
quota and refuses a player deprived of PMs, out of quota or cut off.

``/pm form`` (and the panel's button) opens :class:`altmafia.bot.mail.PmForm`, a modal whose
text may span several lines; it goes through :func:`altmafia.bot.mail.send_pm`, like ``/pm send``."""

from __future__ import annotations

import discord
from discord import app_commands
from discord.ext import commands

from altmafia.bot.bot import AltMafiaBot
from altmafia.bot.interact import D, N, games_here, player_choices, player_of
from altmafia.bot.mail import MAX_TEXT, open_pm_form, recipients, send_pm


class Pms(commands.GroupCog, group_name=N("pm"), group_description=D("pm")):
    def __init__(self, bot: AltMafiaBot) -> None:
        self.bot = bot
        super().__init__()

    @app_commands.command(name=N("pm.send"), description=D("pm.send"))
    @app_commands.rename(to=N("pm.send.to"), message=N("pm.send.message"))
    @app_commands.describe(to=D("pm.send.to"), message=D("pm.send.message"))
    async def send(self, interaction: discord.Interaction, to: str, message: app_commands.Range[str, 1, MAX_TEXT]) -> None:
        await send_pm(self.bot, interaction, to, message)

    @app_commands.command(name=N("pm.form"), description=D("pm.form"))
    async def form(self, interaction: discord.Interaction) -> None:
        await open_pm_form(self.bot, interaction)

    @send.autocomplete("to")
    async def to_ac(self, interaction: discord.Interaction, current: str) -> list[app_commands.Choice[str]]:
        gids = games_here(self.bot, interaction)
        if len(gids) != 1:
            return []
        game = self.bot.store.games.game(gids[0])
        p = player_of(game, interaction.user.id)
        if p is None:
            return []
        return player_choices(game, recipients(game, p.pid), current)


async def setup(bot: AltMafiaBot) -> None:
    await bot.add_cog(Pms(bot))
