"""``/gm undo``: the GM takes back the last resolve while nothing has happened since.

The store does the taking back in one transaction (:meth:`storage.Store.turns.undo_resolve`): the
game exactly as before the resolve, the resolved phase open again with the deadline it had.
In the same transaction the game's meta records the corrections still owed
(``meta.undo_notices``): one notice in every channel where that resolve's messages were posted
(a link to the first of them), the public told the phase is open again, the GM channel's log
line. :func:`settle_undo` posts them, each once (outbox keys ``undo:<resolve seq>:<channel>``),
gives the phase a fresh deadline if its own has passed meanwhile, and clears the record; a
restart before it finished does it again at start (:meth:`Scheduler.recover`).
"""

from __future__ import annotations

import logging
from typing import Any

import discord

from altmafia.text import safe
from altmafia.text.i18n import Renderer, text
from storage import UndoRefused

from .deadlines import now
from .failures import FAILED
from .services import Services

log = logging.getLogger(__name__)


def reader_lang(meta: dict[str, Any], key: str) -> str:
    """The language of a channel's readers (as :func:`altmafia.bot.delivery.reader_lang`; the
    delivery module imports the buttons, which import this one)."""
    if key.startswith("player:"):
        return meta.get("langs", {}).get(key.split(":", 1)[1]) or meta.get("lang", "ru")
    return meta.get("lang", "ru")


def phase_label(game: Any, tick: int, lang: str) -> str:
    return Renderer(game, lang).label(game.clock.info(tick).label)


async def confirm_undo(bot: Services, interaction: discord.Interaction, game_id: str, tick: int, lng: str) -> str:
    """The GM pressed «take it back» under the confirmation of ``tick`` (the phase then open):
    the answer that replaces the confirmation."""
    store = bot.store
    async with bot.scheduler.lock(game_id):
        info = store.games.info(game_id)
        if info.tick != tick:
            return text(lng, "err.undo_moved_on")
        try:
            target = await store.turns.undo_target(game_id)
        except UndoRefused as exc:
            return text(lng, exc.key)
        gm = safe.name(interaction.user.display_name)

        def record(meta: dict[str, Any], posted: list[dict[str, Any]]) -> None:
            meta["undo_notices"] = {"resolve_seq": target["seq"], "tick": target["tick"], "posted": posted, "gm": gm}
            # the phases up to the one the resolve began were announced with the living role's
            # mention: announced again (redone), they do not ping it a second time
            meta["pinged_upto"] = max(int(meta.get("pinged_upto", -1)), target["tick"] + 1)

        async with bot.deliverer.lock(game_id):  # no batch of the resolve is half-way out while it is taken back
            key = f"undo@{interaction.message.id}" if interaction.message else None
            try:
                await store.turns.undo_resolve(game_id, user_id=interaction.user.id, meta_fn=record, key=key)
            except UndoRefused as exc:
                return text(lng, exc.key)
        await settle_undo(bot, game_id)
    phase = phase_label(store.games.game(game_id), target["tick"], lng)
    return text(lng, "gm.undone", phase=phase)


async def settle_undo(bot: Services, game_id: str) -> None:
    """Post the corrections an undo owes (each once), then forget them."""
    store = bot.store
    info = store.games.info(game_id)
    rec = info.meta.get("undo_notices")
    if not rec:
        return
    game = store.games.game(game_id)
    seq = rec["resolve_seq"]
    if info.status == "running" and info.tick == rec["tick"] and info.deadline is None and not info.meta.get("paused"):
        # the phase's own deadline passed meanwhile: it gets a fresh one, as after a forced end
        await store.turns.set_deadline(game_id, bot.scheduler.next_deadline(game_id, info.tick, hurried=True))
        info = store.games.info(game_id)
    try:
        await bot.channel_manager.sync(game_id)  # who was killed by the resolve may write again
    except FAILED as exc:
        log.warning("game %s: channel permissions not restored after an undo: %s", game_id, exc)
    glang = info.meta.get("lang", "ru")
    guild = info.guild_id
    for item in rec["posted"]:
        key = item["channel"]
        lng = reader_lang(info.meta, key)
        link = f"https://discord.com/channels/{guild}/{item['channel_id']}/{item['message_id']}"
        await bot.deliverer.post(game_id, key, text(lng, "undo.notice", phase=phase_label(game, rec["tick"], lng), link=link),
                                 mention=0, once=f"undo:{seq}:{key}")
    dl = info.deadline
    phase = phase_label(game, rec["tick"], glang)
    if dl is not None:
        stamp = int(dl.timestamp())
        public = text(glang, "undo.reopened", phase=phase, deadline=f"<t:{stamp}:f> (<t:{stamp}:R>)")
    else:
        public = text(glang, "undo.reopened_paused", phase=phase)
    await bot.deliverer.post(game_id, "public", public, once=f"undo:{seq}:reopened")
    line = text(glang, "gm.log", gm=rec.get("gm") or "—", action=text(glang, "gm.act_undo", phase=phase))
    await bot.deliverer.post(game_id, "gm", line, once=f"undo:{seq}:log")
    if bot.scheduler.min_phase(game):
        await bot.scheduler.mark_phase_start(game_id, now())

    def clear(meta: dict[str, Any]) -> None:
        if (meta.get("undo_notices") or {}).get("resolve_seq") == seq:
            meta.pop("undo_notices", None)

    await store.meta.update_meta(game_id, clear)
    bot.scheduler.poke()
