"""The bot process of the crash test: the real bot (``create_bot``: its store, ``setup_hook``
recovery with the channel reconcile, the scheduler and its loop's iteration, the deliverer,
the lobby start, the channel manager and the cogs' own code for what a command posts)
against the Discord stand-in, on a scripted 13-player game with a fixed seed: Godfather, or
with ``CRASH_SCRIPT=early`` a stats mafia game whose phases end early (:func:`play_early_phase`).

    python -m tests.bot.crash.driver DB API_BASE   (from the repository root)

Resumable: started again on the same database after a SIGKILL it recovers (as any start
does), then goes on with the script; every command has a request id, so one already in the
journal is not applied twice. ``CRASH_KILL=point@n`` kills the process with SIGKILL the n-th
time it reaches ``point`` (a store fault point, or ``deliver.sent``: a part sent and not yet
marked); ``CRASH_TRACE=FILE`` appends every point reached.

**The clock moves.** The bot reads the time through ``discord.utils.utcnow`` (the scheduler,
the deadlines, the store's clock); here it is a virtual clock kept in the file ``clock`` next
to the database (the stand-in stamps its messages with it). Each step of the script sets it
to a time that is a function of the game as committed: a command of the current phase at
its start (the time of the resolve that began it) plus a minute a step; an hour before the
deadline the scheduler's loop iteration runs (its reminders to whoever owes an action or a
vote), then a second after the deadline again (it resolves the phase, with everything after
a resolve). The clock never goes back (a step redone after a restart keeps the later time),
so a restart goes on at the time the killed process had reached and every text (deadlines,
reminders) is the same as in an uninterrupted run.

**The script** (a cog's code is called with what it stages, interactions themselves are not
sent): each living player's action (sometimes cancelled and submitted again, sometimes not
sent at all: reminders), PMs with the sender's copy (the same short PM on two days), votes,
anonymous posts (the same text on two days), faction invitations and answers by night, the
GM's ``/gm tell``, the same ``/gm say`` announcement every phase, ``/gm extend``, a forced
resolve with its log line, a substitution, a pause over a passed deadline and the resume,
and an undo of a resolve followed by a changed action and the resolve again.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import random
import signal
import sys
import traceback
import types
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import discord

GAME = "crash13"
SEED = 20261201
GM = 920000000000000001
GUILD = 910000000000000003
LOBBY_CHANNEL = 920000000000000002
NAMES = ["Аня", "Борис", "Вера", "Глеб", "Даша", "Егор", "Жанна", "Зоя", "Игорь", "Кира", "Лёва", "Маша", "Ника"]
USERS = [920000000000000100 + i for i in range(len(NAMES))]
NEWCOMER = 920000000000000200  # the member who takes a seat over (``/gm substitute``)
START = datetime(2030, 1, 7, 6, 0, tzinfo=UTC)
DAYS = 3
REMIND_MINUTES = 60
ANNOUNCEMENT = "Приваты — только через бота."  # the GM's same announcement every phase
SHORT_PM = "ок"  # the same short PM, on two days
ANON = "Кто-то здесь врёт."  # the same anonymous post, on two days
FORCED_TICK, PAUSE_TICK, SUBSTITUTE_TICK, UNDO_TICK = 1, 2, 3, 4
#: the script (``CRASH_SCRIPT``): ``godfather``, or ``early`` (a stats mafia game whose phases end
#: early once nobody is waited for: :func:`play_early_phase`)
SCRIPT = os.environ.get("CRASH_SCRIPT", "godfather")
RULESETS = {"godfather": "godfather", "early": "stats_mafia"}
EARLY_DAYS = 2
#: the early script: a paused phase nobody holds up (no early end while paused), and a phase
#: one player holds up (their reminder, then the deadline)
EARLY_PAUSE_TICK, HOLD_TICK = 1, 2


class Clock:
    """The bot's virtual clock, kept in a file so that a restart goes on where it was."""

    def __init__(self, path: Path) -> None:
        self.path = path
        try:
            self.at = datetime.fromisoformat(path.read_text(encoding="utf-8").strip())
        except (OSError, ValueError):
            self.at = START

    def now(self) -> datetime:
        return self.at

    def move(self, at: datetime) -> None:
        """To ``at``, or nowhere when the clock is past it already (it never goes back)."""
        if at <= self.at:
            return
        tmp = self.path.with_name(self.path.name + ".tmp")
        tmp.write_text(at.isoformat(), encoding="utf-8")
        os.replace(tmp, self.path)  # written before it is used: a kill after this finds it
        self.at = at


def quick_retries() -> None:
    """discord.py waits 1, 3, 5, 7 s between its retries of a 5xx and ``retry_after`` on a 429;
    the stand-in answers many of those: the waits are kept, a hundredth as long."""
    real = discord.http.asyncio

    async def sleep(delay: float, *args: Any, **kwargs: Any) -> Any:
        return await real.sleep(delay / 100, *args, **kwargs)

    shim = types.SimpleNamespace(**{k: getattr(real, k) for k in dir(real) if not k.startswith("__")})
    shim.sleep = sleep
    discord.http.asyncio = shim


#: wall-clock seconds the bot's HTTP client waits for an answer to start coming before it
#: gives up (``asyncio.TimeoutError``, as aiohttp raises it): shorter than the stand-in's
#: late answers (``standin.LATE_SECONDS``), far longer than any other answer of it
READ_TIMEOUT = 3.0


def short_timeouts() -> None:
    """discord.py's HTTP session waits up to five minutes for an answer; here it gives up
    after :data:`READ_TIMEOUT`, so a late answer of the stand-in is a client-side timeout."""
    real = discord.http.aiohttp

    def session(*args: Any, **kwargs: Any) -> Any:
        kwargs.setdefault("timeout", real.ClientTimeout(total=None, sock_read=READ_TIMEOUT))
        return real.ClientSession(*args, **kwargs)

    shim = types.SimpleNamespace(**{k: getattr(real, k) for k in dir(real) if not k.startswith("__")})
    shim.__version__ = real.__version__
    shim.ClientSession = session
    discord.http.aiohttp = shim


def install_faults() -> tuple[object, object]:
    kill = os.environ.get("CRASH_KILL")
    trace = os.environ.get("CRASH_TRACE")
    point, _, nth = (kill or "").partition("@")
    seen = {"n": 0}
    out = open(trace, "a", encoding="utf-8") if trace else None  # noqa: SIM115 (kept open until the kill)

    def fault(name: str) -> None:
        if out is not None:
            out.write(name + "\n")
            out.flush()
        if kill and name == point:
            seen["n"] += 1
            if seen["n"] == int(nth):
                os.kill(os.getpid(), signal.SIGKILL)

    return fault, (lambda _key: fault("deliver.sent"))


async def main(db: Path, api: str) -> None:
    clock = Clock(db.with_name("clock"))
    discord.utils.utcnow = clock.now  # the bot's clock: the scheduler, the deadlines, the store
    quick_retries()
    short_timeouts()
    from altmafia.bot.bot import create_bot
    from altmafia.bot.lobbies import StartFailed
    from altmafia.bot.lobbies import start as start_game
    from altmafia.bot.settings import Settings

    settings = Settings(token="crash-token", db_path=db, lang="ru", tz="Europe/Moscow", remind_minutes=REMIND_MINUTES,
                        min_phase_minutes=60, scheduler_seconds=3600.0, db_sync="NORMAL", api_base=api)
    bot = create_bot(settings)
    store_fault, deliver_fault = install_faults()
    bot.store.fault = store_fault
    bot.deliverer.fault = deliver_fault
    await bot.login("crash-token")  # the REST login, then setup_hook: open, reconcile, the recovery begun
    if bot.scheduler.recovery is not None:  # the script goes on from the game as the recovery left it
        await bot.scheduler.recovery
    store = bot.store
    if not store.games.has(GAME) and await store.games.find(GAME) is None:
        lobbies = await store.lobbies.lobbies()
        if GAME not in lobbies:
            lobby = {"guild_id": GUILD, "channel_id": LOBBY_CHANNEL, "ruleset": RULESETS[SCRIPT], "creator": GM, "gms": [GM],
                     "players": [{"user_id": u, "name": n, "lang": "ru"} for u, n in zip(USERS, NAMES, strict=True)],
                     "spectators": [], "lang": "ru", "tz": "Europe/Moscow", "days": DAYS if SCRIPT == "godfather" else EARLY_DAYS,
                     "seed": SEED}
            await store.lobbies.create_lobby(GAME, lobby, guild_id=GUILD, channel_id=LOBBY_CHANNEL)
        for _ in range(5):  # a start the connection broke is rolled back: the GM starts again
            try:
                await start_game(bot, GAME, (await store.lobbies.lobbies())[GAME])
                break
            except StartFailed as exc:
                if exc.key != "start.unreached":
                    raise
    while store.games.has(GAME) and store.games.info(GAME).status == "running":
        await (play_phase if SCRIPT == "godfather" else play_early_phase)(bot, clock)
    # the loop goes on until everything is out (a send the stand-in failed is tried again)
    for _ in range(100):
        await bot.scheduler._iteration()
        if not await store.outbox.pending_parts() and not await store.outbox.pending_deliveries():
            break
    await bot.offer_cleanup(GAME)  # idempotent (``once``): a start after the end shows it once
    await bot.store.close()
    await bot.http.close()


async def phase_start(store: Any) -> datetime:
    """When the current phase began: the time of the resolve in force that began it."""
    from storage.commands import effective

    resolves = [e for e in effective(await store.games.journal(GAME)) if e["kind"] == "resolve"]
    if not resolves:
        return START
    return datetime.strptime(resolves[-1]["created_at"], "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=UTC)


async def play_phase(bot: Any, clock: Clock) -> None:
    from altmafia.text.i18n import Renderer, text
    from engine import ActionError
    from storage import Command

    store, deliverer = bot.store, bot.deliverer
    tick = store.games.info(GAME).tick
    journal = await store.games.journal(GAME)
    undone = any(e["kind"] == "undo" for e in journal)
    if tick == UNDO_TICK and not undone:
        await undo(bot, clock)  # the GM takes the last resolve back: the phase before is open again
        return
    base = await phase_start(store)
    step = 0

    def at_step() -> None:
        nonlocal step
        step += 1
        clock.move(base + timedelta(minutes=step))

    async def apply(cmd: Any, posts: Any = (), deliver: Any = None) -> bool:
        at_step()
        try:
            await store.games.apply(GAME, cmd, posts=posts, deliver=deliver)
        except ActionError:
            return False
        finally:
            await deliverer.flush(GAME)  # as the cog does after each command
        return True

    game = store.games.game(GAME)
    night = game.info.kind == "night"
    if tick == SUBSTITUTE_TICK:
        await substitute(bot, clock, base)
        game = store.games.game(GAME)
    living = list(game.living())
    if night:  # ``/gm setstat``: two players get the secret influence a faction invitation needs
        for p in living[:2]:
            line = deliverer.gm_line(GAME, "Ведущий", text("ru", "gm.act_setstat", player=p.name,
                                                           stat=Renderer(game, "ru").stat("tv"), value=3))
            await apply(Command.gm("set_stat", pid=p.pid, stat="tv", value=3, user_id=GM, request_id=f"{tick}:gm:tv:{p.pid}"),
                        posts=[line])
        game = store.games.game(GAME)
    for p in living:
        rnd = random.Random(f"{SEED}:{tick}:{p.pid}")
        legal = [la for la in game.legal_actions(p.pid) if not la.via]
        if legal and rnd.random() < 0.9:  # the others are reminded
            la = rnd.choice(legal)
            targets = rnd.sample(la.targets, min(la.ability.targets, len(la.targets))) if la.ability.targets else []
            option = la.any_option(rnd)
            args = {"pid": p.pid, "ability": la.key, "targets": targets, "option": option}
            # a public ability's line is the engine's event; a redo after an undo may choose anew
            await apply(Command("submit", args, user_id=p.user_id, request_id=f"{tick}:{p.pid}:act"))
            if rnd.random() < 0.2:  # taken back, then sent again
                await apply(Command.cancel(p.pid, "action", user_id=p.user_id, request_id=f"{tick}:{p.pid}:cancel"))
                await apply(Command("submit", args, user_id=p.user_id, request_id=f"{tick}:{p.pid}:act2"))
        game = store.games.game(GAME)
        others = [q.pid for q in game.living() if q.pid != p.pid]
        if rnd.random() < 0.4 and others:  # a PM, with the sender's copy (as altmafia/bot/mail.py stages it)
            to = rnd.choice(others)
            await pm(bot, apply, p, to, f"{p.name}: день {tick}, пишу {game.player(to).name}", f"{tick}:{p.pid}:pm")
        if p.pid == living[0].pid and not night and 1 in others:  # the same short PM on two days
            await pm(bot, apply, p, 1, SHORT_PM, f"{tick}:{p.pid}:short")
        if not night and p.pid == living[(tick // 2) % len(living)].pid:  # the same anonymous post on two days
            await apply(Command.post_anon(p.pid, ANON, user_id=p.user_id, request_id=f"{tick}:{p.pid}:anon"))
        if night and others and game.player(p.pid).stats.get("tv", 0) >= 1 and rnd.random() < 0.7:  # a faction invitation
            await apply(Command.faction_op(p.pid, "invite", rnd.choice(others), None, user_id=p.user_id,
                                           request_id=f"{tick}:{p.pid}:invite"))
        for vote in game.open_votes():
            choice = rnd.choice([q.pid for q in game.living()])
            await apply(Command.vote(p.pid, vote.id, choice, user_id=p.user_id, request_id=f"{tick}:{p.pid}:v:{vote.id}"))
        game = store.games.game(GAME)
    if night:  # the invited answer
        for o in [o for o in game.state.faction_ops if o.tick == tick and o.op == "invite"]:
            op = "accept" if random.Random(f"{SEED}:{tick}:{o.pid}:{o.target}").random() < 0.6 else "decline"
            who = game.player(o.target)
            await apply(Command.faction_op(o.target, op, o.pid, None, user_id=who.user_id,
                                           request_id=f"{tick}:{o.target}:{op}:{o.pid}"))
    await gm_acts(bot, tick, at_step)
    if tick == FORCED_TICK:  # the GM's forced resolve, with its log line (as buttons.ResolveButton does)
        at_step()
        game = store.games.game(GAME)
        label = Renderer(game, "ru").label(game.info.label)
        line = text("ru", "gm.log", gm="Ведущий", action=text("ru", "gm.act_resolve", phase=label))
        await bot.scheduler.resolve(GAME, expect_tick=tick, user_id=GM, gm_line=line)
        return
    paused_before = any((e["request_id"] or "").startswith(f"pause:{tick}#") for e in journal)
    if tick == PAUSE_TICK and not paused_before and store.games.info(GAME).deadline is not None and not store.games.info(GAME).meta.get("paused"):
        at_step()
        await pause(bot)
    if store.games.info(GAME).meta.get("paused"):
        # the deadline passes while paused: the loop resolves nothing; then the GM resumes
        clock.move(base + timedelta(hours=30))
        await bot.scheduler._iteration()
        assert store.games.info(GAME).tick == tick, "a paused phase was resolved"
        await resume(bot)
    deadline = store.games.info(GAME).deadline
    if deadline is None:  # no loop would ever resolve this phase: say how the game stands
        info = store.games.info(GAME)
        tail = [(e["seq"], e["tick"], e["kind"], e["request_id"]) for e in (await store.games.journal(GAME))[-6:]]
        raise AssertionError(f"tick {info.tick} runs without a deadline (paused {info.meta.get('paused')}, "
                             f"undo_notices {info.meta.get('undo_notices')}, clock {clock.now()}); journal tail {tail}")
    clock.move(deadline - timedelta(minutes=REMIND_MINUTES) + timedelta(seconds=1))
    await bot.scheduler._iteration()  # the reminders
    clock.move(deadline + timedelta(seconds=1))
    await bot.scheduler._iteration()  # the resolve, when the deadline passed


async def play_early_phase(bot: Any, clock: Clock) -> None:
    """A phase of the early script: every living player acts and votes (at :data:`HOLD_TICK`
    the last one holds out), the GM's commands; then the loop looks before the phase's
    minimum (the GM told once that it ends later), and after it (the early end: a resolve with
    the GM's log line). At :data:`EARLY_PAUSE_TICK` the GM pauses first: the look after the
    minimum ends nothing, the resume does. A phase still open goes on to its reminders and its
    deadline, as in the Godfather script."""
    from engine import ActionError
    from storage import Command

    store = bot.store
    tick = store.games.info(GAME).tick
    journal = await store.games.journal(GAME)
    base = await phase_start(store)
    step = 0

    def at_step() -> None:
        nonlocal step
        step += 1
        clock.move(base + timedelta(seconds=20 * step))

    async def apply(cmd: Any) -> None:
        with contextlib.suppress(ActionError):
            await store.games.apply(GAME, cmd)
        await bot.deliverer.flush(GAME)  # as the cog does after each command

    game = store.games.game(GAME)
    living = list(game.living())
    for p in living:
        # four steps a player whatever they do: a redo after a kill (their action recorded, so
        # other actions legal, or none) keeps every later step at its time
        at_step()
        if tick == HOLD_TICK and p.pid == living[-1].pid:
            step += 3
            continue  # holds the phase up: reminded, then the deadline ends it
        rnd = random.Random(f"{SEED}:early:{tick}:{p.pid}")
        legal = [la for la in game.legal_actions(p.pid) if not la.via]
        done = any(e["request_id"] == f"{tick}:{p.pid}:act" for e in journal)
        if legal and not done:
            la = rnd.choice(legal)
            targets = rnd.sample(la.targets, min(la.ability.targets, len(la.targets))) if la.ability.targets else []
            await apply(Command("submit", {"pid": p.pid, "ability": la.key, "targets": targets, "option": la.any_option(rnd)},
                                user_id=p.user_id, request_id=f"{tick}:{p.pid}:act"))
        game = store.games.game(GAME)
        ballot = random.Random(f"{SEED}:early:{tick}:{p.pid}:vote")  # whatever the action drew, or not
        for vote in game.open_votes()[:3]:
            at_step()
            choice = ballot.choice([q.pid for q in game.living()])
            await apply(Command.vote(p.pid, vote.id, choice, user_id=p.user_id, request_id=f"{tick}:{p.pid}:v:{vote.id}"))
        step += 3 - len(game.open_votes()[:3])
        game = store.games.game(GAME)
    await gm_acts(bot, tick, at_step)
    least = bot.scheduler.min_phase(store.games.game(GAME))
    paused_before = any((e["request_id"] or "").startswith(f"pause:{tick}#") for e in journal)
    if tick == EARLY_PAUSE_TICK and not paused_before and not store.games.info(GAME).meta.get("paused"):
        at_step()
        await pause(bot)
    clock.move(base + least / 2)
    await bot.scheduler._iteration()  # before the minimum: the GM is told when it may end
    if store.games.info(GAME).tick != tick:
        return
    clock.move(base + least + timedelta(minutes=1))
    await bot.scheduler._iteration()  # the early end, unless paused or someone holds it up
    if store.games.info(GAME).tick != tick:
        return
    if store.games.info(GAME).meta.get("paused"):
        clock.move(base + least + timedelta(minutes=2))
        await resume(bot)
        clock.move(base + least + timedelta(minutes=3))
        await bot.scheduler._iteration()  # the early end after the resume
        if store.games.info(GAME).tick != tick:
            return
    deadline = store.games.info(GAME).deadline
    assert deadline is not None, f"tick {tick} runs without a deadline"
    clock.move(deadline - timedelta(minutes=REMIND_MINUTES) + timedelta(seconds=1))
    await bot.scheduler._iteration()  # the reminders (or the early end, the minimum passed only now)
    if store.games.info(GAME).tick != tick:
        return
    clock.move(deadline + timedelta(seconds=1))
    await bot.scheduler._iteration()  # the resolve, when the deadline passed


async def pm(bot: Any, apply: Any, p: Any, to: int, body: str, rid: str) -> None:
    from altmafia.text.i18n import Renderer, text
    from storage import Command

    game = bot.store.games.game(GAME)
    copy = bot.deliverer.outgoing(GAME, f"player:{p.pid}", text("ru", "pm.copy", to=Renderer(game, "ru").player(to), text=body))
    # as altmafia.bot.mail.send_pm: the copy and the PM staged and claimed in the command's transaction
    await apply(Command.send_pm(p.pid, to, body, user_id=p.user_id, request_id=rid), posts=[copy],
                deliver=lambda g, info, rows: bot.deliverer.command_posts(GAME, g, info, rows))


async def gm_acts(bot: Any, tick: int, at_step: Any) -> None:
    """What the GM cog does for ``/gm tell`` (the command with its log line in one
    transaction), ``/gm say`` (the announcement and its log line, keyed by the interaction)
    and ``/gm extend`` (the deadline with its public notice and log line)."""
    from altmafia.text.i18n import text
    from storage import Command, Post

    store, deliverer = bot.store, bot.deliverer
    game = store.games.game(GAME)
    pid = game.living()[tick % len(game.living())].pid
    message = f"тайное слово дня {tick}"
    line = deliverer.gm_line(GAME, "Ведущий", text("ru", "gm.act_tell", player=game.player(pid).name, text=message))
    at_step()
    await store.games.apply(GAME, Command.gm("message", pid=pid, text=message, user_id=GM, request_id=f"{tick}:gm:tell"), posts=[line])
    await deliverer.flush(GAME)
    at_step()
    say = deliverer.outgoing(GAME, "public", text("ru", "public.gm_says", text=ANNOUNCEMENT))
    said = deliverer.gm_line(GAME, "Ведущий", text("ru", "gm.act_say", where=text("ru", "gm.where_public"), text=ANNOUNCEMENT))
    await store.outbox.stage_posts(GAME, f"ia:say:{tick}", [say, said])
    await deliverer.flush(GAME)
    # once: a GM does not extend again after the bot's restart (a repeat minutes later is a new command)
    extended = any((e["request_id"] or "").startswith(f"move:{GM}:+30#") for e in await store.games.journal(GAME))
    if tick == 0 and extended:
        at_step()
    if tick == 0 and not extended:
        def notices(info: object) -> list[Post]:
            stamp = int(info.deadline.timestamp())
            return [deliverer.gm_line(GAME, "Ведущий", text("ru", "gm.act_move", minutes="+30", deadline=f"<t:{stamp}:f>")),
                    deliverer.outgoing(GAME, "public", text("ru", "public.deadline_moved", deadline=f"<t:{stamp}:f> (<t:{stamp}:R>)"))]

        at_step()
        await store.turns.change_deadline(GAME, lambda info: (info.deadline + timedelta(minutes=30), None), user_id=GM,
                                    key=f"move:{GM}:+30", posts=notices)
        await deliverer.flush(GAME)


async def substitute(bot: Any, clock: Clock, base: datetime) -> None:
    """``/gm substitute``: a living seat passes to a newcomer (the command with its log line),
    then the seats are settled (channels, the role card again)."""
    from altmafia.bot.lobbies import settle_seats
    from altmafia.text.i18n import text
    from engine import ActionError
    from storage import Command

    store = bot.store
    game = store.games.game(GAME)
    if any(p.user_id == NEWCOMER for p in game.state.players):
        await settle_seats(bot, GAME)  # done before a kill: what it owes is settled (idempotent)
        return
    seat = game.living()[-1]
    clock.move(base + timedelta(seconds=30))
    line = bot.deliverer.gm_line(GAME, "Ведущий", text("ru", "gm.act_substitute", old=seat.name, old_user=f"<@{seat.user_id}>",
                                                       new_user=f"<@{NEWCOMER}>", player=seat.name))
    cmd = Command("gm_substitute", {"pid": seat.pid, "user_id": NEWCOMER, "name": None}, user_id=GM,
                  request_id=f"{game.state.tick}:gm:substitute")
    with contextlib.suppress(ActionError):
        await store.games.apply(GAME, cmd, posts=[line])
    await bot.deliverer.flush(GAME)
    await settle_seats(bot, GAME)


async def pause(bot: Any) -> None:
    """``/gm pause`` as the cog does it: the rest of the phase kept, its notices staged with it."""
    from altmafia.bot.deadlines import now
    from altmafia.text.i18n import text

    def to_pause(info: Any) -> tuple[None, Any]:
        remaining = max(60.0, (info.deadline - now()).total_seconds())
        return None, lambda meta: meta.update(paused={"remaining": remaining, "tick": info.tick})

    await bot.store.turns.change_deadline(GAME, to_pause, user_id=GM, key=f"pause:{bot.store.games.info(GAME).tick}", posts=lambda info: [
        bot.deliverer.gm_line(GAME, "Ведущий", text("ru", "gm.act_pause")),
        bot.deliverer.outgoing(GAME, "public", text("ru", "public.paused"))])
    await bot.deliverer.flush(GAME)


async def resume(bot: Any) -> None:
    """``/gm resume`` as the cog does it: the deadline the rest of the phase from now."""
    from altmafia.bot.deadlines import now
    from altmafia.text.i18n import text

    def to_resume(info: Any) -> tuple[Any, Any]:
        paused = info.meta["paused"]
        return now() + timedelta(seconds=paused["remaining"]), lambda meta: meta.update(paused=None)

    def notices(info: Any) -> list[Any]:
        stamp = int(info.deadline.timestamp())
        return [bot.deliverer.gm_line(GAME, "Ведущий", text("ru", "gm.act_resume")),
                bot.deliverer.outgoing(GAME, "public", text("ru", "public.resumed", deadline=f"<t:{stamp}:f> (<t:{stamp}:R>)"))]

    await bot.store.turns.change_deadline(GAME, to_resume, user_id=GM, key=f"resume:{bot.store.games.info(GAME).tick}", posts=notices)
    await bot.deliverer.flush(GAME)


async def undo(bot: Any, clock: Clock) -> None:
    """``/gm undo`` confirmed (``undo.confirm_undo``'s work): the last resolve taken back with
    the corrections it owes, then one player changes their action (the redo differs)."""
    from altmafia.bot.undo import settle_undo
    from storage import Command, UndoRefused

    store = bot.store
    clock.move(clock.now() + timedelta(minutes=1))
    async with bot.scheduler.lock(GAME):
        target = await store.turns.undo_target(GAME)

        def record(meta: dict[str, Any], posted: list[dict[str, Any]]) -> None:
            meta["undo_notices"] = {"resolve_seq": target["seq"], "tick": target["tick"], "posted": posted, "gm": "Ведущий"}

        async with bot.deliverer.lock(GAME):
            with contextlib.suppress(UndoRefused):
                await store.turns.undo_resolve(GAME, user_id=GM, meta_fn=record, key=f"undo@{target['seq']}")
        await settle_undo(bot, GAME)
    game = store.games.game(GAME)
    p = game.living()[0]
    legal = [la for la in game.legal_actions(p.pid) if not la.via and la.ability.targets == 1]
    if legal:
        la = legal[-1]
        clock.move(clock.now() + timedelta(minutes=1))
        from engine import ActionError

        with contextlib.suppress(ActionError):
            await store.games.apply(GAME, Command("submit", {"pid": p.pid, "ability": la.key, "targets": [la.targets[-1]], "option": None},
                                            user_id=p.user_id, request_id=f"{game.state.tick}:{p.pid}:after-undo"))
        await bot.deliverer.flush(GAME)


if __name__ == "__main__":
    logging.basicConfig(level=logging.WARNING, stream=sys.stderr)
    try:
        asyncio.run(main(Path(sys.argv[1]), sys.argv[2]))
    except BaseException:  # a failure ends the process at once (the store's thread would keep it alive)
        traceback.print_exc()
        sys.stderr.flush()
        os._exit(1)
    sys.stdout.flush()
    os._exit(0)
