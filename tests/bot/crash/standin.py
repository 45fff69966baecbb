"""A Discord stand-in that survives the bot's SIGKILL: an aiohttp server on 127.0.0.1 (in the
test's own process) speaking the part of Discord's REST API the bot's delivery, channel and
start code use. Every message is appended to a JSON-lines file (what "Discord" received, in
order) and served back as channel history; a nonce is honoured (``enforce_nonce``) for a few
minutes only, as Discord does. Routes it does not model are recorded (the test fails on any)."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

from aiohttp import web

APP_ID = 910000000000000001
BOT_ID = 910000000000000002
GUILD_ID = 910000000000000003
NONCE_SECONDS = 300.0  # Discord honours a nonce for a few minutes only


def reply(data: Any, status: int = 200) -> web.Response:
    if status == 204:
        return web.Response(status=204)
    return web.Response(body=json.dumps(data).encode(), status=status, headers={"Content-Type": "application/json"})


def user(uid: int, name: str, bot: bool = False) -> dict[str, Any]:
    return {"id": str(uid), "username": name, "discriminator": "0", "global_name": name, "avatar": None, "bot": bot,
            "flags": 0, "public_flags": 0}


class Standin:
    def __init__(self, log: Path) -> None:
        self.log = log
        self.channels: dict[int, dict[str, Any]] = {}
        self.messages: dict[int, list[dict[str, Any]]] = {}  # channel id -> messages, oldest first
        self.nonces: dict[tuple[int, str], tuple[float, dict[str, Any]]] = {}
        self.unmodelled: list[str] = []
        self.next_channel = 100
        self.next_message = 100000
        self.port = 0
        self.runner: web.AppRunner | None = None

    @property
    def api(self) -> str:
        return f"http://127.0.0.1:{self.port}/api/v10"

    async def start(self) -> None:
        app = web.Application(client_max_size=64 * 1024 * 1024)
        app.router.add_route("*", "/api/v10/{tail:.*}", self.rest)
        self.runner = web.AppRunner(app, access_log=None)
        await self.runner.setup()
        site = web.TCPSite(self.runner, "127.0.0.1", 0)
        await site.start()
        self.port = site._server.sockets[0].getsockname()[1]

    async def stop(self) -> None:
        if self.runner is not None:
            await self.runner.cleanup()

    # ---- what the test reads ------------------------------------------------------------
    def overwrites(self, cid: int) -> list[str]:
        """A channel's permission overwrites as they stand, one line each, in a stable order."""
        return sorted(f"{o['id']}: allow {o.get('allow', 0)} deny {o.get('deny', 0)}"
                      for o in self.channels.get(cid, {}).get("permission_overwrites", []))

    def delivered(self) -> list[dict[str, Any]]:
        return [json.loads(line) for line in self.log.read_text(encoding="utf-8").splitlines()] if self.log.exists() else []

    # ---- REST ---------------------------------------------------------------------------
    async def rest(self, request: web.Request) -> web.Response:
        path = "/" + request.match_info["tail"]
        m = request.method
        parts = path.strip("/").split("/")
        body: Any = None
        files: list[str] = []
        if request.content_type.startswith("multipart/"):
            form = await request.post()
            body = json.loads(form["payload_json"])
            files = [f.filename for k, f in form.items() if k.startswith("files")]
        elif request.can_read_body:
            raw = await request.read()
            body = json.loads(raw) if raw else None
        if m == "GET" and path == "/users/@me":
            return reply(user(BOT_ID, "altmafia", bot=True))
        if m == "GET" and path == "/oauth2/applications/@me":
            return reply({"id": str(APP_ID), "name": "altmafia", "icon": None, "description": "", "rpc_origins": [],
                          "bot_public": True, "bot_require_code_grant": False, "owner": user(1, "owner"),
                          "verify_key": "0" * 64, "flags": 0, "team": None, "summary": ""})
        if m == "PUT" and path == f"/applications/{APP_ID}/commands":
            return reply([{**c, "id": str(APP_ID + 100 + i), "application_id": str(APP_ID), "version": "1",
                           "default_member_permissions": None, "type": c.get("type", 1)} for i, c in enumerate(body)])
        if parts[0] == "guilds" and len(parts) == 3 and parts[2] == "channels":
            gid = int(parts[1])
            if m == "GET":
                return reply([c for c in self.channels.values() if c["guild_id"] == str(gid)])
            if m == "POST":
                return reply(self.create_channel(gid, body))
        if parts[0] == "channels" and len(parts) >= 2:
            cid = int(parts[1])
            if cid not in self.channels:
                return reply({"message": "Unknown Channel", "code": 10003}, status=404)
            if len(parts) == 2 and m == "DELETE":
                return reply(self.channels.pop(cid))
            if len(parts) == 2 and m == "PATCH":
                self.channels[cid].update({k: v for k, v in (body or {}).items()
                                           if k in ("name", "parent_id", "topic", "permission_overwrites")})
                return reply(self.channels[cid])
            if len(parts) == 4 and parts[2] == "permissions" and m == "PUT":
                # one overwrite put (or replaced) on the channel: what its members may do there now
                ows = [o for o in self.channels[cid]["permission_overwrites"] if str(o["id"]) != parts[3]]
                ows.append({"id": parts[3], "type": (body or {}).get("type", 1), "allow": str((body or {}).get("allow", "0")),
                            "deny": str((body or {}).get("deny", "0"))})
                self.channels[cid]["permission_overwrites"] = ows
                return reply(None, 204)
            if len(parts) == 3 and parts[2] == "messages":
                if m == "POST":
                    return reply(self.post(cid, body or {}, files))
                if m == "GET":
                    limit = int(request.query.get("limit", "50"))
                    return reply(list(reversed(self.messages.get(cid, [])[-limit:])))
        self.unmodelled.append(f"{m} {path}")
        return reply({"message": f"not modelled: {m} {path}", "code": 0}, status=404)

    def create_channel(self, gid: int, body: dict[str, Any]) -> dict[str, Any]:
        self.next_channel += 1
        cid = GUILD_ID + self.next_channel
        data = {"id": str(cid), "type": body.get("type", 0), "guild_id": str(gid), "name": body["name"], "position": 0,
                "permission_overwrites": body.get("permission_overwrites", []), "nsfw": False,
                "parent_id": str(body["parent_id"]) if body.get("parent_id") else None, "topic": body.get("topic"),
                "last_message_id": None, "rate_limit_per_user": 0, "flags": 0}
        self.channels[cid] = data
        return data

    def post(self, cid: int, body: dict[str, Any], files: list[str]) -> dict[str, Any]:
        nonce = body.get("nonce")
        now = time.monotonic()
        if nonce and body.get("enforce_nonce"):
            seen = self.nonces.get((cid, str(nonce)))
            if seen and now - seen[0] < NONCE_SECONDS:
                return seen[1]
        self.next_message += 1
        msg = {"id": str(self.next_message), "channel_id": str(cid), "author": user(BOT_ID, "altmafia", bot=True),
               "content": body.get("content") or "", "timestamp": "2030-01-01T00:00:00+00:00", "edited_timestamp": None,
               "tts": False, "mention_everyone": False, "mentions": [], "mention_roles": [], "attachments": [
                   {"id": str(self.next_message * 10 + i), "filename": f, "size": 1, "url": f"http://x/{f}", "proxy_url": f"http://x/{f}"}
                   for i, f in enumerate(files)],
               "embeds": [], "pinned": False, "type": 0, "flags": 0, "components": body.get("components") or [],
               "nonce": nonce}
        self.messages.setdefault(cid, []).append(msg)
        if nonce:
            self.nonces[(cid, str(nonce))] = (now, msg)
        with self.log.open("a", encoding="utf-8") as f:  # append-only: what Discord holds
            f.write(json.dumps({"channel": cid, "content": msg["content"], "files": files}, ensure_ascii=False) + "\n")
        return msg
