"""/faction: invite, accept, decline, leave, kick, overthrow, info.

Faction moves are taken at night and settle at the night's resolve, in the book's order; the
engine checks each one and refuses with its message key. Membership is secret: every answer
here is ephemeral, and news of the faction goes to the faction's own channel.
"""

from __future__ import annotations

import discord
from discord import app_commands
from discord.ext import commands

from altmafia.bot.bot import AltMafiaBot
from altmafia.bot.interact import (
    D,
    N,
    as_player,
    defer,
    games_here,
    lang,
    parse_player,
    player_choices,
    player_of,
    refuse,
    refuse_engine,
    reply,
)
from altmafia.text.i18n import Renderer, text
from engine import ActionError, Game
from storage import Command


class Factions(commands.GroupCog, group_name=N("faction"), group_description=D("faction")):
    def __init__(self, bot: AltMafiaBot) -> None:
        self.bot = bot
        super().__init__()

    async def op(self, interaction: discord.Interaction, op: str, player: str | None = None, fid: str | None = None) -> None:
        found = await as_player(self.bot, interaction)
        if found is None:
            return
        gid, game, p = found
        target = None
        if player is not None:
            target = parse_player(game, player)
            if target is None:
                await refuse(interaction, "err.unknown_player", name=player)
                return
        await defer(interaction)
        try:
            await self.bot.store.games.apply(gid, Command.faction_op(p.pid, op, target, fid, user_id=interaction.user.id,
                                                               request_id=str(interaction.id)))
        except ActionError as err:
            await refuse_engine(interaction, game, err)
            return
        r = Renderer(self.bot.store.games.game(gid), lang(interaction))
        await reply(interaction, text(lang(interaction), f"faction.{op}", target=r.player(target) if target is not None else ""))
        await self.bot.deliverer.flush(gid)

    def _ctx(self, interaction: discord.Interaction) -> tuple[Game, int] | None:
        gids = games_here(self.bot, interaction)
        if len(gids) != 1:
            return None
        game = self.bot.store.games.game(gids[0])
        p = player_of(game, interaction.user.id)
        return (game, p.pid) if p else None

    async def living_others(self, interaction: discord.Interaction, current: str) -> list[app_commands.Choice[str]]:
        found = self._ctx(interaction)
        if found is None:
            return []
        game, pid = found
        return player_choices(game, [q.pid for q in game.living() if q.pid != pid], current)

    async def inviters(self, interaction: discord.Interaction, current: str) -> list[app_commands.Choice[str]]:
        found = self._ctx(interaction)
        if found is None:
            return []
        game, pid = found
        return player_choices(game, game.pending_invitations(pid), current)

    async def members(self, interaction: discord.Interaction, current: str) -> list[app_commands.Choice[str]]:
        found = self._ctx(interaction)
        if found is None:
            return []
        game, pid = found
        pool = game.teammates(pid)
        return player_choices(game, pool, current)

    async def my_factions(self, interaction: discord.Interaction, current: str) -> list[app_commands.Choice[str]]:
        found = self._ctx(interaction)
        if found is None:
            return []
        game, pid = found
        r = Renderer(game, lang(interaction))
        return [app_commands.Choice(name=r.faction(f.fid), value=f.fid) for f in game.factions_of(pid)][:25]

    @app_commands.command(name=N("faction.invite"), description=D("faction.invite"))
    @app_commands.rename(player=N("faction.player"), new=N("faction.invite.new"))
    @app_commands.describe(player=D("faction.player"), new=D("faction.invite.new"))
    async def invite(self, interaction: discord.Interaction, player: str, new: bool = False) -> None:
        await self.op(interaction, "invite", player, "new" if new else None)

    @app_commands.command(name=N("faction.accept"), description=D("faction.accept"))
    @app_commands.rename(player=N("faction.inviter"))
    @app_commands.describe(player=D("faction.inviter"))
    async def accept(self, interaction: discord.Interaction, player: str) -> None:
        await self.op(interaction, "accept", player)

    @app_commands.command(name=N("faction.decline"), description=D("faction.decline"))
    @app_commands.rename(player=N("faction.inviter"))
    @app_commands.describe(player=D("faction.inviter"))
    async def decline(self, interaction: discord.Interaction, player: str) -> None:
        await self.op(interaction, "decline", player)

    @app_commands.command(name=N("faction.leave"), description=D("faction.leave"))
    @app_commands.rename(faction=N("faction.which"))
    @app_commands.describe(faction=D("faction.which"))
    async def leave(self, interaction: discord.Interaction, faction: str | None = None) -> None:
        await self.op(interaction, "leave", None, faction)

    @app_commands.command(name=N("faction.kick"), description=D("faction.kick"))
    @app_commands.rename(player=N("faction.player"), faction=N("faction.which"))
    @app_commands.describe(player=D("faction.player"), faction=D("faction.which"))
    async def kick(self, interaction: discord.Interaction, player: str, faction: str | None = None) -> None:
        await self.op(interaction, "kick", player, faction)

    @app_commands.command(name=N("faction.overthrow"), description=D("faction.overthrow"))
    @app_commands.rename(faction=N("faction.which"))
    @app_commands.describe(faction=D("faction.which"))
    async def overthrow(self, interaction: discord.Interaction, faction: str | None = None) -> None:
        await self.op(interaction, "overthrow", None, faction)

    @app_commands.command(name=N("faction.info"), description=D("faction.info"))
    async def info(self, interaction: discord.Interaction) -> None:
        found = await as_player(self.bot, interaction)
        if found is None:
            return
        gid, game, p = found
        lng = lang(interaction)
        r = Renderer(game, lng)
        lines = []
        for f in game.factions_of(p.pid):
            names = ", ".join(r.player(m) + (" ★" if m == f.leader else "") for m in sorted(f.members))
            lines.append(text(lng, "faction.info_line", fid=r.faction(f.fid), leader=r.player(f.leader), members=names))
        invites = game.pending_invitations(p.pid)
        if invites:
            lines.append(text(lng, "faction.info_invites", names=", ".join(r.player(i) for i in invites)))
        await reply(interaction, "\n".join(lines) or text(lng, "faction.info_none"))

    invite.autocomplete("player")(living_others)
    accept.autocomplete("player")(inviters)
    decline.autocomplete("player")(inviters)
    kick.autocomplete("player")(members)
    leave.autocomplete("faction")(my_factions)
    kick.autocomplete("faction")(my_factions)
    overthrow.autocomplete("faction")(my_factions)


async def setup(bot: AltMafiaBot) -> None:
    await bot.add_cog(Factions(bot))
