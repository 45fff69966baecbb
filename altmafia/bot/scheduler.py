"""Phase deadlines and the one loop that keeps them.

A deadline is the end of the current period of the ruleset's calendar (``day1`` ends at
15:00, the night at 09:00…) in the game's time zone (Europe/Moscow unless the game chose
another), never sooner than ``min_phase_minutes`` from when it is set. Deadlines are stored
with the game (:meth:`storage.Store.resolve` commits the next one with each resolve), so a
restart loses none: a deadline that passed while the bot was down resolves at once, and a
resolve cut short is redone (``StartReport.due``).

One loop for all games: it resolves every game whose deadline has passed, sends reminders a
configurable time before a deadline that ends a turn to the living players who have not used
it (a missed action costs them the ruleset's penalty) or not voted, delivers anything still
pending, then sleeps until the next deadline or reminder (at most ``scheduler_seconds``).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from datetime import datetime, timedelta
from typing import Any

import discord
from discord.ext import tasks

from altmafia.text.i18n import Renderer, text
from engine import ActionError, Game
from engine.registry import EARLY_ENDS
from storage import Command

from .deadlines import now, period_end
from .lobbies import post_cards, settle_seats

log = logging.getLogger(__name__)


class Scheduler:
    def __init__(self, bot: Any) -> None:
        self.bot = bot
        self.locks: dict[str, asyncio.Lock] = {}
        self.loop = tasks.loop(seconds=bot.settings.scheduler_seconds)(self._iteration)
        self.loop.error(self._loop_error)
        self.loop.before_loop(self._before)

    def lock(self, game_id: str) -> asyncio.Lock:
        return self.locks.setdefault(game_id, asyncio.Lock())

    # ---- deadlines ----------------------------------------------------------------------
    def next_deadline(self, game_id: str, tick: int, after: datetime | None = None) -> datetime:
        info = self.bot.store.info(game_id)
        game = self.bot.store.game(game_id)
        tz = info.meta.get("tz") or self.bot.settings.tz
        minutes = int(info.meta.get("min_phase_minutes", self.bot.settings.min_phase_minutes))
        return period_end(game.rules, tick, tz, after or now(), minutes)

    def paused(self, game_id: str) -> bool:
        return bool(self.bot.store.info(game_id).meta.get("paused"))

    # ---- resolving ----------------------------------------------------------------------
    async def resolve(self, game_id: str, *, expect_tick: int | None = None, user_id: int | None = None,
                      gm_line: str | None = None) -> list[Any]:
        """Resolve the current tick (and, after a riot that ended the turn early, the rest of
        that turn); deliver; finish the game when it is over. Returns the resolves done."""
        store = self.bot.store
        done = []
        async with self.lock(game_id):
            while store.has(game_id) and store.info(game_id).status == "running":
                tick = store.info(game_id).tick
                if expect_tick is not None and tick != expect_tick:
                    break
                nxt = None if self.paused(game_id) else self.next_deadline(game_id, tick + 1)
                # the GM's log line is staged in the resolve's own transaction (never lost to a crash)
                posts = [self.bot.deliverer.outgoing(game_id, "gm", gm_line)] if gm_line and not done else []
                res = await store.resolve(game_id, expect_tick=tick, next_deadline=nxt, user_id=user_id, posts=posts)
                if res is None:
                    break
                done.append(res)
                user_id = None  # the rest of a cut turn is the rules' doing, not the GM's
                if res.over or not store.game(game_id).end_now_requested():
                    break
                expect_tick = tick + 1
            if done:
                await self.after_resolve(game_id)
        return done

    # ---- early ends -----------------------------------------------------------------------
    def waiting(self, game_id: str) -> list[int] | None:
        """Who the current phase still waits for, when the ruleset lets a phase end early
        (``settings.early_end``: the name of the engine's ``EARLY_ENDS`` entry that says so);
        None when it does not. ``meta.declared`` holds, per tick, who told the GM they do nothing."""
        info = self.bot.store.info(game_id)
        game = self.bot.store.game(game_id)
        module = game.rules.settings.get("early_end")
        if not module or info.status != "running" or info.meta.get("paused"):
            return None
        waiting_for = EARLY_ENDS[module]
        declared = {int(pid) for pid in info.meta.get("declared", {}).get(str(info.tick), [])}
        return list(waiting_for(game, declared))

    async def end_early(self, game_id: str) -> list[Any]:
        """Resolve the current phase now if the ruleset allows early ends and nobody is waited for."""
        store = self.bot.store
        if not store.has(game_id) or self.waiting(game_id) != []:
            return []
        info = store.info(game_id)
        lang = info.meta.get("lang", "ru")
        phase = Renderer(store.game(game_id), lang).label(store.game(game_id).info.label)
        return await self.resolve(game_id, expect_tick=info.tick, gm_line=text(lang, "gm.early_end", phase=phase))

    async def end_now(self, game_id: str, user_id: int, gm_name: str) -> None:
        """End the game today: its end day becomes the current day, then the rest of the day
        is resolved at once; the winners are who the rules say they are now."""
        store = self.bot.store
        game = store.game(game_id)
        lang = store.info(game_id).meta.get("lang", "ru")
        day = game.info.day
        if game.state.end_day != day:
            # refused when the ruleset's shortest game is longer: the remaining ticks still resolve
            with contextlib.suppress(ActionError):
                await store.apply(game_id, Command.gm("set_end_day", day=day, user_id=user_id))
        first = True
        for _ in range(game.clock.per_cycle * 2):
            if store.info(game_id).status != "running":
                break
            line = text(lang, "gm.log", gm=gm_name, action=text(lang, "gm.act_end")) if first else None
            done = await self.resolve(game_id, expect_tick=store.info(game_id).tick, user_id=user_id if first else None, gm_line=line)
            first = False
            if not done:
                break

    async def after_resolve(self, game_id: str, gm_line: str | None = None) -> None:
        bot = self.bot
        try:
            await bot.channel_manager.sync(game_id)
        except discord.HTTPException as exc:
            log.warning("game %s: channel permissions not updated: %s", game_id, exc)
        extra = {"gm": [gm_line]} if gm_line else None
        await bot.deliverer.flush(game_id, extra=extra)
        if bot.store.info(game_id).status == "over":
            await bot.finish(game_id)
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

    async def recover(self) -> None:
        """At start: redo cut resolves and overdue deadlines, then deliver what is pending."""
        store = self.bot.store
        for info in store.games():
            if info.status == "running" and "channels" in info.meta and not info.meta.get("cards"):
                await post_cards(self.bot, info.game_id)  # a start cut short before the role cards
        for info in store.games():
            if info.status == "running" and "channels" in info.meta:
                await settle_seats(self.bot, info.game_id)  # a substitution cut short
        for due in store.due(now()):
            log.info("game %s: %s resolve of tick %d at start", due.game_id, due.reason, due.tick)
            line = None
            if due.user_id is not None:  # a GM's forced resolve cut short: redone as forced, with its log line
                info = store.info(due.game_id)
                glang = info.meta.get("lang", "ru")
                guild = self.bot.get_guild(info.guild_id) if info.guild_id else None
                member = guild.get_member(due.user_id) if guild else None
                name = member.display_name if member else f"<@{due.user_id}>"
                game = store.game(due.game_id)
                line = text(glang, "gm.log", gm=name, action=text(glang, "gm.act_resolve", phase=Renderer(game, glang).label(game.info.label)))
            await self.resolve(due.game_id, expect_tick=due.tick, user_id=due.user_id, gm_line=line)
        for info in store.games():
            if info.status == "over" and not info.meta.get("revealed"):
                await self.bot.finish(info.game_id)
        await self.bot.deliverer.flush()

    async def _iteration(self) -> None:
        try:
            await self.tick()
        except Exception:  # one bad game or a Discord outage must not stop the clock of all
            log.exception("scheduler iteration failed; trying again at the next one")
        self.loop.change_interval(seconds=self.sleep_for())

    async def tick(self) -> None:
        store = self.bot.store
        for due in store.due(now()):
            if not self.paused(due.game_id):
                await self.resolve(due.game_id, expect_tick=due.tick)
        for info in list(store.games()):
            if info.status == "running":
                await self.end_early(info.game_id)
        for info in list(store.games()):
            if info.status == "running":
                try:
                    await self.remind(info.game_id)
                except discord.HTTPException as exc:
                    log.warning("game %s: reminders failed: %s", info.game_id, exc)
        await self.bot.deliverer.flush()

    def sleep_for(self) -> float:
        """Seconds until the next deadline or reminder, within [1, scheduler_seconds]."""
        cap = float(self.bot.settings.scheduler_seconds)
        t = now()
        lead = timedelta(minutes=self.bot.settings.remind_minutes)
        best = cap
        for info in self.bot.store.games():
            dl = info.deadline
            if info.status != "running" or dl is None:
                continue
            for at in (dl, dl - lead):
                secs = (at - t).total_seconds()
                if secs > 0:
                    best = min(best, secs + 0.5)
        return max(1.0, best)

    # ---- reminders ----------------------------------------------------------------------------
    def missing(self, game: Game) -> tuple[list[int], list[int]]:
        """Living players who may still use this turn's action and have not; who may vote in an
        open vote and have not."""
        turn = game.info.turn
        acted, voted = [], []
        votes = game.open_votes()
        for p in game.living():
            spent = "action" in p.spent.get(turn, [])
            pending = any(i.pid == p.pid and i.lane == "action" for i in game.state.intents)
            if not spent and not pending and any(
                game.lane_for(la.key, la.ability, la.via) == "action" for la in game.legal_actions(p.pid)
            ):
                acted.append(p.pid)
            can_vote = all(f.can_vote for f in game.status_flags(p))
            if can_vote and any(not any(v.pid == p.pid and v.vote == vd.id for v in game.state.votes) for vd in votes):
                voted.append(p.pid)
        return acted, voted

    async def remind(self, game_id: str) -> None:
        store = self.bot.store
        info = store.info(game_id)
        lead = self.bot.settings.remind_minutes
        dl = info.deadline
        if not lead or dl is None or info.meta.get("paused") or info.meta.get("reminded") == info.tick:
            return
        if now() < dl - timedelta(minutes=lead):
            return
        game = store.game(game_id)
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
                lines.append(text(lang, "remind.action", deadline=f"<t:{stamp}:R>", penalty=penalty or "—"))
            if pid in voted:
                lines.append(text(lang, "remind.vote", deadline=f"<t:{stamp}:R>"))
            uid = game.player(pid).user_id
            await self.bot.deliverer.post(game_id, f"player:{pid}", (f"<@{uid}> " if uid else "") + "\n".join(lines), mention=uid,
                                          once=f"remind:{info.tick}:{pid}")
        await store.update_meta(game_id, lambda meta: meta.update(reminded=info.tick))
