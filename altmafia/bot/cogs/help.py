"""/help (``/помощь``): what the asker can do now and how, answered ephemerally.

A player of the game here: their phase and its deadline, what the engine allows them now
(legal actions, open votes, PMs left) and the commands for it. A GM of the game (its creator or
a holder of the server's GM role): the short guide and where the full one is. A spectator:
what they see. Anyone else: how to open or join a lobby. The texts: ``altmafia.text.guide``.
"""

from __future__ import annotations

from typing import Any

import discord
from discord import app_commands
from discord.ext import commands

from altmafia.bot.interact import (
    D,
    N,
    channel_game,
    deadline_text,
    games_here,
    holds_gm_role,
    is_gm,
    lang,
    player_of,
    remember_lang,
    reply,
)
from altmafia.text.guide import gm_help, outside_help, player_help
from altmafia.text.i18n import text


class Help(commands.Cog):
    def __init__(self, bot: Any) -> None:
        self.bot = bot

    @app_commands.command(name=N("help"), description=D("help"))
    async def help(self, interaction: discord.Interaction) -> None:
        await reply(interaction, await self.answer(interaction), ephemeral=True)

    async def answer(self, interaction: discord.Interaction) -> str:
        lng = lang(interaction)
        store = self.bot.store
        gids = games_here(self.bot, interaction)
        if len(gids) == 1:
            gid = gids[0]
            game, info = store.game(gid), store.info(gid)
            p = player_of(game, interaction.user.id)
            if p is not None:  # a player is never a GM of their game
                await remember_lang(self.bot, gid, p.pid, interaction)
                return player_help(game, p.pid, lng, deadline_text(info, lng), game.order_targets(p.pid))
            if is_gm(self.bot, interaction, info.gm_user_ids, info.players):
                return gm_help(lng, info.meta.get("title", gid))
            if interaction.user.id in info.meta.get("spectators", []):
                return "\n".join([text(lng, "help.spectator", title=info.meta.get("title", gid)), outside_help(lng)])
            return outside_help(lng)
        lead = []
        if not gids and channel_game(self.bot, interaction) is not None:
            lead.append(text(lng, "help.over"))
        elif len(gids) > 1:
            lead.append(text(lng, "help.many"))
        if holds_gm_role(self.bot, interaction.user) and len(gids) != 1:
            return "\n".join([*lead, gm_help(lng, text(lng, "help.no_title")), outside_help(lng)])
        return "\n".join([*lead, outside_help(lng)])


async def setup(bot: Any) -> None:
    await bot.add_cog(Help(bot))
