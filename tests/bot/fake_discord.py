"""A small fake Discord on 127.0.0.1: just enough REST and a JSON gateway for a bot to log
in, sync its commands, receive slash commands and answer them, over real sockets. Requests
get the payload checks of ``discord_limits.py`` (refusals recorded in ``refused``); the
gateway can drop the connection (``drop``) and lets the bot RESUME it, replaying what was
dispatched meanwhile (Gateway, "Resuming")."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from aiohttp import WSMsgType, web

from . import discord_limits as limits

APP_ID = 900000000000000001
BOT_ID = 900000000000000002
GUILD_ID = 900000000000000003
CHANNEL_ID = 900000000000000004
USER_ID = 900000000000000005
PERMS_ALL = str((1 << 50) - 1 - 8)  # everything but administrator


def reply(data: Any, status: int = 200) -> web.Response:
    # exactly application/json: with a charset discord.py would read the body as text
    return web.Response(body=json.dumps(data).encode(), status=status, headers={"Content-Type": "application/json"})


def user(uid: int, name: str, bot: bool = False) -> dict[str, Any]:
    return {"id": str(uid), "username": name, "discriminator": "0", "global_name": name, "avatar": None, "bot": bot,
            "flags": 0, "public_flags": 0}


class FakeDiscord:
    def __init__(self) -> None:
        self.requests: list[tuple[str, str, Any, dict[str, str]]] = []
        self.identify: dict[str, Any] | None = None
        self.commands: list[dict[str, Any]] = []  # the global ones, as last put
        self.guild_commands: list[dict[str, Any]] | None = None  # the guild's (GUILD_ID), once put
        self.answered = asyncio.Event()
        self.called_back: set[str] = set()  # interactions answered by a callback
        self.synced = asyncio.Event()
        self.ready_sent = asyncio.Event()
        self.ws: web.WebSocketResponse | None = None
        self.port = 0
        self.runner: web.AppRunner | None = None
        self.seq = 0
        self.session_id = "fake-session"
        self.dispatched: list[dict[str, Any]] = []  # every dispatch frame, for replay on RESUME
        self.refused: list[str] = []
        self.identifies = 0
        self.resumes: list[dict[str, Any]] = []
        self.resumed = asyncio.Event()

    # ---- the server ---------------------------------------------------------------------
    async def start(self) -> None:
        app = web.Application()
        app.router.add_get("/gateway", self.gateway)
        app.router.add_route("*", "/api/v10/{tail:.*}", self.rest)
        self.runner = web.AppRunner(app)
        await self.runner.setup()
        site = web.TCPSite(self.runner, "127.0.0.1", 0)
        await site.start()
        self.port = site._server.sockets[0].getsockname()[1]

    async def stop(self) -> None:
        if self.ws is not None and not self.ws.closed:
            await self.ws.close()
        if self.runner is not None:
            await self.runner.cleanup()

    @property
    def api(self) -> str:
        return f"http://127.0.0.1:{self.port}/api/v10"

    @property
    def gateway_url(self) -> str:
        return f"ws://127.0.0.1:{self.port}/gateway"

    # ---- REST ---------------------------------------------------------------------------------
    async def rest(self, request: web.Request) -> web.Response:
        path = "/" + request.match_info["tail"]
        body: Any = None
        if request.can_read_body:
            raw = await request.read()
            try:
                body = json.loads(raw)
            except ValueError:
                body = raw.decode(errors="replace")
        self.requests.append((request.method, path, body, dict(request.headers)))
        m = request.method
        try:
            self.check(m, path, body)
        except limits.Refusal as exc:
            self.refused.append(f"{m} {path} -> {exc.status} {exc.code} {exc.message}")
            return reply(exc.to_json(), status=exc.status)
        if m == "GET" and path == "/users/@me":
            return reply(user(BOT_ID, "altmafia", bot=True))
        if m == "GET" and path == "/oauth2/applications/@me":
            return reply({"id": str(APP_ID), "name": "altmafia", "icon": None, "description": "", "rpc_origins": [],
                          "bot_public": True, "bot_require_code_grant": False, "owner": user(USER_ID, "owner"),
                          "verify_key": "0" * 64, "flags": 0, "team": None, "summary": ""})
        if m == "PUT" and path in (f"/applications/{APP_ID}/commands", f"/applications/{APP_ID}/guilds/{GUILD_ID}/commands"):
            made = [{**c, "id": str(APP_ID + 100 + i), "application_id": str(APP_ID), "version": "1",
                     "default_member_permissions": c.get("default_member_permissions"), "type": c.get("type", 1)}
                    for i, c in enumerate(body)]
            if "/guilds/" in path:
                self.guild_commands = made
            else:
                self.commands = made
            self.synced.set()
            return reply(made)
        if m == "POST" and path.startswith("/interactions/") and path.endswith("/callback"):
            iid = path.split("/")[2]
            self.called_back.add(iid)
            return reply({"interaction": {"id": iid, "type": 2, "response_message_loading": body.get("type") == 5,
                                          "response_message_ephemeral": False},
                          "resource": {"type": body.get("type")}})
        if m == "POST" and path.startswith(f"/webhooks/{APP_ID}/"):
            self.answered.set()
            return reply({"id": "900000000000000099", "channel_id": str(CHANNEL_ID), "author": user(BOT_ID, "altmafia", bot=True),
                          "content": (body or {}).get("content", ""), "timestamp": "2026-01-01T00:00:00+00:00",
                          "edited_timestamp": None, "tts": False, "mention_everyone": False, "mentions": [], "mention_roles": [],
                          "attachments": [], "embeds": [], "pinned": False, "type": 0, "flags": 0, "components": []})
        return reply({"message": f"not modelled: {m} {path}", "code": 0}, status=404)

    @staticmethod
    def check(method: str, path: str, body: Any) -> None:
        """The checks the strict layer around SimCord applies to the same routes (JSON bodies
        only: the bot sends no files here)."""
        if method == "PUT" and path.endswith("/commands"):
            limits.check_commands(list(body or []))
        elif method == "POST" and path.startswith("/interactions/") and path.endswith("/callback"):
            limits.check_interaction_callback(body or {})
        elif method in ("POST", "PATCH") and (path.startswith("/webhooks/") or "/messages" in path):
            limits.check_message(body if isinstance(body, dict) else {})

    # ---- the gateway --------------------------------------------------------------------
    async def send(self, op: int, d: Any, t: str | None = None) -> None:
        """Send a frame; a dispatch sent while the connection is down waits for the RESUME."""
        frame: dict[str, Any] = {"op": op, "d": d}
        if op == 0:
            self.seq += 1
            frame.update(s=self.seq, t=t)
            self.dispatched.append(frame)
        if self.ws is not None and not self.ws.closed:
            await self.ws.send_str(json.dumps(frame))

    async def until(self, condition: Any, timeout: float = 30) -> None:
        """Wait (in wall-clock time: the bot is another process) until ``condition()``."""
        async with asyncio.timeout(timeout):
            while not condition():
                await asyncio.sleep(0.05)

    async def drop(self) -> None:
        """Close the gateway connection as Discord does on its side (close code 4000, "Unknown
        error... Try reconnecting?", which allows a RESUME)."""
        assert self.ws is not None
        ws, self.ws = self.ws, None
        self.resumed.clear()
        await ws.close(code=4000, message=b"dropped by the test")

    async def gateway(self, request: web.Request) -> web.WebSocketResponse:
        ws = web.WebSocketResponse()
        await ws.prepare(request)
        self.ws = ws
        await self.send(10, {"heartbeat_interval": 45000})
        async for msg in ws:
            if msg.type != WSMsgType.TEXT:
                continue
            data = json.loads(msg.data)
            if data["op"] == 1:
                await self.send(11, None)
            elif data["op"] == 6:  # RESUME: replay what the bot missed, then RESUMED
                self.resumes.append(data["d"])
                if data["d"].get("session_id") != self.session_id:
                    await self.send(9, False)  # INVALID_SESSION, not resumable
                    continue
                for frame in self.dispatched:
                    if frame["s"] > int(data["d"].get("seq") or 0):
                        await ws.send_str(json.dumps(frame))
                await self.send(0, {}, "RESUMED")
                self.resumed.set()
            elif data["op"] == 2:
                self.identify = data["d"]
                self.identifies += 1
                await self.send(0, {"v": 10, "user": user(BOT_ID, "altmafia", bot=True), "guilds": [{"id": str(GUILD_ID), "unavailable": True}],
                                    "session_id": self.session_id, "resume_gateway_url": self.gateway_url,
                                    "application": {"id": str(APP_ID), "flags": 0},
                                    # Discord echoes the shard a sharded client identified with
                                    **({"shard": data["d"]["shard"]} if "shard" in data["d"] else {})}, "READY")
                await self.send(0, self.guild(), "GUILD_CREATE")
                self.ready_sent.set()
        return ws

    def guild(self) -> dict[str, Any]:
        return {
            "id": str(GUILD_ID), "name": "Мафия", "icon": None, "owner_id": str(USER_ID), "unavailable": False,
            "member_count": 2, "large": False, "features": [], "emojis": [], "stickers": [], "threads": [], "presences": [],
            "voice_states": [], "stage_instances": [], "guild_scheduled_events": [], "soundboard_sounds": [],
            "roles": [{"id": str(GUILD_ID), "name": "@everyone", "permissions": "104324673", "position": 0, "color": 0,
                       "hoist": False, "managed": False, "mentionable": False, "flags": 0}],
            "channels": [{"id": str(CHANNEL_ID), "type": 0, "name": "общий", "position": 0, "permission_overwrites": [],
                          "guild_id": str(GUILD_ID), "nsfw": False, "parent_id": None, "topic": None, "last_message_id": None,
                          "rate_limit_per_user": 0, "flags": 0}],
            "members": [{"user": user(BOT_ID, "altmafia", bot=True), "roles": [], "joined_at": "2026-01-01T00:00:00+00:00",
                         "deaf": False, "mute": False, "flags": 0}],
            "joined_at": "2026-01-01T00:00:00+00:00", "afk_timeout": 300, "verification_level": 0,
            "default_message_notifications": 0, "explicit_content_filter": 0, "mfa_level": 0, "system_channel_flags": 0,
            "premium_tier": 0, "preferred_locale": "ru", "nsfw_level": 0, "premium_progress_bar_enabled": False,
        }

    async def slash(self, group: str, sub: str, options: list[dict[str, Any]] | None = None, *, locale: str = "de") -> None:
        """A member types ``/group sub`` in the guild's channel."""
        cmd = next(c for c in self.commands if c["name"] == group)
        iid = str(900000000000001000 + self.seq)
        await self.send(0, {
            "id": iid, "application_id": str(APP_ID), "type": 2, "token": f"token-{iid}", "version": 1,
            "data": {"id": cmd["id"], "name": group, "type": 1, "options": [{"name": sub, "type": 1, "options": options or []}]},
            "guild_id": str(GUILD_ID), "channel_id": str(CHANNEL_ID),
            "channel": {"id": str(CHANNEL_ID), "type": 0, "guild_id": str(GUILD_ID), "name": "общий", "permissions": PERMS_ALL},
            "member": {"user": user(USER_ID, "Аня"), "roles": [], "joined_at": "2026-01-01T00:00:00+00:00", "deaf": False,
                       "mute": False, "flags": 0, "permissions": PERMS_ALL},
            "locale": locale, "guild_locale": "ru", "app_permissions": PERMS_ALL, "entitlements": [],
            "authorizing_integration_owners": {}, "context": 0, "attachment_size_limit": 26214400,
        }, "INTERACTION_CREATE")
