"""Ballots, whatever control asks (``/vote``, the action panel): cast (or change) one, take it
back, and the choices a voter has (``Game.vote_choices``). A ballot's public line is the
engine's event, journaled with the command and delivered by the outbox; the voter is answered
ephemerally.
"""

from __future__ import annotations

from typing import Any

import discord

from altmafia.bot.interact import (
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


def choices_of(game: Game, pid: int, vote_id: str | None) -> list[int | str]:
    """The engine's choices, or none where it would refuse the voter (closed, cannot vote)."""
    try:
        return game.vote_choices(pid, vote_id)
    except ActionError:
        return []


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


async def cast_vote(bot: Services, interaction: discord.Interaction, target: str, vote: str | None = None) -> bool:
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
    elif (known := known_vote(game, vote)) is None:
        await refuse_unknown_vote(interaction, game, vote)
        return False
    else:
        vote = known
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
    same = mine is not None and mine.choice == choice  # the same ballot again: not a change (nothing spent)
    try:
        await bot.store.games.apply(gid, Command.vote(p.pid, vote, choice, user_id=interaction.user.id, request_id=str(interaction.id)))
    except ActionError as err:
        await refuse_engine(interaction, game, err)
        return False
    game = bot.store.games.game(gid)
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


async def withdraw_vote(bot: Services, interaction: discord.Interaction, vote: str | None = None) -> bool:
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
    elif (known := known_vote(game, vote)) is None:
        await refuse_unknown_vote(interaction, game, vote)
        return False
    else:
        vote = known
    await defer(interaction)
    try:
        await bot.store.games.apply(gid, Command.unvote(p.pid, vote, user_id=interaction.user.id, request_id=str(interaction.id)))
    except ActionError as err:
        await refuse_engine(interaction, game, err)
        return False
    game = bot.store.games.game(gid)
    await reply(interaction, text(lng, "vote.withdrawn"))
    await bot.deliverer.flush(gid)  # the public line: the engine's vote.withdrawn, through the outbox
    return True
