"""/anon: queue an anonymous post; the engine publishes it at the next resolve in the public
channel. The answer is ephemeral and names nobody; only the GM channel learns the author: at
once, with a button to refuse the post before it is published (altmafia.bot.buttons).

``/anon form`` (and the panel's button) opens :class:`AnonForm`, a modal whose text may span
several lines; it goes through :func:`post_anon`, like ``/anon post``."""

from __future__ import annotations

from typing import Any

import discord
from discord import app_commands
from discord.ext import commands

from altmafia.bot.interact import D, N, as_player, defer, lang, refuse, refuse_engine, reply
from altmafia.text import safe
from altmafia.text.i18n import text
from engine import ActionError
from storage import Command

from .pms import MAX_TEXT


async def post_anon(bot: Any, interaction: discord.Interaction, message: str) -> bool:
    """Queue an anonymous post as ``/anon post`` does, whatever control asked."""
    found = await as_player(bot, interaction)
    if found is None:
        return False
    gid, game, p = found
    if safe.blank(message):  # nothing to read: refused before the engine counts it
        await refuse(interaction, "err.blank_text")
        return False
    await defer(interaction)
    try:
        await bot.store.apply(gid, Command.post_anon(p.pid, message, user_id=interaction.user.id, request_id=str(interaction.id)))
    except ActionError as err:
        await refuse_engine(interaction, game, err)
        return False
    await reply(interaction, text(lang(interaction), "anon.queued"))
    await bot.deliverer.flush(gid)  # the queued post in the GM channel, with its refuse button
    return True


class AnonForm(discord.ui.Modal):
    """An anonymous post in a form: its text, several lines."""

    def __init__(self, bot: Any, lng: str) -> None:
        super().__init__(title=text(lng, "form.anon_title")[:45], timeout=None)
        self.bot = bot
        self.body: discord.ui.TextInput[Any] = discord.ui.TextInput(custom_id="text", style=discord.TextStyle.paragraph,
                                                                    max_length=MAX_TEXT)
        self.add_item(discord.ui.Label(text=text(lng, "form.text")[:45], component=self.body))

    async def on_submit(self, interaction: discord.Interaction) -> None:  # type: ignore[override]
        await post_anon(self.bot, interaction, self.body.value)


async def open_anon_form(bot: Any, interaction: discord.Interaction) -> None:
    """Open the anonymous post form for a player of the game here."""
    if await as_player(bot, interaction) is None:
        return
    await interaction.response.send_modal(AnonForm(bot, lang(interaction)))


class Anon(commands.GroupCog, group_name=N("anon"), group_description=D("anon")):
    def __init__(self, bot: Any) -> None:
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


async def setup(bot: Any) -> None:
    await bot.add_cog(Anon(bot))
