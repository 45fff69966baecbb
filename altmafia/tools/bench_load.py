"""``altmafia bench``'s load rows: the real bot under many games' commands, and a big start,
on the wall clock.

SimCord's clock is virtual: a REST call there takes no time, and a sleep of the bot passes
virtual time only (its timers fire in real time only through SimCord's settling, which waits
for the whole bot to be idle, never the case under load). A reply latency people feel is wall
time: the bot's event loop busy with other games' work, a round trip per REST call. So these
rows set up their games under plain SimCord (fast, virtual), then switch to :func:`wall_clock`:
the loop's timers and ``time.monotonic`` are the real ones again, and every REST call goes
through discord.py's own ``HTTPClient.request`` (its buckets, locks and 429 retries) over a
:class:`Wire`, Discord's far end, that sleeps half the round trip each way (``asyncio.sleep``,
real) and answers 429 at Discord's limits on the wall clock: 50 requests a second globally
(interaction callbacks and followups exempt), 5 messages per 5 s a channel (Topics, "Rate
Limits"). SimCord's router does the rest, as in every bot test.

What a person feels is counted from the press: the command reaches the bot half a round trip
later (the gateway), and its first response is seen when it reaches Discord (half a round trip
after the bot sends it).
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import json
import math
import random
import re
import sqlite3
import statistics
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol, cast

from .bench_bot import stop

ROUND_TRIP = 0.1  # seconds a REST call takes on the wire (the stated round trip)
QUICK_ROUND_TRIP = 0.01  # --quick: the shape, not the figures
GLOBAL_LIMIT = 50  # requests a second, interaction endpoints exempt
MESSAGE_BUCKET = (5, 5.0)  # messages per channel in a window of seconds
#: channel creations per server in a window of seconds. Discord documents no figure for this
#: route; it tells its bucket in every answer's X-RateLimit-* headers (Topics, "Rate Limits":
#: buckets count per top-level resource, the guild here) and discord.py keeps to them. Assumed
#: no stricter than the global limit; the floor below follows whatever figure is set here
CHANNEL_CREATE_BUCKET = (50, 1.0)
FIRST_RESPONSE_LIMIT = 3.0  # Discord fails an interaction not answered within 3 s
# the load: (full, quick)
LOAD = {"games": (50, 2), "commands": (1000, 20), "seconds": (10.0, 1.0), "seats": (13, 5)}
START_SEATS, START_RUNS = (20, 20), (3, 1)  # Eternal Friday's largest table
BENCH_SEED = 25
REPLY_GOAL_MS = 300
SECTION = "load"

_CALL: contextvars.ContextVar[dict[str, Any] | None] = contextvars.ContextVar("load_call", default=None)


class Rows(Protocol):
    """What these rows use of the bench (``altmafia.tools.bench.Bench``)."""

    quick: bool

    def add(self, section: str, id: str, title: str, value: float | int | None, unit: str, *, goal: str | None = None,
            ratio: float | None = None, ok: bool | None = None, note: str = "", not_measured: str | None = None) -> None: ...


@dataclass
class Call:
    method: str
    path: str
    sent: float  # the bot sent it (wall clock)
    arrived: float = math.nan  # it reached Discord
    done: float = math.nan  # its answer reached the bot
    status: int = 0
    exempt: bool = False  # an interaction callback or followup (outside the global limit)
    content: str = ""  # a message's text (POST /channels/{id}/messages)


def route_bucket(method: str, path: str) -> tuple[str, tuple[int, float]] | None:
    """The per-route bucket of a call the wire limits (its key, limit and window), or None."""
    m = re.fullmatch(r"/channels/(\d+)/messages", path)
    if method == "POST" and m:
        return f"messages:{m.group(1)}", MESSAGE_BUCKET
    m = re.fullmatch(r"/guilds/(\d+)/channels", path)
    if method == "POST" and m:
        return f"channels:{m.group(1)}", CHANNEL_CREATE_BUCKET
    return None


@dataclass
class Wire:
    """Discord's far end on the wall clock (see the module's docstring); records every call,
    each interaction's first response and whether it was answered."""

    round_trip: float = ROUND_TRIP
    active: bool = False
    calls: list[Call] = field(default_factory=list)
    first: dict[int, float] = field(default_factory=dict)  # interaction id -> its first response reached Discord
    deferred: dict[str, int] = field(default_factory=dict)  # token -> interaction id, deferred and not yet followed up
    answered: dict[int, str] = field(default_factory=dict)  # interaction id -> the text of its answer
    answered_at: dict[int, float] = field(default_factory=dict)  # … when it reached Discord
    tokens: dict[str, int] = field(default_factory=dict)
    limited: int = 0  # 429s answered
    in_flight: int = 0
    emitted: dict[int, float] = field(default_factory=dict)  # interaction id -> it reached the bot
    left: int = 0  # posts still in the outbox when the wall-clock window closed (lost to this run)
    _global: tuple[float, int] = (-math.inf, 0)
    _buckets: dict[str, tuple[float, int]] = field(default_factory=dict)

    @staticmethod
    def now() -> float:
        return time.perf_counter()  # SimCord leaves it real (it makes time.monotonic virtual)

    def refused(self) -> list[Call]:
        return [c for c in self.calls if c.status >= 400 and c.status != 429]

    def _rate_limit(self, method: str, path: str) -> tuple[dict[str, str], float | None, bool]:
        now = self.now()
        start, count = self._global
        if now - start >= 1.0:
            start, count = now, 0
        if count >= GLOBAL_LIMIT:
            retry = round(start + 1.0 - now, 3)
            return {"Via": "1.1 google", "X-RateLimit-Global": "true", "X-RateLimit-Scope": "global"}, retry, True
        self._global = (start, count + 1)
        found = route_bucket(method, path)
        if found is None:
            return {}, None, False
        key, (limit, period) = found
        start, count = self._buckets.get(key, (-math.inf, 0))
        if now - start >= period:
            start, count = now, 0
        reset_after = round(start + period - now, 3)
        headers = {"X-RateLimit-Limit": str(limit), "X-RateLimit-Bucket": key.split(":")[0], "X-RateLimit-Reset-After": str(reset_after),
                   "X-RateLimit-Reset": str(time.time() + reset_after)}
        if count >= limit:
            headers.update({"X-RateLimit-Remaining": "0", "X-RateLimit-Scope": "user", "Via": "1.1 google"})
            return headers, reset_after, False
        self._buckets[key] = (start, count + 1)
        headers["X-RateLimit-Remaining"] = str(limit - count - 1)
        return headers, None, False

    async def handle(self, backend: Any, call: dict[str, Any]) -> _Response:
        # imported here: SimCord is a test extra, loaded only when these rows run
        from simcord.backend.errors import BackendError
        from simcord.http import router

        method, path = call["method"], call["path"]
        record = Call(method, path, self.now())
        self.calls.append(record)
        self.in_flight += 1
        json_body, file_list = call["json"], list(call["files"] or [])
        if call["form"] is not None:
            payload, file_list = router.parse_form(list(call["form"]), file_list)
            if payload is not None:
                json_body = payload
        if isinstance(json_body, dict):
            record.content = str(json_body.get("content") or "")
        await asyncio.sleep(self.round_trip / 2)
        record.arrived = self.now()
        try:
            headers, retry, is_global = self._rate_limit(method, path)
            if retry is not None:
                self.limited += 1
                record.status = 429
                return _Response(429, {"message": "You are being rate limited.", "code": 0, "retry_after": retry, "global": is_global},
                                 headers)
            try:
                result = router.dispatch(backend, method, path, json=json_body, params=call["params"], files=file_list,
                                         reason=call["reason"], message_content_access=call["access"])
            except BackendError as exc:
                record.status = exc.status
                return _Response(exc.status, exc.to_json(), headers)
            record.status = 200 if result is not None else 204
            return _Response(record.status, result, headers)
        finally:
            await asyncio.sleep(self.round_trip / 2)
            record.done = self.now()
            self.in_flight -= 1

    def arrive_webhook(self, method: str, path: str, body: Any) -> Call:
        """An interaction callback or followup reaches Discord: the first response, the answer."""
        record = Call(method, path, self.now() - self.round_trip / 2, self.now(), exempt=True)
        self.calls.append(record)
        body = body if isinstance(body, dict) else {}
        m = re.fullmatch(r"/interactions/(\d+)/([^/]+)/callback", path)
        if m:
            iid, token = int(m.group(1)), m.group(2)
            self.first.setdefault(iid, record.arrived)
            self.tokens[token] = iid
            if body.get("type") == 5:
                self.deferred[token] = iid
            else:
                self.answered.setdefault(iid, str((body.get("data") or {}).get("content") or ""))
                self.answered_at.setdefault(iid, record.arrived)
            return record
        m = re.fullmatch(r"/webhooks/\d+/([^/]+)(/messages/@original)?", path)
        if m and m.group(1) in self.tokens:
            iid = self.tokens[m.group(1)]
            self.deferred.pop(m.group(1), None)
            self.answered.setdefault(iid, str(body.get("content") or ""))
            self.answered_at.setdefault(iid, record.arrived)
        return record


class _Response:
    """Enough of an aiohttp response for discord.py's ``HTTPClient.request``."""

    def __init__(self, status: int, body: Any, headers: dict[str, str]) -> None:
        # imported here: multidict comes with aiohttp, which only the Discord rows need
        from multidict import CIMultiDict

        self.status = status
        self.reason = {200: "OK", 204: "No Content", 429: "Too Many Requests"}.get(status, "Error")
        self.headers = CIMultiDict(headers)
        self._text = "" if body is None else json.dumps(body, default=str)
        if body is not None:
            self.headers["Content-Type"] = "application/json"

    async def text(self, encoding: str = "utf-8") -> str:
        return self._text

    async def __aenter__(self) -> _Response:
        return self

    async def __aexit__(self, *exc: Any) -> None:
        return None


class _Session:
    """The aiohttp session discord.py's own ``request`` talks to: the wire."""

    closed = False

    def __init__(self, wire: Wire, backend: Any) -> None:
        self.wire, self.backend = wire, backend

    def request(self, method: str, url: str, **kwargs: Any) -> Any:
        found = _CALL.get()
        assert found is not None, "a wire request outside WireHTTPClient.request"
        call: dict[str, Any] = found
        wire, backend = self.wire, self.backend

        class Exchange:
            async def __aenter__(self) -> _Response:
                return await wire.handle(backend, call)

            async def __aexit__(self, *exc: Any) -> None:
                return None

        return Exchange()

    async def close(self) -> None:
        return None


@contextlib.contextmanager
def transports(wire: Wire) -> Iterator[None]:
    """SimCord envs started inside build their REST client and webhook adapter over ``wire``
    (plain SimCord while ``wire.active`` is false)."""
    # imported here: SimCord is a test extra, loaded only when these rows run
    import discord
    import discord.http
    import simcord._runtime
    from simcord.http import router
    from simcord.http.client import FakeHTTPClient, FakeWebhookAdapter, _path_of

    class WireHTTPClient(FakeHTTPClient):
        def __init__(self, backend: Any, loop: Any, **kw: Any) -> None:
            super().__init__(backend, loop, **kw)
            self._global_over = asyncio.Event()
            self._global_over.set()
            setattr(self, "_HTTPClient__session", _Session(wire, backend))  # noqa: B010 - discord.py's private name

        async def request(self, route: discord.http.Route, *, files: Any = None, form: Any = None, **kwargs: Any) -> Any:
            if not wire.active:
                return await super().request(route, files=files, form=form, **kwargs)
            call = {"method": route.method, "path": _path_of(route.url), "json": kwargs.get("json"), "files": files,
                    "form": form, "params": kwargs.get("params"), "reason": kwargs.get("reason"),
                    "access": self.message_content_access}
            token = _CALL.set(call)
            try:
                result = await discord.http.HTTPClient.request(self, route, files=files, form=form, **kwargs)
            finally:
                _CALL.reset(token)
            return None if result == "" else result

    class WireWebhookAdapter(FakeWebhookAdapter):
        async def request(self, route: Any, session: Any, *, payload: Any = None, multipart: Any = None,
                          files: Any = None, params: Any = None, **kwargs: Any) -> Any:
            if not wire.active:
                return await super().request(route, session, payload=payload, multipart=multipart, files=files,
                                             params=params, **kwargs)
            body: Any = payload
            if multipart:
                parsed, _ = router.parse_form(list(multipart), list(files or []))
                body = parsed if parsed is not None else body
            wire.in_flight += 1
            try:
                await asyncio.sleep(wire.round_trip / 2)
                record = wire.arrive_webhook(route.method, _path_of(route.url), body)
                try:
                    result = await super().request(route, session, payload=payload, multipart=multipart, files=files,
                                                   params=params, **kwargs)
                    record.status = 200
                    return result
                except discord.HTTPException as exc:
                    record.status = exc.status
                    raise
                finally:
                    await asyncio.sleep(wire.round_trip / 2)
                    record.done = wire.now()
            finally:
                wire.in_flight -= 1

    saved = simcord._runtime.FakeHTTPClient, simcord._runtime.FakeWebhookAdapter
    simcord._runtime.FakeHTTPClient, simcord._runtime.FakeWebhookAdapter = WireHTTPClient, WireWebhookAdapter  # type: ignore[misc]
    try:
        yield
    finally:
        simcord._runtime.FakeHTTPClient, simcord._runtime.FakeWebhookAdapter = saved  # type: ignore[misc]


@contextlib.contextmanager
def wall_clock(env: Any, wire: Wire) -> Iterator[None]:
    """The env's loop on the wall clock: its timers real again (SimCord's virtual timers fire
    only through its settling), ``time.monotonic`` real (discord.py's rate-limit buckets read
    the loop's time), the wire active. SimCord's own clock stands still meanwhile (it only
    decides the interactions' 3-second window, which the wire measures itself)."""
    # imported here: SimCord is a test extra, loaded only when these rows run
    from simcord import _dpy_internals

    loop, runtime = env._loop, env._runtime
    saved = loop.call_later, loop.call_at, time.monotonic
    loop.call_later, loop.call_at = runtime.call_later, runtime.call_at
    time.monotonic = _dpy_internals._REAL_MONOTONIC
    wire.active = True
    try:
        yield
    finally:
        wire.active = False
        loop.call_later, loop.call_at, time.monotonic = saved


# ---- commands ------------------------------------------------------------------------------
def interaction(env: Any, actor: Any, channel: Any, name: str, options: dict[str, Any]) -> tuple[int, dict[str, Any]]:
    """A slash command's INTERACTION_CREATE, built the way SimCord's ``slash`` builds it."""
    # imported here: SimCord is a test extra, loaded only when these rows run
    from simcord import actors as simcord_actors
    from simcord import interactions as simcord_interactions
    from simcord.enums import AppCommandType, InteractionType

    parts = name.split()
    root = simcord_actors._resolve_visible_command(actor, channel.id, parts[0], AppCommandType.CHAT_INPUT)
    leaf, nesting = simcord_interactions.walk_to_subcommand(root, parts[1:])
    leaf_options, resolved = simcord_interactions.build_options(actor, name, leaf, options, channel_id=channel.id)
    data: dict[str, Any] = {"id": root["id"], "name": root["name"], "type": root.get("type", AppCommandType.CHAT_INPUT),
                            "options": simcord_interactions.nest_options(root, nesting, leaf_options)}
    if resolved:
        data["resolved"] = resolved
    record, payload = simcord_interactions.base_payload(env.backend, type=InteractionType.APPLICATION_COMMAND,
                                                        channel_id=channel.id, guild_id=actor.guild.id, user_id=actor.id, data=data)
    return int(record.id), payload


def undelivered(db: Path) -> int:
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        # the outbox's rows, and the bot's own posts staged as parts and not sent yet (a start's)
        return int(con.execute("SELECT (SELECT COUNT(*) FROM outbox WHERE delivered_at IS NULL)"
                               " + (SELECT COUNT(*) FROM outbox_parts WHERE sent_at IS NULL)").fetchone()[0])
    finally:
        con.close()


async def drive(env: Any, wire: Wire, db: Path, schedule: list[tuple[float, int, dict[str, Any]]], *,
                timeout: float = 150.0) -> float:
    """Send each prepared interaction at its offset (wall seconds from now) and wait until every
    one is answered, nothing is in flight and the outbox is empty (or ``timeout`` seconds passed:
    the posts left are counted in ``wire.left``). Returns the start instant; ``emitted`` of each
    interaction is kept in ``wire``."""
    env._begin_operation("load")
    try:
        with wall_clock(env, wire):
            t0 = wire.now()
            emitted = wire.emitted
            for at, iid, payload in schedule:
                delay = t0 + at - wire.now()
                if delay > 0:
                    await asyncio.sleep(delay)
                emitted[iid] = wire.now()
                env.backend.emit("INTERACTION_CREATE", payload)
                await asyncio.sleep(0)
            quiet_since = None
            wire.left = -1
            while wire.now() - t0 < timeout:
                await asyncio.sleep(0.05)
                done = all(i in wire.answered for i in emitted) and wire.in_flight == 0
                if done and undelivered(db) == 0:
                    quiet_since = quiet_since or wire.now()
                    if wire.now() - quiet_since >= 0.3:
                        wire.left = 0
                        break
                else:
                    quiet_since = None
            if wire.left:
                wire.left = undelivered(db)
    finally:
        env._end_operation()
    await env.settle()
    return t0


# ---- setting the games up (plain SimCord, virtual time) ------------------------------------
async def open_lobby(env: Any, store: Any, n: int, name: str, seed: int, **options: Any) -> tuple[Any, Any, Any, list[Any]]:
    guild = env.create_guild(name)
    lobby = guild.create_text_channel("lobby")
    gm = guild.add_member(env.create_user(f"{name}-gm"))
    members = [guild.add_member(env.create_user(f"{name}-p{i}", global_name=f"Игрок{i + 1}")) for i in range(n)]
    await gm.slash(lobby, "lobby create", **options)
    for lid in await store.lobbies.lobbies(guild.id):  # the same deal every run (the production seed is random)
        await store.lobbies.update_lobby(lid, lambda data: data.update(seed=seed))
    for m in members:
        await m.slash(lobby, "lobby join")
    return guild, lobby, gm, members


def channel_of(env: Any, guild: Any, cid: int) -> Any:
    # imported here: SimCord is a test extra, loaded only when these rows run
    from simcord.builders import ChannelHandle

    return ChannelHandle(env, guild, env.backend.channels[cid])


def _player_commands(env: Any, store: Any, gid: str, guild: Any, members: list[Any]) -> list[list[tuple[Any, Any, str, dict[str, Any]]]]:
    """For each seat with a member: the commands it may send, cycled through: its action with
    one target and then another (each accepted, replacing the last), a PM to the next seat (its
    text filled in later), ``/action me``."""
    game, info = store.games.game(gid), store.games.info(gid)
    by_user = {m.id: m for m in members}
    out = []
    living = [p for p in game.living() if p.user_id in by_user]
    for i, p in enumerate(living):
        member, hidden = by_user[p.user_id], channel_of(env, guild, int(info.meta["channels"][f"player:{p.pid}"]))
        cmds: list[tuple[Any, Any, str, dict[str, Any]]] = []
        for la in game.legal_actions(p.pid):
            k = la.ability.targets
            if la.ability.options or la.ability.number is not None or not 1 <= k < len(la.targets):
                continue
            for first in (la.targets[:k], la.targets[1:k + 1]):
                args: dict[str, Any] = {"ability": f"{la.via}|{la.key}" if la.via else la.key}
                args.update({name: str(t) for name, t in zip(["target", "target2", "target3"], first, strict=False)})
                cmds.append((member, hidden, "action submit", args))
            break
        cmds.append((member, hidden, "pm send", {"to": living[(i + 1) % len(living)].name, "message": ""}))
        cmds.append((member, hidden, "action me", {}))
        out.append(cmds)
    return out


# ---- the rows ------------------------------------------------------------------------------
def bench_load(b: Rows, say: Callable[[str], None], make_bot: Callable[[Path], Any] | None, reason: str | None) -> None:
    """The load rows, or each row's reason for not being measured (``reason``: the bench's
    own check that a bot and SimCord are there)."""
    say("load: 50 games' commands and a 20-seat start on the wall clock")
    titles = {
        "load.reply_p99_ms": "the first response to a player's command under load: 99th percentile (wall clock, a round trip per REST call)",
        "load.pm_posted_p99_ms": "a PM under the same load: from the press to the last of its posts reaching Discord, 99th percentile "
                                 "(information: what a PM's cost is felt as)",
        "lobby.start_20_first_response_s": "/lobby start of a 20-seat Eternal Friday: the first response (wall clock, a round trip per REST call)",
        "lobby.start_20_done_ratio": "/lobby start of a 20-seat Eternal Friday: the time until it is done ÷ its floor at Discord's limits",
    }
    if reason is None:
        assert make_bot is not None
        try:
            asyncio.run(_load_row(b, make_bot, titles))
        except Exception as exc:  # noqa: BLE001 - a bot that fails here is reported, not fatal
            failed = f"not measured: the bot failed under the load ({type(exc).__name__}: {str(exc)[:200]})"
            b.add(SECTION, "load.reply_p99_ms", titles["load.reply_p99_ms"], None, "ms", goal=f"≤ {REPLY_GOAL_MS} ms, 0 lost",
                  not_measured=failed)
            b.add(SECTION, "load.pm_posted_p99_ms", titles["load.pm_posted_p99_ms"], None, "ms", not_measured=failed)
        try:
            asyncio.run(_start_rows(b, make_bot, titles))
        except Exception as exc:  # noqa: BLE001
            reason = f"not measured: the bot failed at the start ({type(exc).__name__}: {str(exc)[:200]})"
        else:
            return
    else:
        b.add(SECTION, "load.reply_p99_ms", titles["load.reply_p99_ms"], None, "ms", goal=f"≤ {REPLY_GOAL_MS} ms, 0 lost",
              not_measured=reason)
        b.add(SECTION, "load.pm_posted_p99_ms", titles["load.pm_posted_p99_ms"], None, "ms", not_measured=reason)
    b.add(SECTION, "lobby.start_20_first_response_s", titles["lobby.start_20_first_response_s"], None, "s", goal="≤ 1 s",
          not_measured=reason)
    b.add(SECTION, "lobby.start_20_done_ratio", titles["lobby.start_20_done_ratio"], None, "×", goal="≤ 1.2× the floor",
          not_measured=reason)


def _size(name: str, quick: bool) -> Any:
    full, small = LOAD[name]
    return small if quick else full


@dataclass
class LoadResult:
    """One load run: each command's first-response latency (seconds, from the press), what was
    lost, what Discord refused, the setup."""

    games: int
    seats: int
    commands: int
    seconds: float
    round_trip: float
    latency: list[float]
    answer: list[float]  # … to the answer itself (the same unless the bot deferred)
    deferred: int
    kinds: Counter[str]
    by_kind: dict[str, list[float]]  # the first-response latencies by command
    pm_posted: list[float]  # each accepted PM: from the press to the last of its posts reaching Discord
    unanswered: int
    late: int
    lost: int
    pms_accepted: int
    doubled: list[str]
    missing: list[str]
    refused: list[Call]
    left: int  # posts not delivered within the run's window
    rest_calls: int
    limited: int
    span: float
    setup: float
    transactions: Counter[str] = field(default_factory=Counter)  # committed during the run, by label
    cpu: float = 0.0  # CPU seconds of the whole process (bot, SimCord, the database's thread) during the run
    wall: float = 0.0  # the run's wall seconds (the commands' window and the deliveries after it)


async def run_load(make_bot: Callable[[Path], Any], *, games: int, commands: int, seconds: float, seats: int,
                   round_trip: float = ROUND_TRIP) -> LoadResult:
    """``games`` games of Godfather's Legacy of ``seats`` (one server each) set up under plain
    SimCord; then ``commands`` commands in ``seconds`` of wall clock, evenly spaced, round-robin
    over the games, each from a random seat in its own channel (its action with one target,
    then another, a PM to the next seat, ``/action me``, in turn), on the wire."""
    # imported here: SimCord is a test extra, loaded only when these rows run
    import simcord

    wire = Wire(round_trip=round_trip)
    with tempfile.TemporaryDirectory(prefix="altmafia-load-") as d, transports(wire):
        db = Path(d) / "load.sqlite3"
        bot = make_bot(db)
        env = simcord.Env(cast("Any", bot), settle_timeout=120.0)
        await env.start()
        try:
            store = bot.store
            s0 = time.perf_counter()
            tables = []
            # the setup is not measured: its commits need not wait for the disk; the run's do
            # (the bot's own setting, synchronous=FULL in production)
            mode = getattr(store.backend, "synchronous", None)
            if mode is not None:
                await store.backend.execute("PRAGMA synchronous=NORMAL")
            for g in range(games):
                guild, lobby, gm, members = await open_lobby(env, store, seats, f"load{g}", BENCH_SEED + g)
                await gm.slash(lobby, "lobby start")
                (gid,) = {i.game_id for i in store.games.games() if i.guild_id == guild.id}
                tables.append(_player_commands(env, store, gid, guild, members))
            if mode is not None:
                await store.backend.execute(f"PRAGMA synchronous={mode}")
            setup = time.perf_counter() - s0
            rnd = random.Random(BENCH_SEED)
            turn: Counter[tuple[int, int]] = Counter()
            schedule: list[tuple[float, int, dict[str, Any]]] = []
            kinds: Counter[str] = Counter()
            kind_of: dict[int, str] = {}
            pms: dict[int, str] = {}
            for k in range(commands):
                g = k % games
                seat = rnd.randrange(len(tables[g]))
                cmds = tables[g][seat]
                actor, channel, name, options = cmds[turn[g, seat] % len(cmds)]
                turn[g, seat] += 1
                if name == "pm send":
                    options = {**options, "message": f"нагрузка {k}"}
                iid, payload = interaction(env, actor, channel, name, options)
                schedule.append((k * seconds / commands, iid, payload))
                kinds[name] += 1
                kind_of[iid] = name
                if name == "pm send":
                    pms[iid] = options["message"]
            tx0 = Counter(store.transactions)
            c0, w0 = time.process_time(), time.perf_counter()
            t0 = await drive(env, wire, db, schedule)
            cpu, wall = time.process_time() - c0, time.perf_counter() - w0
            tx = Counter(store.transactions)
            tx.subtract(tx0)
            emitted = {iid: wire.emitted[iid] for _, iid, _ in schedule}
            half = wire.round_trip / 2
            latency = {iid: wire.first[iid] - at + half for iid, at in emitted.items() if iid in wire.first}
            answer = sorted(wire.answered_at[i] - at + half for i, at in emitted.items() if i in wire.answered_at)
            deferred = sum(1 for i in emitted if i in wire.answered_at and i in wire.first and wire.answered_at[i] > wire.first[i])
            late = {i for i, v in latency.items() if v > FIRST_RESPONSE_LIMIT}
            unanswered = {i for i in emitted if i not in wire.answered}
            accepted = {i: t for i, t in pms.items() if not wire.answered.get(i, "⛔").startswith("⛔")}
            doubled, missing = _posts_once(env, accepted)
            posted = _posted(wire, accepted)
            return LoadResult(
                games=games, seats=seats, commands=commands, seconds=seconds, round_trip=round_trip,
                latency=sorted(latency.values()), answer=answer, deferred=deferred, kinds=kinds,
                by_kind={k: sorted(v for i, v in latency.items() if kind_of[i] == k) for k in kinds},
                pm_posted=sorted(posted[i] - emitted[i] + half for i in posted), unanswered=len(unanswered), late=len(late),
                lost=len(late | unanswered | (set(emitted) - set(latency))) + wire.left, pms_accepted=len(accepted), doubled=doubled,
                missing=missing, refused=wire.refused(), left=wire.left, rest_calls=len([c for c in wire.calls if not c.exempt]),
                limited=wire.limited, span=max(c.done for c in wire.calls) - t0, setup=setup,
                transactions=+tx, cpu=cpu, wall=wall)
        finally:
            await stop(env)


async def _load_row(b: Rows, make_bot: Callable[[Path], Any], titles: dict[str, str]) -> None:
    games, commands, seconds, seats = (_size(k, b.quick) for k in ("games", "commands", "seconds", "seats"))
    r = await run_load(make_bot, games=games, commands=commands, seconds=seconds, seats=seats,
                       round_trip=QUICK_ROUND_TRIP if b.quick else ROUND_TRIP)
    ms = [v * 1000 for v in r.latency]
    answer = [v * 1000 for v in r.answer]
    p99 = _percentile(ms, 99)
    ok = p99 <= REPLY_GOAL_MS and r.lost == 0 and not r.doubled and not r.missing and not r.refused
    b.add(SECTION, "load.reply_p99_ms", titles["load.reply_p99_ms"], p99, "ms", goal=f"≤ {REPLY_GOAL_MS} ms, 0 lost", ratio=p99 / REPLY_GOAL_MS, ok=ok,
          note=f"{r.games} games of Godfather's Legacy ({r.seats} seats, one server each) set up under plain SimCord in {r.setup:.0f} s "
          f"(its commits with synchronous=NORMAL; the run's with the bot's own setting); "
          f"then {r.commands} commands in {r.seconds:g} s of wall clock, evenly spaced, round-robin over the games, each from a random "
          f"seat in its own channel ({', '.join(f'{n} /{k}' for k, n in r.kinds.most_common())}); round trip {r.round_trip * 1000:.0f} ms; "
          f"from the press (the command reaches the bot half a round trip later) to its first response reaching Discord; "
          f"p50 {_percentile(ms, 50):.0f} ms, p90 {_percentile(ms, 90):.0f} ms, max {ms[-1] if ms else math.nan:.0f} ms; "
          f"p99 by command: {', '.join(f'/{k} {_percentile([v * 1000 for v in vs], 99):.0f} ms' for k, vs in r.by_kind.items())}; "
          f"CPU of the whole process during the run {r.cpu:.1f} s in {r.wall:.0f} s of wall clock ({r.cpu / r.commands * 1000:.1f} ms "
          f"a command, deliveries included; the machine's 2 cores are shared, so the tail moves with its load); "
          f"{r.deferred} deferred; to the answer itself p50 {_percentile(answer, 50):.0f} ms, p99 {_percentile(answer, 99):.0f} ms; "
          f"lost {r.lost} (unanswered {r.unanswered}, first response after 3 s {r.late}, posts undelivered after 150 s {r.left}); of {r.pms_accepted} accepted PMs "
          f"posted twice {len(r.doubled)}, never {len(r.missing)}; Discord refused {len(r.refused)}; {r.rest_calls} REST calls "
          f"besides the interactions', {r.limited} answered 429; {_total(r.transactions)} transactions committed (one "
          f"connection, one lock: {', '.join(f'{n} {k}' for k, n in r.transactions.most_common(5) if k != 'total')}); all done {r.span:.1f} s after the first command; one run "
          f"(the percentile is over all {r.commands} commands)")
    posted = [v * 1000 for v in r.pm_posted]
    b.add(SECTION, "load.pm_posted_p99_ms", titles["load.pm_posted_p99_ms"], _percentile(posted, 99), "ms",
          note=f"the same run: {len(posted)} of {r.pms_accepted} accepted PMs with every post reaching Discord; from the press to "
          f"the last post holding the PM's text (the recipient's, the sender's copy) reaching Discord; the reply goes first, the "
          f"posts after it; p50 {_percentile(posted, 50):.0f} ms, p90 {_percentile(posted, 90):.0f} ms, "
          f"max {posted[-1] if posted else math.nan:.0f} ms; round trip {r.round_trip * 1000:.0f} ms")


def _total(transactions: Counter[str]) -> int:
    """The store counts each commit under its label and under ``total``."""
    return transactions["total"] if "total" in transactions else sum(transactions.values())


def _posts_once(env: Any, texts: dict[int, str]) -> tuple[list[str], list[str]]:
    """Each accepted PM's text posted at least once, and never twice in one channel."""
    seen: Counter[tuple[int, str]] = Counter()
    wanted = set(texts.values())
    for cid, messages in env.backend.messages.items():
        for m in messages.values():
            for t in wanted:
                if re.search(rf"{re.escape(t)}(?!\d)", m.content or ""):
                    seen[cid, t] += 1
    doubled = sorted({t for (_, t), n in seen.items() if n > 1})
    missing = sorted(wanted - {t for (_, t) in seen})
    return doubled, missing


def _posted(wire: Wire, texts: dict[int, str]) -> dict[int, float]:
    """When the last post of each PM (interaction id -> its unique text) reached Discord: the
    posts accepted on the wire whose text holds it (the recipient's and the sender's copy)."""
    posts = [c for c in wire.calls if c.method == "POST" and 200 <= c.status < 300 and c.content
             and re.fullmatch(r"/channels/\d+/messages", c.path)]
    out: dict[int, float] = {}
    for iid, text in texts.items():
        found = re.compile(rf"{re.escape(text)}(?!\d)")
        arrived = [c.arrived for c in posts if found.search(c.content)]
        if arrived:
            out[iid] = max(arrived)
    return out


def _percentile(values: list[float], q: float) -> float:
    if not values:
        return math.nan
    k = max(0, min(len(values) - 1, math.ceil(q / 100 * len(values)) - 1))
    return sorted(values)[k]


def start_floor(calls: list[Call], round_trip: float) -> tuple[float, str]:
    """The least time Discord's limits allow for these calls: the global 50 a second (the
    interaction callbacks and followups exempt), each per-route bucket the wire keeps
    (:func:`route_bucket`: 5 messages per 5 s a channel, :data:`CHANNEL_CREATE_BUCKET` channel
    creations a server), and the chain no start can skip (the command in, a category, a
    channel in it, a post in that: half, one, one and half a round trip)."""
    counted = [c for c in calls if not c.exempt and c.status != 429]
    per_bucket = Counter(found[0] for c in counted if (found := route_bucket(c.method, c.path)) is not None)

    def bucket_floor(kind: str, limit: int, period: float) -> tuple[float, int]:
        busiest = max((n for key, n in per_bucket.items() if key.startswith(f"{kind}:")), default=0)
        return max(0.0, (math.ceil(busiest / limit) - 1) * period), busiest

    channel_floor, busiest = bucket_floor("messages", *MESSAGE_BUCKET)
    create_floor, creates = bucket_floor("channels", *CHANNEL_CREATE_BUCKET)
    global_floor = len(counted) / GLOBAL_LIMIT
    chain = 3 * round_trip
    floor = max(global_floor, channel_floor, create_floor, chain)
    limit, period = CHANNEL_CREATE_BUCKET
    return floor, (f"{len(counted)} REST calls ÷ {GLOBAL_LIMIT}/s = {global_floor:.2f} s; the busiest channel {busiest} posts "
                   f"({channel_floor:.1f} s at 5 per 5 s); {creates} channel creations ({create_floor:.1f} s at {limit} per "
                   f"{period:g} s a server, assumed: Discord documents no figure); the chain command-category-channel-post {chain:.1f} s")


@dataclass
class StartRun:
    """One ``/lobby start``: seconds from the press to the first response and to the last of its
    calls reaching Discord, the floor of its calls, the calls, the GM's answer."""

    first: float
    done: float
    floor: float
    how: str
    calls: list[Call]
    answer: str


async def run_starts(make_bot: Callable[[Path], Any], *, seats: int, runs: int,
                     round_trip: float = ROUND_TRIP) -> tuple[list[StartRun], Wire]:
    """``runs`` lobbies of Eternal Friday with ``seats`` signed up, each on its own server (set
    up under plain SimCord), started one after another on the wire."""
    # imported here: SimCord is a test extra, loaded only when these rows run
    import simcord

    wire = Wire(round_trip=round_trip)
    out = []
    with tempfile.TemporaryDirectory(prefix="altmafia-start-") as d, transports(wire):
        db = Path(d) / "start.sqlite3"
        bot = make_bot(db)
        env = simcord.Env(cast("Any", bot), settle_timeout=120.0)
        await env.start()
        try:
            lobbies = [await open_lobby(env, bot.store, seats, f"start{r}", BENCH_SEED, ruleset="eternal_friday") for r in range(runs)]
            for guild, lobby, gm, _ in lobbies:
                n0 = len(wire.calls)
                iid, payload = interaction(env, gm, lobby, "lobby start", {})
                t0 = await drive(env, wire, db, [(0.0, iid, payload)])
                calls = wire.calls[n0:]
                if not any(i.guild_id == guild.id for i in bot.store.games.games()):
                    raise RuntimeError(f"the start did not start: {wire.answered.get(iid)!r}")
                half = wire.round_trip / 2
                floor, how = start_floor(calls, wire.round_trip)
                out.append(StartRun(first=wire.first[iid] - t0 + half, done=max(c.arrived for c in calls) - t0 + half,
                                    floor=floor, how=how, calls=calls, answer=wire.answered.get(iid, "")))
        finally:
            await stop(env)
    return out, wire


def start_phases(calls: list[Call]) -> str:
    """The start's calls by kind, each kind's count, its span (first sent to last answered) and
    how many were in flight at once at most."""
    kinds: dict[str, list[Call]] = {}
    for c in calls:
        kind = ("interaction" if c.exempt else "channel create" if re.fullmatch(r"/guilds/\d+/channels", c.path) and c.method == "POST"
                else "overwrite" if "/permissions/" in c.path else "post" if c.method == "POST" and c.path.endswith("/messages")
                else f"{c.method} other")
        kinds.setdefault(kind, []).append(c)
    t0 = min(c.sent for c in calls)
    out = []
    for kind, cs in kinds.items():
        edges = sorted([(c.sent, 1) for c in cs] + [(c.done, -1) for c in cs if not math.isnan(c.done)])
        most = now = 0
        for _, step in edges:
            now += step
            most = max(most, now)
        out.append(f"{len(cs)} {kind} from {min(c.sent for c in cs) - t0:.1f} to {max(c.done for c in cs) - t0:.1f} s, "
                   f"at most {most} at once")
    return "; ".join(out)


async def _start_rows(b: Rows, make_bot: Callable[[Path], Any], titles: dict[str, str]) -> None:
    seats, runs = (START_SEATS[1], START_RUNS[1]) if b.quick else (START_SEATS[0], START_RUNS[0])
    starts, wire = await run_starts(make_bot, seats=seats, runs=runs, round_trip=QUICK_ROUND_TRIP if b.quick else ROUND_TRIP)
    firsts, dones = [r.first for r in starts], [r.done for r in starts]
    first, done, floor = statistics.median(firsts), statistics.median(dones), statistics.median(r.floor for r in starts)
    last = starts[-1]
    counted = [c for c in last.calls if not c.exempt and c.status != 429]
    refused = wire.refused()
    b.add(SECTION, "lobby.start_20_first_response_s", titles["lobby.start_20_first_response_s"], first, "s", goal="≤ 1 s",
          ratio=first, ok=first <= 1.0 and not refused,
          note=f"median of {runs} starts of {seats} seats, each of its own server, one after another in one bot; round trip "
          f"{wire.round_trip * 1000:.0f} ms; from the press (the command reaches the bot half a round trip later) to the first "
          f"response (the bot defers) reaching Discord; runs {', '.join(f'{x:.2f}' for x in firsts)} s; Discord refused {len(refused)}")
    ratio = done / floor
    phases = start_phases(last.calls)
    b.add(SECTION, "lobby.start_20_done_ratio", titles["lobby.start_20_done_ratio"], ratio, "×", goal="≤ 1.2× the floor",
          ratio=ratio, ok=ratio <= 1.2 and not refused,
          note=f"done (the last of the start's calls reaching Discord: channels, role cards, briefing, the replies) median "
          f"{done:.2f} s (runs {', '.join(f'{x:.2f}' for x in dones)} s) against the floor {floor:.2f} s; the last run "
          f"{len(counted)} REST calls and {len(last.calls) - len(counted)} interaction callbacks and followups ({phases}); "
          f"floor: {last.how}; "
          f"{wire.limited} answered 429")
