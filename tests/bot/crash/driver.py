"""The bot process of the crash test: the real bot (``create_bot``: its store, ``setup_hook``
recovery with the channel reconcile, the scheduler, the deliverer, the lobby start, the
channel manager and the cogs' own code for what a command posts) against the Discord
stand-in, on a scripted 13-player game with a fixed seed.

    python -m tests.bot.crash.driver DB API_BASE   (from the repository root)

Resumable: started again on the same database after a SIGKILL it recovers (as any start
does), then goes on with the script; every command has a request id, so one already in the
journal is not applied twice. ``CRASH_KILL=point@n`` kills the process with SIGKILL the n-th
time it reaches ``point`` (a store fault point, or ``deliver.sent``: a part sent and not yet
marked); ``CRASH_TRACE=FILE`` appends every point reached. The clock is frozen (2030), so
every text is the same in every run. Slash commands themselves (interactions) are not sent:
the script calls what the cogs call with what they stage (a PM's copy; a public ability's
line is an engine event) — see docs/storage.md, "The crash test".
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import random
import signal
import sys
from datetime import UTC, datetime
from pathlib import Path

import discord

GAME = "crash13"
SEED = 20261201
GM = 920000000000000001
GUILD = 910000000000000003
LOBBY_CHANNEL = 920000000000000002
NAMES = ["Аня", "Борис", "Вера", "Глеб", "Даша", "Егор", "Жанна", "Зоя", "Игорь", "Кира", "Лёва", "Маша", "Ника"]
USERS = [920000000000000100 + i for i in range(len(NAMES))]
FROZEN = datetime(2030, 1, 7, 6, 0, tzinfo=UTC)


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
    discord.utils.utcnow = lambda: FROZEN  # every deadline and text the same in every run
    from altmafia.bot.bot import create_bot
    from altmafia.bot.lobbies import start as start_game
    from altmafia.bot.settings import Settings
    from altmafia.text.i18n import Renderer, text
    from engine import ActionError
    from storage import Command

    settings = Settings(token="crash-token", db_path=db, lang="ru", tz="Europe/Moscow", remind_minutes=0, min_phase_minutes=60,
                        scheduler_seconds=3600.0, db_sync="NORMAL", api_base=api)
    bot = create_bot(settings)
    store_fault, deliver_fault = install_faults()
    bot.store.fault = store_fault
    bot.deliverer.fault = deliver_fault
    await bot.login("crash-token")  # the REST login, then setup_hook: open, reconcile, recover
    store = bot.store
    if not store.has(GAME) and await store.find(GAME) is None:
        lobbies = await store.lobbies()
        if GAME not in lobbies:
            lobby = {"guild_id": GUILD, "channel_id": LOBBY_CHANNEL, "ruleset": "godfather", "creator": GM, "gms": [GM],
                     "players": [{"user_id": u, "name": n, "lang": "ru"} for u, n in zip(USERS, NAMES, strict=True)],
                     "spectators": [], "lang": "ru", "tz": "Europe/Moscow", "days": 2, "seed": SEED}
            await store.create_lobby(GAME, lobby, guild_id=GUILD, channel_id=LOBBY_CHANNEL)
        await start_game(bot, GAME, (await store.lobbies())[GAME])
    while store.has(GAME) and store.info(GAME).status == "running":
        tick = store.info(GAME).tick
        game = store.game(GAME)
        for p in list(game.living()):
            rnd = random.Random(f"{SEED}:{tick}:{p.pid}")
            legal = [la for la in game.legal_actions(p.pid) if not la.via]
            if legal:
                la = rnd.choice(legal)
                targets = rnd.sample(la.targets, min(la.ability.targets, len(la.targets))) if la.ability.targets else []
                option = la.any_option(rnd)
                cmd = Command("submit", {"pid": p.pid, "ability": la.key, "targets": targets, "option": option},
                              user_id=p.user_id, request_id=f"{tick}:{p.pid}:act")
                with contextlib.suppress(ActionError):
                    await store.apply(GAME, cmd)  # a public ability's line is the engine's event
                await bot.deliverer.flush(GAME)  # as the cog does after each command
            if rnd.random() < 0.4:  # a PM, with the sender's copy (as cogs/pms.py stages it)
                others = [q.pid for q in game.living() if q.pid != p.pid]
                to = rnd.choice(others)
                body = f"{p.name}: день {tick}, пишу {game.player(to).name}"
                copy = bot.deliverer.outgoing(GAME, f"player:{p.pid}", text("ru", "pm.copy", to=Renderer(game, "ru").player(to), text=body))
                with contextlib.suppress(ActionError):
                    await store.apply(GAME, Command.send_pm(p.pid, to, body, user_id=p.user_id, request_id=f"{tick}:{p.pid}:pm"),
                                      posts=[copy])
                await bot.deliverer.flush(GAME)
            for vote in game.open_votes():
                choice = rnd.choice([q.pid for q in game.living()])
                with contextlib.suppress(ActionError):
                    await store.apply(GAME, Command.vote(p.pid, vote.id, choice, user_id=p.user_id, request_id=f"{tick}:{p.pid}:v:{vote.id}"))
                await bot.deliverer.flush(GAME)
            game = store.game(GAME)
        await gm_acts(bot, tick)
        await bot.deliverer.flush(GAME)
        if tick == 1:  # the GM's forced resolve, with its log line (as buttons.ResolveButton does)
            game = store.game(GAME)
            label = Renderer(game, "ru").label(game.info.label)
            line = text("ru", "gm.log", gm="Ведущий", action=text("ru", "gm.act_resolve", phase=label))
            await bot.scheduler.resolve(GAME, expect_tick=tick, user_id=GM, gm_line=line)
        else:
            await bot.scheduler.resolve(GAME, expect_tick=tick)
    await bot.deliverer.flush()
    await bot.offer_cleanup(GAME)  # idempotent (``once``): a start after the end shows it once
    await bot.store.close()
    await bot.http.close()


async def gm_acts(bot: object, tick: int) -> None:
    """What the GM cog does for ``/gm tell`` (the command with its log line in one transaction)
    and ``/gm extend`` (the deadline with its public notice and log line)."""
    from datetime import timedelta

    from altmafia.text.i18n import text
    from storage import Command, Post

    store, deliverer = bot.store, bot.deliverer
    game = store.game(GAME)
    pid = game.living()[tick % len(game.living())].pid
    message = f"тайное слово дня {tick}"
    line = deliverer.gm_line(GAME, "Ведущий", text("ru", "gm.act_tell", player=game.player(pid).name, text=message))
    await store.apply(GAME, Command.gm("message", pid=pid, text=message, user_id=GM, request_id=f"{tick}:gm:tell"), posts=[line])
    await deliverer.flush(GAME)
    if tick == 0:
        def notices(info: object) -> list[Post]:
            stamp = int(info.deadline.timestamp())
            return [deliverer.gm_line(GAME, "Ведущий", text("ru", "gm.act_move", minutes="+30", deadline=f"<t:{stamp}:f>")),
                    deliverer.outgoing(GAME, "public", text("ru", "public.deadline_moved", deadline=f"<t:{stamp}:f> (<t:{stamp}:R>)"))]

        await store.change_deadline(GAME, lambda info: (info.deadline + timedelta(minutes=30), None), user_id=GM,
                                    key=f"move:{GM}:+30", posts=notices)
        await deliverer.flush(GAME)


if __name__ == "__main__":
    logging.basicConfig(level=logging.WARNING, stream=sys.stderr)
    asyncio.run(main(Path(sys.argv[1]), sys.argv[2]))
    sys.stdout.flush()
    os._exit(0)
