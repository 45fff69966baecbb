"""The bench's yardstick on the real bot: ``/bench-noop``, a slash command that only replies
ephemerally, added to the bot's tree before it starts. What a command costs beyond it is the
bot's own work (the Discord rows, the PM rows)."""

from __future__ import annotations

from typing import Any


def add_noop(bot: Any) -> None:
    """Add ``/bench-noop`` to the bot's command tree (before SimCord starts it)."""
    # imported here: discord.py is for the Discord rows only; the engine sections need none
    import discord
    from discord import app_commands

    @app_commands.command(name="bench-noop", description="does nothing (altmafia bench's yardstick)")
    async def noop(interaction: discord.Interaction) -> None:
        await interaction.response.send_message("ok", ephemeral=True)

    bot.tree.add_command(noop)
