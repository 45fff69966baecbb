"""The Discord bot: ``create_bot()`` builds it, ``altmafia run`` starts it.

``setup_hook`` opens the store (redoing a resolve cut short and every deadline that passed
while the bot was down, then delivering what is pending), installs the translator of the
command names, loads one cog per concern, syncs the slash commands and starts the one
scheduler loop. The engine decides everything; cogs turn commands into store commands and
this package renders and delivers what comes out.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import io
import logging
from collections.abc import Callable
from typing import Any

import discord
import yarl
from discord.ext import commands

from altmafia.text import safe
from altmafia.text.i18n import USER_ARGS, text
from altmafia.text.report import render_report, report_filename
from altmafia.text.reveal import chart_png, public_timeline, summary, timeline
from engine import Game
from engine.state import Event
from storage import GameInfo, Post, StartReport, Store
from storage.commands import replay

from . import panel, rulesets
from .buttons import DYNAMIC_ITEMS, FULL_TIMELINE, PUBLIC_TIMELINE
from .channels import ChannelManager, reconcile
from .delivery import Deliverer
from .failures import FAILED
from .interact import CatalogTranslator, refuse
from .scheduler import Scheduler
from .settings import Settings

log = logging.getLogger("altmafia")

#: the extensions the bot loads (by name: the cogs import the bot's services, never the reverse)
COGS = ("cogs.lobby", "cogs.actions", "cogs.votes", "cogs.factions", "cogs.pms", "cogs.anon", "cogs.gm", "cogs.rulesets",
        "cogs.help")


class Tree(discord.app_commands.CommandTree):
    async def on_error(self, interaction: discord.Interaction, error: Exception) -> None:
        """An unexpected failure: logged, and the user told (ephemerally) to try again."""
        log.exception("command failed", exc_info=error)
        with contextlib.suppress(*FAILED):
            await refuse(interaction, "err.internal")


class AltMafiaBot(commands.AutoShardedBot):
    def __init__(self, settings: Settings) -> None:
        # only what the bot uses: the servers and their channels (slash commands, buttons and
        # autocomplete come as interactions, which need no intent); no messages, no typing
        intents = discord.Intents.none()
        intents.guilds = True
        # sharded from the start: several processes may each run some shards on one PostgreSQL
        # database (docs/storage.md); a game belongs to the shard of its guild
        # nothing the bot sends pings anyone unless it says so: a name or a player's text that
        # reads «@everyone» or «<@&role>» stays text; delivery names the mentions it means
        # (``delivery.pings``: a seat's player on their news, the living role at a phase's start)
        super().__init__(command_prefix=commands.when_mentioned, intents=intents, help_command=None, tree_cls=Tree,
                         allowed_mentions=discord.AllowedMentions.none(),
                         shard_count=settings.shard_count,
                         # None: every shard (discord.py documents shard_ids as Optional; its typed
                         # options name only a list)
                         shard_ids=list(settings.shard_ids) if settings.shard_ids else None)  # type: ignore[arg-type]
        self.settings: Settings = settings
        self.store: Store = Store(settings.database, synchronous=settings.db_sync, clock=discord.utils.utcnow,
                                  shards=settings.shards)
        # the services, each handed the bot as the protocol of altmafia/bot/services.py
        self.deliverer: Deliverer = Deliverer(self)
        self.channel_manager: ChannelManager = ChannelManager(self.store, self.deliverer, self)
        self.scheduler: Scheduler = Scheduler(self)
        self.synced: list[discord.app_commands.AppCommand] = []
        #: `altmafia sync`: log in, sync the slash commands, stop (no database, no gateway)
        self.sync_only = False

    async def setup_hook(self) -> None:
        if self.sync_only:  # `altmafia sync`: the commands, and nothing of the games
            await self.prepare_commands()
            await self.sync_commands()
            return
        report = await self.open_store()
        log.info("store: %s", report.summary())
        for gid in report.ruleset_changed:
            log.warning("game %s: its ruleset file changed since the game began; it goes on with the new one", gid)
        rulesets.log_broken_shipped()
        await self.prepare_commands()
        await reconcile(self.store, self.http)  # channels created before a crash and never saved: adopted or deleted
        # the recovery runs while the bot serves: a command on a game waits for that game alone
        self.store.games.before_command = self.scheduler.settled
        self.scheduler.begin_recovery()
        if self.settings.syncs_commands:
            await self.sync_commands()
        self.scheduler.start()

    async def open_store(self) -> StartReport:
        """``Store.open``, the collector kept off what it reads. The rows of every kept game
        live as long as the process; while thousands were read, each full collection went over
        all read so far again (50–250 ms each, six of them in a start with 6000 games, the first
        replies waiting behind them). Read with the collector paused, they are then frozen:
        moved where no collection looks again (``gc.freeze``; refcounting still frees them),
        until the bot closes."""
        paused = gc.isenabled()
        gc.disable()
        try:
            return await self.store.open(now=discord.utils.utcnow())
        finally:
            gc.freeze()
            if paused:
                gc.enable()

    async def prepare_commands(self) -> None:
        """The cogs, their translated names, the persistent buttons."""
        await self.tree.set_translator(CatalogTranslator())
        for ext in COGS:
            await self.load_extension(ext)
        self.add_dynamic_items(*DYNAMIC_ITEMS, *panel.DYNAMIC_ITEMS)
        # every command is for a server's channels: none is offered in DMs but /help, which
        # says there that games are played in a server (its own allowed_contexts)
        self.tree.allowed_contexts = discord.app_commands.AppCommandContext(guild=True, dm_channel=False, private_channel=False)
        for cmd in self.tree.get_commands():
            if cmd.allowed_contexts is None or not cmd.allowed_contexts.dm_channel:
                cmd.guild_only = True

    async def sync_commands(self) -> None:
        """Send the slash commands to Discord (one process does it: ``ALTMAFIA_SYNC_COMMANDS``,
        or ``altmafia sync``)."""
        if self.settings.guild_id:
            guild = discord.Object(self.settings.guild_id)
            self.tree.copy_global_to(guild=guild)
            self.synced = await self.tree.sync(guild=guild)
            # the global commands of an earlier sync (without a server) would show every command
            # twice in that server: none are kept
            assert self.application_id is not None  # the sync above refuses to run without it
            await self.http.bulk_upsert_global_commands(self.application_id, [])
        else:
            self.synced = await self.tree.sync()
        log.info("synced %d slash commands", len(self.synced))

    async def close(self) -> None:
        """Stop cleanly (Ctrl-C, SIGTERM from systemd or ``docker stop``): the scheduler, the
        database, then the gateway."""
        log.info("closing: the scheduler, the database, the connection to Discord")
        gc.unfreeze()  # what the start froze (:meth:`open_store`) may be collected again
        self.scheduler.stop()
        if self.scheduler.recovery is not None:
            self.scheduler.recovery.cancel()
        try:
            if not self.sync_only:
                await self.store.close()
        finally:
            await super().close()

    async def on_ready(self) -> None:
        log.info("logged in as %s (%s) in %d servers", self.user, self.user.id if self.user else "?", len(self.guilds))

    # ---- services the cogs share --------------------------------------------------------
    async def gm_log(self, game_id: str, interaction: discord.Interaction, action: str) -> None:
        """Every GM action is written in the GM channel. A GM action that is no engine command
        stages its line keyed by the interaction (a command stages it in its own transaction:
        ``Store.games.games.apply(…, posts=[deliverer.gm_line(…)])``)."""
        line = self.deliverer.gm_line(game_id, safe.name(interaction.user.display_name), action)
        await self.store.outbox.stage_posts(game_id, f"ia:{interaction.id}", [line])
        await self.deliverer.flush(game_id)

    async def post_panels(self, game_id: str) -> None:
        """Each living seat's action panel of the current phase, once (altmafia/bot/panel.py)."""
        await panel.post_panels(self, game_id)

    async def finish(self, game_id: str) -> None:
        """The end of a game, the one path to it: :meth:`stage_end`, then one flush that
        delivers it. Whatever the game committed before and was not sent yet (the last
        resolve's news, its last events after a restart) goes out first, before the reveal.
        Called after the resolve that ends the game (``Scheduler.after_resolve``) and at start
        for a finished game not yet revealed."""
        if not self.store.games.has(game_id) or self.store.games.info(game_id).meta.get("revealed"):
            return
        if await self.store.outbox.pending_deliveries(game_id):
            await self.deliverer.flush(game_id)
        if await self.stage_end(game_id):
            await self.deliverer.flush(game_id)

    async def stage_end(self, game_id: str) -> bool:
        """Stage the end of a game, not sending it: the public channel gets the reveal (who
        was who, the factions, the winners), a chart of every player's stats over the days
        (true values, a panel each, the winners marked) and the timeline of what was public;
        the GM channel gets the full review: the HTML page (altmafia/text/report.py) and the
        timeline of every event (the GM's lines, the anonymous authors, every PM), with a
        button that publishes them (the GM's choice: :class:`altmafia.bot.buttons.PublishButton`),
        then the cleanup prompt (:meth:`offer_cleanup`).

        The three posts (keyed ``reveal``, ``reveal:report``, ``cleanup``, as
        :meth:`Deliverer.post` would key them) and the flags ``revealed`` and
        ``cleanup_offered`` are ONE transaction (``Store.meta.update_meta(posts=…, claim=True)``):
        the game never counts as revealed without its posts staged, a crash before the commit
        leaves neither (the next start stages both), and a key already staged is never staged
        again. The parts are claimed with it: the next flush sends them with no claim of its
        own and marks them with everything else it sent. False when there was nothing to stage
        (not loaded, or revealed already)."""
        store = self.store
        if not store.games.has(game_id):
            return False
        info = store.games.info(game_id)
        if info.meta.get("revealed"):
            return False
        events = await store.games.events(game_id)
        journal = await store.games.journal(game_id)
        posts, ended = await self.end_posts(game_id, store.games.game(game_id), info, events, journal)
        await store.meta.update_meta(game_id, ended, posts=posts, key="end", claim=True)
        return True

    async def end_posts(self, game_id: str, game: Game, info: GameInfo, events: list[Event],
                        journal: list[dict[str, Any]]) -> tuple[list[Post], Callable[[dict[str, Any]], None]]:
        """The end of a game (:meth:`stage_end`'s posts) rendered from the committed game, its
        info, every event and its whole journal, and the change of the meta that goes with them
        (the flags)."""
        lang = info.meta.get("lang", "ru")
        files = []
        # the chart replays the game and draws a panel per player: seconds of work, done in a
        # worker thread so that the bot keeps answering meanwhile (before the transaction: it
        # holds no lock while it draws)
        png = await asyncio.to_thread(chart_png, game, replay(game, info, journal), lang)
        if png:
            files.append(discord.File(io.BytesIO(png), filename="chart.png"))
        users = await self.member_names(info, events)  # the files name members: a mention is no name there
        files.append(discord.File(io.BytesIO(public_timeline(game, events, lang, users).encode("utf-8")), filename=PUBLIC_TIMELINE))
        channels = info.meta.get("channels", {})
        deliverer = self.deliverer
        posts = []
        if channels.get("public") is not None:
            posts.append(deliverer.outgoing(game_id, "public", summary(game, lang, events), files=files, once="reveal"))
        if channels.get("gm") is not None:
            page = render_report(game, events, lang, "gm", users).encode("utf-8")  # the full review, for the GM
            full = timeline(game, events, lang, users).encode("utf-8")
            posts.append(deliverer.outgoing(
                game_id, "gm", text(lang, "reveal.report") + "\n" + text(lang, "reveal.publish_ask"), view=f"publish:{lang}",
                files=[discord.File(io.BytesIO(page), filename=report_filename("gm")),
                       discord.File(io.BytesIO(full), filename=FULL_TIMELINE)], once="reveal:report"))
        cleanup = self._cleanup_post(game_id, info)
        if cleanup is not None:
            posts.append(cleanup)

        def ended(meta: dict[str, Any]) -> None:
            meta["revealed"] = True
            if cleanup is not None:
                meta["cleanup_offered"] = True

        return posts, ended

    async def member_names(self, info: GameInfo, events: list[Event]) -> dict[int, str]:
        """The display names of the members the game's events name by id (a substitution), as
        the guild knows them now (its cache, else one request each); one who left the guild, or
        any when Discord does not answer, is not there: the text says it in words."""
        guild = self.get_guild(info.guild_id) if info.guild_id else None
        if guild is None:
            return {}
        ids = sorted({ev.args[k] for ev in events for k in USER_ARGS if isinstance(ev.args.get(k), int)})
        out: dict[int, str] = {}
        for uid in ids:
            member = guild.get_member(uid)
            if member is None:
                try:
                    member = await guild.fetch_member(uid)
                except FAILED:
                    continue
            out[uid] = member.display_name
        return out

    def _cleanup_post(self, game_id: str, info: GameInfo) -> Post | None:
        """The cleanup prompt (archive or delete the channels) as a keyed post, or None when it
        was offered already or the game has no GM channel."""
        if info.meta.get("cleanup_offered") or info.meta.get("channels", {}).get("gm") is None:
            return None
        lang = info.meta.get("lang", "ru")
        return self.deliverer.outgoing(game_id, "gm", text(lang, "cleanup.ask"), view=f"cleanup:{lang}", once="cleanup")

    async def offer_cleanup(self, game_id: str) -> None:
        """At the end, the GM chooses to archive the channels or to delete them (staged with
        the reveal by :meth:`stage_end`; this offers it to a game that ended without it)."""
        info = self.store.games.info(game_id) if self.store.games.has(game_id) else await self.store.games.find(game_id)
        if info is None or info.meta.get("cleanup_offered"):
            return
        lang = info.meta.get("lang", "ru")
        if info.meta.get("channels", {}).get("gm") is None:
            return
        await self.deliverer.post(game_id, "gm", text(lang, "cleanup.ask"), view=f"cleanup:{lang}", once="cleanup")
        await self.store.meta.update_meta(game_id, lambda meta: meta.update(cleanup_offered=True))


def create_bot(settings: Settings | None = None) -> AltMafiaBot:
    """The bot, not started: ``bot.run(token)`` (or SimCord in the tests)."""
    settings = settings or Settings.from_env()
    if settings.api_base:  # tests only: a fake Discord on this machine
        discord.http.Route.BASE = settings.api_base
    if settings.gateway:
        discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(settings.gateway)
    return AltMafiaBot(settings)
