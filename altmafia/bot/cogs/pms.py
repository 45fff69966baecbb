"""/pm: a private message to another player, relayed into the recipient's hidden channel
(the engine's ``pm.received`` event) with a copy in the sender's; the engine counts the daily
quota and refuses a player deprived of PMs, out of quota or cut off."""

from __future__ import annotations

from typing import Any

import discord
from discord import app_commands
from discord.ext import commands

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
from engine import ActionError
from storage import Command


class Pms(commands.GroupCog, group_name=N("pm"), group_description=D("pm")):
    def __init__(self, bot: Any) -> None:
        self.bot = bot
        super().__init__()

    @app_commands.command(name=N("pm.send"), description=D("pm.send"))
    @app_commands.rename(to=N("pm.send.to"), message=N("pm.send.message"))
    @app_commands.describe(to=D("pm.send.to"), message=D("pm.send.message"))
    async def send(self, interaction: discord.Interaction, to: str, message: app_commands.Range[str, 1, 1500]) -> None:
        found = await as_player(self.bot, interaction)
        if found is None:
            return
        gid, game, p = found
        recipient = parse_player(game, to)
        if recipient is None:
            await refuse(interaction, "err.unknown_player", name=to)
            return
        # a retry after a lost reply (a new interaction): the same text to the same player in
        # this phase was already sent; it is not sent twice
        if any(m.sender == p.pid and m.recipient == recipient and m.text == message and m.tick == game.state.tick
               for m in game.state.pms):
            await refuse(interaction, "pm.already_sent", to=Renderer(game, lang(interaction)).player(recipient))
            return
        await defer(interaction)
        relayed = len(game.state.pms)
        plang = self.bot.store.info(gid).meta.get("langs", {}).get(str(p.pid)) or lang(interaction)
        # the sender's copy is staged in the PM's own transaction: never one without the other
        copy = self.bot.deliverer.outgoing(gid, f"player:{p.pid}", text(plang, "pm.copy", to=Renderer(game, plang).player(recipient),
                                                                         text=message))
        try:
            await self.bot.store.apply(gid, Command.send_pm(p.pid, recipient, message, user_id=interaction.user.id,
                                                            request_id=str(interaction.id)), posts=[copy])
        except ActionError as err:
            await refuse_engine(interaction, game, err)
            return
        game = self.bot.store.game(gid)
        me = game.player(p.pid)
        quota = game.pm_quota(me)
        left = "∞" if quota is None else max(0, quota - me.pm_sent.get(str(game.info.day), 0))
        lng = lang(interaction)
        r = Renderer(game, lng)
        if game.rules.mail and len(game.state.pms) == relayed:  # the ruleset's mail: a letter, read next phase
            await reply(interaction, text(lng, "pm.letter", to=r.player(recipient)))
        else:
            await reply(interaction, text(lng, "pm.sent", to=r.player(recipient), left=left))
        await self.bot.deliverer.flush(gid)

    @send.autocomplete("to")
    async def to_ac(self, interaction: discord.Interaction, current: str) -> list[app_commands.Choice[str]]:
        gids = games_here(self.bot, interaction)
        if len(gids) != 1:
            return []
        game = self.bot.store.game(gids[0])
        p = player_of(game, interaction.user.id)
        if p is None:
            return []
        return player_choices(game, [q.pid for q in game.living() if q.pid != p.pid], current)


async def setup(bot: Any) -> None:
    await bot.add_cog(Pms(bot))
