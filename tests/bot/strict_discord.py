"""The strict test Discord: SimCord refusing what Discord refuses.

SimCord replaces discord.py's ``HTTPClient.request`` and forgives much of what Discord refuses
(see /work/shared/DISCORD-TESTING.md). This layer puts back, for every bot test:

* discord.py's own ``HTTPClient.request`` (its buckets, locks, 429 retries and the global
  lock) over a fake aiohttp session whose ``request()`` dispatches into SimCord's router;
  Discord's rate limits answered with 429 and the headers discord.py reads (Topics, "Rate
  Limits"): 5 messages per 5 s a channel, 2 name or topic edits per 10 minutes a channel,
  channel creations a server (``CHANNEL_CREATE_BUCKET``, assumed: Discord documents no figure),
  50 requests a second globally (interaction callbacks exempt). discord.py's rate-limit sleeps
  pass virtual time only, so the suite does not wait for them;
* a round trip per REST call charged to SimCord's virtual clock (``ROUND_TRIP_SECONDS``;
  requests sent within a few loop turns of each other, ``OVERLAP_TURNS``, overlap), so
  work before an interaction's defer counts against its 3-second deadline and the 15-minute
  token (Interactions, "Receiving and Responding"), which SimCord checks in virtual time.
  The clock moves only once the database's thread is idle (:func:`database_calls`): a call
  there takes wall-clock milliseconds, and a rate-limit sleep of another request must not pass
  seconds of virtual time in the meantime (a test that wants a slow database moves the clock
  itself);
* ``nonce`` + ``enforce_nonce`` as in Channel resource, "Create Message";
* the payload limits of ``discord_limits.py`` (messages, embeds, components, files, command
  sync, autocomplete), overwrites (count and the bits the bot holds), channel counts and
  text-channel name normalisation;
* the bot's managed role holding exactly the invite permissions (``altmafia.bot.permissions.INVITE``,
  the README's list);
* connections that break, when a test asks for them (:meth:`StrictDiscord.drop`): ``"before"``
  Discord saw the request (a reset: ``aiohttp.ClientOSError`` ``ECONNRESET``), ``"after"`` Discord
  did it and the answer was lost (``aiohttp.ServerDisconnectedError``), or ``"timeout"``: done,
  and the answer too late for the bot's client (``asyncio.TimeoutError``). discord.py passes
  these to the bot as they are (it retries only BSD's and Windows' resets).

Every REST request is logged as it goes out (``StrictDiscord.log``: how many others were in
flight then, its status), so a test can assert what went out together. Every refused request
is recorded (``StrictDiscord.refused``); the ``env`` fixture fails a test
that ends with a refusal unless it is marked ``discord_refusals("why")``.
"""

from __future__ import annotations

import asyncio
import contextvars
import errno
import json
import os
import re
import time
import types
from dataclasses import dataclass
from typing import Any

import aiohttp
import aiosqlite
import discord
import discord.http
import simcord
import simcord._runtime
from multidict import CIMultiDict
from simcord.backend import serializers
from simcord.backend.errors import BackendError
from simcord.http import router
from simcord.http.client import FakeHTTPClient, FakeWebhookAdapter, _path_of, _raise_for

from . import discord_limits as limits
from .discord_limits import Refusal

#: virtual seconds each REST call takes (half out, half back)
ROUND_TRIP_SECONDS = 0.05
#: loop turns a request waits before its time passes: the requests other tasks send meanwhile
#: start at the same virtual instant and overlap it
OVERLAP_TURNS = 10
#: Rate Limits: per-route buckets as (method, path pattern, limit, period seconds, when)
MESSAGE_BUCKET = (5, 5.0)
CHANNEL_RENAME_BUCKET = (2, 600.0)
#: channel creations a server: Discord documents no figure and tells the bucket in its headers
#: (counted per top-level resource, the guild); assumed no stricter than the global limit, as
#: the bench's wire does (altmafia/tools/bench_load.py). Without the headers discord.py would
#: send one creation at a time, whatever the bot asks
CHANNEL_CREATE_BUCKET = (50, 1.0)
GLOBAL_LIMIT = 50  # requests a second

#: wall-clock seconds a request waits at most for the database's thread to go idle before its
#: virtual time passes anyway (checked each time a call there ends)
DATABASE_IDLE_WAIT = 2.0

_CALL: contextvars.ContextVar[dict[str, Any] | None] = contextvars.ContextVar("strict_call", default=None)


#: how a connection breaks (:meth:`StrictDiscord.drop`)
DROPS = ("before", "after", "timeout")


@dataclass
class Drop:
    """Connections to break: requests of ``method`` whose path matches ``path`` (a regular
    expression, matched whole), the next ``times`` of them (None: until removed)."""

    method: str
    path: str
    kind: str
    times: int | None = 1


@dataclass
class Exchanged:
    """One REST request as the strict layer saw it (``StrictDiscord.log``): what, the body sent,
    how many other requests were in flight when it went out, its answer's status."""

    method: str
    path: str
    body: Any
    alongside: int
    status: int = 0


@dataclass(frozen=True)
class Refused:
    method: str
    path: str
    status: int
    code: int
    message: str
    detail: str = ""

    def __str__(self) -> str:
        return f"{self.method} {self.path} -> {self.status} {self.code} {self.message}" + \
            (f" ({self.detail})" if self.detail else "")


class StrictDiscord:
    """The strict layer of one ``simcord.Env`` (``env.strict``)."""

    def __init__(self, env: simcord.Env, *, round_trip: float = ROUND_TRIP_SECONDS, rate_limits: bool = True) -> None:
        self.env, self.backend = env, env.backend
        self.round_trip = round_trip
        self.rate_limits = rate_limits
        self.refused: list[Refused] = []
        self.rate_limited: list[tuple[str, str, float, bool]] = []  # method, path, retry_after, global
        self.nonce_hits: list[tuple[int, str]] = []
        self.swallowed: list[str] = []  # nonce hits whose post differed from the earlier message
        self.injected: list[Refused] = []  # faults the test injected (env.inject_error): not Discord's refusals
        self.fault_fired = False
        self.drops: list[Drop] = []
        self.dropped: list[tuple[str, str, str]] = []  # (kind, method, path) of each connection broken
        self.log: list[Exchanged] = []  # every REST request, in the order it went out
        self.in_flight = 0
        self._nonces: dict[tuple[int, str], tuple[int, float]] = {}
        self._buckets: dict[str, tuple[float, int]] = {}  # key -> (window start, count)
        self._global: tuple[float, int] = (-1.0, 0)
        env.strict = self  # type: ignore[attr-defined]
        env.backend._strict = self  # type: ignore[attr-defined]
        original = env.backend.add_member

        def add_member(guild_id: int, user_id: int, **kw: Any) -> Any:
            if user_id == self.backend.bot_user.id:
                guild = self.backend.get_guild(guild_id)
                for role_id in kw.get("roles") or ():
                    if guild.roles[role_id].managed:
                        guild.roles[role_id].permissions = limits.INVITE_PERMISSIONS
            return original(guild_id, user_id, **kw)

        env.backend.add_member = add_member  # type: ignore[method-assign]

    # ---- time ------------------------------------------------------------------------------
    @property
    def now(self) -> float:
        return self.env._virtual_time

    async def travel(self, seconds: float) -> None:
        """``seconds`` pass for this request: concurrent requests that start at the same virtual
        instant (one loop turn) overlap rather than add up."""
        if seconds <= 0:
            return
        target = self.now + seconds
        for _ in range(OVERLAP_TURNS):
            await asyncio.sleep(0)
        await _database_idle()
        if self.now < target:
            self.env._move_clock(target)

    # ---- rate limits -----------------------------------------------------------------------
    def _bucket(self, method: str, path: str, body: Any) -> tuple[str, int, float] | None:
        m = re.fullmatch(r"/channels/(\d+)/messages", path)
        if method == "POST" and m:
            return f"messages:{m.group(1)}", *MESSAGE_BUCKET
        m = re.fullmatch(r"/channels/(\d+)", path)
        if method == "PATCH" and m and isinstance(body, dict) and ("name" in body or "topic" in body):
            return f"rename:{m.group(1)}", *CHANNEL_RENAME_BUCKET
        m = re.fullmatch(r"/guilds/(\d+)/channels", path)
        if method == "POST" and m:
            return f"channels:{m.group(1)}", *CHANNEL_CREATE_BUCKET
        return None

    def _rate_limit(self, method: str, path: str, body: Any) -> tuple[dict[str, str], Refusal | None]:
        """Headers for this response, or a 429 (Topics, "Rate Limits": the per-route
        ``X-RateLimit-*`` headers, ``retry_after`` and ``global`` in the body, a ``Via`` header
        on Discord's own 429s; "Global Rate Limit": 50 requests per second, interaction
        endpoints exempt)."""
        if not self.rate_limits:
            return {}, None
        now = self.now
        start, count = self._global
        if now - start >= 1.0:
            start, count = now, 0
        if count >= GLOBAL_LIMIT:
            retry = round(start + 1.0 - now, 3)
            self.rate_limited.append((method, path, retry, True))
            return ({"Via": "1.1 google", "X-RateLimit-Global": "true", "X-RateLimit-Scope": "global",
                     "Retry-After": str(max(1, int(retry + 0.999)))},
                    Refusal(429, 0, "You are being rate limited.", {"retry_after": retry, "global": True}))
        self._global = (start, count + 1)
        bucket = self._bucket(method, path, body)
        if bucket is None:
            return {}, None
        key, limit, period = bucket
        start, count = self._buckets.get(key, (-1e18, 0))
        if now - start >= period:
            start, count = now, 0
        reset_after = round(start + period - now, 3)
        headers = {"X-RateLimit-Limit": str(limit), "X-RateLimit-Bucket": key.split(":")[0],
                   "X-RateLimit-Reset-After": str(reset_after),
                   "X-RateLimit-Reset": str(self.backend.clock.now().timestamp() + reset_after)}
        if count >= limit:
            self.rate_limited.append((method, path, reset_after, False))
            headers.update({"X-RateLimit-Remaining": "0", "X-RateLimit-Scope": "user", "Via": "1.1 google",
                            "Retry-After": str(max(1, int(reset_after + 0.999)))})
            return headers, Refusal(429, 0, "You are being rate limited.", {"retry_after": reset_after, "global": False})
        self._buckets[key] = (start, count + 1)
        headers["X-RateLimit-Remaining"] = str(limit - count - 1)
        return headers, None

    # ---- checks ----------------------------------------------------------------------------
    def _held(self, guild_id: int, channel_id: int | None = None) -> int:
        """The bits the bot holds here through its own roles: what Discord computes, less what
        only @everyone grants, since the bot must work on a server whose @everyone grants
        nothing beyond the README's invite list (the worst server the README allows)."""
        guild = self.backend.get_guild(guild_id)
        own = 0
        for role_id in guild.members[self.backend.bot_user.id].role_ids:
            if role_id != guild_id and role_id in guild.roles:
                own |= guild.roles[role_id].permissions
        return self.backend.compute_permissions(guild_id, self.backend.bot_user.id, channel_id) & own

    def _manage_roles_overwrite(self, channel: Any) -> bool:
        bot = self.backend.bot_user.id
        guild = self.backend.get_guild(channel.guild_id)
        mine = {bot, *guild.members[bot].role_ids}
        return any(o.target_id in mine and o.allow & limits.MANAGE_ROLES for o in channel.overwrites)

    def _guild_channels(self, guild_id: int, parent_id: int | None = None) -> int:
        guild = self.backend.get_guild(guild_id)
        channels = [self.backend.channels[c] for c in guild.channel_ids if c in self.backend.channels]
        if parent_id is None:
            return len(channels)
        return sum(1 for c in channels if c.parent_id == parent_id)

    def check(self, method: str, path: str, body: Any, files: list[tuple[str, int]]) -> Any:
        """Refuse what Discord refuses; return the body to dispatch (names normalised)."""
        if body is not None and limits.json_size(body) + sum(s for _, s in files) > limits.REQUEST_BYTES:
            raise Refusal(413, 40005, "Request entity too large")
        if method in ("POST", "PATCH") and re.fullmatch(r"/channels/\d+/messages(/\d+)?", path):
            limits.check_message(body, files)
        elif re.fullmatch(r"/applications/\d+(/guilds/\d+)?/commands", path) and method == "PUT":
            limits.check_commands(list(body or []))
        elif re.fullmatch(r"/applications/\d+(/guilds/\d+)?/commands(/\d+)?", path) and method in ("POST", "PATCH"):
            limits.check_command(body or {})
        elif (m := re.fullmatch(r"/guilds/(\d+)/channels", path)) and method == "POST":
            body = self._check_create_channel(int(m.group(1)), dict(body or {}))
        elif (m := re.fullmatch(r"/channels/(\d+)", path)) and method == "PATCH":
            body = self._check_edit_channel(int(m.group(1)), dict(body or {}))
        elif (m := re.fullmatch(r"/channels/(\d+)/permissions/(\d+)", path)) and method == "PUT":
            channel = self.backend.get_channel(int(m.group(1)))
            others = [o for o in channel.overwrites if o.target_id != int(m.group(2))]
            if len(others) + 1 > limits.CHANNEL_OVERWRITES:
                raise limits.invalid_form("permission_overwrites", "BASE_TYPE_MAX_LENGTH",
                                          "Maximum number of permission overwrites reached (1000)")
            limits.check_overwrite_bits([body or {}], self._held(channel.guild_id, channel.parent_id),
                                        manage_roles_overwrite=self._manage_roles_overwrite(channel))
        return body

    def _normalised(self, body: dict[str, Any], kind: int) -> dict[str, Any]:
        if "name" in body:
            limits.check_channel_name(body["name"])
            if kind in (0, 5):
                body["name"] = limits.normalise_channel_name(str(body["name"]))
                limits.check_channel_name(body["name"])
        return body

    def _check_create_channel(self, guild_id: int, body: dict[str, Any]) -> dict[str, Any]:
        """Guild resource, "Create Guild Channel"; JSON error 30013 "Maximum number of guild
        channels reached (500)" (categories count); 50 channels a category ("Channel
        resource": CHANNEL_PARENT_MAX_CHANNELS in ``parent_id``)."""
        overwrites = list(body.get("permission_overwrites") or [])
        limits.check_create_overwrites(overwrites)
        limits.check_overwrite_bits(overwrites, self._held(guild_id))
        if self._guild_channels(guild_id) >= limits.GUILD_CHANNELS:
            raise Refusal(400, 30013, "Maximum number of guild channels reached (500)")
        if body.get("parent_id") and self._guild_channels(guild_id, int(body["parent_id"])) >= limits.CATEGORY_CHANNELS:
            raise limits.invalid_form("parent_id", "CHANNEL_PARENT_MAX_CHANNELS",
                                      "Maximum number of channels in category reached (50)")
        return self._normalised(body, int(body.get("type", 0)))

    def _check_edit_channel(self, channel_id: int, body: dict[str, Any]) -> dict[str, Any]:
        """Channel resource, "Modify Channel": overwrites limited to the bits the bot holds in
        the guild or the parent category, 1000 a channel; a move into a full category refused."""
        channel = self.backend.get_channel(channel_id)
        if body.get("permission_overwrites") is not None:
            overwrites = list(body["permission_overwrites"])
            if len(overwrites) > limits.CHANNEL_OVERWRITES:
                raise limits.invalid_form("permission_overwrites", "BASE_TYPE_MAX_LENGTH",
                                          "Must be 1000 or fewer in length.")
            parent = int(body["parent_id"]) if body.get("parent_id") else channel.parent_id
            limits.check_overwrite_bits(overwrites, self._held(channel.guild_id, parent),
                                        manage_roles_overwrite=self._manage_roles_overwrite(channel))
        parent_id = body.get("parent_id")
        if parent_id and int(parent_id) != channel.parent_id and \
                self._guild_channels(channel.guild_id, int(parent_id)) >= limits.CATEGORY_CHANNELS:
            raise limits.invalid_form("parent_id", "CHANNEL_PARENT_MAX_CHANNELS",
                                      "Maximum number of channels in category reached (50)")
        return self._normalised(body, channel.type)

    def check_webhook(self, method: str, path: str, body: Any, files: list[tuple[str, int]]) -> None:
        """Interaction callbacks, followups and their edits (Interactions, "Receiving and
        Responding": followups and original-response edits take a message body)."""
        if re.fullmatch(r"/interactions/\d+/[^/]+/callback", path):
            limits.check_interaction_callback(body or {})
            limits.check_files(files)
        elif method in ("POST", "PATCH") and path.startswith("/webhooks/"):
            limits.check_message(body, files)

    # ---- nonces ----------------------------------------------------------------------------
    def earlier_message(self, path: str, body: Any) -> dict[str, Any] | None:
        """Channel resource, "Create Message": with ``enforce_nonce`` and a nonce the same author
        used in the same channel "in the past few minutes", Discord returns that message and
        creates none (``NONCE_WINDOW_SECONDS`` of virtual time here)."""
        m = re.fullmatch(r"/channels/(\d+)/messages", path)
        if not (m and isinstance(body, dict) and body.get("nonce") is not None and body.get("enforce_nonce")):
            return None
        channel_id = int(m.group(1))
        seen = self._nonces.get((channel_id, str(body["nonce"])))
        if seen is None or self.now - seen[1] > limits.NONCE_WINDOW_SECONDS:
            return None
        message = self.backend.messages.get(channel_id, {}).get(seen[0])
        if message is None:
            return None
        self.nonce_hits.append((channel_id, str(body["nonce"])))
        if (body.get("content") or "") != (message.content or ""):
            # Discord says nothing; the test is told: a different post was swallowed
            self.swallowed.append(f"POST {path} -> nonce {body['nonce']!r} returned the earlier message "
                                  f"{message.id}: a different post was swallowed ({(body.get('content') or '')[:60]!r})")
        return dict(serializers.message_payload(self.backend, message))

    def remember_nonce(self, path: str, body: Any, result: Any) -> None:
        m = re.fullmatch(r"/channels/(\d+)/messages", path)
        if m and isinstance(body, dict) and body.get("nonce") is not None and isinstance(result, dict):
            self._nonces[(int(m.group(1)), str(body["nonce"]))] = (int(result["id"]), self.now)

    # ---- one request -----------------------------------------------------------------------
    def refuse(self, method: str, path: str, status: int, code: int, message: str, detail: str = "") -> None:
        """Record a refusal; one the test injected itself goes to ``injected`` instead."""
        record = Refused(method, path, status, code, message, detail)
        if self.fault_fired:
            self.fault_fired = False
            self.injected.append(record)
        else:
            self.refused.append(record)

    async def handle(self, call: dict[str, Any]) -> _Response:
        method, path = call["method"], call["path"]
        json_body, file_list = call["json"], list(call["files"] or [])
        if call["form"] is not None:
            payload, file_list = router.parse_form(list(call["form"]), file_list)
            if payload is not None:
                json_body = payload
        await self.travel(self.round_trip / 2)
        try:
            headers, limited = self._rate_limit(method, path, json_body)
            if limited is not None:
                return _Response(429, {"message": limited.message, "code": 0, **(limited.errors or {})}, headers)
            try:
                json_body = self.check(method, path, json_body, _sizes(file_list))
                result = self.earlier_message(path, json_body)
                if result is None:
                    result = router.dispatch(self.backend, method, path, json=json_body, params=call["params"],
                                             files=file_list, reason=call["reason"],
                                             message_content_access=call["access"])
                    self.remember_nonce(path, json_body, result)
            except (router.RouteNotImplemented, router.UnsupportedField):
                raise
            except (Refusal, BackendError) as exc:
                self.refuse(method, path, exc.status, exc.code, exc.message, _detail(exc))
                return _Response(exc.status, exc.to_json(), headers)
            return _Response(200 if result is not None else 204, result, headers)
        finally:
            await self.travel(self.round_trip / 2)

    # ---- broken connections ----------------------------------------------------------------
    def drop(self, method: str, path: str, kind: str = "after", times: int | None = 1) -> Drop:
        """Break the connection of the next ``times`` requests of ``method`` to a path matching
        ``path`` (a regular expression), in the way ``kind`` says (:data:`DROPS`)."""
        if kind not in DROPS:
            raise ValueError(f"a connection breaks {DROPS}, not {kind!r}")
        drop = Drop(method, path, kind, times)
        self.drops.append(drop)
        return drop

    def _drop_for(self, method: str, path: str) -> str | None:
        for drop in self.drops:
            if drop.method == method and re.fullmatch(drop.path, path):
                if drop.times is not None:
                    drop.times -= 1
                    if drop.times <= 0:
                        self.drops.remove(drop)
                self.dropped.append((drop.kind, method, path))
                return drop.kind
        return None

    async def exchange(self, call: dict[str, Any]) -> _Response:
        """One request over a connection that may break (:meth:`drop`), logged (:attr:`log`)."""
        record = Exchanged(call["method"], call["path"], call["json"], self.in_flight)
        self.log.append(record)
        self.in_flight += 1
        try:
            kind = self._drop_for(call["method"], call["path"])
            if kind == "before":  # reset on the way out: Discord never saw it
                await self.travel(self.round_trip / 2)
                raise aiohttp.ClientOSError(errno.ECONNRESET, "Connection reset by peer (injected by test)")
            response = await self.handle(call)
            record.status = response.status
            if kind == "after":  # done by Discord; the connection closed before the answer came
                raise aiohttp.ServerDisconnectedError("Server disconnected (injected by test)")
            if kind == "timeout":  # done; the bot's client gave up waiting for the answer
                await self.travel(self.round_trip)
                raise TimeoutError  # asyncio.TimeoutError, as aiohttp raises it
            return response
        finally:
            self.in_flight -= 1

    # ---- the test's end --------------------------------------------------------------------
    def problems(self) -> list[str]:
        """What fails a test at its end: every refusal, and every post a nonce swallowed."""
        return [str(r) for r in self.refused] + self.swallowed


def _detail(exc: Refusal | BackendError) -> str:
    """The refusal's detail for the record: ours, or the path and text of a 50035."""
    if getattr(exc, "detail", ""):
        return exc.detail  # type: ignore[union-attr]
    errors = exc.errors
    found: list[str] = []

    def walk(node: Any, path: str) -> None:
        if isinstance(node, dict):
            for item in node.get("_errors", []):
                found.append(f"{path}: {item.get('message')}")
            for key, value in node.items():
                if key != "_errors":
                    walk(value, f"{path}.{key}" if path else str(key))

    walk(errors, "")
    return "; ".join(found)


def _sizes(files: list[Any]) -> list[tuple[str, int]]:
    sizes = []
    for f in files:
        fp = f.fp
        pos = fp.tell()
        fp.seek(0, 2)
        sizes.append((f.filename, fp.tell() - pos))
        fp.seek(pos)
    return sizes


class _Response:
    """Enough of an aiohttp response for discord.py's ``HTTPClient.request``."""

    def __init__(self, status: int, body: Any, headers: dict[str, str]) -> None:
        self.status = status
        self.reason = {200: "OK", 204: "No Content", 400: "Bad Request", 403: "Forbidden", 404: "Not Found",
                       413: "Payload Too Large", 429: "Too Many Requests"}.get(status, "Error")
        self.headers = CIMultiDict(headers)
        if body is None:
            self._text = ""
        else:
            self._text = json.dumps(body, default=str)
            self.headers["Content-Type"] = "application/json"

    async def text(self, encoding: str = "utf-8") -> str:
        return self._text

    async def __aenter__(self) -> _Response:
        return self

    async def __aexit__(self, *exc: Any) -> None:
        return None


class _Session:
    """The aiohttp session discord.py's real ``request`` talks to."""

    closed = False

    def __init__(self, strict: StrictDiscord) -> None:
        self.strict = strict

    def request(self, method: str, url: str, **kwargs: Any) -> Any:
        call = _CALL.get()
        assert call is not None, "a strict request outside StrictHTTPClient.request"
        return _Exchange(self.strict, call)

    async def close(self) -> None:
        return None


class _Exchange:
    def __init__(self, strict: StrictDiscord, call: dict[str, Any]) -> None:
        self.strict, self.call = strict, call

    async def __aenter__(self) -> _Response:
        return await self.strict.exchange(self.call)

    async def __aexit__(self, *exc: Any) -> None:
        return None


class StrictHTTPClient(FakeHTTPClient):
    """SimCord's client, but the request goes through discord.py's own ``HTTPClient.request``."""

    def __init__(self, backend: Any, loop: Any, **kw: Any) -> None:
        super().__init__(backend, loop, **kw)
        self._global_over = asyncio.Event()
        self._global_over.set()
        strict = getattr(backend, "_strict", None)
        if strict is not None:
            self._HTTPClient__session = _Session(strict)

    async def request(self, route: discord.http.Route, *, files: Any = None, form: Any = None, **kwargs: Any) -> Any:
        if getattr(self.backend, "_strict", None) is None:
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


class StrictWebhookAdapter(FakeWebhookAdapter):
    """Interaction callbacks and followups: the same checks, the round trip, the record."""

    async def request(self, route: Any, session: Any, *, payload: Any = None, multipart: Any = None,
                      files: Any = None, params: Any = None, **kwargs: Any) -> Any:
        strict: StrictDiscord | None = getattr(self.backend, "_strict", None)
        if strict is None:
            return await super().request(route, session, payload=payload, multipart=multipart, files=files,
                                         params=params, **kwargs)
        path = _path_of(route.url)
        body: Any = payload
        file_list = list(files or [])
        if multipart:
            parsed, file_list = router.parse_form(list(multipart), file_list)
            body = parsed if parsed is not None else body
        await strict.travel(strict.round_trip / 2)
        try:
            try:
                strict.check_webhook(route.method, path, body, _sizes(file_list))
            except Refusal as exc:
                strict.refuse(route.method, path, exc.status, exc.code, exc.message, _detail(exc))
                _raise_for(BackendError(exc.status, exc.code, exc.message, errors=exc.errors))
            try:
                return await super().request(route, session, payload=payload, multipart=multipart, files=files,
                                             params=params, **kwargs)
            except discord.HTTPException as exc:
                strict.refuse(route.method, path, exc.status, exc.code, exc.text)
                raise
        finally:
            await strict.travel(strict.round_trip / 2)


class _AsyncioInDiscordHttp(types.ModuleType):
    """``asyncio`` as discord.http sees it: its sleeps (rate-limit waits, 5xx retries) pass
    virtual time in a strict env instead of wall-clock time; everything else is asyncio."""

    def __getattr__(self, name: str) -> Any:
        return getattr(asyncio, name)

    @staticmethod
    async def sleep(delay: float, result: Any = None) -> Any:
        env = simcord._runtime._LIVE_LOOPS.get(asyncio.get_running_loop())
        strict = getattr(env, "strict", None) if env is not None else None
        if strict is None:
            return await asyncio.sleep(delay, result)
        await strict.travel(delay)
        return result


_in_database = 0  # aiosqlite calls queued or running in its thread, all connections
_idle_waiters: list[asyncio.Future[None]] = []  # requests waiting for that count to reach 0


def database_calls(original: Any) -> Any:
    """aiosqlite's ``Connection._execute`` (every call into its thread), counted in
    :data:`_in_database` while it is queued or running."""

    async def execute(self: Any, fn: Any, *args: Any, **kwargs: Any) -> Any:
        global _in_database
        _in_database += 1
        try:
            return await original(self, fn, *args, **kwargs)
        finally:
            _in_database -= 1
            if not _in_database:
                for waiter in _idle_waiters:
                    if not waiter.done():
                        waiter.set_result(None)
                _idle_waiters.clear()

    return execute


async def _database_idle() -> None:
    """Wait until no call is in aiosqlite's thread for a few loop turns in a row, so the tasks
    those calls resume send their own requests at this virtual instant. The wait is on a
    future the last call resolves (not a timer: SimCord's timers run on the virtual clock);
    once :data:`DATABASE_IDLE_WAIT` wall-clock seconds have gone, the time passes anyway."""
    loop = asyncio.get_running_loop()
    give_up = time.monotonic() + DATABASE_IDLE_WAIT
    quiet = 0
    while quiet < OVERLAP_TURNS:
        if not _in_database:
            quiet += 1
            await asyncio.sleep(0)
            continue
        quiet = 0
        left = give_up - time.monotonic()
        if left <= 0:
            return
        waiter = loop.create_future()
        _idle_waiters.append(waiter)
        await waiter


def log_refusals(test: str, refused: list[str]) -> None:
    """With ``STRICT_DISCORD_LOG=<file>`` set, append each refused request of a test to that
    file (one line: the test id, a tab, the request), for surveying a whole run."""
    path = os.environ.get("STRICT_DISCORD_LOG")
    if path and refused:
        with open(path, "a", encoding="utf-8") as out:
            out.writelines(f"{test}\t{line}\n" for line in refused)


def _marking_faults(check: Any) -> Any:
    """SimCord's fault injection, marking the faults it fires as the test's own."""

    def check_faults(backend: Any, method: str, path: str) -> None:
        try:
            check(backend, method, path)
        except BackendError:
            strict = getattr(backend, "_strict", None)
            if strict is not None:
                strict.fault_fired = True
            raise

    return check_faults


def install(monkeypatch: Any) -> None:
    """Make every ``simcord.Env`` attached from now on build the strict transports (they stay
    plain SimCord unless ``StrictDiscord(env)`` was made for the env before ``env.start()``)."""
    monkeypatch.setattr(router, "_check_faults", _marking_faults(router._check_faults))
    monkeypatch.setattr(simcord._runtime, "FakeHTTPClient", StrictHTTPClient)
    monkeypatch.setattr(simcord._runtime, "FakeWebhookAdapter", StrictWebhookAdapter)
    monkeypatch.setattr(discord.http, "asyncio", _AsyncioInDiscordHttp("asyncio"))
    monkeypatch.setattr(aiosqlite.Connection, "_execute", database_calls(aiosqlite.Connection._execute))
