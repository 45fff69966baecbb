"""The outbox to Discord: every event rendered in its reader's language, in its channel.

| audience | channel |
| --- | --- |
| public, key ``vote.*`` | the vote channel |
| public, anything else | the public game channel |
| players | each player's hidden channel |
| faction | the faction's channel (created when first needed) |
| gm | the GM channel |

Everything pending for one channel goes out as ONE message (split only past Discord's 2000
characters), grouped under the label of its phase: a resolve sends at most one message per
channel. An event that comes with buttons (:func:`altmafia.bot.buttons.event_view`: a queued
anonymous post the GM may refuse) goes out as a message of its own, the buttons under it. Exactly once: the batch's rows are claimed in one transaction before the send and
marked delivered after it (:meth:`storage.Store.claim_many`); a batch claimed before a crash
is looked for among the channel's last messages before it is sent again, and the send
carries a nonce derived from the first row's key (Discord refuses a repeat of it).
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
from collections import Counter
from typing import Any

import discord

from altmafia.text.i18n import Renderer, text
from storage import Delivery

from .buttons import event_view

log = logging.getLogger(__name__)
LIMIT = 1900  # Discord allows 2000 characters a message; keep room for the header


def route(d: Delivery) -> str:
    """The key of the channel a delivery goes to (see the module's table)."""
    if d.dest == "public":
        return "votes" if d.event.key.startswith("vote.") else "public"
    if d.dest == "player":
        return f"player:{d.dest_id}"
    if d.dest == "faction":
        return f"faction:{d.dest_id}"
    return "gm"


def reader_lang(meta: dict[str, Any], key: str) -> str:
    if key.startswith("player:"):
        return meta.get("langs", {}).get(key.split(":", 1)[1]) or meta.get("lang", "ru")
    return meta.get("lang", "ru")


def chunks(lines: list[str], limit: int = LIMIT) -> list[str]:
    """Lines joined into as few messages as fit Discord's limit (a long line is cut)."""
    out: list[str] = []
    cur = ""
    for line in lines:
        line = line if len(line) <= limit else line[: limit - 1] + "…"
        if cur and len(cur) + 1 + len(line) > limit:
            out.append(cur)
            cur = line
        else:
            cur = f"{cur}\n{line}" if cur else line
    if cur:
        out.append(cur)
    return out


def nonce(key: str, part: int) -> str:
    return hashlib.sha256(f"{key}#{part}".encode()).hexdigest()[:25]


class Deliverer:
    def __init__(self, bot: Any) -> None:
        self.bot = bot
        self.lock = asyncio.Lock()
        #: messages sent, by (game id, channel key): what tests count
        self.sent: Counter[tuple[str, str]] = Counter()

    async def flush(self, game_id: str | None = None, extra: dict[str, list[str]] | None = None) -> int:
        """Deliver everything pending (of one game, or all); ``extra`` lines (by channel key)
        join the same messages. Returns the number of messages sent."""
        store = self.bot.store
        async with self.lock:
            pending = await store.pending_deliveries(game_id)
            games: dict[str, list[Delivery]] = {}
            for d in pending:
                games.setdefault(d.game_id, []).append(d)
            if game_id is not None and extra:
                games.setdefault(game_id, [])
            sent = 0
            for gid, items in games.items():
                sent += await self._game(gid, items, extra if gid == game_id else None)
            return sent

    async def _game(self, gid: str, items: list[Delivery], extra: dict[str, list[str]] | None) -> int:
        store = self.bot.store
        if not store.has(gid):
            log.warning("game %s has pending messages but is not loaded", gid)
            return 0
        info = store.info(gid)
        if "channels" not in info.meta:
            return 0  # the game's channels are being created: its messages wait for them
        batches: dict[str, list[Delivery]] = {}
        for d in items:
            batches.setdefault(route(d), []).append(d)
        for key in extra or {}:
            batches.setdefault(key, [])
        if any(k.startswith("faction:") and k not in info.meta["channels"] for k in batches):
            await self.bot.channel_manager.sync(gid)
            info = store.info(gid)
        sent = 0
        for key, batch in batches.items():
            lang = reader_lang(info.meta, key)
            views = [(d, event_view(gid, d.event, lang)) for d in batch]
            sent += await self._batch(gid, info, key, [d for d, v in views if v is None], (extra or {}).get(key, []))
            for d, view in views:
                if view is not None:
                    sent += await self._batch(gid, info, key, [d], [], view=view)
        return sent

    def render(self, gid: str, key: str, batch: list[Delivery], extra: list[str], meta: dict[str, Any]) -> list[str]:
        game = self.bot.store.game(gid)
        lang = reader_lang(meta, key)
        r = Renderer(game, lang)
        lines = list(extra)
        label = None
        for d in batch:
            here = r.label(game.clock.info(d.event.tick).label)
            if here != label:
                lines.append(text(lang, "delivery.header", phase=here))
                label = here
            lines.append(text(lang, "delivery.line", text=r.event(d.event)))
        if key.startswith("player:") and lines:
            pid = int(key.split(":", 1)[1])
            uid = game.player(pid).user_id
            if uid:
                lines.insert(0, f"<@{uid}>")
        return chunks(lines)

    async def _batch(self, gid: str, info: Any, key: str, batch: list[Delivery], extra: list[str],
                     view: discord.ui.View | None = None) -> int:
        store = self.bot.store
        keys = [d.key for d in batch]
        cid = info.meta["channels"].get(key)
        if cid is None:
            log.warning("game %s: no channel %s; %d messages dropped", gid, key, len(keys))
            if keys:
                await store.mark_delivered_many(keys)
            return 0
        parts = self.render(gid, key, batch, extra, info.meta)
        if not parts:
            return 0
        channel = self.bot.get_partial_messageable(int(cid), guild_id=info.guild_id)
        mentions = discord.AllowedMentions(everyone=False, roles=False, users=key.startswith("player:"))
        try:
            if any(d.attempts for d in batch) and await self._already_sent(channel, parts[0]):
                await store.mark_delivered_many(keys)
                return 0
            if keys:
                await store.claim_many(keys)
            base = keys[0] if keys else f"{gid}/{key}/{parts[0]}"
            for i, part in enumerate(parts):
                last = i == len(parts) - 1
                await channel.send(part, nonce=nonce(base, i), allowed_mentions=mentions, **({"view": view} if view and last else {}))
                self.sent[(gid, key)] += 1
        except (discord.NotFound, discord.Forbidden) as exc:
            log.error("game %s: cannot post in %s (%s): messages dropped", gid, key, exc)
            for k in keys:
                await store.mark_failed(k, str(exc))
            await store.mark_delivered_many(keys)
            return 0
        except discord.HTTPException as exc:
            log.warning("game %s: posting in %s failed (%s); will retry", gid, key, exc)
            for k in keys:
                await store.mark_failed(k, str(exc))
            return 0
        if keys:
            await store.mark_delivered_many(keys)
        return len(parts)

    async def _already_sent(self, channel: Any, content: str) -> bool:
        """A batch claimed before a crash may have gone out: look among the last messages."""
        me = self.bot.user.id
        async for m in channel.history(limit=20):
            if m.author.id == me and m.content == content:
                return True
        return False

    async def post(self, game_id: str, key: str, content: str, *, files: list[discord.File] | None = None,
                   mention: int | None = None, view: discord.ui.View | None = None) -> discord.Message | None:
        """A message of the bot itself (not an event): a role card, a reminder, a GM log line."""
        info = self.bot.store.info(game_id) if self.bot.store.has(game_id) else await self.bot.store.find(game_id)
        cid = info.meta.get("channels", {}).get(key) if info else None
        if cid is None:
            return None
        channel = self.bot.get_partial_messageable(int(cid), guild_id=info.guild_id)
        mentions = discord.AllowedMentions(everyone=False, roles=False, users=[discord.Object(mention)] if mention else False)
        msg = None
        parts = chunks(content.split("\n")) or [""]
        for i, part in enumerate(parts):
            extra = {"view": view} if view is not None and i == len(parts) - 1 else {}  # buttons under the last part
            msg = await channel.send(part, files=(files or []) if i == 0 else [], allowed_mentions=mentions, **extra)
            self.sent[(game_id, key)] += 1
        return msg
