"""What every cog needs: localized command names, replies, finding the game and the player.

Command names are stable English identifiers by default with Russian localizations; their
descriptions are Russian by default with English localizations for the English locales
(``config/messages/*.bot.yaml``, section ``commands``), through :class:`CatalogTranslator`.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import re
from collections.abc import AsyncIterator, Iterable
from dataclasses import dataclass
from typing import Any

import discord
from discord import app_commands
from discord.app_commands import locale_str

from altmafia.text.i18n import Renderer, catalog, lang_of, text
from altmafia.text.split import split
from engine import ActionError, Game
from engine.state import Player

from .failures import FAILED
from .services import Services

log = logging.getLogger(__name__)

SEAT = re.compile(r"[0-9]{1,4}")  # a seat sent by the autocomplete: a few ASCII digits
EN_LOCALES = {discord.Locale.american_english, discord.Locale.british_english}


def N(key: str) -> locale_str:
    """A command, group or parameter name: English by default, translated for Russian."""
    return locale_str(catalog("en")["commands"][f"{key}.name"], key=f"{key}.name")


def D(key: str) -> locale_str:
    """A description: Russian by default, translated for the English locales."""
    return locale_str(catalog("ru")["commands"][f"{key}.desc"], key=f"{key}.desc")


def C(key: str) -> locale_str:
    """A choice's label (words, spaces allowed): English by default, translated for Russian."""
    return locale_str(catalog("en")["commands"][f"{key}.choice"], key=f"{key}.choice")


class CatalogTranslator(app_commands.Translator):
    async def translate(self, string: locale_str, locale: discord.Locale, context: Any) -> str | None:
        key = string.extras.get("key")
        if not key:
            return None
        if locale == discord.Locale.russian:
            lang = "ru"
        elif locale in EN_LOCALES:
            lang = "en"
        else:
            return None
        return catalog(lang).get("commands", {}).get(key)


# ---- replies -------------------------------------------------------------------------------
def lang(interaction: discord.Interaction) -> str:
    settings = getattr(interaction.client, "settings", None)
    return lang_of(interaction.locale, settings and settings.lang or "ru")


#: how long a command may work before it acknowledges the interaction with a deferral
#: (:func:`answering`). Discord drops an interaction not answered within 3 s of its creation;
#: the other 2 s are the margin for the gateway's latency and the deferral's own round trip.
ANSWER_WITHIN = 1.0


@dataclass
class _Answering:
    ephemeral: bool
    handle: asyncio.TimerHandle | None = None
    deferral: asyncio.Future[Any] | None = None  # the deferral, once the work took too long
    replying: bool = False  # the first response is on its way: no deferral any more


_answering: dict[int, _Answering] = {}  # by interaction id, while a command works


@contextlib.asynccontextmanager
async def answering(interaction: discord.Interaction, *, ephemeral: bool = True) -> AsyncIterator[None]:
    """The 3-second rule without a deferral when the work is short: the reply is the first
    response (one REST call, like any quick command); only if no reply was sent within
    :data:`ANSWER_WITHIN` seconds (a slow disk, a game busy resolving) is the interaction
    deferred, and the reply then follows up. Wrap the work (engine, disk) and its reply."""
    if interaction.response.is_done():  # deferred or answered already: the reply follows up
        yield
        return
    state = _Answering(ephemeral)

    def late() -> None:
        if state.replying or interaction.response.is_done():
            return
        state.deferral = asyncio.ensure_future(interaction.response.defer(ephemeral=ephemeral, thinking=True))

    state.handle = asyncio.get_running_loop().call_later(ANSWER_WITHIN, late)
    _answering[interaction.id] = state
    try:
        yield
    finally:
        state.handle.cancel()
        _answering.pop(interaction.id, None)
        if state.deferral is not None:  # deferred and never replied: let the deferral land
            with contextlib.suppress(*FAILED):
                await state.deferral


async def reply(interaction: discord.Interaction, content: str, *, ephemeral: bool = True, **kw: Any) -> None:
    """Answer an interaction: its first response, or a follow-up once deferred. A reply longer
    than Discord's 2000 characters goes out as the first response and follow-ups, all as
    ephemeral as the first, cut where a post would be cut (:func:`altmafia.text.split.split`):
    between lines, a long line at word boundaries; the buttons (``view``) under the last
    message, a file with the first."""
    first, *more = split(content)
    if more:
        view = kw.pop("view", None)
        files = {k: kw.pop(k) for k in ("file", "files") if k in kw}
        await _reply(interaction, first, ephemeral, **kw, **files)
        for i, piece in enumerate(more):
            extra = {"view": view} if view is not None and i == len(more) - 1 else {}
            await interaction.followup.send(piece, ephemeral=ephemeral, **kw, **extra)
        return
    await _reply(interaction, content, ephemeral, **kw)


async def _reply(interaction: discord.Interaction, content: str, ephemeral: bool, **kw: Any) -> None:
    """One message answering an interaction: its first response, or a follow-up."""
    state = _answering.get(interaction.id)
    if state is not None:
        if state.handle is not None:
            state.handle.cancel()
        if state.deferral is None:
            state.replying = True
        else:  # deferred meanwhile: the reply follows the deferral
            with contextlib.suppress(*FAILED):
                await state.deferral
    if interaction.response.is_done():
        await interaction.followup.send(content, ephemeral=ephemeral, **kw)
    else:
        await interaction.response.send_message(content, ephemeral=ephemeral, **kw)


async def refuse(interaction: discord.Interaction, key: str, **args: Any) -> None:
    """A refusal of the bot itself: ephemeral, from the catalog."""
    await reply(interaction, "⛔ " + text(lang(interaction), key, **args), ephemeral=True)


async def refuse_engine(interaction: discord.Interaction, game: Game, err: ActionError) -> None:
    """A refusal of the engine: its key rendered in the user's language, ephemeral. An option
    given to an ability that takes none is said so (the engine's ``bad_option`` lists nothing)."""
    if err.key == "bad_option" and not err.args_.get("options"):
        await refuse(interaction, "err.no_option")
        return
    await reply(interaction, "⛔ " + Renderer(game, lang(interaction)).error(err), ephemeral=True)


async def defer(interaction: discord.Interaction, *, ephemeral: bool = True) -> None:
    """The 3-second rule: acknowledge first, then do the slow work (disk, engine, REST)."""
    if not interaction.response.is_done():
        await interaction.response.defer(ephemeral=ephemeral, thinking=True)


# ---- which game, which player ----------------------------------------------------------------
def channel_game(bot: Services, interaction: discord.Interaction) -> str | None:
    """The game whose channel (or category) this interaction was used in, running or
    finished (``Store.meta.game_of_channel``); None in a channel that belongs to no game."""
    store = bot.store
    gid = store.meta.game_of_channel(interaction.channel_id)
    if gid is None:
        gid = store.meta.game_of_channel(getattr(interaction.channel, "category_id", None))
    return gid


def is_running(bot: Services, game_id: str) -> bool:
    store = bot.store
    return store.games.has(game_id) and store.games.info(game_id).status == "running"


def games_here(bot: Services, interaction: discord.Interaction) -> list[str]:
    """Running games this interaction belongs to.

    In a game's channel: that game, and only it (none once it is over: the answer is then
    :func:`refuse_here`'s "the game is over", never another game of the user). In a channel
    of no game: the running games of this server where the user plays or is a GM.
    """
    here = channel_game(bot, interaction)
    if here is not None:
        return [here] if is_running(bot, here) else []
    uid = interaction.user.id
    return [
        i.game_id for i in bot.store.games.games()
        if i.status == "running" and i.guild_id == interaction.guild_id
        and (uid in i.gm_user_ids or seated(bot, i.game_id, uid))
    ]


async def refuse_here(bot: Services, interaction: discord.Interaction, gids: list[str], none_key: str = "err.no_game") -> None:
    """The refusal when ``games_here`` did not give exactly one game: the game of this channel
    is over, no game, or several."""
    if not gids and channel_game(bot, interaction) is not None:
        await refuse(interaction, "err.game_over")
    else:
        await refuse(interaction, none_key if not gids else "err.many_games")


def seated(bot: Services, game_id: str, user_id: int) -> bool:
    """Whether the member holds a seat of the game now (the engine's holders: a substitution
    hands a seat over)."""
    return player_of(bot.store.games.game(game_id), user_id) is not None


def player_of(game: Game, user_id: int) -> Player | None:
    return next((p for p in game.state.players if p.user_id == user_id), None)


def is_gm(bot: Services, interaction: discord.Interaction, gm_user_ids: list[int], players: Iterable[dict[str, Any]] = ()) -> bool:
    """The game's GMs, plus members holding the server's GM role (``ALTMAFIA_GM_ROLE``); never
    one of the game's ``players`` (a GM of a game never plays in it, a player is never its GM)."""
    user = interaction.user
    if any(p.get("user_id") == user.id for p in players):
        return False
    if user.id in gm_user_ids:
        return True
    return holds_gm_role(bot, user)


def holds_gm_role(bot: Services, user: Any) -> bool:
    """Whether a member holds the server's GM role (by id or by name); never through the
    guild's @everyone role, which every member holds (``/lobby start`` refuses it as the GM role)."""
    role = bot.settings.gm_role
    if role and isinstance(user, discord.Member):
        return any((str(r.id) == role or r.name == role) and r.id != user.guild.id for r in user.roles)
    return False


async def one_game(bot: Services, interaction: discord.Interaction) -> str | None:
    """The one game meant here, or None after an ephemeral refusal that says why."""
    found = games_here(bot, interaction)
    if len(found) != 1:
        await refuse_here(bot, interaction, found)
        return None
    return found[0]


async def as_player(bot: Services, interaction: discord.Interaction) -> tuple[str, Game, Player] | None:
    gid = await one_game(bot, interaction)
    if gid is None:
        return None
    game = bot.store.games.game(gid)
    p = player_of(game, interaction.user.id)
    if p is None:
        await refuse(interaction, "err.not_player")
        return None
    await remember_lang(bot, gid, p.pid, interaction)
    return gid, game, p


async def remember_lang(bot: Services, gid: str, pid: int, interaction: discord.Interaction) -> None:
    """A player's news are written in the language of their Discord client, as last seen."""
    info = bot.store.games.info(gid)
    now = lang_of(interaction.locale, info.meta.get("lang", "ru"))
    if info.meta.get("langs", {}).get(str(pid)) != now:
        await bot.store.meta.update_meta(gid, lambda meta: meta.setdefault("langs", {}).update({str(pid): now}))


async def as_gm(bot: Services, interaction: discord.Interaction) -> tuple[str, Game] | None:
    gid = await one_game(bot, interaction)
    if gid is None:
        return None
    info = bot.store.games.info(gid)
    if not is_gm(bot, interaction, info.gm_user_ids, info.players):
        await refuse(interaction, "err.not_gm")
        return None
    return gid, bot.store.games.game(gid)


def player_choices(game: Game, pids: list[int], current: str, *, limit: int = 25) -> list[app_commands.Choice[str]]:
    """Autocomplete choices among players (name shown, seat sent), filtered by what is typed."""
    cur = (current or "").casefold()
    out = []
    for pid in pids:
        name = game.player(pid).name
        if cur and cur not in name.casefold():
            continue
        out.append(app_commands.Choice(name=name[:100], value=str(pid)))
    return out[:limit]


def parse_player(game: Game, value: str | None) -> int | None:
    """A player from an autocomplete value (the seat) or a typed name; None if unknown.

    A seat is ASCII digits only: ``str.isdigit`` also takes ``²`` or ``٣``, which ``int`` refuses."""
    if value is None:
        return None
    v = value.strip()
    if SEAT.fullmatch(v) and int(v) < len(game.state.players):
        return int(v)
    for p in game.state.players:
        if p.name.casefold() == v.casefold():
            return p.pid
    return None


def deadline_text(info: Any, lng: str) -> str:
    if info.meta.get("paused"):
        return text(lng, "deadline.paused")
    dl = info.deadline
    if dl is None:
        return text(lng, "deadline.none")
    stamp = int(dl.timestamp())
    return text(lng, "deadline.at", when=f"<t:{stamp}:f>", left=f"<t:{stamp}:R>")
