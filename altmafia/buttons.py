"""Confirmation buttons of the GM, alive across restarts (their custom id says what they do:
``am:<action>:<game id>:<tick>``)."""

from __future__ import annotations

import contextlib
import re
from typing import Any

import discord

from .i18n import Renderer, text
from .interact import is_gm, lang, refuse


class GameButton(discord.ui.DynamicItem[discord.ui.Button], template=r"am:(?P<action>[a-z]+):(?P<game>[0-9a-zA-Z_-]+):(?P<tick>-?\d+)"):
    def __init__(self, action: str, game_id: str, tick: int, label: str = "OK",
                 style: discord.ButtonStyle = discord.ButtonStyle.secondary) -> None:
        self.action, self.game_id, self.tick = action, game_id, tick
        super().__init__(discord.ui.Button(label=label[:80], style=style, custom_id=f"am:{action}:{game_id}:{tick}"))

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction, item: discord.ui.Button, match: re.Match[str]) -> GameButton:
        return cls(match["action"], match["game"], int(match["tick"]), item.label or "OK", item.style)

    async def callback(self, interaction: discord.Interaction) -> None:  # type: ignore[override]
        bot: Any = interaction.client
        store = bot.store
        info = store.info(self.game_id) if store.has(self.game_id) else await store.find(self.game_id)
        if info is None:
            await refuse(interaction, "err.no_game")
            return
        if not is_gm(bot, interaction, info.gm_user_ids):
            await refuse(interaction, "err.not_gm")
            return
        lng = lang(interaction)
        if self.action == "cancel":
            await interaction.response.edit_message(content=text(lng, "gm.cancelled"), view=None)
            return
        await interaction.response.defer()
        result = await getattr(self, f"_{self.action}")(bot, interaction, info, lng)
        with contextlib.suppress(discord.NotFound):  # the message may have gone with its channel
            await interaction.edit_original_response(content=result, view=None)

    async def _resolve(self, bot: Any, interaction: discord.Interaction, info: Any, lng: str) -> str:
        if info.status != "running" or info.tick != self.tick:
            return text(lng, "gm.resolve_stale")
        game = bot.store.game(self.game_id)
        glang = info.meta.get("lang", "ru")
        label = Renderer(game, glang).label(game.info.label)
        line = text(glang, "gm.log", gm=interaction.user.display_name, action=text(glang, "gm.act_resolve", phase=label))
        done = await bot.scheduler.resolve(self.game_id, expect_tick=self.tick, user_id=interaction.user.id, gm_line=line)
        if not done:
            return text(lng, "gm.resolve_stale")
        return text(lng, "gm.resolved", count=len(done))

    async def _end(self, bot: Any, interaction: discord.Interaction, info: Any, lng: str) -> str:
        if info.status != "running":
            return text(lng, "gm.already_over")
        await bot.scheduler.end_now(self.game_id, interaction.user.id, interaction.user.display_name)
        return text(lng, "gm.ended")

    async def _archive(self, bot: Any, interaction: discord.Interaction, info: Any, lng: str) -> str:
        n = await bot.channel_manager.archive(info)
        return text(lng, "cleanup.archived", n=n)

    async def _delete(self, bot: Any, interaction: discord.Interaction, info: Any, lng: str) -> str:
        n = await bot.channel_manager.delete(info)
        return text(lng, "cleanup.deleted", n=n)
