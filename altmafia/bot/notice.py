"""A private word for someone the GM acts on, where the bot can still reach them.

A member the GM replaces (``/gm substitute``), sends away (``/gm unspectate``) or makes a
spectator (``/gm spectate``) has, at that moment, no channel of the game that only they read:
the replaced player loses their hidden channel in the same step, a spectator never had one. The
one place the bot reaches them without an interaction of theirs is a direct message. It goes
through the outbox like every message (staged once under its ``once`` key, sent once, looked for
after a crash), in the game's language. A DM may fail (the member accepts no DMs from server
members, or left the server): then the GM channel says so once, naming the member, so that
the GM tells them another way.

Also here: the intro of the channel of the dead, posted once when the channel exists.
"""

from __future__ import annotations

import logging

from altmafia.text.i18n import text
from storage import Post, Store, part_nonce

from .failures import FAILED
from .services import Delivering, Services

log = logging.getLogger(__name__)


async def dm_channel(bot: Services, user_id: int) -> int | None:
    """The id of the bot's DM channel with a user (opened if need be), or None."""
    try:
        user = bot.get_user(user_id) or await bot.fetch_user(user_id)
        channel = user.dm_channel or await user.create_dm()
    except FAILED as exc:
        log.warning("no DM channel with %s: %s", user_id, exc)
        return None
    return channel.id


async def tell_privately(bot: Services, game_id: str, user_id: int, content: str, once: str) -> bool:
    """``content`` to the member by DM, through the outbox, once (``once``: its key within the
    game). True if it reached them; otherwise the GM channel is told (once) that it did not."""
    store = bot.store
    key = f"dm:{user_id}"
    batch = f"{game_id}/{once}>{key}"
    if not await store.outbox.parts(batch):
        cid = await dm_channel(bot, user_id)
        post = Post(key, cid, ({"content": content[:2000], "mention": 0, "nonce": part_nonce(batch, 0)},), batch=batch)
        await store.outbox.stage_posts(game_id, once, [post])
    await bot.deliverer.flush(game_id)
    parts = await store.outbox.parts(batch)
    if parts and all(p.message_id is not None for p in parts):
        return True
    if any(p.batch_id == batch for p in await store.outbox.pending_parts(game_id)):
        return True  # not refused, only not sent yet (a connection that broke): the next flush sends it
    glang = store.games.info(game_id).meta.get("lang", "ru")
    await bot.deliverer.post(game_id, "gm", text(glang, "notice.dm_failed", name=f"<@{user_id}>", text=content), mention=0,
                             once=f"{once}:failed")
    return False


async def dead_intro(store: Store, deliverer: Delivering, game_id: str) -> None:
    """The channel of the dead says what it is, once, as soon as it exists."""
    if not store.games.has(game_id):
        return
    info = store.games.info(game_id)
    if "dead" not in info.meta.get("channels", {}):
        return
    await deliverer.post(game_id, "dead", text(info.meta.get("lang", "ru"), "notice.dead_intro"), once="dead:intro")
