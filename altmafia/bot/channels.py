"""A game's Discord channels and who may read or write in each.

One category per game (another when 50 channels are not enough), holding:

| channel | reads | writes |
| --- | --- | --- |
| public game channel | players, spectators, GMs | living players who may talk (the ruleset's statuses), GMs |
| vote channel | players, spectators, GMs | GMs (the bot posts the votes) |
| hidden channel of a player | that player, GMs | that player, GMs |
| GM channel | GMs | GMs |
| spectator channel | spectators, GMs | GMs |
| faction channel | its members, GMs | its living members who may talk, GMs |
| team channel (``settings.team_talk``: the Mafia's in seed 003) | its members, GMs | its free members on those nights, GMs |
| channel of the dead (``settings.dead_channel``, created when it first has readers) | the dead, spectators, GMs | the same |

Who reads and writes where is the engine's answer (:func:`engine.visibility.channels`, by
seat); this module only turns it into Discord overwrites. Everyone else (``@everyone``) sees none of them. The bot has its own overwrite everywhere, so it
needs no administrator right, and every bit it sets is one it is invited with
(:mod:`altmafia.bot.permissions`). Every channel is created with its overwrites in the same
REST call, up to Discord's 100 (the hiding ones first; the rest put right after); later changes
(a death, a faction's members, a new spectator) are put one target at a time, and only when
they differ from what the game's meta records as set.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Final

import discord
from discord.http import HTTPClient

from altmafia.text.i18n import Renderer, text
from engine import Game, visibility
from engine.visibility import NONE, RO, RW, ChannelView
from storage import Store

from . import permissions
from .failures import FAILED
from .living import sync_living_role
from .services import Delivering, own_id

log = logging.getLogger(__name__)

TEXT, CATEGORY = 0, 4
ROLE: Final = 0
MEMBER: Final = 1
PER_CATEGORY = 50  # Discord's limit of channels in one category
#: how many channels a start creates at the same time: the children of a category go out
#: together (discord.py's rate limiter and Discord's 429s pace them, never a sleep of ours),
#: few enough that one start never has more than this many requests refused at a limit's edge
CREATES_AT_ONCE = 25

P = discord.Permissions
#: every permission bit of an overwrite comes from the one definition of what the bot holds
READ, WRITE, NO_WRITE, GM, BOT, HIDDEN = (permissions.READ, permissions.WRITE, permissions.NO_WRITE, permissions.GM,
                                          permissions.BOT, permissions.HIDDEN)
MAX_CREATE_OVERWRITES = 100  # Discord refuses a channel-create request carrying more

#: what a participant may do in a channel: read and write, read only, nothing (engine.visibility)


def overwrite(target: int, kind: int, allow: discord.Permissions, deny: discord.Permissions | None = None) -> dict[str, Any]:
    return {"id": str(target), "type": kind, "allow": str(allow.value), "deny": str((deny or P.none()).value)}


def access_overwrite(user_id: int, access: str) -> dict[str, Any]:
    if access == RW:
        return overwrite(user_id, MEMBER, READ | WRITE, P.none())
    if access == RO:
        return overwrite(user_id, MEMBER, READ, NO_WRITE)
    return overwrite(user_id, MEMBER, P.none(), READ | NO_WRITE)


def slug(name: str) -> str:
    """A channel name Discord keeps as it is: lower case, dashes (never two in a row: Discord
    collapses them), letters of any script."""
    s = re.sub(r"-{2,}", "-", re.sub(r"[^\w-]+", "-", name.lower(), flags=re.UNICODE)).strip("-_")
    return (s or "x")[:90]


def discord_name(name: str, kind: int) -> str:
    """A name as Discord keeps it for a channel of this type: a text channel's lower-cased,
    spaces made dashes and repeated dashes collapsed; a category's as it is."""
    if kind != TEXT:
        return name
    return re.sub(r"-{2,}", "-", re.sub(r"\s+", "-", name.strip().lower()))


def split_overwrites(overwrites: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The overwrites of a new channel as Discord takes them: at most
    :data:`MAX_CREATE_OVERWRITES` in the create request, the rest put one by one right after.
    The ones that hide the channel go first (``@everyone`` and the roles, the bot's own, then
    every member's deny), so that no moment of the channel shows it to someone it must not:
    a member whose overwrite comes later only sees it a moment later."""

    def rank(ow: dict[str, Any]) -> int:
        if ow["type"] == ROLE:
            return 0
        if int(ow["allow"]) & BOT.value == BOT.value:
            return 1
        return 2 if int(ow["allow"]) == 0 else 3

    ordered = sorted(overwrites, key=rank)
    return ordered[:MAX_CREATE_OVERWRITES], ordered[MAX_CREATE_OVERWRITES:]


async def put_overwrites(http: Any, channel_id: int, overwrites: list[dict[str, Any]]) -> None:
    """Overwrites put one target at a time (``PUT /channels/{id}/permissions/{target}``: each
    sets the target's whole overwrite, so putting them again is harmless)."""
    for ow in overwrites:
        await http.edit_channel_permissions(channel_id, int(ow["id"]), ow["allow"], ow["deny"], ow["type"])


@dataclass
class ChannelSpec:
    key: str  # "category", "category:2", "public", "votes", "gm", "spectators", "player:3", "faction:f1"
    name: str
    type: int
    overwrites: list[dict[str, Any]]
    parent: str | None = None
    topic: str | None = None
    #: its place among its category's channels (Discord orders them by position): channels
    #: created at the same time arrive in any order, so each is told its place
    position: int | None = None


@dataclass
class Audience:
    """Who is who around a game, by Discord user id."""

    guild_id: int
    bot_id: int
    gms: list[int]
    gm_role: int | None = None
    players: dict[int, int] = field(default_factory=dict)  # pid -> user id
    spectators: list[int] = field(default_factory=list)

    def base(self) -> list[dict[str, Any]]:
        """@everyone sees nothing; the bot and the GMs see everything."""
        out = [overwrite(self.guild_id, ROLE, P.none(), HIDDEN), overwrite(self.bot_id, MEMBER, BOT)]
        if self.gm_role:
            out.append(overwrite(self.gm_role, ROLE, GM))
        out += [overwrite(uid, MEMBER, GM) for uid in self.gms if uid != self.bot_id]
        return out

    def with_access(self, access: dict[int, str]) -> list[dict[str, Any]]:
        if self.gm_role:
            # a player of a game is never its GM: where the server's GM role opens
            # every channel, each player's own overwrite shuts the channels they may not read, so
            # a player who is given the role later still reads nothing more
            access = {**{uid: NONE for uid in self.players.values()}, **access}
        gms = set(self.gms)
        return self.base() + [access_overwrite(uid, a) for uid, a in access.items() if uid not in gms and uid != self.bot_id]


# ---- who may do what: the engine's answer, as Discord access -------------------------------
def access_of(view: ChannelView, aud: Audience) -> dict[int, str]:
    """A channel of :func:`engine.visibility.channels` as access by Discord user id: each seat's
    holder as the view has them, spectators read-only where they read; the GMs are in ``base``."""
    out = {uid: RW if view.spectators_write else RO for uid in aud.spectators} if view.spectators else {}
    for pid, uid in aud.players.items():
        a = view.access(pid)
        if a != NONE:
            out[uid] = a
    return out


def views(game: Game) -> dict[str, ChannelView]:
    return {v.key: v for v in visibility.channels(game)}


def public_access(game: Game, aud: Audience) -> dict[int, str]:
    return access_of(views(game)["public"], aud)


def fixed_access(aud: Audience, game: Game | None = None) -> dict[str, dict[int, str]]:
    """The channels whose readers change only with the people: the vote channel, the spectator
    channel and each seat's hidden channel (its holder's, and only theirs)."""
    if game is not None:
        v = views(game)
        out = {"votes": access_of(v["votes"], aud), "spectators": access_of(v["spectators"], aud)}
        out.update({f"player:{pid}": access_of(v[f"player:{pid}"], aud) for pid in aud.players if f"player:{pid}" in v})
        return out
    # before the game exists (the plan at the start): the same shape, from the seats alone
    out = {"votes": {uid: RO for uid in [*aud.spectators, *aud.players.values()]}, "spectators": {uid: RO for uid in aud.spectators}}
    out.update({f"player:{pid}": {uid: RW} for pid, uid in aud.players.items()})
    return out


def archive_access(meta: dict[str, Any], key: str, aud: Audience) -> dict[int, str]:
    """Who reads channel ``key`` of a finished game once archived (read-only for all). The full
    review published (``meta.review_published``): every participant reads every channel. Not
    published: each channel keeps the readers it had (``meta.access``, as last set), so the GM
    channel (the anonymous authors) stays the GMs', a hidden channel (its PMs) its holder's, a
    faction's its members'; the public and vote channels and the categories are everyone's."""
    everyone = {uid: RO for uid in [*aud.players.values(), *aud.spectators]}
    if meta.get("review_published") or key in ("public", "votes") or key.startswith("category"):
        return everyone
    had = meta.get("access", {}).get(key, {})
    return {int(uid): RO for uid, a in had.items() if a != NONE}


# ---- the plan of a new game -------------------------------------------------------------
def names(lang: str) -> dict[str, str]:
    return {k: text(lang, f"channel.{k}") for k in ("public", "votes", "gm", "spectators")}


def game_plan(title: str, lang: str, aud: Audience, player_names: dict[int, str], game: Game | None = None) -> list[ChannelSpec]:
    """Every channel of a game at its start, categories first, each with its overwrites."""
    n = names(lang)
    everyone_read = {uid: RO for uid in aud.spectators} | {uid: RW for uid in aud.players.values()}
    public = public_access(game, aud) if game is not None else everyone_read
    fixed = fixed_access(aud, game)
    channels = [
        ChannelSpec("public", slug(n["public"]), TEXT, aud.with_access(public), topic=title),
        ChannelSpec("votes", slug(n["votes"]), TEXT, aud.with_access(fixed["votes"])),
        ChannelSpec("gm", slug(n["gm"]), TEXT, aud.with_access({})),
        ChannelSpec("spectators", slug(n["spectators"]), TEXT, aud.with_access(fixed["spectators"])),
    ]
    for pid, _uid in sorted(aud.players.items()):
        label = text(lang, "channel.player", name=player_names[pid])
        channels.append(ChannelSpec(f"player:{pid}", slug(label), TEXT, aud.with_access(fixed[f"player:{pid}"])))
    return with_categories(title, aud, channels)


def with_categories(title: str, aud: Audience, channels: list[ChannelSpec], first: int = 1) -> list[ChannelSpec]:
    out: list[ChannelSpec] = []
    for i in range(0, len(channels), PER_CATEGORY):
        n = first + i // PER_CATEGORY
        key = "category" if n == 1 else f"category:{n}"
        name = title if n == 1 else f"{title} ({n})"
        out.append(ChannelSpec(key, name[:100], CATEGORY, aud.base()))
        for place, c in enumerate(channels[i:i + PER_CATEGORY]):
            c.parent, c.position = key, place
            out.append(c)
    return out


async def create(http: Any, guild_id: int, plan: list[ChannelSpec], known: dict[str, int],
                 on_created: Any = None, on_made: Any = None) -> dict[str, int]:
    """Create the channels of ``plan`` not in ``known`` (key -> id), one REST call each with
    their first :data:`MAX_CREATE_OVERWRITES` overwrites, the rest put right after
    (:func:`split_overwrites`); ``on_made(key, id)`` is awaited as soon as Discord answered the
    create, ``on_created(key, id)`` once the channel has all its overwrites."""
    ids = dict(known)
    for spec in plan:
        if spec.key in ids:
            continue
        first, rest = split_overwrites(spec.overwrites)
        options: dict[str, Any] = {"name": spec.name, "permission_overwrites": first}
        if spec.parent:
            options["parent_id"] = ids[spec.parent]
        if spec.topic:
            options["topic"] = spec.topic[:1024]
        if spec.position is not None:
            options["position"] = spec.position
        data = await http.create_channel(guild_id, spec.type, **options)
        ids[spec.key] = int(data["id"])
        if on_made is not None:
            await on_made(spec.key, ids[spec.key])
        await put_overwrites(http, ids[spec.key], rest)
        if on_created is not None:
            await on_created(spec.key, ids[spec.key])
    return ids


# ---- creating channels exactly once (the intent, then the channel, then its id) ---------------
def carries(channel: Mapping[str, Any], intent: Any) -> bool:
    """Whether a channel of the guild's listing is an intent's: by the id recorded as soon as
    Discord answered the create (``Store.outbox.channel_made``); an intent whose answer never came is
    matched by its marker: its type, its name as Discord keeps it (:func:`discord_name`) and
    parent (a game's category has the game's unique id in its name; every other channel of
    the game is under one of its categories)."""
    if intent.channel_id is not None:
        return int(channel.get("id", 0)) == int(intent.channel_id)
    parent = channel.get("parent_id")
    kind = int(channel.get("type", -1))
    return (kind == intent.kind and discord_name(channel.get("name") or "", kind) == discord_name(intent.name, kind)
            and (int(parent) if parent else None) == intent.parent_id)


def waves(plan: list[ChannelSpec]) -> list[list[ChannelSpec]]:
    """``plan`` in the waves a start creates it in: each category on its own, in order (a
    server's categories are ordered by when they were made), then every other channel at once
    (its category made: each carries its ``position``)."""
    out: list[list[ChannelSpec]] = [[spec] for spec in plan if spec.type == CATEGORY]
    rest = [spec for spec in plan if spec.type != CATEGORY]
    return [*out, rest] if rest else out


async def create_intended(store: Store, http: HTTPClient, owner: str, guild_id: int, plan: list[ChannelSpec],
                          known: dict[str, int], on_created: Any = None) -> dict[str, int]:
    """:func:`create` with the intent recorded first (``Store.outbox.intend_channel``), so that a crash
    between creating a channel and saving its id never leaves a second one: a key whose intent
    was already recorded (an attempt cut short) is first looked for in the guild's channels and
    the one found is adopted (any further copy deleted; its overwrites past the first 100 put
    again); then the id is saved (``on_created(key, id)``) and the intent settled.
    A channel of ``plan`` already in ``known`` (made by an attempt cut short) gets its
    overwrites past the first 100 put again too: the attempt may have stopped before them.
    ``owner``: the lobby (= game) id.

    The channels of a wave (:func:`waves`: the categories one by one, then the rest) are
    created at the same time, :data:`CREATES_AT_ONCE` at most: the wave's intents recorded
    first, then each channel on its own path (create, id saved, intent settled). A wave that fails (a refusal, a broken connection) is
    waited for whole before the first failure is raised, so that nothing is still being made
    while the start is rolled back; no later wave starts."""
    ids = dict(known)
    listing: list[Mapping[str, Any]] | None = None
    listed = asyncio.Lock()  # the guild's channels fetched once, by the first path that needs them
    slots = asyncio.Semaphore(CREATES_AT_ONCE)

    async def made(key: str, cid: int) -> None:
        await store.outbox.channel_made(owner, key, cid)

    async def guild_channels() -> list[Mapping[str, Any]]:
        nonlocal listing
        async with listed:
            if listing is None:
                listing = list(await http.get_all_guild_channels(guild_id))
            return listing

    async def intend(spec: ChannelSpec) -> Any:
        parent = ids[spec.parent] if spec.parent else None
        return await store.outbox.intend_channel(owner, spec.key, guild_id=guild_id, kind=spec.type, name=spec.name[:100], parent_id=parent)

    async def one(spec: ChannelSpec, before: Any) -> None:
        if spec.key in ids:
            await put_overwrites(http, ids[spec.key], split_overwrites(spec.overwrites)[1])
            return
        parent = ids[spec.parent] if spec.parent else None
        name = spec.name[:100]
        cid = None
        if before is not None:
            found_in = await guild_channels()
            mine = set(ids.values())
            found = [int(c["id"]) for c in found_in if carries(c, before) and int(c["id"]) not in mine
                     and store.meta.game_of_channel(int(c["id"])) is None]
            if found:
                cid = found[0]
                for extra in found[1:]:
                    log.warning("%s: deleting a duplicate of channel %s (%s)", owner, spec.key, extra)
                    with contextlib.suppress(discord.NotFound):
                        await http.delete_channel(extra, reason="altmafia: duplicate")
                await put_overwrites(http, cid, split_overwrites(spec.overwrites)[1])
        if cid is None:
            done = await create(http, guild_id, [spec], ids, on_made=made)
            cid = done[spec.key]
            if listing is not None:
                listing.append({"id": cid, "type": spec.type, "name": name, "parent_id": parent})
        ids[spec.key] = cid
        if on_created is not None:
            await on_created(spec.key, cid)
        await store.outbox.settle_channel(owner, spec.key, cid)

    async def bounded(spec: ChannelSpec, before: Any) -> None:
        async with slots:
            await one(spec, before)

    for wave in waves(plan):
        # every intent of the wave recorded before any of its creations goes out: they go together
        new = [spec for spec in wave if spec.key not in ids]
        intents = dict(zip([spec.key for spec in new], [await intend(spec) for spec in new], strict=True))
        results = await asyncio.gather(*(bounded(spec, intents.get(spec.key)) for spec in wave), return_exceptions=True)
        failed = [r for r in results if isinstance(r, BaseException)]
        if failed:
            raise failed[0]
    return ids


async def reconcile(store: Store, http: HTTPClient) -> dict[str, int]:
    """At start, before anything is delivered: every channel intent left open by a crash. A
    channel created and not saved is adopted into its game's meta (or its lobby); a copy next
    to a saved one, or a channel whose game and lobby are both gone, is deleted. Returns the
    counts (``adopted``, ``deleted``, ``settled``)."""
    counts = {"adopted": 0, "deleted": 0, "settled": 0}
    intents = await store.outbox.channel_intents()
    if not intents:
        return counts
    lobbies = await store.lobbies.lobbies()
    listings: dict[int, list[Mapping[str, Any]]] = {}
    for intent in intents:
        owner, key = intent.owner_id, intent.channel_key
        info = store.games.info(owner) if store.games.has(owner) else await store.games.find(owner)
        lobby = lobbies.get(owner)
        saved = info.meta.get("channels", {}) if info is not None else (lobby.get("channels", {}) if lobby is not None else None)
        if intent.guild_id not in listings:
            try:
                listings[intent.guild_id] = list(await http.get_all_guild_channels(intent.guild_id))
            except FAILED as exc:
                log.warning("guild %s: channels not listed (%s); intents left for the next start", intent.guild_id, exc)
                listings[intent.guild_id] = []
                continue
        matches = [int(c["id"]) for c in listings[intent.guild_id] if carries(c, intent) and store.meta.game_of_channel(int(c["id"])) is None]
        keep = saved.get(key) if saved is not None else None
        try:
            if saved is not None and keep is None and matches:
                keep = matches[0]
                await adopt(store, owner, key, keep, intent.parent_id, is_game=info is not None)
                counts["adopted"] += 1
            for cid in matches:
                if cid != keep:
                    log.warning("%s: deleting orphan channel %s (%s)", owner, key, cid)
                    with contextlib.suppress(discord.NotFound):
                        await http.delete_channel(cid, reason="altmafia: orphan")
                    counts["deleted"] += 1
        except FAILED as exc:  # a connection that broke: the intent stays, the next start settles it
            log.warning("%s: channel %s not reconciled (%s); left for the next start", owner, key, exc)
            continue
        if keep is not None or saved is None:
            await store.outbox.settle_channel(owner, key, int(keep) if keep is not None else None)
            counts["settled"] += 1
    return counts


async def adopt(store: Store, owner: str, key: str, cid: int, parent_id: int | None, *, is_game: bool) -> None:
    """Save a channel found by its intent as the owner's (the game's meta, or the lobby's)."""
    if not is_game:
        await store.lobbies.update_lobby(owner, lambda data: data.setdefault("channels", {}).update({key: cid}))
        return

    def record(m: dict[str, Any]) -> None:
        m.setdefault("channels", {})[key] = cid
        parent = next((k for k, v in m["channels"].items() if parent_id is not None and v == parent_id), None)
        if parent is not None:
            m.setdefault("parents", {})[key] = parent
        if key.startswith("category") and key not in m.get("categories", ["category"]):
            m["categories"] = [*m.get("categories", ["category"]), key]

    await store.meta.update_meta(owner, record)


def free_category(parents: dict[str, str], order: list[str]) -> str | None:
    """A category (of ``order``) with room for one more channel, or None."""
    counts: dict[str, int] = {}
    for cat in parents.values():
        counts[cat] = counts.get(cat, 0) + 1
    for key in order:
        if counts.get(key, 0) < PER_CATEGORY:
            return key
    return None


def opened_at_start(game: Any, aud: Audience, plan: list[ChannelSpec]) -> int:
    """How many channels the first sync after a start creates beyond ``plan``: those the ruleset
    opens from the start (the Mafia's channel of the first night, a team's), and the categories
    they need once the plan's are full. A start counts them before it makes anything, so that a
    server without room for them is refused whole instead of failing after the game began."""
    keys = {spec.key for spec in plan}
    extra = sum(1 for view in visibility.channels(game)
                if view.kind in ("public", "faction", "team", "dead") and view.key not in keys and access_of(view, aud))
    if not extra:
        return 0
    children: dict[str, int] = {}
    for spec in plan:
        if spec.parent is not None:
            children[spec.parent] = children.get(spec.parent, 0) + 1
    room = sum(max(0, PER_CATEGORY - children.get(spec.key, 0)) for spec in plan if spec.type == CATEGORY)
    return extra + max(0, -(-(extra - room) // PER_CATEGORY))


class Unsaved:
    """A sync's record of the overwrites it applied, not committed yet: a meta change function
    (for ``Store.meta.update_meta`` or ``Store.meta.mark_parts_sent(meta=…)``). Whoever commits it calls
    :meth:`committed`; from then on it changes nothing (a later sync's record may have replaced
    what it wrote)."""

    def __init__(self, changes: list[Any]) -> None:
        self._changes = changes  # meta changes in order: the overwrites', the living role's holders
        self.saved = False

    def __call__(self, meta: dict[str, Any]) -> None:
        if not self.saved:
            for change in self._changes:
                change(meta)

    def committed(self) -> None:
        self.saved = True


class ChannelManager:
    """Creates and keeps up to date the channels of the games (the ids live in each game's
    meta: ``channels`` key -> id, ``parents`` channel key -> category key, ``access`` channel
    key -> {user id: rw/ro/-} as last set)."""

    def __init__(self, store: Store, deliverer: Delivering, client: discord.Client) -> None:
        self.store = store
        self.deliverer = deliverer
        #: the bot's connection: its REST calls and its own id
        self.client = client
        self._locks: dict[str, asyncio.Lock] = {}
        #: a sync's record handed to a delivery and perhaps not committed yet, by game
        self._unsaved: dict[str, Unsaved] = {}

    @property
    def http(self) -> HTTPClient:
        return self.client.http

    def audience(self, info: Any, game: Game | None = None) -> Audience:
        """Who is who: the seats' holders as the engine has them (a substitution hands a seat
        to another member); without ``game``, the holders at the start."""
        meta = info.meta
        if game is not None:
            players = {p.pid: int(p.user_id) for p in game.state.players if p.user_id}
        else:
            players = {seat: int(p["user_id"]) for seat, p in enumerate(info.players) if p.get("user_id")}
        return Audience(
            guild_id=int(info.guild_id),
            bot_id=own_id(self.client.user),
            gms=[int(u) for u in info.gm_user_ids],
            gm_role=meta.get("gm_role"),
            players=players,
            spectators=[int(u) for u in meta.get("spectators", [])],
        )

    def lock(self, game_id: str) -> asyncio.Lock:
        """One channel change of a game at a time (held across its REST calls; the game's meta
        itself is only ever changed by ``Store.meta.update_meta``, briefly, at the end)."""
        return self._locks.setdefault(game_id, asyncio.Lock())

    async def sync(self, game_id: str, *, commit: bool = True) -> Unsaved | None:
        """Bring every channel's overwrites in line with the game: who may talk in public,
        faction channels (created when a faction first exists) and their members.

        What the sync applied is recorded in the game's meta (``access``) only after its REST
        edits succeeded. ``commit=False`` (a resolve's ``after_resolve``): a record of overwrites
        (and of the living role's holders, ``living_holders``) is not committed here but
        returned (:class:`Unsaved`), for the delivery's marking transaction to commit with its
        own (``Deliverer.flush(meta=…)``); a sync that created a channel commits at once, as
        does every sync with ``commit=True``. A crash before that
        commit leaves the meta as before the sync: the next one diffs against it and puts the
        same overwrites again (each PUT sets the whole overwrite: idempotent)."""
        async with self.lock(game_id):
            changes: list[Any] = []
            access = await self._sync(game_id, commit)
            if access is not None:
                changes.append(access)
            unsaved = Unsaved(changes)
            try:
                # the server role of the living (a lobby option); its holders recorded with the rest
                await sync_living_role(self.store, self.deliverer, self.http, game_id, None if commit else changes)
            except BaseException:
                if changes:  # what was put is recorded as before, whatever failed after it
                    await self.store.meta.update_meta(game_id, unsaved)
                    unsaved.committed()
                raise
            if not changes:
                return None
            self._unsaved[game_id] = unsaved
            return unsaved

    async def _save_unsaved(self, game_id: str) -> None:
        """Commit a record a sync left to a delivery that has not committed it yet (another
        channel change of the game comes first: it must diff against what Discord has)."""
        record = self._unsaved.pop(game_id, None)
        if record is not None and not record.saved:
            await self.store.meta.update_meta(game_id, record)
            record.committed()

    async def _sync(self, game_id: str, commit: bool = True) -> Any:
        """The overwrites put; their record committed, or (``commit=False``, no channel
        created) returned as a meta change for the caller to commit; None: nothing to record."""
        store = self.store
        if not store.games.has(game_id):
            return None
        await self._save_unsaved(game_id)
        info, game = store.games.info(game_id), store.games.game(game_id)
        meta = info.meta
        if "channels" not in meta:
            return None
        aud = self.audience(info, game)
        channels = dict(meta["channels"])
        parents = dict(meta.get("parents", {}))
        order = list(meta.get("categories", ["category"]))
        access = {k: dict(v) for k, v in meta.get("access", {}).items()}
        created: dict[str, int] = {}
        new_parents: dict[str, str] = {}
        new_categories: list[str] = []
        done: dict[str, dict[str, str]] = {}  # channel key -> access as set now
        lang = meta.get("lang", "ru")
        # the engine says who reads and writes where; here it only becomes overwrites
        wanted: dict[str, dict[int, str]] = {}
        for view in visibility.channels(game):
            if view.kind in ("public", "faction", "team", "dead"):
                wanted[view.key] = access_of(view, aud)
        fixed = fixed_access(aud, game)
        wanted.update({k: v for k, v in fixed.items() if k in channels})
        start = fixed_access(self.audience(info))
        for key in fixed:
            if key in channels and key not in access:  # a game begun before these were recorded
                access[key] = {str(u): a for u, a in start.get(key, {}).items()}
        for key in list(access):
            if key.startswith("faction:") and key not in wanted:
                wanted[key] = {}  # a faction that is gone: its channel stays, readable by nobody
        for key, want in wanted.items():
            if key not in channels:
                if not want:
                    continue
                cat = free_category(parents, order)
                if cat is None:
                    n = len(order) + 1
                    cat = f"category:{n}"
                    title = meta.get("title", "altmafia")
                    spec = ChannelSpec(cat, f"{title} ({n})"[:100], CATEGORY, aud.base())
                    made = await create_intended(self.store, self.http, game_id, aud.guild_id, [spec], channels)
                    created.update({k: v for k, v in made.items() if k not in channels})
                    channels.update(made)
                    order.append(cat)
                    new_categories.append(cat)
                kind, _, fid = key.partition(":")
                if kind == "dead":
                    name = text(lang, "channel.dead")
                elif kind == "team":
                    name = text(lang, f"channel.team.{fid}")
                else:
                    name = text(lang, "channel.faction", fid=Renderer(game, lang).faction(fid))
                spec = ChannelSpec(key, slug(name), TEXT, aud.with_access(want), parent=cat,
                                   position=sum(1 for p in parents.values() if p == cat))
                made = await create_intended(self.store, self.http, game_id, aud.guild_id, [spec], channels)
                created.update({k: v for k, v in made.items() if k not in channels})
                channels.update(made)
                parents[key] = new_parents[key] = cat
                done[key] = {str(u): a for u, a in want.items()}
                continue
            have = {int(u): a for u, a in access.get(key, {}).items()}
            for uid in sorted(set(want) | set(have)):
                a = want.get(uid, NONE)
                if have.get(uid, NONE) == a:
                    continue
                ow = access_overwrite(uid, a)
                await self.http.edit_channel_permissions(channels[key], uid, ow["allow"], ow["deny"], MEMBER)
            done[key] = {str(u): a for u, a in want.items()}
        if created or any(access.get(k) != v for k, v in done.items()):

            def record(m: dict[str, Any]) -> None:
                """Only what this sync did, merged into the meta as it is now."""
                m["channels"] = {**m.get("channels", {}), **created}
                m["parents"] = {**m.get("parents", {}), **new_parents}
                if new_categories:
                    have_cats = list(m.get("categories", ["category"]))
                    m["categories"] = have_cats + [c for c in new_categories if c not in have_cats]
                m["access"] = {**m.get("access", {}), **done}

            if commit or created:
                await store.meta.update_meta(game_id, record)
                return None
            return record
        return None

    async def add_spectator(self, game_id: str, user_id: int) -> None:
        async with self.lock(game_id):
            store = self.store
            await self._save_unsaved(game_id)
            meta = store.games.info(game_id).meta
            if user_id in meta.get("spectators", []):
                return
            # the channels spectators read, as the engine has them (public, votes, spectators; the
            # channel of the dead, where they write too)
            found = [v for v in visibility.channels(store.games.game(game_id)) if v.spectators and v.key in meta["channels"]]
            keys = {v.key: RW if v.spectators_write else RO for v in found}
            for key, a in keys.items():
                ow = access_overwrite(user_id, a)
                await self.http.edit_channel_permissions(meta["channels"][key], user_id, ow["allow"], ow["deny"], MEMBER)

            def record(m: dict[str, Any]) -> None:
                if user_id not in m.get("spectators", []):
                    m["spectators"] = [*m.get("spectators", []), user_id]
                for key, a in keys.items():
                    m.setdefault("access", {}).setdefault(key, {})[str(user_id)] = a

            await store.meta.update_meta(game_id, record)

    async def remove_spectator(self, game_id: str, user_id: int) -> bool:
        """The GM takes a spectator away: they read none of the game's channels any more."""
        store = self.store
        if user_id not in store.games.info(game_id).meta.get("spectators", []):
            return False

        def drop(m: dict[str, Any]) -> None:
            m["spectators"] = [u for u in m.get("spectators", []) if u != user_id]

        await store.meta.update_meta(game_id, drop)
        await self.sync(game_id)
        return True

    def all_ids(self, meta: dict[str, Any]) -> list[tuple[str, int]]:
        """Every channel of the game, categories last (they must be empty to go first)."""
        items = sorted(meta.get("channels", {}).items(), key=lambda kv: kv[0].startswith("category"))
        return [(k, int(v)) for k, v in items]

    async def archive(self, info: Any) -> int:
        """Every channel becomes read-only, writable by the GMs only; who reads it follows the
        GM's choice at the end (:func:`archive_access`)."""
        store = self.store
        aud = self.audience(info, store.games.game(info.game_id) if store.games.has(info.game_id) else None)
        n = 0
        for key, cid in self.all_ids(info.meta):
            ows = aud.with_access(archive_access(info.meta, key, aud))
            try:
                await self.http.edit_channel(cid, permission_overwrites=ows)
                n += 1
            except discord.NotFound:
                continue
            _ = key
        return n

    async def delete(self, info: Any) -> int:
        n = 0
        for _key, cid in self.all_ids(info.meta):
            try:
                await self.http.delete_channel(cid)
                n += 1
            except discord.NotFound:
                continue
        rid = info.meta.get("living_role")
        if rid is not None and info.guild_id is not None:  # the living players' role goes with the channels
            with contextlib.suppress(discord.NotFound):
                await self.http.delete_role(int(info.guild_id), int(rid), reason="altmafia: game deleted")
        return n
