"""Scripted Godfather games played through the Store, resumable after a kill.

    python -m tests.storage.game_script DB DELIVERY_LOG [main|tie]   (from the repository root)

With ``ALTMAFIA_KILL=point@n`` the process kills itself with SIGKILL the n-th time it reaches
``point`` (a Store fault point such as ``resolve.before_commit``, or one of the deliverer's:
``deliver.claimed``, ``deliver.sent``, ``deliver.marked``). Started again on the same files,
it resumes from the database: it redoes an interrupted resolve, delivers what is pending, and
re-sends the commands of the current tick (each has a request id, so those already in the
journal are not applied twice). ``ALTMAFIA_TRACE=FILE`` appends every point reached to FILE.

``main`` is a three-day game with every kind of command; ``tie`` a one-day game in which
nobody acts and all stats are equal, so the final resolve picks the winner with the game's
random generator.

The fake deliverer appends one JSON line per message to DELIVERY_LOG: that file stands for
Discord. A delivery claimed before a crash (``attempts > 0``) is checked against the log
before it is sent again, as the real deliverer checks Discord (nonce), so no message is sent
twice and none is lost.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import json
import os
import signal
import sys
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

import yaml

from altmafia.text.i18n import Renderer
from config import available_rulesets
from config.loader import parse_ruleset
from engine import ActionError, PlayerSpec, Ruleset
from engine.clock import Clock
from storage import Command, Store

GAME_ID = "fault-g1"
GM = 9000
SEED = 20260105
SETTINGS = {"days": 3}  # 3 game days = 9 resolves (two day periods and a night a day)
BASE = datetime(2026, 1, 5, 6, 0, tzinfo=UTC)  # the scripted clock: deadlines never pass
PLAYERS = [
    PlayerSpec("Аня", "tavern_keeper", "smart", user_id=1001),
    PlayerSpec("Борис", "moneylender", "tactician", user_id=1002),
    PlayerSpec("Вера", "commoner_captain", "attentive", user_id=1003),
    PlayerSpec("Глеб", "plantation_owner", "loner", user_id=1004),
    PlayerSpec("Даша", "whaling_captain", "strategist", user_id=1005),
    PlayerSpec("Егор", "privateer_seller", "vile", user_id=1006),
    PlayerSpec("Жанна", "learned_pirate", "influential", user_id=1007),
    PlayerSpec("Зоя", "courtier", None, user_id=1008),
]
N = len(PLAYERS)


@functools.lru_cache(maxsize=4)
def load_rules(ref: str) -> Ruleset:
    """The shipped ruleset, parsed with libyaml when available (this script starts ~30 times)."""
    path = available_rulesets()[ref]
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    return parse_ruleset(yaml.load(path.read_text(encoding="utf-8"), Loader=loader), str(path))


def deadline_for(tick: int) -> datetime:
    return BASE + timedelta(hours=6 * tick)


def targets_for(rules: Ruleset, seat: int, slot: str, tick: int, shift: int = 0) -> list[int]:
    """Targets for the ability of ``slot`` of this seat's role: the next seats round the table."""
    role = rules.role(PLAYERS[seat].role)
    count = next((ab.targets for ab in role.abilities if ab.slot == slot), 1)
    out, k = [], seat + 1 + tick + shift
    while len(out) < count:
        if k % N != seat:
            out.append(k % N)
        k += 1
    return out


def plan(rules: Ruleset, tick: int) -> list[Command]:
    """Everything players and the GM submit during ``tick``, in order, each with a request id."""
    kind = Clock(rules.calendar).info(tick).kind
    period = tick % 3  # 0, 1: the two day periods; 2: the night
    cmds: list[Command] = []
    if kind == "day":
        for seat in range(N):
            if seat % 2 != period:
                continue  # even seats act in the first day period, odd seats in the second
            if seat == 4 and tick == 0:
                cmds.append(Command.submit(seat, "individual", [6]))  # poison: death after 2 cycles
                continue
            cmds.append(Command.submit(seat, "day", targets_for(rules, seat, "day", tick)))
        if period == 1:
            cmds.append(Command.submit(1, "day", targets_for(rules, 1, "day", tick, shift=2)))  # replaces
            cmds.append(Command.cancel(3))  # Глеб changes his mind: no action, inactivity penalty
        if period == 0:
            cmds.append(Command.post_anon((tick // 3) % N, f"Слухи дня {tick // 3 + 1}: кто-то лжёт."))
    else:
        for seat in range(N):
            if seat == 5:
                cmds.append(Command.submit(seat, "character_night", targets_for(rules, seat, "character_night", tick)))
            else:
                cmds.append(Command.submit(seat, "night", targets_for(rules, seat, "night", tick)))
        if tick == 2:
            cmds += [Command.faction_op(7, "invite", 0), Command.faction_op(0, "accept", 7)]
            cmds += [Command.faction_op(5, "invite", 1), Command.faction_op(1, "accept", 5)]
        if tick == 5:
            cmds += [Command.faction_op(3, "invite", 7), Command.faction_op(7, "accept", 3)]
    for k in range(2):
        sender = (tick + 3 * k) % N
        cmds.append(Command.send_pm(sender, (sender + 3) % N, f"Ход {tick}, письмо {k}: встретимся?"))
    cmds.append(Command.submit(0, "day", [0]))  # always refused: self target or wrong phase
    if tick == 1:
        cmds.append(Command.gm("message", pid=3, text="Мастер: не забудьте про ход."))
    if tick == 3:
        cmds.append(Command.gm("set_stat", pid=5, stat="vo", value=6))
    if tick == 4:
        cmds.append(Command.gm("set_status", pid=7, status="no_pm", cycles=1))
    if tick == 7:
        cmds.append(Command.gm("clear_status", pid=7, status="no_pm"))
    return [
        Command(c.kind, c.args, user_id=GM if c.is_gm else PLAYERS[_actor(c)].user_id, request_id=f"t{tick}.c{i}")
        for i, c in enumerate(cmds)
    ]


def _actor(c: Command) -> int:
    return c.args.get("pid", c.args.get("sender", 0))


@dataclass(frozen=True)
class Script:
    game_id: str
    seed: int
    players: list[PlayerSpec]
    settings: dict[str, int]
    plan: Callable[[Ruleset, int], list[Command]]


SCRIPTS = {
    "main": Script(GAME_ID, SEED, PLAYERS, SETTINGS, plan),
    "tie": Script(
        "tie-g1", 4,
        [PlayerSpec(p.name, p.role, None, user_id=p.user_id, stats={"vo": 5, "tv": 5}) for p in PLAYERS],
        {"days": 1}, lambda rules, tick: [],
    ),
}


def forced_by(tick: int) -> int | None:
    return GM if tick == 5 else None  # the GM forces the resolve of tick 5


def kill_hook(spec: str | None, trace: str | None) -> Callable[[str], None]:
    point, _, nth = (spec or "@").partition("@")
    want = int(nth) if spec else 0
    seen = 0

    def hook(name: str) -> None:
        nonlocal seen
        if trace:
            with open(trace, "a", encoding="utf-8") as fh:
                fh.write(name + "\n")
        if name == point:
            seen += 1
            if seen == want:
                os.kill(os.getpid(), signal.SIGKILL)

    return hook


def sent_keys(log: Path) -> set[str]:
    if not log.exists():
        return set()
    return {json.loads(line)[0] for line in log.read_text(encoding="utf-8").splitlines() if line}


async def deliver(store: Store, log: Path, hook: Callable[[str], None]) -> None:
    """``main`` is a three-day game with every kind of command; ``tie`` a one-day game in which
nobody acts and all stats are equal, so the final resolve picks the winner with the game's
random generator.

The fake deliverer: every pending message once, in order, to the log file."""
    for d in await store.outbox.pending_deliveries():
        if d.attempts and d.key in sent_keys(log):
            await store.outbox.mark_delivered(d.key)  # it went out before the crash: only record it
            continue
        await store.outbox.claim(d.key)
        hook("deliver.claimed")
        text = Renderer(store.games.game(d.game_id), "ru").event(d.event)
        line = json.dumps([d.key, d.dest, d.dest_id, text], ensure_ascii=False) + "\n"
        fd = os.open(log, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        try:
            os.write(fd, line.encode("utf-8"))  # one write: the message is sent, or not
        finally:
            os.close(fd)
        hook("deliver.sent")
        await store.outbox.mark_delivered(d.key)
        hook("deliver.marked")


async def run(db: Path, log: Path, kill: str | None = None, trace: str | None = None, script: str = "main") -> Store:
    sc = SCRIPTS[script]
    hook = kill_hook(kill, trace)
    store = Store(db, rulesets=load_rules)
    store.fault = hook
    report = await store.open(now=BASE - timedelta(days=1))
    print("opened", flush=True)  # the parent that kills at random moments waits for this
    try:
        await deliver(store, log, hook)
        gid = sc.game_id
        if not store.games.has(gid):
            if await store.games.find(gid) is not None:
                return store  # finished and fully delivered
            await store.games.create_game(
                "godfather", sc.seed, sc.players, game_id=gid, guild_id=77, gm_user_ids=[GM],
                settings=sc.settings, deadline=deadline_for(0),
            )
        rules = store.games.game(gid).rules
        for due in report.due:  # a resolve cut short: redo it first, with the same arguments
            await store.turns.resolve(due.game_id, expect_tick=due.tick, next_deadline=deadline_for(due.tick + 1), user_id=forced_by(due.tick))
            await deliver(store, log, hook)
        while not store.games.game(gid).state.over:
            tick = store.games.game(gid).state.tick
            for cmd in sc.plan(rules, tick):
                with contextlib.suppress(ActionError):  # refused: nothing written (and order-independent)
                    await store.games.apply(gid, cmd)
                await deliver(store, log, hook)
            if tick == 4:
                await store.turns.set_deadline(gid, deadline_for(4) + timedelta(hours=2), user_id=GM)
            await store.turns.resolve(gid, expect_tick=tick, next_deadline=deadline_for(tick + 1), user_id=forced_by(tick))
            await deliver(store, log, hook)
        return store
    finally:
        await store.close()


if __name__ == "__main__":
    asyncio.run(
        run(
            Path(sys.argv[1]), Path(sys.argv[2]), os.environ.get("ALTMAFIA_KILL"), os.environ.get("ALTMAFIA_TRACE"),
            sys.argv[3] if len(sys.argv) > 3 else "main",
        )
    )
