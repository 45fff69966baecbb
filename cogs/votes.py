"""/vote: cast (or change, where the ruleset allows) a ballot; see the tally.

The engine answers every question: what a voter may choose (``Game.vote_choices``: the
candidates, «за мир», «против всех», amnesty or execution …), and the public line of a ballot,
an engine event (``vote.cast``, ``vote.changed``, … in ``engine/votes.py``, shaped by
``settings.vote_display``) journaled with the command and delivered to the vote channel by the
outbox, exactly once. This cog only parses and renders the choices; casting a ballot and taking
it back are :mod:`altmafia.bot.ballots`' (the panel's too), which answers the voter ephemerally. The same ballot cast again is not a change: acknowledged privately, not posted.
"""

from __future__ import annotations

import discord
from discord import app_commands
from discord.ext import commands

from altmafia.bot.ballots import cast_vote, choices_of, withdraw_vote
from altmafia.bot.bot import AltMafiaBot
from altmafia.bot.interact import (
    D,
    N,
    as_player,
    games_here,
    lang,
    player_of,
    refuse_engine,
    reply,
)
from altmafia.text.i18n import Renderer, count, text
from engine import ActionError, Game
from engine.votes import live_ballots


def tally_line(game: Game, vote_id: str, lng: str) -> str:
    """How many ballots each choice has now (the engine's live count: ballots, never weights)."""
    r = Renderer(game, lng)
    parts = [f"{r.player(k)} — {count(n, 'vote', lng)}" for k, n in live_ballots(game, vote_id)]
    return text(lng, "vote.tally", tally="; ".join(parts) or "—")


class Votes(commands.GroupCog, group_name=N("vote"), group_description=D("vote")):
    def __init__(self, bot: AltMafiaBot) -> None:
        self.bot = bot
        super().__init__()

    @app_commands.command(name=N("vote.cast"), description=D("vote.cast"))
    @app_commands.rename(target=N("vote.cast.target"), vote=N("vote.cast.vote"))
    @app_commands.describe(target=D("vote.cast.target"), vote=D("vote.cast.vote"))
    async def cast(self, interaction: discord.Interaction, target: str, vote: str | None = None) -> None:
        await cast_vote(self.bot, interaction, target, vote)

    @app_commands.command(name=N("vote.remove"), description=D("vote.remove"))
    @app_commands.rename(vote=N("vote.remove.vote"))
    @app_commands.describe(vote=D("vote.remove.vote"))
    async def remove(self, interaction: discord.Interaction, vote: str | None = None) -> None:
        await withdraw_vote(self.bot, interaction, vote)

    @cast.autocomplete("target")
    async def target_ac(self, interaction: discord.Interaction, current: str) -> list[app_commands.Choice[str]]:
        gids = games_here(self.bot, interaction)
        if len(gids) != 1:
            return []
        game = self.bot.store.games.game(gids[0])
        p = player_of(game, interaction.user.id)
        if p is None:
            return []
        wanted = getattr(interaction.namespace, "ballot", None)  # the renamed parameter's key
        votes = [v for v in game.open_votes() if wanted in (None, v.id)][:1]
        if not votes:
            return []
        pool = choices_of(game, p.pid, votes[0].id)
        choices = player_choices_any(game, pool, current, lang(interaction))
        return choices[:25]

    def open_votes(self, interaction: discord.Interaction) -> list[app_commands.Choice[str]]:
        """The votes open in this channel's game, for either command's ``vote``."""
        gids = games_here(self.bot, interaction)
        if len(gids) != 1:
            return []
        game = self.bot.store.games.game(gids[0])
        lng = lang(interaction)
        return [app_commands.Choice(name=getattr(v.names, lng)[:100], value=v.id) for v in game.open_votes()][:25]

    @cast.autocomplete("vote")
    async def vote_ac(self, interaction: discord.Interaction, current: str) -> list[app_commands.Choice[str]]:
        return self.open_votes(interaction)

    @remove.autocomplete("vote")
    async def remove_vote_ac(self, interaction: discord.Interaction, current: str) -> list[app_commands.Choice[str]]:
        return self.open_votes(interaction)

    @app_commands.command(name=N("vote.show"), description=D("vote.show"))
    async def show(self, interaction: discord.Interaction) -> None:
        found = await as_player(self.bot, interaction)
        if found is None:
            return
        gid, game, p = found
        lng = lang(interaction)
        votes = game.open_votes()
        if not votes:
            await refuse_engine(interaction, game, ActionError("vote_closed", vote=""))
            return
        r = Renderer(game, lng)
        lines = []
        mode = game.settings.vote_display  # the same setting the engine shapes ballots by
        for v in votes:
            lines.append(f"**{getattr(v.names, lng)}**")
            lines.append(text(lng, "vote.candidates", names=", ".join(r.player(c) for c in choices_of(game, p.pid, v.id)) or "—"))
            if mode in ("open", "count"):
                lines.append(tally_line(game, v.id, lng))
            mine = next((b for b in game.state.votes if b.pid == p.pid and b.vote == v.id), None)
            lines.append(text(lng, "vote.mine", target=r.player(mine.choice) if mine else "—"))
        await reply(interaction, "\n".join(lines))


def player_choices_any(game: Game, pool: list[int | str], current: str, lng: str) -> list[app_commands.Choice[str]]:
    r = Renderer(game, lng)
    cur = (current or "").casefold()
    out = []
    for c in pool:
        name = game.player(c).name if isinstance(c, int) else r.player(c)  # a choice's label: plain text
        if cur and cur not in name.casefold():
            continue
        out.append(app_commands.Choice(name=name[:100], value=str(c)))
    return out


async def setup(bot: AltMafiaBot) -> None:
    await bot.add_cog(Votes(bot))
