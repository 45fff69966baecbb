"""Buttons alive across restarts (their custom id says what they do): the GM's confirmations
(``am:<action>:<game id>:<tick>``), a player's choice of a hidden bonus (``amb:…``), the GM's
refusal of a queued anonymous post (``amr:…``), the GM's publication of the full review at the
end (``amp:…``)."""

from __future__ import annotations

import contextlib
import re
from typing import Any

import discord

from altmafia.text import safe
from altmafia.text.i18n import Renderer, text
from altmafia.text.report import report_filename
from engine import ActionError
from storage import Command

from .failures import FAILED
from .interact import is_gm, lang, refuse, refuse_engine
from .services import Services, services
from .spectators import SpectatorButton
from .undo import confirm_undo


class GameButton(discord.ui.DynamicItem[discord.ui.Button], template=r"am:(?P<action>[a-z]+):(?P<game>[0-9a-zA-Z_-]+):(?P<tick>-?\d+)"):
    def __init__(self, action: str, game_id: str, tick: int, label: str = "OK",
                 style: discord.ButtonStyle = discord.ButtonStyle.secondary) -> None:
        self.action, self.game_id, self.tick = action, game_id, tick
        super().__init__(discord.ui.Button(label=label[:80], style=style, custom_id=f"am:{action}:{game_id}:{tick}"))

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction, item: discord.ui.Item[Any],
                             match: re.Match[str]) -> GameButton:
        assert isinstance(item, discord.ui.Button)  # discord.py hands the component the id is on: a button
        return cls(match["action"], match["game"], int(match["tick"]), item.label or "OK", item.style)

    async def callback(self, interaction: discord.Interaction) -> None:
        bot = services(interaction)
        info = await gm_info(bot, interaction, self.game_id)
        if info is None:
            return
        lng = lang(interaction)
        if self.action == "cancel":
            await interaction.response.edit_message(content=text(lng, "gm.cancelled"), view=None)
            return
        await interaction.response.defer()
        result = await getattr(self, f"_{self.action}")(bot, interaction, info, lng)
        if result is None:  # the button's message went with its channel: nothing left to edit
            return
        with contextlib.suppress(discord.NotFound):  # the message may have gone with its channel
            await interaction.edit_original_response(content=result, view=None)

    async def _resolvefull(self, bot: Services, interaction: discord.Interaction, info: Any, lng: str) -> str:
        return await self._resolve(bot, interaction, info, lng, full=True)

    async def _resolve(self, bot: Services, interaction: discord.Interaction, info: Any, lng: str, *, full: bool = False) -> str:
        """The GM's forced resolve; ``full``: the next phase lasts its whole length from now
        (recorded in the meta first, so a resolve cut short by a crash is redone the same way)."""
        if info.status != "running" or info.tick != self.tick:
            return text(lng, "gm.resolve_stale")
        tick = self.tick

        def choose(m: dict[str, Any]) -> None:
            if full:
                m["resolve_full"] = tick
            else:
                m.pop("resolve_full", None)

        await bot.store.meta.update_meta(self.game_id, choose)
        game = bot.store.games.game(self.game_id)
        glang = info.meta.get("lang", "ru")
        label = Renderer(game, glang).label(game.info.label)
        line = text(glang, "gm.log", gm=safe.name(interaction.user.display_name), action=text(glang, "gm.act_resolve", phase=label))
        done = await bot.scheduler.resolve(self.game_id, expect_tick=self.tick, user_id=interaction.user.id, gm_line=line)
        if not done:
            return text(lng, "gm.resolve_stale")
        result = text(lng, "gm.resolved", count=len(done))
        now_info = bot.store.games.info(self.game_id)
        if now_info.status == "running" and now_info.deadline is not None:
            game = bot.store.games.game(self.game_id)
            at = int(now_info.deadline.timestamp())
            result += "\n" + text(lng, "gm.resolved_deadline", phase=Renderer(game, lng).label(game.info.label),
                                   deadline=f"<t:{at}:f> (<t:{at}:R>)")
        return result

    async def _undo(self, bot: Services, interaction: discord.Interaction, info: Any, lng: str) -> str:
        if info.status != "running":
            return text(lng, "err.undo_over")
        return await confirm_undo(bot, interaction, self.game_id, self.tick, lng)

    async def _end(self, bot: Services, interaction: discord.Interaction, info: Any, lng: str) -> str:
        if info.status != "running":
            return text(lng, "gm.already_over")
        await bot.scheduler.end_now(self.game_id, interaction.user.id, safe.name(interaction.user.display_name))
        return text(lng, "gm.ended")

    async def _archive(self, bot: Services, interaction: discord.Interaction, info: Any, lng: str) -> str:
        await bot.store.meta.update_meta(self.game_id, lambda m: m.update(archived=True))
        n = await bot.channel_manager.archive(await _info(bot, self.game_id))
        done = text(lng, "cleanup.archived", n=n)
        return done if info.meta.get("review_published") else done + "\n" + text(lng, "cleanup.archived_unpublished")

    async def _delete(self, bot: Services, interaction: discord.Interaction, info: Any, lng: str) -> str | None:
        """The game's channels deleted; None when the button was pressed in one of them (its
        message is gone with it, and Discord would refuse an edit of it: 404 Unknown Message)."""
        pressed_here = interaction.channel_id in {cid for _key, cid in bot.channel_manager.all_ids(info.meta)}
        n = await bot.channel_manager.delete(info)
        return None if pressed_here else text(lng, "cleanup.deleted", n=n)


async def _info(bot: Services, game_id: str) -> Any:
    store = bot.store
    return store.games.info(game_id) if store.games.has(game_id) else await store.games.find(game_id)


async def gm_info(bot: Services, interaction: discord.Interaction, game_id: str, *, loaded: bool = False) -> Any:
    """The game of a GM's button, or None after refusing: no such game (``loaded``: not in
    memory either), or the one who pressed it is not its GM."""
    info = await _info(bot, game_id)
    if info is None or (loaded and not bot.store.games.has(game_id)):
        await refuse(interaction, "err.no_game")
        return None
    if not is_gm(bot, interaction, info.gm_user_ids, info.players):
        await refuse(interaction, "err.not_gm")
        return None
    return info


class BonusButton(discord.ui.DynamicItem[discord.ui.Button], template=r"amb:(?P<game>[0-9a-zA-Z_-]+):(?P<pid>\d+):(?P<stat>[a-z_]+)"):
    """A player's choice of the stat of a hidden bonus (Стратег), under their role card:
    ``amb:<game id>:<seat>:<stat id>``. Only that player may press it; the engine says whether
    the choice is still open and answers in their hidden channel."""

    def __init__(self, game_id: str, pid: int, stat: str, label: str = "OK") -> None:
        self.game_id, self.pid, self.stat = game_id, pid, stat
        super().__init__(discord.ui.Button(label=label[:80], style=discord.ButtonStyle.primary, custom_id=f"amb:{game_id}:{pid}:{stat}"))

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction, item: discord.ui.Item[Any],
                             match: re.Match[str]) -> BonusButton:
        assert isinstance(item, discord.ui.Button)  # discord.py hands the component the id is on: a button
        return cls(match["game"], int(match["pid"]), match["stat"], item.label or "OK")

    async def callback(self, interaction: discord.Interaction) -> None:
        bot = services(interaction)
        info = await _info(bot, self.game_id)
        if info is None or not bot.store.games.has(self.game_id):
            await refuse(interaction, "err.no_game")
            return
        game = bot.store.games.game(self.game_id)
        if not 0 <= self.pid < len(game.state.players) or game.player(self.pid).user_id != interaction.user.id:
            await refuse(interaction, "err.not_your_button")
            return
        await interaction.response.defer()  # the answer is the news in the player's hidden channel
        try:
            await bot.store.games.apply(self.game_id, Command.choose_bonus(self.pid, self.stat, user_id=interaction.user.id,
                                                                    request_id=str(interaction.id)))
        except ActionError as err:
            await refuse_engine(interaction, game, err)
            return
        await bot.deliverer.flush(self.game_id)


class AnonRefuseButton(discord.ui.DynamicItem[discord.ui.Button], template=r"amr:(?P<game>[0-9a-zA-Z_-]+):(?P<seq>\d+)"):
    """The GM's refusal of a queued anonymous post, under the post in the GM channel:
    ``amr:<game id>:<post seq>``. GMs only; refused by the engine once the post is published."""

    def __init__(self, game_id: str, seq: int, label: str = "OK") -> None:
        self.game_id, self.seq = game_id, seq
        super().__init__(discord.ui.Button(label=label[:80], style=discord.ButtonStyle.danger, custom_id=f"amr:{game_id}:{seq}"))

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction, item: discord.ui.Item[Any],
                             match: re.Match[str]) -> AnonRefuseButton:
        assert isinstance(item, discord.ui.Button)  # discord.py hands the component the id is on: a button
        return cls(match["game"], int(match["seq"]), item.label or "OK")

    async def callback(self, interaction: discord.Interaction) -> None:
        bot = services(interaction)
        info = await gm_info(bot, interaction, self.game_id, loaded=True)
        if info is None:
            return
        game = bot.store.games.game(self.game_id)
        await interaction.response.defer()
        try:
            glang = info.meta.get("lang", "ru")
            # the GM's log line is staged in the command's own transaction
            applied = await bot.store.games.apply(self.game_id, Command.gm("refuse_anon", seq=self.seq, user_id=interaction.user.id,
                                                                     request_id=str(interaction.id)),
                                            posts=lambda g, res: [bot.deliverer.gm_line(self.game_id, safe.name(interaction.user.display_name), text(
                                                glang, "gm.act_refuse_anon", player=Renderer(g, glang).player((res or {}).get("pid"))))])
        except ActionError as err:
            await refuse_engine(interaction, game, err)
            with contextlib.suppress(*FAILED):  # a stale button: the post is out of the queue
                await interaction.edit_original_response(view=None)
            return
        del applied
        await bot.deliverer.flush(self.game_id)
        content = (interaction.message.content if interaction.message else "") + "\n" + text(glang, "anon.refused_mark",
                                                                                              gm=safe.name(interaction.user.display_name))
        with contextlib.suppress(*FAILED):
            await interaction.edit_original_response(content=content[:2000], view=None)


#: the end-of-game files: the public's timeline, the GM's full one
PUBLIC_TIMELINE, FULL_TIMELINE = "timeline.txt", "timeline-full.txt"
_publishing: set[str] = set()  # games whose full review is being published now (a second click waits for nothing)


class PublishButton(discord.ui.DynamicItem[discord.ui.Button], template=r"amp:(?P<game>[0-9a-zA-Z_-]+)"):
    """«Publish the full review», under the review in the GM channel at a game's end
    (``amp:<game id>``): the GM's choice to show the public what only the GM saw (the full
    timeline and report: the GM's lines, the anonymous authors, every PM). GMs only; once: the
    game's meta records it (``review_published``) before the files go out, so a second click,
    by the same GM or another, even after a restart, is told it is done."""

    def __init__(self, game_id: str, label: str = "OK") -> None:
        self.game_id = game_id
        super().__init__(discord.ui.Button(label=label[:80], style=discord.ButtonStyle.primary, custom_id=f"amp:{game_id}"))

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction, item: discord.ui.Item[Any],
                             match: re.Match[str]) -> PublishButton:
        assert isinstance(item, discord.ui.Button)  # discord.py hands the component the id is on: a button
        return cls(match["game"], item.label or "OK")

    async def callback(self, interaction: discord.Interaction) -> None:
        bot = services(interaction)
        info = await gm_info(bot, interaction, self.game_id)
        if info is None:
            return
        if info.meta.get("review_published") or self.game_id in _publishing:
            await refuse(interaction, "err.already_published")
            return
        _publishing.add(self.game_id)
        try:
            await interaction.response.defer(ephemeral=True, thinking=True)
            message = interaction.message
            files = [await a.to_file() for a in (message.attachments if message else [])
                     if a.filename in (FULL_TIMELINE, report_filename("gm"))]
            uid = interaction.user.id

            def mark(m: dict[str, Any]) -> None:
                m["review_published"] = uid

            await bot.store.meta.update_meta(self.game_id, mark)
            glang = info.meta.get("lang", "ru")
            # staged once (the key "publish"): a second press, or a retry, never posts it twice
            await bot.deliverer.post(self.game_id, "public", text(glang, "reveal.published", gm=safe.name(interaction.user.display_name)),
                                     files=files, once="publish")
            # delivered: every part has its Discord message (a part to a deleted channel is dropped)
            parts = await bot.store.outbox.parts(f"{self.game_id}/publish>public")
            if not parts or any(q.message_id is None for q in parts):
                # the public channel is gone or refused it: not published; the GM may try again
                def unmark(m: dict[str, Any]) -> None:
                    m.pop("review_published", None)

                await bot.store.meta.update_meta(self.game_id, unmark)
                await refuse(interaction, "err.publish_failed")
                return
        finally:
            _publishing.discard(self.game_id)
        now_info = await _info(bot, self.game_id)
        if now_info is not None and now_info.meta.get("archived"):  # archived before: now every channel opens to all
            with contextlib.suppress(*FAILED):
                await bot.channel_manager.archive(now_info)
        glang = info.meta.get("lang", "ru")
        content = (message.content if message else "") + "\n" + text(glang, "reveal.published_mark", gm=safe.name(interaction.user.display_name))
        if message is not None:
            with contextlib.suppress(*FAILED):
                await message.edit(content=content[:2000], view=None)
        await interaction.followup.send(text(lang(interaction), "reveal.published_done"), ephemeral=True)


def bonus_view(game_id: str, game: Any, pid: int, lang: str) -> discord.ui.View | None:
    """The buttons of a hidden bonus's choice under a player's role card, if they have one."""
    choice = game.bonus_choice(game.player(pid))
    if choice is None or not choice["open"]:
        return None
    r = Renderer(game, lang)
    view = discord.ui.View(timeout=None)
    for sid in choice["choices"]:
        view.add_item(BonusButton(game_id, pid, sid, text(lang, "btn.bonus", amount=choice["amount"], stat=r.stat(sid))))
    return view


def event_view(game_id: str, ev: Any, lang: str) -> discord.ui.View | None:
    """The buttons an event is delivered with (as its own message), or None."""
    if ev.key == "gm.anon_queued":
        view = discord.ui.View(timeout=None)
        view.add_item(AnonRefuseButton(game_id, int(ev.args["seq"]), text(lang, "btn.refuse_anon")))
        return view
    return None


DYNAMIC_ITEMS = (GameButton, BonusButton, AnonRefuseButton, PublishButton, SpectatorButton)
