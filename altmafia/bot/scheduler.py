"""Phase deadlines and the one loop that keeps them.

A deadline is the end of the current period of the ruleset's calendar (``day1`` ends at
15:00, the night at 09:00…) in the game's time zone (Europe/Moscow unless the game chose
another), never sooner than ``min_phase_minutes`` from when it is set. Deadlines are stored
with the game (:meth:`storage.Store.turns.resolve` commits the next one with each resolve), so a
restart loses none: a deadline that passed while the bot was down resolves at once, and a
resolve cut short is redone (``StartReport.due``).

One loop for all games: it resolves every game whose deadline has passed (all at once: each
commits its resolve as soon as the database lets it, and once all have, the deliveries of
different games run side by side, :data:`altmafia.bot.delivery.GAMES_AT_ONCE` at a time, paced by discord.py's rate
limiter; no game waits for another's delivery), ends early the
phases the engine says wait for nobody (:meth:`engine.phase_end.PhaseEnd.may_end_early`), sends
reminders a configurable time before a deadline that ends a turn to everyone the engine says
owes an action or a vote (:meth:`engine.phase_end.PhaseEnd.owed`; a missed action costs the
ruleset's penalty), delivers anything still pending, then sleeps until the next deadline or
reminder (at most ``scheduler_seconds``).

A phase that began after an early or forced end (a resolve before its deadline), or at the
game's start, lasts at least the ruleset's ``min_next_phase_minutes``: its deadline is never
sooner, and it does not itself end early before then (``meta.phase_started`` keeps when the
current tick began). The bot asks the engine every rule question; only the clock is its own.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from datetime import UTC, datetime, timedelta
from typing import Any

from discord.ext import tasks

from altmafia.text import safe
from altmafia.text.i18n import Renderer, count, text
from engine import ActionError, Game
from storage import Command
from storage.commands import effective

from .deadlines import min_minutes, now, period_end, period_length
from .delivery import GAMES_AT_ONCE, at_once
from .failures import FAILED
from .living import announce_phase
from .lobbies import post_briefing, post_cards, settle_seats
from .notice import dead_intro
from .services import Services
from .undo import settle_undo

log = logging.getLogger(__name__)

#: how long a finished game, its end shown and delivered, stays in memory before the loop
#: releases it (the GM's last clicks — publish, archive — find it at hand; they work without too)
RELEASE_AFTER = timedelta(minutes=10)


class Commits:
    """The resolves of one deadline (:meth:`Scheduler.resolve_due`): their deliveries begin
    once every one of them has committed (or failed), so that no commit shares the process with
    the deliveries of the games before it."""

    def __init__(self, n: int) -> None:
        self.left = n
        self.all = asyncio.Event()
        if n <= 0:
            self.all.set()

    def arrive(self) -> None:
        self.left -= 1
        if self.left <= 0:
            self.all.set()


class Scheduler:
    def __init__(self, bot: Services) -> None:
        self.bot = bot
        self.locks: dict[str, asyncio.Lock] = {}
        #: the deliveries of resolves running at the same time (``after_resolve``: the channel
        #: sync, the flush, the panels): bounded, and paced by discord.py's rate limiter alone
        self.delivering = asyncio.Semaphore(GAMES_AT_ONCE)
        self.loop = tasks.loop(seconds=bot.settings.scheduler_seconds)(self._iteration)
        # discord.py types a handler as the method of a class (self, exception); the loop calls
        # this bound one with the exception alone, as it does any handler of a loop of a bound method
        self.loop.error(self._loop_error)  # type: ignore[type-var]
        self.loop.before_loop(self._before)
        #: the start's recovery (:meth:`begin_recovery`), a task of its own while the bot serves
        self.recovery: asyncio.Task[None] | None = None
        #: the games the recovery has not settled yet (:meth:`settle`: the sweep's turn, or a
        #: command's on its game first), and the settling of each begun
        self.unsettled: set[str] = set()
        self._settling: dict[str, asyncio.Future[None]] = {}
        #: the games due at the start (a resolve cut short, a deadline passed while the bot was
        #: down), resolved first by the recovery: each gate opens once its resolve committed
        self._due_gates: dict[str, asyncio.Event] = {}

    def lock(self, game_id: str) -> asyncio.Lock:
        return self.locks.setdefault(game_id, asyncio.Lock())

    # ---- deadlines ----------------------------------------------------------------------
    def next_deadline(self, game_id: str, tick: int, after: datetime | None = None, *, hurried: bool = False,
                      full: bool | None = None) -> datetime:
        """The deadline of ``tick``; ``hurried`` (the phase before it ended before its own
        deadline): never sooner than the ruleset's ``min_next_phase_minutes`` from now.
        ``full``: the phase lasts its whole length from now (:func:`period_length`) instead of
        ending at its period's end in the calendar — the GM's choice at a forced resolve
        (``meta.resolve_full``: the tick it was chosen for; None: read it there)."""
        info = self.bot.store.games.info(game_id)
        game = self.bot.store.games.game(game_id)
        tz = info.meta.get("tz") or self.bot.settings.tz
        times = info.meta.get("times")  # the game's own times (/lobby times), else the calendar's
        minutes = int(info.meta.get("min_phase_minutes", min_minutes(times, self.bot.settings.min_phase_minutes)))
        start = after or now()
        if full is None:
            full = hurried and info.meta.get("resolve_full") == tick - 1
        if full:
            at = max(start + period_length(game.rules, tick, (times or {}).get("ends")), start + timedelta(minutes=minutes))
        else:
            at = period_end(game.rules, tick, tz, start, minutes, (times or {}).get("ends"))
        least = self.min_phase(game)
        if hurried and least and at < start + least:
            at = start + least
        return at

    @staticmethod
    def min_phase(game: Game) -> timedelta:
        return timedelta(minutes=game.settings.min_next_phase_minutes)

    def phase_started(self, game_id: str) -> datetime | None:
        """When the current tick began, if the bot saw it begin (``meta.phase_started``)."""
        info = self.bot.store.games.info(game_id)
        rec = info.meta.get("phase_started") or {}
        if rec.get("tick") != info.tick:
            return None
        return datetime.fromisoformat(rec["at"])

    async def tick_began(self, game_id: str) -> datetime:
        """When the current tick began, as the journal has it: the commit of the resolve in force
        that began it, or of a GM's undo since (it reopens the phase, ``undo.settle_undo``); now
        for the first tick. What a restart takes when the mark (``meta.phase_started``) was lost
        to a crash between the resolve's commit and the mark's, so that the phase's minimum
        counts from its real start, as it would have without the crash."""
        journal = await self.bot.store.games.journal(game_id)
        stamps = [e["created_at"] for e in effective(journal) if e["kind"] == "resolve"][-1:]
        stamps += [e["created_at"] for e in journal if e["kind"] == "undo"]
        if not stamps:
            return now()
        return max(datetime.strptime(s, "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=UTC) for s in stamps)

    async def mark_phase_start(self, game_id: str, at: datetime | None = None) -> datetime:
        tick = self.bot.store.games.info(game_id).tick
        at = at or now()
        await self.bot.store.meta.update_meta(game_id, lambda meta: meta.update(phase_started={"tick": tick, "at": at.isoformat()}))
        return at

    def paused(self, game_id: str) -> bool:
        return bool(self.bot.store.games.info(game_id).meta.get("paused"))

    # ---- resolving ----------------------------------------------------------------------
    async def resolve(self, game_id: str, *, expect_tick: int | None = None, user_id: int | None = None,
                      gm_line: str | None = None, commits: Commits | None = None) -> list[Any]:
        """Resolve the current tick (and, after a riot that ended the turn early, the rest of
        that turn); deliver; finish the game when it is over. Returns the resolves done.
        ``commits``: the resolves of one deadline, whose deliveries begin once all committed."""
        done: list[Any] = []
        async with self.lock(game_id):
            try:
                done = await self._commit(game_id, expect_tick, user_id, gm_line)
            finally:
                if commits is not None:
                    commits.arrive()
                if game_id in self._due_gates:  # a game due at the start: its commands may go on
                    self._due_gates[game_id].set()
            if done:  # the commit is in; its delivery waits for a slot, never for another game's commit
                if commits is not None:
                    await commits.all.wait()
                async with self.delivering:
                    await self.after_resolve(game_id)
        return done

    async def _commit(self, game_id: str, expect_tick: int | None, user_id: int | None, gm_line: str | None) -> list[Any]:
        """The resolves of :meth:`resolve`, committed and their delivery staged (no REST call)."""
        store = self.bot.store
        done: list[Any] = []
        while store.games.has(game_id) and store.games.info(game_id).status == "running":
            tick = store.games.info(game_id).tick
            if expect_tick is not None and tick != expect_tick:
                break
            dl = store.games.info(game_id).deadline
            hurried = dl is None or now() < dl  # an early end, a forced resolve, a riot
            nxt = None if self.paused(game_id) else self.next_deadline(game_id, tick + 1, hurried=hurried)
            # the GM's log line is staged with the resolve's mark (never lost to a crash)
            posts = [self.bot.deliverer.outgoing(game_id, "gm", gm_line)] if gm_line and not done else []
            res = await store.turns.resolve(game_id, expect_tick=tick, next_deadline=nxt, user_id=user_id, posts=posts)
            if res is None:
                break
            await self.stage_delivery(game_id, res.tick)
            done.append(res)
            user_id = None  # the rest of a cut turn is the rules' doing, not the GM's
            if res.over or not store.games.game(game_id).end_now_requested():
                break
            expect_tick = tick + 1
        return done

    async def stage_delivery(self, game_id: str, tick: int) -> None:
        """Stage the delivery of the resolve of ``tick`` just committed, rendered from the game
        as committed (``Deliverer.resolve_posts``: one batch a channel, the new phase's panels
        and announcement), claimed for this process, as batches ``<game>/resolve:<tick>:d:…``.
        Deterministic keys: a crash before this commits leaves the rows pending, and the next
        flush (at start, too) stages exactly those rows. A rendering that raises stages nothing
        (logged): the flush delivers the rows the usual way."""
        store = self.bot.store
        rows = await store.outbox.pending_deliveries(game_id)  # those committed before, then the resolve's
        own = [p for p in await store.outbox.pending_parts(game_id) if p.batch_id.startswith(f"{game_id}/resolve:{tick}:")]
        try:
            posts = self.bot.deliverer.resolve_posts(game_id, store.games.game(game_id), store.games.info(game_id), rows, own)
        except Exception:  # a rendering bug must not hold up the game: its messages go the usual way
            log.exception("game %s: the delivery of the resolve of tick %d could not be staged", game_id, tick)
            return
        if posts:
            await store.outbox.stage_posts(game_id, f"resolve:{tick}:d", posts, claim=True)

    # ---- early ends -----------------------------------------------------------------------
    def waiting(self, game_id: str) -> list[int] | None:
        """Who the current phase still waits for (the engine's answer), when the ruleset lets a
        phase end early; None when it does not, the game is not running or it is paused."""
        info = self.bot.store.games.info(game_id)
        if info.status != "running" or info.meta.get("paused"):
            return None
        return self.bot.store.games.game(game_id).waiting_for()

    async def end_early(self, game_id: str) -> list[Any]:
        """Resolve the current phase now if the engine says it waits for nobody and it has lasted
        the ruleset's minimum (``min_next_phase_minutes``); until then the GM is told once."""
        store = self.bot.store
        if not store.games.has(game_id) or self.waiting(game_id) != []:
            return []
        info = store.games.info(game_id)
        game = store.games.game(game_id)
        lang = info.meta.get("lang", "ru")
        phase = Renderer(game, lang).label(game.info.label)
        least = self.min_phase(game)
        if least:
            started = self.phase_started(game_id) or await self.mark_phase_start(game_id, await self.tick_began(game_id))
            if now() < started + least:
                minutes = int(least.total_seconds() // 60)
                at = int((started + least).timestamp())
                await self.bot.deliverer.post(
                    game_id, "gm", text(lang, "gm.early_end_later", phase=phase, at=f"<t:{at}:R>",
                                        minutes=count(minutes, "minute_gen", lang)),
                    once=f"early_later:{info.tick}")
                return []
        return await self.resolve(game_id, expect_tick=info.tick, gm_line=text(lang, "gm.early_end", phase=phase))

    async def end_now(self, game_id: str, user_id: int, gm_name: str) -> None:
        """End the game today: its end day becomes the current day, then the rest of the day
        is resolved at once; the winners are who the rules say they are now."""
        store = self.bot.store
        game = store.games.game(game_id)
        lang = store.games.info(game_id).meta.get("lang", "ru")
        day = game.info.day
        if game.state.end_day != day:
            # refused when the ruleset's shortest game is longer: the remaining ticks still resolve
            with contextlib.suppress(ActionError):
                await store.games.apply(game_id, Command.gm("set_end_day", day=day, user_id=user_id))
        first = True
        for _ in range(game.clock.per_cycle * 2):
            if store.games.info(game_id).status != "running":
                break
            line = text(lang, "gm.log", gm=gm_name, action=text(lang, "gm.act_end")) if first else None
            done = await self.resolve(game_id, expect_tick=store.games.info(game_id).tick, user_id=user_id if first else None, gm_line=line)
            first = False
            if not done:
                break

    async def after_resolve(self, game_id: str, gm_line: str | None = None) -> None:
        bot = self.bot
        record = None
        try:
            # the record of the overwrites it put is committed with the delivery's marks (one
            # transaction for both); a crash before leaves the meta as it was and the next sync
            # (at the start: settle_seats) puts them again
            record = await bot.channel_manager.sync(game_id, commit=False)
        except FAILED as exc:
            log.warning("game %s: channel permissions not updated: %s", game_id, exc)
        if (bot.store.games.info(game_id).status == "running" and self.min_phase(bot.store.games.game(game_id))
                and self.phase_started(game_id) is None):  # when the new phase began
            await self.mark_phase_start(game_id)
        extra = {"gm": [gm_line]} if gm_line else None
        over = bot.store.games.info(game_id).status == "over"
        await bot.deliverer.flush(game_id, extra=extra, meta=record)
        await bot.post_panels(game_id)  # the new phase's panel in each hidden channel
        await announce_phase(bot.store, bot.deliverer, game_id)  # the living players' role, where the game has one
        await dead_intro(bot.store, bot.deliverer, game_id)  # the channel of the dead, once it exists, says what it is
        if over:
            await bot.finish(game_id)  # the game's end, after the last resolve's news
            await bot.offer_cleanup(game_id)

    # ---- the loop -------------------------------------------------------------------------
    def start(self) -> None:
        if not self.loop.is_running():
            self.loop.start()

    def poke(self) -> None:
        """Look at the clock again soon (a new game, a deadline moved)."""
        if self.loop.is_running():
            self.loop.change_interval(seconds=1)

    def stop(self) -> None:
        self.loop.cancel()

    async def _before(self) -> None:
        await self.bot.wait_until_ready()

    async def _loop_error(self, exc: BaseException) -> None:
        log.error("the scheduler loop stopped", exc_info=exc)

    # ---- the start's recovery ------------------------------------------------------------
    def begin_recovery(self) -> None:
        """At start, before the bot serves (``setup_hook``, no wait): the recovery
        (:meth:`recover`) as a task of its own, while commands are served. Every game the
        store keeps is unsettled until the recovery has seen to it; a command on one waits for
        that game alone (:meth:`settled`, which ``Store.apply`` awaits first)."""
        store = self.bot.store
        self.unsettled = {info.game_id for info in store.games.games()}
        self._due_gates = {d.game_id: asyncio.Event() for d in store.games.due(now())}
        self.recovery = asyncio.ensure_future(self.recover())
        self.recovery.add_done_callback(_log_failure)

    async def settled(self, game_id: str) -> None:
        """Wait until the start's recovery has settled ``game_id``: a game due at the start
        until its resolve committed; any other until its loose ends are tied, settled now, before
        the games the sweep would reach first. At once for a settled game (every game after the
        recovery, every game of a bot that never recovered)."""
        gate = self._due_gates.get(game_id)
        if gate is not None and not gate.is_set():
            await gate.wait()
        elif game_id in self.unsettled:
            await self.settle(game_id)

    async def settle(self, game_id: str) -> None:
        """One game's part of the recovery, once (the sweep and a command share it): what a
        start, a substitution or an undo left half-done, the end of a finished game not shown,
        the current phase's panels. Never raises: a failure is logged and the game counts as
        settled (its commands go on; the loop's next iterations deliver what is left)."""
        if game_id not in self.unsettled:
            return
        task = self._settling.get(game_id)
        if task is None:
            task = self._settling[game_id] = asyncio.ensure_future(self._settle(game_id))
        await asyncio.wait([task])

    async def _settle(self, game_id: str) -> None:
        store = self.bot.store
        try:
            await self._loose_ends(game_id)
            if store.games.has(game_id):
                info = store.games.info(game_id)
                if info.status == "over" and not info.meta.get("revealed"):
                    try:  # the last resolve's channel sync, which a crash may have cut short
                        await self.bot.channel_manager.sync(game_id)
                    except FAILED as exc:
                        log.warning("game %s: channel permissions not updated at its end: %s", game_id, exc)
                    await self.bot.finish(game_id)
                elif info.status == "running" and info.meta.get("cards"):
                    await self.bot.deliverer.flush(game_id)
                    await self.bot.post_panels(game_id)  # a phase's panels cut short (each posted once)
        except Exception:
            log.exception("game %s: its recovery at start failed; it goes on as it is", game_id)
        finally:
            self.unsettled.discard(game_id)
            self._settling.pop(game_id, None)

    async def _loose_ends(self, game_id: str) -> None:
        """What a start, a substitution or an undo of ``game_id`` left half-done, tied."""
        store = self.bot.store
        if not store.games.has(game_id):
            return
        info = store.games.info(game_id)
        if info.status == "running" and "channels" in info.meta and not info.meta.get("cards"):
            await post_cards(self.bot, game_id)  # a start cut short before the role cards
        info = store.games.info(game_id)
        if info.status == "running" and info.meta.get("cards") and not info.meta.get("briefed") and info.tick == 0:
            await post_briefing(self.bot, game_id)  # … or before the GM's briefing
        if store.games.info(game_id).status == "running" and "channels" in store.games.info(game_id).meta:
            await settle_seats(self.bot, game_id)  # a substitution cut short
            await settle_undo(self.bot, game_id)  # an undo's corrections cut short

    async def recover(self) -> None:
        """The start's recovery, while the bot serves (:meth:`begin_recovery`). First the games
        due at the start, in the order of their deadlines (a resolve cut short first): each
        one's loose ends, then all their resolves at once, committed in that order; then every
        other game, one after another (a command's game first: :meth:`settle`); then whatever
        is still pending is delivered."""
        store = self.bot.store
        due = sorted((d for d in store.games.due(now()) if d.game_id in self._due_gates), key=_due_order)
        try:
            redo: list[tuple[Any, str | None]] = []
            for due_one in due:
                try:
                    await self._loose_ends(due_one.game_id)
                except Exception:
                    log.exception("game %s: its loose ends at start failed; its resolve goes on", due_one.game_id)
                log.info("game %s: %s resolve of tick %d at start", due_one.game_id, due_one.reason, due_one.tick)
                redo.append((due_one, self._forced_line(due_one)))
            await self.resolve_due([d for d, _ in redo], [line for _, line in redo])
        finally:
            for gate in self._due_gates.values():
                gate.set()
            self.unsettled.difference_update(self._due_gates)
        for info in list(store.games.games()):
            await self.settle(info.game_id)
        self.unsettled.clear()
        await self.bot.deliverer.flush()

    def _forced_line(self, due: Any) -> str | None:
        """The GM's log line of a forced resolve cut short (redone as forced, with it); None else."""
        if due.user_id is None:
            return None
        store = self.bot.store
        info = store.games.info(due.game_id)
        glang = info.meta.get("lang", "ru")
        guild = self.bot.get_guild(info.guild_id) if info.guild_id else None
        member = guild.get_member(due.user_id) if guild else None
        name = safe.name(member.display_name) if member else f"<@{due.user_id}>"
        game = store.games.game(due.game_id)
        return text(glang, "gm.log", gm=name, action=text(glang, "gm.act_resolve", phase=Renderer(game, glang).label(game.info.label)))

    async def _iteration(self) -> None:
        try:
            await self.tick()
        except Exception:  # one bad game or a Discord outage must not stop the clock of all
            log.exception("scheduler iteration failed; trying again at the next one")
        self.loop.change_interval(seconds=self.sleep_for())

    async def resolve_due(self, due: list[Any], lines: list[str | None] | None = None) -> None:
        """Resolve every game due, all at once: each commits as soon as the database lets it
        (in the order of their deadlines), then delivers when a delivery slot is free
        (:attr:`delivering`), so no game's commit waits for another game's delivery. A game
        that fails is logged; the others go on. ``lines``: the GM's log line of each (a forced
        resolve cut short, redone at start, with the GM who forced it)."""
        lines = lines or [None] * len(due)
        commits = Commits(len(due))
        tasks = [self.resolve(d.game_id, expect_tick=d.tick, user_id=d.user_id, gm_line=line, commits=commits)
                 for d, line in zip(due, lines, strict=True)]
        for d, result in zip(due, await asyncio.gather(*tasks, return_exceptions=True), strict=True):
            if isinstance(result, BaseException):
                if not isinstance(result, Exception):
                    raise result
                log.error("game %s: the resolve of tick %d failed", d.game_id, d.tick, exc_info=result)

    async def tick(self) -> None:
        store = self.bot.store
        # a game due at the start is the recovery's to resolve (with a forced resolve's GM line);
        # a game due since that the recovery has not settled yet is settled first
        due = [d for d in store.games.due(now()) if not self.paused(d.game_id)
               and not (d.game_id in self._due_gates and not self._due_gates[d.game_id].is_set())]
        await asyncio.gather(*(self.settle(d.game_id) for d in due if d.game_id in self.unsettled))
        await self.resolve_due(due)
        for info in list(store.games.games()):
            if info.status != "running" or info.game_id in self.unsettled:
                continue
            if self.min_phase(store.games.game(info.game_id)) and self.phase_started(info.game_id) is None:
                # the game's start, or a restart that lost the mark: the tick's start as committed
                await self.mark_phase_start(info.game_id, await self.tick_began(info.game_id))
            await self.end_early(info.game_id)
        # the reminders of different games go out side by side, as their deliveries do (each
        # game's in order, under its own lock): one game after another, the reminders of hundreds
        # of games due together would take minutes of round trips
        running = [i.game_id for i in store.games.games() if i.status == "running"]
        for gid, result in zip(running, await at_once(running, self._remind_logged, GAMES_AT_ONCE), strict=True):
            if isinstance(result, BaseException):
                if not isinstance(result, Exception):
                    raise result
                log.error("game %s: reminders failed", gid, exc_info=result)
        await self.bot.deliverer.flush()
        # finished games leave memory once their end is shown and delivered (the database keeps them)
        for gid in await store.games.release_finished(older_than=RELEASE_AFTER):
            self.locks.pop(gid, None)
            self.bot.deliverer.locks.pop(gid, None)
            log.info("game %s: finished and delivered; released from memory", gid)

    def sleep_for(self) -> float:
        """Seconds until the next deadline or reminder, within [1, scheduler_seconds]."""
        cap = float(self.bot.settings.scheduler_seconds)
        t = now()
        lead = timedelta(minutes=self.bot.settings.remind_minutes)
        best = cap
        for info in self.bot.store.games.games():
            dl = info.deadline
            if info.status != "running" or dl is None:
                continue
            wake = [dl, dl - lead]
            started = self.phase_started(info.game_id)
            if started is not None:  # the end of a phase's minimum: it may end early then
                wake.append(started + self.min_phase(self.bot.store.games.game(info.game_id)))
            for at in wake:
                secs = (at - t).total_seconds()
                if secs > 0:
                    best = min(best, secs + 0.5)
        return max(1.0, best)

    # ---- reminders ----------------------------------------------------------------------------
    @staticmethod
    def missing(game: Game) -> tuple[list[int], list[int]]:
        """Who owes this turn's action; who owes a vote (the engine's answer, :meth:`Game.owed`)."""
        owed = game.owed()
        return [o.pid for o in owed if o.action], [o.pid for o in owed if o.votes]

    async def _remind_logged(self, game_id: str) -> None:
        try:
            await self.remind(game_id)
        except FAILED as exc:
            log.warning("game %s: reminders failed: %s", game_id, exc)

    async def remind(self, game_id: str) -> None:
        store = self.bot.store
        info = store.games.info(game_id)
        lead = self.bot.settings.remind_minutes
        dl = info.deadline
        if not lead or dl is None or info.meta.get("paused") or info.meta.get("reminded") == info.tick:
            return
        if now() < dl - timedelta(minutes=lead):
            return
        game = store.games.game(game_id)
        if not game.clock.is_turn_end(game.state.tick):
            return  # the turn goes on in the next period: nothing is lost yet
        acted, voted = self.missing(game)
        stamp = int(dl.timestamp())
        for pid in sorted(set(acted) | set(voted)):
            lang = info.meta.get("langs", {}).get(str(pid)) or info.meta.get("lang", "ru")
            lines = []
            if pid in acted:
                r = Renderer(game, lang)
                penalty = ", ".join(f"{r.stat(k)} {v:+d}" for k, v in game.rules.inactivity.stats.items())
                if penalty:
                    lines.append(text(lang, "remind.action", deadline=f"<t:{stamp}:R>", penalty=penalty))
                else:  # no penalty in the ruleset (stats mafia): the phase waits, nothing is lost
                    lines.append(text(lang, "remind.action_free", deadline=f"<t:{stamp}:R>"))
            if pid in voted:
                lines.append(text(lang, "remind.vote", deadline=f"<t:{stamp}:R>"))
            uid = game.player(pid).user_id
            await self.bot.deliverer.post(game_id, f"player:{pid}", (f"<@{uid}> " if uid else "") + "\n".join(lines), mention=uid,
                                          once=f"remind:{info.tick}:{pid}")
        await store.meta.update_meta(game_id, lambda meta: meta.update(reminded=info.tick))


def _due_order(due: Any) -> tuple[int, datetime, str]:
    """Games due at the start in the order they were due: a resolve cut short first (it had
    begun), then by deadline."""
    at = due.deadline or datetime.min.replace(tzinfo=UTC)
    return (0 if due.reason == "interrupted" else 1, at, due.game_id)


def _log_failure(task: asyncio.Future[None]) -> None:
    if not task.cancelled() and task.exception() is not None:
        log.error("the recovery at start failed", exc_info=task.exception())
