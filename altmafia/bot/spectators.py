"""Spectators by the GM's approval (the lobby option ``approve_spectators``).

``/lobby spectate`` then records a request (the lobby's ``pending_spectators``, or the game's
``meta.pending_spectators``) and posts it with two buttons for the GM — in the lobby's channel
before the start, in the GM channel once the game runs. The buttons survive restarts
(``ams:<l|g>:<lobby or game id>:<user id>:<1|0>``); only the game's GMs may press them; an
approval makes the member a spectator (the lobby's list, or the channels spectators read), a
refusal drops the request; either is said under the request and, in a game, in the GM log."""

from __future__ import annotations

import contextlib
import re
from typing import Any

import discord

from altmafia.text import safe
from altmafia.text.i18n import text
from storage import Store

from .failures import FAILED
from .interact import is_gm, lang, refuse
from .services import Delivering, Services, services


def request_view(where: str, ident: str, user_id: int, lang: str) -> discord.ui.View:
    view = discord.ui.View(timeout=None)
    view.add_item(SpectatorButton(where, ident, user_id, True, text(lang, "btn.spectator_yes")))
    view.add_item(SpectatorButton(where, ident, user_id, False, text(lang, "btn.spectator_no")))
    return view


class SpectatorButton(discord.ui.DynamicItem[discord.ui.Button],
                      template=r"ams:(?P<where>[lg]):(?P<ident>[0-9a-zA-Z_-]+):(?P<uid>\d+):(?P<yes>[01])"):
    def __init__(self, where: str, ident: str, user_id: int, yes: bool, label: str = "OK") -> None:
        self.where, self.ident, self.user_id, self.yes = where, ident, user_id, yes
        style = discord.ButtonStyle.success if yes else discord.ButtonStyle.danger
        super().__init__(discord.ui.Button(label=label[:80], style=style,
                                           custom_id=f"ams:{where}:{ident}:{user_id}:{int(yes)}"))

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction, item: discord.ui.Item[Any],
                             match: re.Match[str]) -> SpectatorButton:
        assert isinstance(item, discord.ui.Button)  # discord.py hands the component the id is on: a button
        return cls(match["where"], match["ident"], int(match["uid"]), match["yes"] == "1", item.label or "OK")

    async def callback(self, interaction: discord.Interaction) -> None:
        bot = services(interaction)
        if self.where == "l":
            done = await self._lobby(bot, interaction)
        else:
            done = await self._game(bot, interaction)
        if done is None:
            return
        mark, game_lang = done
        content = (interaction.message.content if interaction.message else "") + "\n" + text(
            game_lang, "spectate.approved_mark" if self.yes else "spectate.refused_mark", gm=safe.name(interaction.user.display_name),
            name=f"<@{self.user_id}>")
        with contextlib.suppress(*FAILED):
            await interaction.edit_original_response(content=content[:2000], view=None)
        _ = mark

    async def _lobby(self, bot: Services, interaction: discord.Interaction) -> tuple[bool, str] | None:
        lobbies = await bot.store.lobbies.lobbies()
        lobby = lobbies.get(self.ident)
        if lobby is None:
            await refuse(interaction, "err.no_lobby")
            return None
        if not is_gm(bot, interaction, lobby["gms"], lobby["players"]):
            await refuse(interaction, "err.not_gm")
            return None
        uid, yes = self.user_id, self.yes

        def decide(data: dict[str, Any]) -> bool:
            pending = data.get("pending_spectators", [])
            if uid not in pending:
                return False
            data["pending_spectators"] = [u for u in pending if u != uid]
            if yes and uid not in data["spectators"] and not any(p["user_id"] == uid for p in data["players"]):
                data["spectators"].append(uid)
            return True

        done = await bot.store.lobbies.update_lobby(self.ident, decide)
        if done is None or not done[1]:
            await refuse(interaction, "err.spectator_not_pending")
            return None
        await interaction.response.defer()
        return True, done[0]["lang"]

    async def _game(self, bot: Services, interaction: discord.Interaction) -> tuple[bool, str] | None:
        store = bot.store
        if not store.games.has(self.ident):
            await refuse(interaction, "err.no_game")
            return None
        info = store.games.info(self.ident)
        if not is_gm(bot, interaction, info.gm_user_ids, info.players):
            await refuse(interaction, "err.not_gm")
            return None
        uid = self.user_id
        if uid not in info.meta.get("pending_spectators", []):
            await refuse(interaction, "err.spectator_not_pending")
            return None
        await interaction.response.defer()
        await store.meta.update_meta(self.ident, lambda m: m.update(
            pending_spectators=[u for u in m.get("pending_spectators", []) if u != uid]))
        glang = info.meta.get("lang", "ru")
        if self.yes:
            await bot.channel_manager.add_spectator(self.ident, uid)
        action = text(glang, "gm.act_spectator_yes" if self.yes else "gm.act_spectator_no", name=f"<@{uid}>")
        await bot.gm_log(self.ident, interaction, action)
        return True, glang


async def ask_lobby(interaction: discord.Interaction, lobby_id: str, lobby: dict[str, Any]) -> None:
    """Post a request (recorded in the lobby by the caller), with the GM's buttons, in its channel."""
    uid = interaction.user.id
    lng = lobby["lang"]
    body = text(lng, "spectate.request", name=interaction.user.mention)
    await interaction.response.send_message(body, view=request_view("l", lobby_id, uid, lng),
                                            allowed_mentions=discord.AllowedMentions.none())
    with contextlib.suppress(*FAILED):
        await interaction.followup.send(text(lang(interaction), "spectate.waiting"), ephemeral=True)


async def ask_game(store: Store, deliverer: Delivering, interaction: discord.Interaction, game_id: str) -> None:
    """Record the request in the game's meta and post it, with the GM's buttons, in the GM channel."""
    uid = interaction.user.id
    info = await store.meta.update_meta(game_id, lambda m: m.update(
        pending_spectators=[*[u for u in m.get("pending_spectators", []) if u != uid], uid]))
    glang = info.meta.get("lang", "ru")
    # keyed by the meta's version the request was recorded at: a request after a refusal is new
    await deliverer.post(game_id, "gm", text(glang, "spectate.request", name=f"<@{uid}>"), mention=0,
                         view=f"spectator:{uid}:{glang}", once=f"spectate:{uid}:{info.meta_version}")
