"""A player's mail, whatever control asks (``/pm``, ``/anon``, the action panel): a private
message to another player, an anonymous post queued for the next resolve, and the forms
(modals) that take either with a text of several lines. The engine counts the quotas and
refuses a player deprived of PMs, out of quota or cut off.
"""

from __future__ import annotations

from typing import Any

import discord

from altmafia.bot.interact import (
    answering,
    as_player,
    defer,
    lang,
    parse_player,
    refuse,
    refuse_engine,
    reply,
)
from altmafia.text import safe
from altmafia.text.i18n import Renderer, text
from engine import ActionError, Game
from storage import Command

from .services import Services

#: the longest message a player may send (a slash option, a form's text)
MAX_TEXT = 1500


async def send_pm(bot: Services, interaction: discord.Interaction, to: str, message: str) -> bool:
    """Send a PM as ``/pm send`` does, whatever control asked; True if the engine took it."""
    found = await as_player(bot, interaction)
    if found is None:
        return False
    gid, game, p = found
    if safe.blank(message):  # nothing to read: refused before the engine counts it
        await refuse(interaction, "err.blank_text")
        return False
    recipient = parse_player(game, to)
    if recipient is None:
        await refuse(interaction, "err.unknown_player", name=to)
        return False
    # a retry after a lost reply (a new interaction): the same text to the same player in
    # this phase was already sent; it is not sent twice
    if game.pm_already_sent(p.pid, recipient, message):
        await refuse(interaction, "pm.already_sent", to=Renderer(game, lang(interaction)).player(recipient))
        return False
    async with answering(interaction):  # no deferral unless the work takes long: the reply is the first response
        relayed = len(game.state.pms)
        plang = bot.store.games.info(gid).meta.get("langs", {}).get(str(p.pid)) or lang(interaction)
        # the sender's copy and the PM itself are staged in the PM's own transaction, claimed by
        # this process: never one without the other, and the flush sends both with one mark
        copy = bot.deliverer.outgoing(gid, f"player:{p.pid}", text(plang, "pm.copy", to=Renderer(game, plang).player(recipient),
                                                                    text=safe.said(message)))
        try:
            await bot.store.games.apply(gid, Command.send_pm(p.pid, recipient, message, user_id=interaction.user.id,
                                                       request_id=str(interaction.id)), posts=[copy],
                                  deliver=lambda g, info, rows: bot.deliverer.command_posts(gid, g, info, rows))
        except ActionError as err:
            await refuse_engine(interaction, game, err)
            return False
        game = bot.store.games.game(gid)
        me = game.player(p.pid)
        left = game.pm_left(me)
        lng = lang(interaction)
        r = Renderer(game, lng)
        if game.rules.mail and len(game.state.pms) == relayed:  # the ruleset's mail: a letter, read next phase
            await reply(interaction, text(lng, "pm.letter", to=r.player(recipient)))
        else:
            await reply(interaction, text(lng, "pm.sent", to=r.player(recipient), left="∞" if left is None else left))
    await bot.deliverer.flush(gid)  # after the answer: the copy and the PM, staged and claimed with the command
    return True


def recipients(game: Game, pid: int) -> list[int]:
    """Whom the PM controls offer: the engine's answer (``engine.mail.recipients``)."""
    return game.pm_recipients(pid)


class PmForm(discord.ui.Modal):
    """A PM in a form: the recipient (a select) and the text (several lines)."""

    def __init__(self, bot: Services, game: Game, pid: int, lng: str) -> None:
        super().__init__(title=text(lng, "form.letter_title" if game.rules.mail else "form.pm_title")[:45], timeout=None)
        self.bot = bot
        options = [discord.SelectOption(label=game.player(q).name[:100], value=str(q)) for q in recipients(game, pid)][:25]
        self.to: discord.ui.Select[Any] = discord.ui.Select(custom_id="to", options=options or [discord.SelectOption(label="—", value="-")])
        self.body: discord.ui.TextInput[Any] = discord.ui.TextInput(custom_id="text", style=discord.TextStyle.paragraph,
                                                                    max_length=MAX_TEXT)
        self.add_item(discord.ui.Label(text=text(lng, "form.pm_to")[:45], component=self.to))
        self.add_item(discord.ui.Label(text=text(lng, "form.text")[:45], component=self.body))

    async def on_submit(self, interaction: discord.Interaction) -> None:
        await send_pm(self.bot, interaction, self.to.values[0], self.body.value)


async def open_pm_form(bot: Services, interaction: discord.Interaction) -> None:
    """Open the PM form for the player who asked (refused, like ``/pm send``, to anyone else)."""
    found = await as_player(bot, interaction)
    if found is None:
        return
    _, game, p = found
    if not recipients(game, p.pid):
        await refuse(interaction, "err.no_recipient")
        return
    await interaction.response.send_modal(PmForm(bot, game, p.pid, lang(interaction)))


async def post_anon(bot: Services, interaction: discord.Interaction, message: str) -> bool:
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
        await bot.store.games.apply(gid, Command.post_anon(p.pid, message, user_id=interaction.user.id, request_id=str(interaction.id)))
    except ActionError as err:
        await refuse_engine(interaction, game, err)
        return False
    await reply(interaction, text(lang(interaction), "anon.queued"))
    await bot.deliverer.flush(gid)  # the queued post in the GM channel, with its refuse button
    return True


class AnonForm(discord.ui.Modal):
    """An anonymous post in a form: its text, several lines."""

    def __init__(self, bot: Services, lng: str) -> None:
        super().__init__(title=text(lng, "form.anon_title")[:45], timeout=None)
        self.bot = bot
        self.body: discord.ui.TextInput[Any] = discord.ui.TextInput(custom_id="text", style=discord.TextStyle.paragraph,
                                                                    max_length=MAX_TEXT)
        self.add_item(discord.ui.Label(text=text(lng, "form.text")[:45], component=self.body))

    async def on_submit(self, interaction: discord.Interaction) -> None:
        await post_anon(self.bot, interaction, self.body.value)


async def open_anon_form(bot: Services, interaction: discord.Interaction) -> None:
    """Open the anonymous post form for a player of the game here."""
    if await as_player(bot, interaction) is None:
        return
    await interaction.response.send_modal(AnonForm(bot, lang(interaction)))
