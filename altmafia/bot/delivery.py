"""The outbox to Discord: every event rendered in its reader's language, in its channel.

| audience | channel |
| --- | --- |
| public, key ``vote.*`` or ``open.*`` (a ballot, an ability used in the open) | the vote channel |
| public, anything else | the public game channel |
| players | each player's hidden channel |
| faction | the faction's channel (created when first needed) |
| gm | the GM channel |

Everything pending for one channel goes out as ONE batch (split into parts only past Discord's
2000 characters), grouped under the label of its phase: a resolve sends at most one batch per
channel, and the new phase's panel of a seat (its announcement, in the public channel) rides on
the last message of that channel's batch (:meth:`Deliverer.riders`, :func:`ride`). An event that comes with buttons (:func:`altmafia.bot.buttons.event_view`: a queued
anonymous post the GM may refuse) goes out as a batch of its own, the buttons under it.

Exactly once, part by part (docs/storage.md, "Delivery: exactly once"): a batch is rendered
ONCE into its final parts, and the parts (text, nonce, channel, buttons spec, files) are stored
by :meth:`storage.Store.outbox.stage` in the transaction that claims the batch's outbox rows. Each
part is then claimed, sent and marked on its own (:meth:`storage.Store.outbox.mark_part_sent`, with
the message id); the rows are delivered with the last part. A retry sends the stored text of
the unsent parts only; a part claimed before a crash or a failure is first looked for in its
channel (:meth:`Deliverer._find`: only a message of that very attempt counts, never an older
one with the same text). Every part is cut by :mod:`altmafia.text.split`, as the replies are.
The bot's own messages are batches without outbox rows: those of a command (the sender's
copy of a PM, a GM's log line, a deadline notice) are built by :meth:`Deliverer.outgoing` and staged by the store in the
command's own transaction; the others (role cards, reminders) by :meth:`Deliverer.post`, keyed;
the end of a game (the reveal, the GM's report, the cleanup prompt) by :meth:`Deliverer.outgoing`
under the same keys, staged with the flag ``revealed`` in one transaction by ``bot.stage_end``
(``bot.finish``, the one path to the end of a game).
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import contextvars
import io
import logging
import re
import secrets
from collections import Counter
from collections.abc import AsyncIterator, Sequence
from datetime import UTC, datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

import discord

from altmafia.text.guide import task_notice
from altmafia.text.i18n import Renderer, text
from altmafia.text.split import chunks, split
from storage import Delivery, GameInfo, Part, Post, part_nonce

from . import panel
from .buttons import GameButton, PublishButton, bonus_view, event_view
from .failures import FAILED, reason
from .living import phase_announcement
from .services import Services, own_id
from .spectators import request_view

log = logging.getLogger(__name__)
#: a post's parts are at most this long: Discord allows 2000 characters a message, and the
#: buttons append a line to the message they sit under (a refused anonymous post, a spectator
#: approved, the review published)
LIMIT = 1900


def route(d: Delivery) -> str:
    """The key of the channel a delivery goes to (see the module's table)."""
    if d.dest == "public":
        return "votes" if d.event.key.startswith(("vote.", "open.")) else "public"
    if d.dest == "player":
        return f"player:{d.dest_id}"
    if d.dest == "faction":
        return f"faction:{d.dest_id}"
    return "gm"


def reader_lang(meta: dict[str, Any], key: str) -> str:
    if key.startswith("player:"):
        return meta.get("langs", {}).get(key.split(":", 1)[1]) or meta.get("lang", "ru")
    return meta.get("lang", "ru")


#: room kept on a message a panel rides on, for the panel's growth when it is redrawn (the
#: submissions, the ballots and the choice being made: ``panel._redraw`` keeps the news above it)
PANEL_ROOM = 500


def ride(lines: list[str], block: str, room: int = 0) -> list[str]:
    """A batch's parts with ``block`` (a panel, the phase's announcement) riding on the last one:
    its lines after the batch's, in the same message when they fit (with ``room`` to spare),
    else in parts of their own after it; the block is never cut across two parts."""
    if lines and len(lines[-1]) + 1 + len(block) + room <= LIMIT:
        return [*lines[:-1], f"{lines[-1]}\n{block}"]
    return [*lines, *split(block, LIMIT)]


def nonce(key: str, part: int) -> str:
    return part_nonce(key, part)


def absorbable(p: Part) -> bool:
    """A resolve's own line not yet tried: it may join the batch of its channel's events."""
    return "/resolve:" in p.batch_id and p.attempts == 0 and not p.view and not p.files and p.channel_id is not None


#: how many of a channel's messages since an attempt are searched for that attempt's message
HISTORY = 100
#: how far the bot's clock may be ahead of Discord's: a message is evidence of an attempt when
#: Discord stamped it no earlier than the attempt's claim less this
SKEW = timedelta(seconds=1)


def attempt_snowflake(stamp: str | None) -> int | None:
    """The lowest message id Discord could give a message sent after an attempt claimed at
    ``stamp`` (the store's UTC text), :data:`SKEW` allowed for; None without a stamp."""
    if not stamp:
        return None
    at = datetime.strptime(stamp, "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=UTC)
    return discord.utils.time_snowflake(at - SKEW, high=False)


LEADING_USER = re.compile(r"<@!?([0-9]{1,20})>")


def pings(part: Part, living_role: Any = None) -> discord.AllowedMentions:
    """Whom a part may notify: only the mentions the bot itself means, never one a text inside
    it carries (a name, a PM, a note). A part with a ``mention`` spec pings that member (0: no
    one); a seat's news ping the seat's player, the mention the bot opens their first part with; the
    phase's announcement (batch ``<game>/phase:…``, alone or riding on the public report) pings
    the living players' role. Nobody else, never @everyone or @here."""
    users: Any = False
    if part.mention is not None:
        users = [discord.Object(part.mention)] if part.mention else False
    elif part.channel_key.startswith("player:") and part.part_idx == 0:  # (``render`` puts it first)
        lead = LEADING_USER.match(part.content)
        users = [discord.Object(int(lead.group(1)))] if lead else False
    roles: Any = False
    if living_role and part.batch_id.startswith(f"{part.game_id}/phase:") and f"<@&{living_role}>" in part.content:
        roles = [discord.Object(int(living_role))]
    return discord.AllowedMentions(everyone=False, users=users, roles=roles, replied_user=False)


def file_spec(f: Any) -> dict[str, str]:
    """A file to attach, as stored with its part: a ``discord.File`` or a ``(name, bytes)``."""
    if isinstance(f, discord.File):
        f.fp.seek(0)
        name, data = f.filename or "file", f.fp.read()
    else:
        name, data = f
    return {"name": name, "data": base64.b64encode(data).decode("ascii")}


#: how many games deliver at the same time: enough REST calls in flight to reach Discord's 50
#: requests a second at a round trip of 100 ms and more, few enough not to run into that limit
#: again and again (each 429 counts against the token's invalid requests)
GAMES_AT_ONCE = 8
#: how many channels the flushes sending at one moment share (each channel's parts in order):
#: a game alone sends to this many at once (a resolve's seats, a PM and the sender's copy, a
#: start's role cards and panels); games sending together split it, one channel each at least
CHANNELS_AT_ONCE = 10


async def at_once(items: list[Any], fn: Any, limit: int) -> list[Any]:
    """``fn(item)`` for every item, at most ``limit`` running at a time, started in order; the
    results (or the exception each raised) in the items' order."""
    slots = asyncio.Semaphore(limit)

    async def one(item: Any) -> Any:
        async with slots:
            return await fn(item)

    return await asyncio.gather(*(one(i) for i in items), return_exceptions=True)


#: the games whose posts and flushes this task only stages (:meth:`Deliverer.holding`)
_HOLDING: contextvars.ContextVar[frozenset[str]] = contextvars.ContextVar("holding", default=frozenset())
#: this task's flush claims every part never tried before its first send (the end of a hold)
_WIDE: contextvars.ContextVar[bool] = contextvars.ContextVar("wide", default=False)


def _committed(fn: Any) -> None:
    """Tell a meta change it is committed (``channels.Unsaved``), if it wants to know."""
    done = getattr(fn, "committed", None)
    if done is not None:
        done()


class Deliverer:
    def __init__(self, bot: Services) -> None:
        self.bot = bot
        #: one lock a game: a game's parts go out one after another (each channel in order), while
        #: different games deliver at the same time (:meth:`flush` of all games, the scheduler)
        self.locks: dict[str, asyncio.Lock] = {}
        #: messages sent, by (game id, channel key): what tests count
        self.sent: Counter[tuple[str, str]] = Counter()
        #: test hook: called with a part's key after its send, before it is marked
        self.fault: Any = None
        #: the flushes sending now, every game's: they share :data:`CHANNELS_AT_ONCE`
        self.sending = 0

    async def flush(self, game_id: str | None = None, extra: dict[str, list[str]] | None = None, *,
                    meta: Any = None) -> int:
        """Deliver everything pending (of one game, or all): first the stored parts of batches
        staged before, then the new outbox rows. ``extra`` lines (by channel key) join the
        same batches. Returns the number of messages sent.

        ``meta``: a change of ``game_id``'s meta (the channel sync's record of what it applied,
        ``channels.Unsaved``) committed in the first transaction that marks parts sent; when
        the flush marks none, on its own at the end (``Store.meta.update_meta``). Its
        ``committed()`` is called once it is committed."""
        if meta is not None and game_id is None:
            raise ValueError("a meta change rides only on the flush of its own game")
        if game_id is not None and game_id in _HOLDING.get() and meta is None and not extra:
            return 0  # the hold's end flushes it (:meth:`holding`)
        if game_id is None:
            return await self._flush_all()
        carry: list[tuple[str, Any]] = [(game_id, meta)] if meta is not None else []
        try:
            async with self.lock(game_id):
                return await self._flush(game_id, extra, carry)
        finally:
            if carry:  # nothing was marked (or the flush failed before): the record alone
                gid, fn = carry.pop()
                await self.bot.store.meta.update_meta(gid, fn)
                _committed(fn)

    @contextlib.asynccontextmanager
    async def holding(self, game_id: str) -> AsyncIterator[None]:
        """Within it, this task's :meth:`post` of ``game_id`` stages only and its plain
        :meth:`flush` of the game waits; at its end one flush sends everything staged, the
        channels at the same time, every claim taken first in one transaction (a start's role
        cards, briefing and panels: one wave instead of one post after another). Other tasks
        deliver the game as ever meanwhile (each part is claimed before it is sent)."""
        await self.flush(game_id)  # what the game committed before goes out first, as a post would send it
        token = _HOLDING.set(_HOLDING.get() | {game_id})
        try:
            yield
        finally:
            _HOLDING.reset(token)
        wide = _WIDE.set(True)
        try:
            await self.flush(game_id)
        finally:
            _WIDE.reset(wide)

    def lock(self, game_id: str) -> asyncio.Lock:
        """The lock of one game's delivery (an undo takes it: no batch is half-way out)."""
        return self.locks.setdefault(game_id, asyncio.Lock())

    async def _flush_all(self) -> int:
        """Every game with something pending, :data:`GAMES_AT_ONCE` at a time, each under its
        own lock: one game's sends never wait for another's (discord.py's rate limiter paces
        them all); a game whose flush fails is logged and retried at the next flush."""
        store = self.bot.store
        parts, rows = await store.outbox.pending(None)
        ids = list(dict.fromkeys([p.game_id for p in parts] + [d.game_id for d in rows]))
        sent = 0

        async def one(gid: str) -> int:
            async with self.lock(gid):
                return await self._flush(gid)

        for gid, result in zip(ids, await at_once(ids, one, GAMES_AT_ONCE), strict=True):
            if isinstance(result, BaseException):
                log.error("game %s: delivery failed; retried at the next flush", gid, exc_info=result)
            else:
                sent += result
        return sent

    async def _flush(self, game_id: str | None, extra: dict[str, list[str]] | None = None,
                     carry: list[tuple[str, Any]] | None = None) -> int:
        store = self.bot.store
        blocked: set[tuple[str, str]] = set()
        parts, pending = await store.outbox.pending(game_id)
        # a resolve's own line (the GM's log line of a forced resolve, staged with it) joins
        # the batch of that channel's events instead of going out alone: one message a resolve
        rows_at = {(d.game_id, route(d)) for d in pending}
        merge = [p for p in parts if absorbable(p) and (p.game_id, p.channel_key) in rows_at]
        sent = await self._send_parts([p for p in parts if p not in merge], blocked, carry)
        games: dict[str, list[Delivery]] = {}
        for d in pending:
            games.setdefault(d.game_id, []).append(d)
        if game_id is not None and extra:
            games.setdefault(game_id, [])
        for gid, items in games.items():
            sent += await self._game(gid, items, extra if gid == game_id else None, blocked,
                                     [p for p in merge if p.game_id == gid], carry if gid == game_id else None)
        return sent

    async def _game(self, gid: str, items: list[Delivery], extra: dict[str, list[str]] | None,
                    blocked: set[tuple[str, str]], merge: Sequence[Part] = (), carry: list[tuple[str, Any]] | None = None) -> int:
        store = self.bot.store
        if not store.games.has(gid):
            log.warning("game %s has pending messages but is not loaded", gid)
            return 0
        info = store.games.info(gid)
        if "channels" not in info.meta:
            return 0  # the game's channels are being created: its messages wait for them
        batches: dict[str, list[Delivery]] = {}
        for d in items:
            batches.setdefault(route(d), []).append(d)
        for key in extra or {}:
            batches.setdefault(key, [])
        if any(k.startswith("faction:") and k not in info.meta["channels"] for k in batches):
            try:
                await self.bot.channel_manager.sync(gid)
            except FAILED as exc:  # the channel may not be made yet: its rows wait for the next flush
                log.warning("game %s: faction channels not synced (%s); their messages wait", gid, reason(exc))
                for key in [k for k in batches if k.startswith("faction:") and k not in store.games.info(gid).meta["channels"]]:
                    del batches[key]
            info = store.games.info(gid)
        staged: list[Part] = []
        for key, batch in batches.items():
            lang = reader_lang(info.meta, key)
            views = [(d, event_view(gid, d.event, lang)) for d in batch]
            joined = [p for p in merge if p.channel_key == key]
            plain = [d for d, v in views if v is None]
            rider = None
            if plain and all(v is None for _, v in views):
                rider = await self._rider(gid, info, key, plain)
            staged += await self._stage(gid, info, key, plain, [p.content for p in joined] + (extra or {}).get(key, []),
                                        absorb=joined, rider=rider)
            for d, view in views:
                if view is not None:
                    staged += await self._stage(gid, info, key, [d], [], view=f"event:{d.event_idx}:{lang}")
        return await self._send_parts(staged, blocked, carry)

    def resolve_posts(self, gid: str, game: Any, info: GameInfo, deliveries: list[Delivery], own: list[Part]) -> list[Post]:
        """The delivery of a resolve, rendered from the game as the resolve committed it, for the
        scheduler to stage right after it (``Scheduler.stage_delivery``): one batch a channel (and one
        an event with buttons), as :meth:`flush` would stage them, then the new phase's panels
        and its announcement (``panel.panels``, ``living.phase_announcement``), under the ids
        :meth:`post` would give them, so they are never staged twice. ``deliveries``: the rows
        not staged yet, the resolve's and those committed before it (the first resolve of a turn
        cut short), rendered together as a flush after both would. ``own``: the resolve's own
        lines (the GM's log line staged with its mark) join the GM batch. Rows of a channel the
        game has not got yet (a faction's, created by the channel sync after the resolve) are
        left to :meth:`flush`, and everything while the channels are being created; when the
        same turn resolves on at once (a riot), nothing is staged: the next resolve of the turn
        takes these rows with its own (only the last phase line stands, no panels in between)."""
        meta = info.meta
        channels = meta.get("channels")
        if channels is None or (not game.state.over and game.end_now_requested()):
            return []
        batches: dict[str, list[Delivery]] = {}
        for d in deliveries:
            if route(d) in channels:
                batches.setdefault(route(d), []).append(d)
        riders = self.riders(game, info)
        posts: list[Post] = []
        for key, batch in batches.items():
            lang = reader_lang(meta, key)
            views = [(d, event_view(gid, d.event, lang)) for d in batch]
            plain = [d for d, v in views if v is None]
            joined = [p for p in own if p.channel_key == key and absorbable(p)]
            if plain or joined:
                lines = self.render(gid, key, plain, [p.content for p in joined], meta, game=game, deadline=info.deadline)
                # the new panel (the announcement) rides on the batch's last message, unless an
                # event with buttons follows it (a message carries one view: the panel comes last)
                rider = riders.pop(key) if plain and key in riders and all(v is None for _, v in views) else None
                if rider is not None:
                    block, view, once, room = rider
                    posts.append(self._post(gid, key, plain, ride(lines, block, room), channels, view=view, once=once,
                                            absorb=joined))
                else:
                    posts.append(self._post(gid, key, plain, lines, channels, absorb=joined))
            for d, buttons in views:
                if buttons is not None:
                    lines = self.render(gid, key, [d], [], meta, game=game, deadline=info.deadline)
                    posts.append(self._post(gid, key, [d], lines, channels, view=f"event:{d.event_idx}:{lang}"))
        for key, (block, view, once, _) in riders.items():  # a seat with no news: its panel alone, as before
            if key in channels:
                posts.append(self._post(gid, key, [], split(block, LIMIT), channels, view=view, once=once))
        return posts

    def command_posts(self, gid: str, game: Any, info: GameInfo, deliveries: list[Delivery]) -> list[Post]:
        """A command's own rows rendered from the game as the command commits it, for the store
        to stage and claim in the command's transaction (``Store.games.apply(…, deliver=…)``): one
        batch a channel (and one an event with buttons), under the ids :meth:`flush` would give
        them. Rows of a channel the game has not got yet, and a batch something would ride on
        (news of a past tick, the phase's own line: :meth:`_rider`), are left to :meth:`flush`."""
        channels = info.meta.get("channels")
        if channels is None:
            return []
        batches: dict[str, list[Delivery]] = {}
        for d in deliveries:
            batches.setdefault(route(d), []).append(d)
        posts: list[Post] = []
        for key, batch in batches.items():
            if key not in channels or any(d.event.tick < info.tick or d.event.key == "notice.phase" for d in batch):
                continue
            lang = reader_lang(info.meta, key)
            views = [(d, event_view(gid, d.event, lang)) for d in batch]
            plain = [d for d, v in views if v is None]
            if plain:
                posts.append(self._post(gid, key, plain, self.render(gid, key, plain, [], info.meta, game=game,
                                                                     deadline=info.deadline), channels))
            for d, view in views:
                if view is not None:
                    lines = self.render(gid, key, [d], [], info.meta, game=game, deadline=info.deadline)
                    posts.append(self._post(gid, key, [d], lines, channels, view=f"event:{d.event_idx}:{lang}"))
        return posts

    async def _rider(self, gid: str, info: GameInfo, key: str, plain: list[Delivery]) -> tuple[str, str | None, str, int] | None:
        """What rides on a flushed batch (when the resolve could not stage its delivery): the
        seat's new panel on news of a resolve (an event of a past tick), the announcement on
        the report carrying the phase's own ``notice.phase`` line (a GM's removal mid-phase
        announces nothing again: the key names the game's version), and neither once its id is
        staged (posted alone, or with an earlier batch: never twice)."""
        if info.status != "running" or not info.meta.get("cards"):
            return None  # before the role cards: the first panels come after them (lobbies.start)
        game = self.bot.store.games.game(gid)
        rider: tuple[str, str | None, str, int] | None
        if key == "public":
            if not any(d.event.key == "notice.phase" and d.event.args.get("tick") == info.tick for d in plain):
                return None
            found = phase_announcement(game, info)
            rider = (found[0], None, found[1], 0) if found is not None else None
        elif key.startswith("player:") and any(d.event.tick < info.tick for d in plain):
            seat = panel.panel_of(game, info, int(key.split(":", 1)[1]))
            rider = (seat[1], seat[2], seat[3], PANEL_ROOM) if seat is not None else None
        else:
            return None
        if rider is None or await self.bot.store.outbox.parts(f"{gid}/{rider[2]}>{key}"):
            return None
        return rider

    @staticmethod
    def riders(game: Any, info: GameInfo) -> dict[str, tuple[str, str | None, str, int]]:
        """What the phase begun posts once in a channel, besides its news: each living seat's
        panel (``panel.panels``) and the public announcement (``living.phase_announcement``),
        by channel key: (text, view spec, ``once`` key, room to keep for a redraw). Either rides
        on the last message of its channel's batch (:func:`ride`), staged under its own ``once``
        batch id (``<game>/<once>><channel>``, the id :meth:`post` gives it), so a later
        ``post_panels`` / ``announce_phase`` finds it staged and posts nothing again."""
        if info.status != "running":
            return {}
        out: dict[str, tuple[str, str | None, str, int]] = {
            key: (content, view, once, PANEL_ROOM) for key, content, view, once in panel.panels(game, info)}
        found = phase_announcement(game, info)
        if found is not None:
            out["public"] = (found[0], None, found[1], 0)
        return out

    @staticmethod
    def _post(gid: str, key: str, batch: list[Delivery], lines: list[str], channels: dict[str, Any], *, view: str | None = None,
              once: str | None = None, absorb: Sequence[Part] = ()) -> Post:
        """A batch as :meth:`_stage` / :meth:`post` would store it, as a :class:`Post` (``once``:
        under the id :meth:`post` gives that key, the rows ``batch`` claimed with it)."""
        batch_id = f"{gid}/{once}>{key}" if once else f"{batch[0].key}>{key}"
        uncertain = any(d.attempts for d in batch)  # rows claimed by an older build may have been sent
        specs = tuple({"content": c, "nonce": nonce(batch_id, i), "mention": None if batch or once is None else 0,
                       "view": view if i == len(lines) - 1 else None, "uncertain": uncertain} for i, c in enumerate(lines))
        return Post(key, int(channels[key]), specs, keys=tuple(d.key for d in batch), batch=batch_id, absorb=tuple(absorb))

    def render(self, gid: str, key: str, batch: list[Delivery], extra: list[str], meta: dict[str, Any], *,
               game: Any = None, deadline: Any = ...) -> list[str]:
        """A batch's lines cut into messages; ``game`` and ``deadline``: the game to render from
        (default: the store's) and its deadline (a resolve's batch, before its commit)."""
        game = game if game is not None else self.bot.store.games.game(gid)
        lang = reader_lang(meta, key)
        r = Renderer(game, lang)
        lines = list(extra)
        label = None
        for d in batch:
            here = r.label(game.clock.info(d.event.tick).label)
            if here != label:
                lines.append(text(lang, "delivery.header", phase=here))
                label = here
            if d.event.key == "notice.phase":  # what comes now, with the deadline the bot keeps
                if d.event.args.get("tick") != game.state.tick:
                    continue  # a turn cut short resolved on at once: only the last one stands
                lines.append(text(lang, "delivery.line", text=self.phase_line(gid, r, meta, deadline)))
                continue
            # a GM task shows the ability's text and the command that settles it
            line = task_notice(game, d.event, lang) if d.event.key == "gm.task" else r.event(d.event)
            lines.append(text(lang, "delivery.line", text=line))
        if key.startswith("player:") and lines:
            pid = int(key.split(":", 1)[1])
            uid = game.player(pid).user_id
            if uid:
                lines.insert(0, f"<@{uid}>")
        return chunks(lines, LIMIT)

    def phase_line(self, gid: str, r: Renderer, meta: dict[str, Any], deadline: Any = ...) -> str:
        """«Сейчас: день 1.2. Ходы и голоса — до 21:00, 02.12 (Europe/Moscow), <in 6 hours>»:
        the phase in words and its deadline in the game's time zone (none while paused)."""
        phase = r.label(r.game.info.label)
        if deadline is ...:
            deadline = self.bot.store.games.deadline(gid)
        if deadline is None or meta.get("paused"):
            return text(r.lang, "notice.next_phase_open", phase=phase)
        tz = meta.get("tz") or self.bot.settings.tz
        local = deadline.astimezone(ZoneInfo(tz))
        return text(r.lang, "notice.next_phase", phase=phase, deadline=local.strftime("%H:%M, %d.%m"), tz=tz,
                    left=f"<t:{int(deadline.timestamp())}:R>")

    async def _stage(self, gid: str, info: Any, key: str, batch: list[Delivery], extra: list[str],
                     view: str | None = None, absorb: Sequence[Part] = (),
                     rider: tuple[str, str | None, str, int] | None = None) -> list[Part]:
        """Render a batch once and store its parts with the claim of its rows; ``rider``: a
        panel or an announcement riding on its last part (:meth:`riders`), under its id."""
        keys = [d.key for d in batch]
        if not keys and not extra:
            return []
        cid = info.meta["channels"].get(key)
        parts = self.render(gid, key, batch, extra, info.meta) if cid is not None else []
        batch_id = f"{keys[0]}>{key}" if keys else f"{gid}/bot/{secrets.token_hex(8)}>{key}"
        if rider is not None and cid is not None:
            block, view, once, room = rider
            parts = ride(parts, block, room)
            batch_id = f"{gid}/{once}>{key}"
        # rows claimed by an older build (one claim per batch) may have been sent: check first
        uncertain = any(d.attempts for d in batch)
        specs = [{"content": c, "nonce": nonce(batch_id, i), "view": view if i == len(parts) - 1 else None,
                  "uncertain": uncertain} for i, c in enumerate(parts)]
        if cid is None:
            log.warning("game %s: no channel %s; %d messages dropped", gid, key, len(keys))
            specs = [{"content": "", "nonce": nonce(batch_id, 0), "dropped": True}]
        return await self.bot.store.outbox.stage(gid, batch_id, key, int(cid) if cid is not None else None, specs, keys, absorb=absorb)

    async def _send_parts(self, parts: list[Part], blocked: set[tuple[str, str]],
                          carry: list[tuple[str, Any]] | None = None) -> int:
        """Send parts in order within each channel, the channels at the same time: a share of
        :data:`CHANNELS_AT_ONCE` (divided among the flushes sending now, one channel at least;
        discord.py's rate limiter paces them). A failed part blocks the rest of its channel
        until the next flush. ``carry``: a meta change
        (:meth:`flush`'s ``meta``) taken into the marking transaction, when there is one (a
        crash before it commits neither). A channel whose send raised is waited for with the
        others before the exception goes on, so that nothing is still being sent meanwhile."""
        done: list[tuple[Part, int | None]] = []  # sent (or found, or dropped): marked together at the end
        if any(p.untried for p in parts):  # staged claims that expired untried: taken again, in one transaction
            again = {p.key: p for p in await self.bot.store.outbox.hold_again(parts)}
            parts = [again.get(p.key, p) for p in parts]
        if _WIDE.get():  # a hold's wave: every claim first, in one transaction, not one between sends
            claimed = {p.key: p for p in await self.bot.store.outbox.claim_parts(parts)}
            parts = [claimed.get(p.key, p) for p in parts]
        chains: dict[tuple[str, str], list[Part]] = {}
        for part in parts:
            chains.setdefault((part.game_id, part.channel_key), []).append(part)

        async def chain(where: tuple[str, str], mine: list[Part]) -> int:
            n = 0
            for part in mine:
                if where in blocked:
                    break
                result = await self._send_part(part, done)
                if result is None:
                    blocked.add(where)
                else:
                    n += result
            return n

        self.sending += 1
        try:
            width = max(1, CHANNELS_AT_ONCE // self.sending)
            if len(chains) > 1 and width > 1:
                results = await at_once(list(chains.items()), lambda item: chain(*item), width)
            else:  # one channel at a time: no task of its own
                results = [await chain(*item) for item in chains.items()]
        finally:
            self.sending -= 1
            # one transaction for every part of the flush; a crash before it leaves them claimed
            # and unsent, and the next start looks for each in its channel before sending it
            if done and carry:
                gid, fn = carry.pop()
                await self.bot.store.meta.mark_parts_sent(done, meta=(gid, fn))
                _committed(fn)
            else:
                await self.bot.store.outbox.mark_parts_sent(done)
        failed = [r for r in results if isinstance(r, BaseException)]
        if failed:
            raise failed[0]
        return sum(results)

    async def _send_part(self, part: Part, done: list[tuple[Part, int | None]]) -> int | None:
        """1 if sent now, 0 if found already sent (or dropped), None if it failed (retry later).
        A part sent (found, dropped) is added to ``done``, to be marked with the flush's others."""
        store = self.bot.store
        if part.channel_id is None:
            done.append((part, None))
            return 0
        info = store.games.info(part.game_id) if store.games.has(part.game_id) else await store.games.find(part.game_id)
        channel = self.bot.get_partial_messageable(part.channel_id, guild_id=info.guild_id if info else None)
        try:
            if part.attempts and not part.held and not part.untried:
                found = await self._find(channel, part, done)
                if found is not None:
                    done.append((part, found))
                    return 0
            # a held part was claimed by this store when the resolve staged it, and not tried yet
            if not part.held and not await store.outbox.claim_part(part):
                return 0  # sent meanwhile, or another process is sending it
            kw: dict[str, Any] = {}
            view = await self.build_view(part) if part.view else None
            if view is not None:
                kw["view"] = view
            if part.files:
                kw["files"] = [discord.File(io.BytesIO(base64.b64decode(f["data"])), filename=f["name"]) for f in part.files]
            mentions = pings(part, info.meta.get("living_role") if info else None)
            msg = await channel.send(part.content, nonce=part.nonce, allowed_mentions=mentions, **kw)
            self.sent[(part.game_id, part.channel_key)] += 1
            if self.fault is not None:
                self.fault(part.key)
        except (discord.NotFound, discord.Forbidden) as exc:
            log.error("game %s: cannot post in %s (%s): message dropped", part.game_id, part.channel_key, exc)
            await store.outbox.mark_part_failed(part, str(exc))
            done.append((part, None))
            return 0
        except FAILED as exc:  # a 5xx, a 429 past discord.py's tries, a dropped connection: maybe sent
            log.warning("game %s: posting in %s failed (%s); will retry", part.game_id, part.channel_key, reason(exc))
            await store.outbox.mark_part_failed(part, reason(exc))
            return None
        done.append((part, msg.id))
        return 1

    async def _find(self, channel: Any, part: Part, done: Sequence[tuple[Part, int | None]] = ()) -> int | None:
        """Evidence that an earlier attempt at this very part went out: the id of the bot's
        message in the channel that is not older than that attempt (its claim, committed before
        the send: ``Part.last_attempt_at``, less :data:`SKEW`), has the part's text, and is no
        other part's message (recorded in the store, or sent by this flush: ``done``); the
        oldest such message, the attempt's first send. An older message with the same text (the
        same announcement a phase before, a PM repeated) is never taken for it: Discord keeps no
        nonce in a channel's history, so time and the messages already accounted for are the
        only evidence. None: nothing found (the part is sent)."""
        since = attempt_snowflake(part.last_attempt_at)
        if since is None:
            return None  # no time of an attempt: nothing could tell its message from an older one
        me = own_id(self.bot.user)
        found = [m.id async for m in channel.history(limit=HISTORY, after=discord.Object(since - 1))
                 if m.id >= since and m.author.id == me and m.content == part.content]
        if not found:
            return None
        taken = {mid for _, mid in done if mid is not None}
        taken |= await self.bot.store.outbox.held_messages(part.channel_id, [i for i in found if i not in taken])
        free = sorted(i for i in found if i not in taken)
        return free[0] if free else None

    async def build_view(self, part: Part) -> discord.ui.View | None:
        """The buttons of a stored part, rebuilt from its spec (``event:IDX:LANG``,
        ``bonus:PID:LANG``, ``cleanup:LANG``, ``publish:LANG``, ``panel:PID:TICK:LANG``)."""
        if part.view is None:
            return None
        kind, _, rest = part.view.partition(":")
        gid = part.game_id
        if kind == "cleanup":
            view = discord.ui.View(timeout=None)
            view.add_item(GameButton("archive", gid, 0, text(rest, "btn.archive"), discord.ButtonStyle.primary))
            view.add_item(GameButton("delete", gid, 0, text(rest, "btn.delete"), discord.ButtonStyle.danger))
            return view
        if kind == "spectator":  # the GM's approval of a spectator (spectators.SpectatorButton)
            uid, _, lng = rest.partition(":")
            return request_view("g", gid, int(uid), lng)
        if kind == "publish":  # the GM's choice to publish the full review (buttons.PublishButton)
            view = discord.ui.View(timeout=None)
            view.add_item(PublishButton(gid, text(rest, "btn.publish")))
            return view
        if kind == "panel":  # a seat's action panel (altmafia/bot/panel.py)
            return panel.build(self.bot, gid, rest)
        if not self.bot.store.games.has(gid):
            return None
        game = self.bot.store.games.game(gid)
        ident, _, lang = rest.partition(":")
        if kind == "event":
            ev = await self.bot.store.games.event(gid, int(ident))  # the log is in the store's tables
            return None if ev is None else event_view(gid, ev, lang)
        if kind == "bonus":
            return bonus_view(gid, game, int(ident), lang)
        return None

    def outgoing(self, game_id: str, key: str, content: str, *, files: list[Any] | None = None,
                 mention: int | None = None, view: str | None = None, once: str | None = None) -> Post:
        """A message of the bot itself, rendered into its parts now, to be staged by the store in
        the transaction of the command it belongs to (``Store.games.apply(…, posts=[…])``,
        ``change_deadline``, ``update_meta``, ``stage_posts``) and sent by the next flush. A
        channel the game has not got (yet) gives a post that is dropped (logged at the send).
        ``once``: its idempotency key, as :meth:`post`'s — the post carries the batch id and
        nonces :meth:`post` would give it (``<game>/<once>><channel>``), so it is staged once
        whichever of the two stages it (the end of a game: ``bot.stage_end``)."""
        store = self.bot.store
        info = store.games.info(game_id)
        cid = info.meta.get("channels", {}).get(key)
        parts = split(content, LIMIT)
        batch_id = f"{game_id}/{once}>{key}" if once else None
        specs = tuple({"content": c, "mention": mention or 0, "view": view if i == len(parts) - 1 else None,
                       "files": [file_spec(f) for f in files] if files and i == 0 else None,
                       **({"nonce": nonce(batch_id, i)} if batch_id else {})} for i, c in enumerate(parts))
        return Post(key, int(cid) if cid is not None else None, specs, batch=batch_id)

    def gm_line(self, game_id: str, gm: str, action: str) -> Post:
        """The GM channel's log line of a GM's action (``gm.log``), as a :class:`storage.Post`."""
        lang = self.bot.store.games.info(game_id).meta.get("lang", "ru")
        return self.outgoing(game_id, "gm", text(lang, "gm.log", gm=gm, action=action))

    async def post(self, game_id: str, key: str, content: str, *, files: list[Any] | None = None,
                   mention: int | None = None, view: str | None = None, once: str | None = None) -> int:
        """A message of the bot itself (not an event): a role card, a reminder, the reveal.
        It is staged in the outbox (``once``: its idempotency key — the same key is never
        staged twice, e.g. ``card:3``), then sent with anything pending before it. ``view``: a
        buttons spec (see :meth:`build_view`) for the last part; ``files`` go with the first.
        A message that belongs to a command is staged in the command's own transaction
        instead (:meth:`outgoing`)."""
        store = self.bot.store
        info = store.games.info(game_id) if store.games.has(game_id) else await store.games.find(game_id)
        cid = info.meta.get("channels", {}).get(key) if info else None
        if cid is None:
            return 0
        parts = split(content, LIMIT)
        batch_id = f"{game_id}/{once}>{key}" if once else f"{game_id}/bot/{secrets.token_hex(8)}>{key}"
        specs = [{"content": c, "nonce": nonce(batch_id, i), "mention": mention or 0,
                  "view": view if i == len(parts) - 1 else None,
                  "files": [file_spec(f) for f in files] if files and i == 0 else None} for i, c in enumerate(parts)]
        async with self.lock(game_id):
            if game_id in _HOLDING.get():  # staged only: the hold's end sends it after what came before
                await store.outbox.stage(game_id, batch_id, key, int(cid), specs)
                return 0
            # whatever the game committed before goes out first (its events after a restart,
            # before the reveal), in commit order
            sent = await self._flush(game_id) if store.games.has(game_id) else 0
            await store.outbox.stage(game_id, batch_id, key, int(cid), specs)
            return sent + await self._send_parts(await store.outbox.pending_parts(game_id), set())
