"""The bot as its services see it: typed protocols, below every module of the bot that uses them.

The bot's parts call one another at run time both ways: delivery renders the buttons and the
panels, and the buttons and the panels have delivery send what they stage; the scheduler settles
an undo, and the undo button asks the scheduler. Their modules cannot import one another both
ways (no circle, type-only imports included: ``.importlinter``). So what each part offers the
others is written here as a :class:`typing.Protocol`, on the store and the settings only, and
each module annotates its collaborators with these: :class:`Services` is the bot
(``altmafia.bot.bot.AltMafiaBot``, the composition root that builds the parts and the one
module that imports them all), :class:`Delivering` its ``deliverer``
(``altmafia.bot.delivery.Deliverer``), :class:`ChannelKeeping` its ``channel_manager``
(``altmafia.bot.channels.ChannelManager``), :class:`Scheduling` its ``scheduler``
(``altmafia.bot.scheduler.Scheduler``). A type checker sees every tie: a call on a service
against its protocol here, and the real classes against the protocols where ``bot.py`` hands
itself to them. Members are read-only properties, so the bot's attributes may be the concrete
classes.
"""

from __future__ import annotations

import asyncio
from contextlib import AbstractAsyncContextManager
from datetime import datetime, timedelta
from typing import Any, Protocol, cast

import discord

from engine import Game
from storage import Delivery, GameInfo, Part, Post, Store

from .settings import Settings


class MetaChange(Protocol):
    """A change of a game's meta that says when it is committed (``channels.Unsaved``)."""

    def __call__(self, meta: dict[str, Any]) -> None: ...

    def committed(self) -> None: ...


class Delivering(Protocol):
    """What delivery offers (``altmafia.bot.delivery.Deliverer``): the bot's own posts staged
    and sent, the outbox flushed."""

    @property
    def locks(self) -> dict[str, asyncio.Lock]: ...

    def lock(self, game_id: str) -> asyncio.Lock: ...

    def holding(self, game_id: str) -> AbstractAsyncContextManager[None]: ...

    async def flush(self, game_id: str | None = None, extra: dict[str, list[str]] | None = None, *,
                    meta: Any = None) -> int: ...

    async def post(self, game_id: str, key: str, content: str, *, files: list[Any] | None = None,
                   mention: int | None = None, view: str | None = None, once: str | None = None) -> int: ...

    def outgoing(self, game_id: str, key: str, content: str, *, files: list[Any] | None = None,
                 mention: int | None = None, view: str | None = None, once: str | None = None) -> Post: ...

    def gm_line(self, game_id: str, gm: str, action: str) -> Post: ...

    def command_posts(self, gid: str, game: Any, info: GameInfo, deliveries: list[Delivery]) -> list[Post]: ...

    def resolve_posts(self, gid: str, game: Any, info: GameInfo, deliveries: list[Delivery],
                      own: list[Part]) -> list[Post]: ...


class ChannelKeeping(Protocol):
    """What the channel manager offers (``altmafia.bot.channels.ChannelManager``): a game's
    channels and their overwrites kept as the engine's visibility says."""

    async def sync(self, game_id: str, *, commit: bool = True) -> MetaChange | None: ...

    async def add_spectator(self, game_id: str, user_id: int) -> None: ...

    async def remove_spectator(self, game_id: str, user_id: int) -> bool: ...

    def all_ids(self, meta: dict[str, Any]) -> list[tuple[str, int]]: ...

    async def archive(self, info: Any) -> int: ...

    async def delete(self, info: Any) -> int: ...


class Scheduling(Protocol):
    """What the scheduler offers (``altmafia.bot.scheduler.Scheduler``): resolves, deadlines,
    the phase's minimum length, the one loop."""

    def lock(self, game_id: str) -> asyncio.Lock: ...

    def next_deadline(self, game_id: str, tick: int, after: datetime | None = None, *, hurried: bool = False,
                      full: bool | None = None) -> datetime: ...

    def min_phase(self, game: Game) -> timedelta: ...

    async def mark_phase_start(self, game_id: str, at: datetime | None = None) -> datetime: ...

    async def resolve(self, game_id: str, *, expect_tick: int | None = None, user_id: int | None = None,
                      gm_line: str | None = None, commits: Any = None) -> list[Any]: ...

    def waiting(self, game_id: str) -> list[int] | None: ...

    async def end_early(self, game_id: str) -> list[Any]: ...

    async def end_now(self, game_id: str, user_id: int, gm_name: str) -> None: ...

    def poke(self) -> None: ...


class Services(Protocol):
    """The bot (``altmafia.bot.bot.AltMafiaBot``) as its services see it: the store, the
    settings, the services, the few calls of discord.py's client they make, and the bot's own
    services (the GM's log line, the panels, the end of a game)."""

    @property
    def settings(self) -> Settings: ...

    @property
    def store(self) -> Store: ...

    @property
    def deliverer(self) -> Delivering: ...

    @property
    def channel_manager(self) -> ChannelKeeping: ...

    @property
    def scheduler(self) -> Scheduling: ...

    @property
    def http(self) -> discord.http.HTTPClient: ...

    @property
    def user(self) -> discord.ClientUser | None: ...

    @property
    def tree(self) -> discord.app_commands.CommandTree[Any]: ...

    def get_guild(self, id: int, /) -> discord.Guild | None: ...

    def get_user(self, id: int, /) -> discord.User | None: ...

    async def fetch_user(self, user_id: int, /) -> discord.User: ...

    def get_partial_messageable(self, id: int, *, guild_id: int | None = None,
                                type: discord.ChannelType | None = None) -> discord.PartialMessageable: ...

    async def wait_until_ready(self) -> None: ...

    async def gm_log(self, game_id: str, interaction: discord.Interaction, action: str) -> None: ...

    async def post_panels(self, game_id: str) -> None: ...

    async def finish(self, game_id: str) -> None: ...

    async def offer_cleanup(self, game_id: str) -> None: ...


def services(interaction: discord.Interaction) -> Services:
    """The bot behind an interaction (a button's, a form's): discord.py types its client as any
    ``discord.Client``; in this program it is always the one ``AltMafiaBot``."""
    return cast(Services, interaction.client)


def own_id(user: discord.ClientUser | None) -> int:
    """The bot's own user id (``client.user``): a service runs only once the bot has logged in."""
    if user is None:
        raise RuntimeError("the bot has not logged in")
    return user.id
