"""Gathering a game and starting it: deal, channels, role cards.

A lobby is a game being gathered (ruleset, GMs, players in the order they joined,
spectators), kept in the store so that a restart loses no sign-up. Starting it deals roles
and characters from the game's seeded generator (``engine.DEAL``), creates every channel
with its overwrites, commits the game with its first deadline and posts each player's role
card in their hidden channel. Channel ids are saved in the lobby as they are created, so a
start cut short by a crash is finished by the next ``/lobby start`` without duplicates.

Before it makes anything, a start checks what Discord would refuse half-way: the invite's
permissions (:mod:`altmafia.bot.permissions`) and room for the game's channels (500 a server,
categories included). A start Discord refuses later all the same (an HTTP error before the
game is committed) is rolled back: the channels it made are deleted and the lobby is open
again, so the GM can fix the cause and start once more (:class:`StartFailed`).
"""

from __future__ import annotations

import asyncio
import logging
import secrets
from collections.abc import Awaitable, Callable
from typing import Any

import discord

from altmafia.text import safe
from altmafia.text.cards import player_commands, role_card
from altmafia.text.guide import briefing
from altmafia.text.i18n import Renderer, count, text
from altmafia.text.names import seat_name
from engine import DEAL, Game, GameError, PlayerSpec, Ruleset

from . import permissions
from .buttons import bonus_view
from .channels import (
    Audience,
    carries,
    create_intended,
    fixed_access,
    game_plan,
    opened_at_start,
    public_access,
)
from .deadlines import card_times_line, first_deadline, min_minutes, now, period_end
from .failures import FAILED, reason
from .living import announce_phase
from .notice import dead_intro
from .rulesets import of_lobby
from .services import Services, own_id

log = logging.getLogger(__name__)

GUILD_CHANNELS = 500  # Discord's limit of channels in a server, categories included


class LobbyError(Exception):
    def __init__(self, key: str, **args: Any) -> None:
        super().__init__(key)
        self.key, self.args_ = key, args


class StartFailed(LobbyError):
    """Discord refused a step of the start: what it made is deleted, the lobby is open again;
    the GM is told why (Discord's own words) and what to do."""


def new_seed() -> int:
    """The game's random seed (the deal and every draw of the rules come from it)."""
    return secrets.randbits(31)


def new_lobby(guild_id: int, channel_id: int, creator: int, ruleset: str, lang: str, tz: str,
              days: int | None, practice: bool = False, fingerprint: str | None = None) -> tuple[str, dict[str, Any]]:
    """A new lobby's id and data; ``fingerprint``: the server's upload it plays (a re-upload of
    its id later reaches new lobbies only, ``altmafia.bot.rulesets``)."""
    lobby_id = secrets.token_hex(3)
    lobby = {
        "guild_id": guild_id, "channel_id": channel_id, "ruleset": ruleset, "creator": creator, "gms": [creator],
        "players": [], "spectators": [], "lang": lang, "tz": tz, "days": days, "seed": new_seed(),
    }
    if fingerprint:
        lobby["fingerprint"] = fingerprint
    if practice:  # the GM's explicit practice table (``table.practice_min``), shown by the lobby
        lobby["practice"] = True
    return lobby_id, lobby


def seats(rules: Any, lobby: dict[str, Any]) -> tuple[int, int]:
    """The table this lobby may start with: the ruleset's, or its practice table."""
    return rules.table.seats(bool(lobby.get("practice")))


def game_settings(lobby: dict[str, Any]) -> dict[str, Any] | None:
    """The settings the lobby gives its game: the length, the practice table."""
    out: dict[str, Any] = {}
    if lobby.get("days"):
        out["days"] = lobby["days"]
    if lobby.get("practice"):
        out["practice_table"] = True
    if (lobby.get("options") or {}).get("dead_channel"):
        out["dead_channel"] = True  # the channel of the dead and the spectators (engine.visibility)
    return out or None


def practice_note(rules: Any, lobby: dict[str, Any], lang: str | None = None) -> str | None:
    """The line that says the lobby is a practice table, smaller than the book's."""
    if not lobby.get("practice"):
        return None
    lo, hi = seats(rules, lobby)
    return text(lang or lobby["lang"], "lobby.practice", min=lo, max=hi, book_min=rules.table.min)


def unique_name(lobby: dict[str, Any], wanted: str, lang: str | None = None) -> str:
    """The seat name of a new player: the display name normalised (``safe.clean_name``: NFKC,
    nothing invisible, no mention syntax), cut at a word with «…» to 32 characters, the
    catalog's word for a player when nothing is left of it (``names.seat_name``), and a number
    after it when the lobby has that name already (case aside: the commands find a player by
    name without regard to case)."""
    taken = {p["name"].casefold() for p in lobby["players"]}
    base = seat_name(safe.clean_name(wanted, limit=1000), lang or lobby.get("lang", "ru"))
    name, n = base, 2
    while name.casefold() in taken:
        suffix = f" {n}"
        name = base[: safe.NAME_MAX - len(suffix)].rstrip() + suffix
        n += 1
    return name


def gm_role_id(bot: Services, guild_id: int) -> int | None:
    """The server's GM role (``ALTMAFIA_GM_ROLE``, by id or name) in this guild, or None. The
    guild's @everyone role (its id is the guild's) is refused: every member would be a GM of
    every game and could see every channel (:class:`LobbyError` ``start.gm_role_everyone``)."""
    role = bot.settings.gm_role
    if not role:
        return None
    if role.isdigit():
        rid = int(role)
    else:
        guild = bot.get_guild(guild_id)
        found = discord.utils.get(guild.roles, name=role) if guild else None
        if found is None:
            return None
        rid = found.id
    if rid == guild_id:
        raise LobbyError("start.gm_role_everyone", value=role)
    return rid


def specs(lobby: dict[str, Any]) -> list[PlayerSpec]:
    """The players as the engine takes them: a public role claimed at sign-up is theirs, the
    rest is dealt."""
    return [PlayerSpec(name=p["name"], role=p.get("role") or DEAL, character=DEAL, user_id=p["user_id"]) for p in lobby["players"]]


def free_roles(rules: Any, lobby: dict[str, Any]) -> list[str]:
    """The public roles a player may still claim at sign-up (one each with
    ``table.distinct_roles``); none unless the ruleset says ``settings.claim_roles: true``."""
    if not rules.game_settings.claim_roles:
        return []
    taken = {p.get("role") for p in lobby["players"]} if rules.table.distinct_roles else set()
    return [r.id for r in rules.roles if r.id not in taken]


def find_role(rules: Any, value: str, lang: str) -> str | None:
    """A role by its id or its name in either language."""
    want = value.strip().casefold()
    for r in rules.roles:
        if want in {r.id.casefold(), r.name.ru.casefold(), r.name.en.casefold(), getattr(r.name, lang).casefold()}:
            return r.id
    return None


def check(lobby: dict[str, Any], rules: Ruleset) -> Game:
    """The game this lobby would start with its ``rules`` (its deal), or a LobbyError saying why not."""
    n = len(lobby["players"])
    lo, hi = seats(rules, lobby)
    if not lo <= n <= hi:
        raise LobbyError("lobby.bad_count", min=lo, max=hi, n=n)
    try:
        return Game.new(rules, lobby["seed"], specs(lobby), game_settings(lobby))
    except GameError as exc:
        raise LobbyError("lobby.cannot_start", why=str(exc)) from exc


def check_room(bot: Services, guild_id: int, plan: list[Any], known: dict[str, int], extra: int = 0) -> None:
    """Refuse (a LobbyError) a start Discord would refuse half-way: the bot lacks a permission
    of its invite on the server, or the server has no room for the game's new channels (its
    categories included, and ``extra``: those the ruleset opens from the start; the channels a
    game makes later, for factions, need room too)."""
    guild = bot.get_guild(guild_id)
    if guild is None:
        return
    me = guild.me
    lacking = permissions.missing(me.guild_permissions) if me is not None else []
    if lacking:
        raise LobbyError("start.missing_permissions", names=", ".join(lacking))
    need = sum(1 for spec in plan if spec.key not in known) + extra
    have = len(guild.channels)
    if have + need > GUILD_CHANNELS:
        raise LobbyError("start.too_many_channels", need=need, have=have, max=GUILD_CHANNELS,
                         remove=have + need - GUILD_CHANNELS)


async def still_there(bot: Services, guild_id: int, known: dict[str, int]) -> dict[str, int]:
    """The channels a start cut short made, less any gone since (deleted by hand, or by a
    roll-back cut short): those are made again."""
    if not known:
        return known
    listing = {int(c["id"]) for c in await bot.http.get_all_guild_channels(guild_id)}
    return {k: v for k, v in known.items() if int(v) in listing}


async def roll_back(bot: Services, lobby_id: str, guild_id: int, made: dict[str, int]) -> None:
    """Undo a start Discord refused: every channel it (or an attempt before) made is deleted,
    children before their categories, a channel created whose id was never saved too (found by
    its intent); the intents are settled and the lobby is open again. Deleting twice is
    harmless (a channel already gone is skipped), so a roll-back cut short is finished by the
    next start (:func:`still_there`)."""
    store, http = bot.store, bot.http
    ids = dict(made)
    intents = await store.outbox.channel_intents(lobby_id)
    listed = True
    if any(i.channel_key not in ids for i in intents):
        try:
            listing = list(await http.get_all_guild_channels(guild_id))
        except FAILED as exc:  # a channel whose answer was lost stays intended: the next start finds it
            log.warning("lobby %s: channels not listed after a failed start: %s", lobby_id, reason(exc))
            listing, listed = [], False
        for intent in intents:
            found = [int(c["id"]) for c in listing if intent.channel_key not in ids and carries(c, intent)]
            if found:
                ids[intent.channel_key] = found[0]
    for key, cid in sorted(ids.items(), key=lambda kv: kv[0].startswith("category")):
        try:
            await http.delete_channel(int(cid), reason="altmafia: the start failed")
        except discord.NotFound:
            continue
        except FAILED as exc:
            log.warning("lobby %s: channel %s (%s) not deleted after a failed start: %s", lobby_id, key, cid, exc)
    for intent in intents:
        if listed or intent.channel_key in ids:
            await store.outbox.settle_channel(lobby_id, intent.channel_key, None)

    def reopen(data: dict[str, Any]) -> None:
        data.pop("channels", None)
        data.pop("starting", None)

    await store.lobbies.update_lobby(lobby_id, reopen)


async def start(bot: Services, lobby_id: str, lobby: dict[str, Any],
                started: Callable[[str], Awaitable[None]] | None = None) -> str:
    """Start the lobby's game; returns its id (the lobby's). A LobbyError (the lobby open again,
    nothing left made) when the server cannot take the game or Discord refused a step before
    the game was committed (:class:`StartFailed`).

    The channels go out in waves (``channels.create_intended``: the category, then every
    channel in it at once); the first posts (role cards, the GM's table and briefing, the
    panels) are staged one after another and sent in one wave, the channels at the same time
    (``Deliverer.holding``). ``started(game_id)``: awaited as soon as the game is committed, at
    the same time as that wave (the GM told where the game is while its cards go out)."""
    store = bot.store
    guild_id = lobby["guild_id"]
    known = dict(lobby.get("channels", {}))
    try:
        game = check(lobby, await of_lobby(bot, lobby))
        lang = lobby["lang"]
        title = f"{getattr(game.rules.names, lang)} #{lobby_id}"
        aud = Audience(
            guild_id=guild_id, bot_id=own_id(bot.user), gms=list(lobby["gms"]), gm_role=gm_role_id(bot, guild_id),
            players={seat: p["user_id"] for seat, p in enumerate(lobby["players"])}, spectators=list(lobby["spectators"]),
        )
        plan = game_plan(title, lang, aud, {seat: p["name"] for seat, p in enumerate(lobby["players"])}, game)
        known = await still_there(bot, guild_id, known)
        check_room(bot, guild_id, plan, known, opened_at_start(game, aud, plan))

        async def keep(key: str, cid: int) -> None:
            known[key] = cid
            await store.lobbies.update_lobby(lobby_id, lambda data: data.setdefault("channels", {}).update({key: cid}))

        channels = await create_intended(bot.store, bot.http, lobby_id, guild_id, plan, known, keep)
        await commit_game(bot, lobby_id, lobby, game, title, aud, plan, channels)
    except LobbyError:
        await roll_back(bot, lobby_id, guild_id, known)
        raise
    except FAILED as exc:  # refused, or a connection that failed (maybe done): rolled back by the intents
        log.warning("lobby %s: Discord refused the start (%s); rolling it back", lobby_id, reason(exc))
        await roll_back(bot, lobby_id, guild_id, known)
        raise StartFailed("start.failed" if isinstance(exc, discord.HTTPException) else "start.unreached",
                          why=reason(exc)) from exc
    await store.lobbies.delete_lobby(lobby_id)
    for tries in range(3):  # channels the ruleset opens from the start (the Mafia's first night)
        try:
            await bot.channel_manager.sync(lobby_id)
            break
        except FAILED as exc:  # the game is committed: the sync after each resolve and at a start puts them
            log.warning("game %s: channels not synced after the start (%s), try %d", lobby_id, reason(exc), tries + 1)

    async def first_posts() -> None:
        async with bot.deliverer.holding(lobby_id):  # staged one after another, sent in one wave
            await post_cards(bot, lobby_id)
            await post_briefing(bot, lobby_id)
            await announce_phase(bot.store, bot.deliverer, lobby_id)

    # both run to their end (an error of one never leaves the other half-way), then the first
    # error goes on
    done = await asyncio.gather(first_posts(), *([started(lobby_id)] if started is not None else []), return_exceptions=True)
    bot.scheduler.poke()
    failed = [r for r in done if isinstance(r, BaseException)]
    if failed:
        raise failed[0]
    return lobby_id


async def commit_game(bot: Services, lobby_id: str, lobby: dict[str, Any], game: Game, title: str, aud: Audience,
                      plan: list[Any], channels: dict[str, int]) -> None:
    """The game committed with its channels, first deadline and meta (the lobby's id is its)."""
    store = bot.store
    lang, tz, guild_id = lobby["lang"], lobby["tz"], lobby["guild_id"]
    access = {key: {str(uid): a for uid, a in want.items()}
              for key, want in {"public": public_access(game, aud), **fixed_access(aud, game)}.items()}
    meta = {
        "title": title, "lang": lang, "tz": tz, "gm_role": aud.gm_role, "channels": channels,
        "parents": {s.key: s.parent for s in plan if s.parent}, "categories": [s.key for s in plan if s.type == 4],
        "access": access, "langs": {str(seat): p.get("lang", lang) for seat, p in enumerate(lobby["players"])},
        "spectators": list(lobby["spectators"]), "lobby_channel": lobby["channel_id"],
        "options": dict(lobby.get("options") or {}),
    }
    settings = game_settings(lobby)
    times = lobby.get("times") or {}
    minutes = min_minutes(times, bot.settings.min_phase_minutes)
    if times:  # the game's own times (/lobby times): the scheduler reads them from the meta
        meta["times"], meta["min_phase_minutes"] = times, minutes
    first = first_deadline(game.rules, times, tz, now(), minutes)
    await store.games.create_game(
        game.rules if lobby.get("fingerprint") else lobby["ruleset"], lobby["seed"], specs(lobby), game_id=lobby_id, guild_id=guild_id, gm_user_ids=lobby["gms"],
        settings=settings, meta=meta, deadline=first,
    )


async def post_cards(bot: Services, game_id: str) -> None:
    """Each player's role card in their hidden channel; the table in the GM channel; the start
    in the public and spectator channels."""
    store = bot.store
    info = store.games.info(game_id)
    if info.meta.get("cards"):
        return
    game = store.games.game(game_id)
    lang = info.meta.get("lang", "ru")
    for p in game.state.players:
        plang = info.meta.get("langs", {}).get(str(p.pid)) or lang
        view = f"bonus:{p.pid}:{plang}" if bonus_view(game_id, game, p.pid, plang) is not None else None
        await bot.deliverer.post(game_id, f"player:{p.pid}", (f"<@{p.user_id}>\n" if p.user_id else "") + role_card(game, p.pid, plang, info.meta.get("tz"))
                                 + "\n" + card_times_line(game.rules, info.meta, plang, bot.settings.min_phase_minutes),
                                 mention=p.user_id, view=view, once=f"card:{p.pid}")
    r = Renderer(game, lang)
    table = [text(lang, "start.gm_table")]
    for p in game.state.players:
        char = r.character(p.character) if p.character else "—"
        if not game.rules.characters:  # a ruleset without characters: the role alone, no «/ —»
            table.append(text(lang, "start.gm_row_role", name=r.player(p.pid), role=r.character(p.role)))
            continue
        table.append(text(lang, "start.gm_row", name=r.player(p.pid), role=r.character(p.role), character=char))
    await bot.deliverer.post(game_id, "gm", "\n".join(table), once="start:gm")
    dl = info.deadline
    stamp = int(dl.timestamp()) if dl else None
    names = ", ".join(r.player(p.pid) for p in game.state.players)
    intro = text(lang, "start.public", title=info.meta.get("title", ""), players=count(len(game.state.players), "player", lang),
                 names=names, phase=r.label(game.info.label), deadline=f"<t:{stamp}:f> (<t:{stamp}:R>)" if stamp else "—",
                 commands=player_commands(game, lang))
    await bot.deliverer.post(game_id, "public", intro, once="start:public")
    await bot.deliverer.post(game_id, "spectators", text(lang, "start.spectators", title=info.meta.get("title", "")),
                             once="start:spectators")
    await store.meta.update_meta(game_id, lambda meta: meta.update(cards=True))
    await bot.deliverer.flush(game_id)
    await bot.post_panels(game_id)  # the first phase's action panels (altmafia/bot/panel.py)


def schedule(game: Game, tz: str, first: Any, min_minutes: int, count: int) -> list[tuple[int, Any]]:
    """The next ``count`` phase ends from the current tick (whose deadline is ``first``), each
    the end of its period after the one before, as the scheduler will set them if every phase
    runs to its deadline."""
    ends = [(game.state.tick, first)]
    while len(ends) < count:
        tick, at = ends[-1]
        ends.append((tick + 1, period_end(game.rules, tick + 1, tz, at, min_minutes)))
    return ends


def gm_commands(bot: Services) -> list[str]:
    """Every GM command of a game registered by the bot (``/gm …``, and ``/lobby start`` and
    ``end``), by qualified name (``gm resolve``), in the order they are registered; not the
    server's rulesets (``/gm ruleset …``, a subgroup: no game's business)."""
    lobby = bot.tree.get_command("lobby")
    group = bot.tree.get_command("gm")
    return [c.qualified_name for c in getattr(lobby, "commands", []) if c.name in ("start", "end")] + [
        c.qualified_name for c in getattr(group, "commands", []) if not isinstance(c, discord.app_commands.Group)]


async def post_briefing(bot: Services, game_id: str) -> None:
    """The GM channel's briefing at the start (once): the schedule of phases in the game's time
    zone, the GM commands, what GM tasks are and how to settle them. A start cut short before
    it posts it at the next start of the bot (``meta.briefed``, still in the first phase)."""
    info = bot.store.games.info(game_id)
    game = bot.store.games.game(game_id)
    if info.meta.get("briefed") or info.deadline is None:
        return
    tz, lang = info.meta.get("tz", bot.settings.tz), info.meta.get("lang", "ru")
    count = min(10, max(4, 2 * len(game.rules.calendar.periods)))
    ends = schedule(game, tz, info.deadline, bot.settings.min_phase_minutes, count)
    body = briefing(game, lang, info.meta.get("title", game_id), tz, ends, gm_commands(bot))
    await bot.deliverer.post(game_id, "gm", body, once="start:briefing")
    await bot.store.meta.update_meta(game_id, lambda meta: meta.update(briefed=True))
    await dead_intro(bot.store, bot.deliverer, game_id)  # the channel of the dead, made at the start, says what it is


async def settle_seats(bot: Services, game_id: str) -> None:
    """After a substitution (or at a restart that cut one short): a member who now holds a seat
    is no spectator any more, every channel's access follows the engine's seat holders (the
    old member loses it in the same sync), and a seat whose holder has not had its role card
    (``meta.card_holders``) gets it again. Each step is idempotent."""
    store = bot.store
    info = store.games.info(game_id)
    if info.status != "running" or not info.meta.get("cards"):
        return
    game = store.games.game(game_id)
    seated = {p.user_id for p in game.state.players if p.user_id}
    if any(u in seated for u in info.meta.get("spectators", [])):
        def unspectate(m: dict[str, Any]) -> None:
            m["spectators"] = [u for u in m.get("spectators", []) if u not in seated]

        await store.meta.update_meta(game_id, unspectate)
    try:
        await bot.channel_manager.sync(game_id)
    except FAILED as exc:  # the next sync (a resolve's, a start's) puts what this one did not
        log.warning("game %s: channels not synced for the seats (%s)", game_id, reason(exc))
    lang = info.meta.get("lang", "ru")
    start = {str(seat): p.get("user_id") for seat, p in enumerate(info.players)}
    for p in game.state.players:
        holders = {**start, **store.games.info(game_id).meta.get("card_holders", {})}
        if holders.get(str(p.pid)) == p.user_id or not p.user_id:
            continue
        # the newcomer's language is not known: the seat now reads the game's
        view = f"bonus:{p.pid}:{lang}" if bonus_view(game_id, game, p.pid, lang) is not None else None
        # once per holder: a restart that cut the substitution short posts the card only once
        await bot.deliverer.post(game_id, f"player:{p.pid}", f"<@{p.user_id}>\n" + role_card(game, p.pid, lang, info.meta.get("tz"))
                                 + "\n" + card_times_line(game.rules, info.meta, lang, bot.settings.min_phase_minutes),
                                 mention=p.user_id, view=view, once=f"card:{p.pid}:{p.user_id}")
        def carded(m: dict[str, Any], p: Any = p) -> None:
            m["card_holders"] = {**m.get("card_holders", {}), str(p.pid): p.user_id}
            m["langs"] = {**m.get("langs", {}), str(p.pid): lang}

        await store.meta.update_meta(game_id, carded)
