"""/vote: cast (or change, where the ruleset allows) a ballot; see the tally.

The engine answers every question: what a voter may choose (``Game.vote_choices``: the
candidates, «за мир», «против всех», amnesty or execution …), and the public line of a ballot,
an engine event (``vote.cast``, ``vote.changed``, … in ``engine/votes.py``, shaped by
``settings.vote_display``) journaled with the command and delivered to the vote channel by the
outbox, exactly once. This cog only parses, renders the choices and answers the voter
ephemerally. The same ballot cast again is not a change: acknowledged privately, not posted.
"""

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
    player_of,
    refuse,
    refuse_engine,
    reply,
)
from altmafia.text import safe
from altmafia.text.i18n import Renderer, count, text
from engine import ActionError, Game
from engine.votes import live_ballots
from storage import Command


def choices_of(game: Game, pid: int, vote_id: str | None) -> list[int | str]:
    """The engine's choices, or none where it would refuse the voter (closed, cannot vote)."""
    try:
        return game.vote_choices(pid, vote_id)
    except ActionError:
        return []


def tally_line(game: Game, vote_id: str, lng: str) -> str:
    """How many ballots each choice has now (the engine's live count: ballots, never weights)."""
    r = Renderer(game, lng)
    parts = [f"{r.player(k)} — {count(n, 'vote', lng)}" for k, n in live_ballots(game, vote_id)]
    return text(lng, "vote.tally", tally="; ".join(parts) or "—")


def known_vote(game: Game, vote: str) -> str | None:
    """The id of the ruleset's vote typed as ``vote`` (its id, or its name in either language)."""
    want = vote.strip().casefold()
    for v in game.rules.votes:
        if want in {v.id.casefold(), v.names.ru.casefold(), v.names.en.casefold()}:
            return v.id
    return None


async def refuse_unknown_vote(interaction: discord.Interaction, game: Game, vote: str) -> None:
    """A vote the ruleset does not have: said so, with the votes open now by their names."""
    lng = lang(interaction)
    left, right = ("«", "»") if lng == "ru" else ("“", "”")
    names = ", ".join(f"{left}{getattr(v.names, lng)}{right}" for v in game.open_votes()) or "—"
    await refuse(interaction, "err.unknown_vote", vote=safe.name(vote), open=names)


class Votes(commands.GroupCog, group_name=N("vote"), group_description=D("vote")):
    def __init__(self, bot: Any) -> None:
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
        game = self.bot.store.game(gids[0])
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

    @cast.autocomplete("vote")
    async def vote_ac(self, interaction: discord.Interaction, current: str) -> list[app_commands.Choice[str]]:
        gids = games_here(self.bot, interaction)
        if len(gids) != 1:
            return []
        game = self.bot.store.game(gids[0])
        lng = lang(interaction)
        return [app_commands.Choice(name=getattr(v.names, lng)[:100], value=v.id) for v in game.open_votes()][:25]

    @remove.autocomplete("vote")
    async def remove_vote_ac(self, interaction: discord.Interaction, current: str) -> list[app_commands.Choice[str]]:
        return await self.vote_ac(interaction, current)

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


async def cast_vote(bot: Any, interaction: discord.Interaction, target: str, vote: str | None = None) -> bool:
    """Cast (or change) a ballot as ``/vote cast`` does, whatever control asked; True if taken.
    Its public line is the engine's event, delivered by the outbox."""
    found = await as_player(bot, interaction)
    if found is None:
        return False
    gid, game, p = found
    lng = lang(interaction)
    open_votes = game.open_votes()
    if vote is None:
        if not open_votes:
            await refuse_engine(interaction, game, ActionError("vote_closed", vote=""))
            return False
        vote = open_votes[0].id
    elif known_vote(game, vote) is None:
        await refuse_unknown_vote(interaction, game, vote)
        return False
    else:
        vote = known_vote(game, vote)
    try:
        offered = game.vote_choices(p.pid, vote)
    except ActionError as err:  # closed, or this player may not vote
        await refuse_engine(interaction, game, err)
        return False
    choice: int | str | None = target if target in offered else parse_player(game, target)
    if choice is None:
        await refuse(interaction, "err.unknown_player", name=target)
        return False
    await defer(interaction)
    mine = next((v for v in game.state.votes if v.pid == p.pid and v.vote == vote), None)
    changed = mine is not None
    same = changed and mine.choice == choice  # the same ballot again: not a change (nothing spent)
    try:
        await bot.store.apply(gid, Command.vote(p.pid, vote, choice, user_id=interaction.user.id, request_id=str(interaction.id)))
    except ActionError as err:
        await refuse_engine(interaction, game, err)
        return False
    game = bot.store.game(gid)
    r = Renderer(game, lng)
    if same:
        await reply(interaction, text(lng, "vote.same", target=r.player(choice)))
        return True
    await reply(interaction, text(lng, "vote.changed" if changed else "vote.cast", target=r.player(choice)))
    await bot.deliverer.flush(gid)  # the ballot's public line: an engine event, through the outbox
    await bot.scheduler.end_early(gid)  # the ruleset may end the phase once nobody is waited for
    return True


def candidates(game: Game, vdef: Any, pid: int) -> list[int | str]:
    """What ``pid`` may choose in ``vdef`` now (the engine's ``vote_choices``; none where it refuses)."""
    return choices_of(game, pid, vdef.id)


async def withdraw_vote(bot: Any, interaction: discord.Interaction, vote: str | None = None) -> bool:
    """Take one's ballot back where the vote allows it (the engine's ``unvote`` decides)."""
    found = await as_player(bot, interaction)
    if found is None:
        return False
    gid, game, p = found
    lng = lang(interaction)
    if vote is None:
        mine = [v.vote for v in game.state.votes if v.pid == p.pid and v.vote in {o.id for o in game.open_votes()}]
        if not mine and not game.open_votes():
            await refuse_engine(interaction, game, ActionError("vote_closed", vote=""))
            return False
        vote = mine[0] if mine else game.open_votes()[0].id
    elif known_vote(game, vote) is None:
        await refuse_unknown_vote(interaction, game, vote)
        return False
    else:
        vote = known_vote(game, vote)
    await defer(interaction)
    try:
        await bot.store.apply(gid, Command.unvote(p.pid, vote, user_id=interaction.user.id, request_id=str(interaction.id)))
    except ActionError as err:
        await refuse_engine(interaction, game, err)
        return False
    game = bot.store.game(gid)
    await reply(interaction, text(lng, "vote.withdrawn"))
    await bot.deliverer.flush(gid)  # the public line: the engine's vote.withdrawn, through the outbox
    return True


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


async def setup(bot: Any) -> None:
    await bot.add_cog(Votes(bot))
