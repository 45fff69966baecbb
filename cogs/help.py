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

from altmafia.bot.bot import AltMafiaBot
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
from altmafia.text.guide import (
    gm_help,
    lobby_gm_help,
    lobby_player_help,
    outside_help,
    over_gm_help,
    player_help,
    slash,
    spectator_help,
)
from altmafia.text.i18n import text


class Help(commands.Cog):
    def __init__(self, bot: AltMafiaBot) -> None:
        self.bot = bot

    @app_commands.command(name=N("help"), description=D("help"))
    @app_commands.allowed_contexts(guilds=True, dms=True, private_channels=False)
    async def help(self, interaction: discord.Interaction) -> None:
        await reply(interaction, await self.answer(interaction), ephemeral=True)

    async def answer(self, interaction: discord.Interaction) -> str:
        lng = lang(interaction)
        store = self.bot.store
        if interaction.guild_id is None:  # a DM: games are played in a server's channels
            return self.in_dm(interaction, lng)
        gids = games_here(self.bot, interaction)
        if len(gids) == 1:
            gid = gids[0]
            game, info = store.games.game(gid), store.games.info(gid)
            p = player_of(game, interaction.user.id)
            if p is not None:  # a player is never a GM of their game
                await remember_lang(self.bot, gid, p.pid, interaction)
                return player_help(game, p.pid, lng, deadline_text(info, lng), game.order_targets(p.pid))
            if is_gm(self.bot, interaction, info.gm_user_ids, info.players):
                return gm_help(lng, info.meta.get("title", gid))
            if interaction.user.id in info.meta.get("spectators", []):
                return spectator_help(lng, info.meta.get("title", gid))
            return outside_help(lng)
        here = channel_game(self.bot, interaction)
        if not gids and here is not None:  # a finished game's channel
            over = store.games.info(here) if store.games.has(here) else await store.games.find(here)
            if over is not None and is_gm(self.bot, interaction, over.gm_user_ids, over.players):
                return over_gm_help(lng, bool(over.meta.get("review_published")), bool(over.meta.get("archived")))
            return "\n".join([text(lng, "help.over"), outside_help(lng)])
        lobby = await self.lobby_here(interaction)
        if lobby is not None:
            lobby_id, data = lobby
            if is_gm(self.bot, interaction, data["gms"], data["players"]):
                return lobby_gm_help(lng, lobby_id, len(data["players"]))
            if any(p["user_id"] == interaction.user.id for p in data["players"]):
                return lobby_player_help(lng, lobby_id, len(data["players"]))
        lead = [text(lng, "help.many")] if len(gids) > 1 else []
        if holds_gm_role(self.bot, interaction.user) and len(gids) != 1:
            return "\n".join([*lead, gm_help(lng, text(lng, "help.no_title")), outside_help(lng)])
        return "\n".join([*lead, outside_help(lng)])

    async def lobby_here(self, interaction: discord.Interaction) -> tuple[str, dict[str, Any]] | None:
        """The lobby open in this channel, if one (and only one) is."""
        found = await self.bot.store.lobbies.lobbies(interaction.guild_id)
        here = [(k, v) for k, v in found.items() if v["channel_id"] == interaction.channel_id]
        return here[0] if len(here) == 1 else None

    def in_dm(self, interaction: discord.Interaction, lng: str) -> str:
        """/help in a DM: the games are in the server; the asker's running games, linked."""
        uid = interaction.user.id
        lines = [text(lng, "help.dm", help=slash(lng, "help"))]
        for info in self.bot.store.games.games():
            if info.status != "running":
                continue
            chans = info.meta.get("channels", {})
            game = self.bot.store.games.game(info.game_id)
            p = player_of(game, uid)
            if p is not None and f"player:{p.pid}" in chans:
                lines.append(text(lng, "help.dm_game", title=info.meta.get("title", info.game_id), channel=f"<#{chans[f'player:{p.pid}']}>"))
            elif uid in info.gm_user_ids and "gm" in chans:
                lines.append(text(lng, "help.dm_game", title=info.meta.get("title", info.game_id), channel=f"<#{chans['gm']}>"))
        return "\n".join(lines)


async def setup(bot: AltMafiaBot) -> None:
    await bot.add_cog(Help(bot))
