"""A Discord stand-in that survives the bot's SIGKILL: an aiohttp server on 127.0.0.1 (in the
test's own process) speaking the part of Discord's REST API the bot's delivery, channel and
start code use. Every message is appended to a JSON-lines file (what "Discord" received, in
order) and served back as channel history. Routes it does not model are recorded (the test
fails on any).

It behaves as Discord does where a crash-safe bot meets it:

* **Nonces.** discord.py sends ``enforce_nonce: true`` with every nonce; Discord then answers
  a message with a nonce the same author used "in the past few minutes" with that earlier
  message and posts nothing (the ``enforce_nonce`` field of "Create Message" in Discord's API
  reference). The stand-in honours a nonce for :data:`NONCE_SECONDS` of its clock, and never
  across a restart of the bot (a restart is taken to last longer than that: a bot that dies
  and comes back relies on its own records, not on Discord's short memory). A nonce is never
  returned in channel history (discord.py#2451: Discord keeps nonces only in the create
  answer and the gateway event).
* **Its clock is the bot's.** Message ids are snowflakes of the stand-in's clock, read from
  the file the driver writes its virtual clock to (``clock``): "newer than" means the same
  for both sides, as with real clocks kept by NTP.
* **Failures.** With ``faults`` (a seeded generator) it answers runs of errors on the message
  routes (a send, a history read): 500 and 502 before doing anything (discord.py retries them
  up to five times), 503 (not retried), 504 and 524 *after* posting the message (a gateway
  timeout: the message is there, the answer is lost — the retry carries the same nonce), and
  429 with ``retry_after``, the ``Via`` header (without it discord.py takes the 429 for a
  Cloudflare ban) and the ``X-RateLimit-*`` headers of a bucket; and connections that break:
  ``reset`` closes it before doing anything, ``disconnect`` after posting the message (the
  answer lost: the most dangerous of all), ``timeout`` posts and answers later than the bot's
  client waits (:data:`LATE_SECONDS`; the driver's client gives up after
  ``driver.READ_TIMEOUT``). discord.py hands these to the bot as they are, as aiohttp raised
  them.
"""

from __future__ import annotations

import asyncio
import bisect
import json
import random
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from aiohttp import web

APP_ID = 910000000000000001
BOT_ID = 910000000000000002
GUILD_ID = 910000000000000003
#: Discord honours a nonce "in the past few minutes" (``enforce_nonce``): three, here
NONCE_SECONDS = 180.0
DISCORD_EPOCH_MS = 1420070400000
START = datetime(2030, 1, 7, 6, 0, tzinfo=UTC)  # the driver's clock before it writes one
#: the chance that a message request starts a run of failures, when faults are on
FAULT_RATE = 0.04
#: the failures a run is made of: HTTP statuses, then connections that break
KINDS = ("500", "502", "503", "504", "524", "429", "reset", "disconnect", "timeout")
#: wall-clock seconds a ``timeout`` answer comes late: longer than the driver's client waits
LATE_SECONDS = 3.5


def reply(data: Any, status: int = 200, headers: dict[str, str] | None = None) -> web.Response:
    if status == 204:
        return web.Response(status=204)
    return web.Response(body=json.dumps(data).encode(), status=status,
                        headers={"Content-Type": "application/json", **(headers or {})})


def user(uid: int, name: str, bot: bool = False) -> dict[str, Any]:
    return {"id": str(uid), "username": name, "discriminator": "0", "global_name": name, "avatar": None, "bot": bot,
            "flags": 0, "public_flags": 0}


def read_clock(path: Path | None) -> datetime:
    """The driver's virtual clock (an ISO time in a file it replaces atomically)."""
    if path is None:
        return START
    try:
        return datetime.fromisoformat(path.read_text(encoding="utf-8").strip())
    except (OSError, ValueError):
        return START


class Standin:
    def __init__(self, log: Path, *, clock: Path | None = None, faults: random.Random | None = None) -> None:
        self.log = log
        self.clock = clock
        self.faults = faults
        self.channels: dict[int, dict[str, Any]] = {}
        self.messages: dict[int, list[dict[str, Any]]] = {}  # channel id -> messages, oldest first (by id)
        self.nonces: dict[tuple[int, str], tuple[int, datetime, dict[str, Any]]] = {}
        self.unmodelled: list[str] = []
        self.next_channel = 100
        self.seq = 0
        self.last_id = 0
        self.last_at = START - timedelta(days=1)
        self.starts = 0  # logins seen: each is a new bot process
        self.run: list[str] = []  # the failures still to answer, in order
        self.injected: dict[str, int] = {}
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

    # ---- failures -------------------------------------------------------------------------
    def fault(self) -> str | None:
        """The failure this message request meets, if any (a run goes on over the next ones)."""
        if self.faults is None:
            return None
        if not self.run and self.faults.random() < FAULT_RATE:
            kind = self.faults.choice(KINDS + KINDS[:-1])  # a timeout half as often: it costs wall-clock time
            # mostly within discord.py's five tries; sometimes longer: the send fails and the
            # deliverer tries again at its next flush (a broken connection or a 503 is never
            # retried by discord.py: one of them fails the send)
            n = 1 if kind in ("503", "reset", "disconnect", "timeout") else self.faults.choice([1, 1, 2, 2, 3, 4, 6])
            self.run = [kind] * n
        if not self.run:
            return None
        kind = self.run.pop(0)
        self.injected[kind] = self.injected.get(kind, 0) + 1
        return kind

    def failure(self, kind: str) -> web.Response:
        if kind == "429":
            after = round(self.faults.uniform(0.05, 0.4), 3) if self.faults else 0.1
            return reply({"message": "You are being rate limited.", "retry_after": after, "global": False, "code": 0}, 429, {
                "Via": "1.1 google", "X-RateLimit-Limit": "5", "X-RateLimit-Remaining": "0",
                "X-RateLimit-Reset": f"{read_clock(self.clock).timestamp() + after:.3f}", "X-RateLimit-Reset-After": f"{after:.3f}",
                "X-RateLimit-Bucket": "crash-messages", "X-RateLimit-Scope": "user", "Retry-After": str(max(1, round(after)))})
        status = int(kind)
        return reply({"message": {500: "Internal Server Error", 502: "Bad Gateway", 503: "Service Unavailable",
                                  504: "Gateway Timeout", 524: "A timeout occurred"}[status], "code": 0}, status)

    @staticmethod
    def hang_up(request: web.Request) -> web.Response:
        """The connection closed with no answer: the bot's client sees it dropped."""
        if request.transport is not None:
            request.transport.close()
        return web.Response(status=204)  # never reaches the bot

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
            self.starts += 1  # a new process: Discord's memory of its nonces is of no use to it
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
                kind = self.fault()
                if kind == "reset" or (kind in ("disconnect", "timeout") and m == "GET"):
                    return self.hang_up(request)  # nothing done
                if kind in ("500", "502", "503", "429"):
                    return self.failure(kind)  # nothing done
                if m == "POST":
                    msg = self.post(cid, body or {}, files)
                    if kind == "disconnect":  # done, the connection closed before the answer
                        return self.hang_up(request)
                    if kind == "timeout":  # done, the answer later than the bot waits
                        await asyncio.sleep(LATE_SECONDS)
                        return reply(msg)
                    return self.failure(kind) if kind else reply(msg)  # 504, 524: done, the answer lost
                if m == "GET":
                    return self.failure(kind) if kind else reply(self.history(cid, request.query))
        self.unmodelled.append(f"{m} {path}")
        return reply({"message": f"not modelled: {m} {path}", "code": 0}, status=404)

    def history(self, cid: int, query: Any) -> list[dict[str, Any]]:
        """Discord's ``GET /channels/{id}/messages``: at most ``limit`` (1–100, default 50)
        messages before, after or around an id, or the newest; newest first; no nonces."""
        msgs = self.messages.get(cid, [])
        ids = [int(x["id"]) for x in msgs]
        limit = max(1, min(100, int(query.get("limit", "50"))))
        if "before" in query:
            end = bisect.bisect_left(ids, int(query["before"]))
            got = msgs[max(0, end - limit):end]
        elif "after" in query:
            start = bisect.bisect_right(ids, int(query["after"]))
            got = msgs[start:start + limit]
        elif "around" in query:
            mid = bisect.bisect_left(ids, int(query["around"]))
            got = msgs[max(0, mid - limit // 2):max(0, mid - limit // 2) + limit]
        else:
            got = msgs[-limit:]
        return [{k: v for k, v in x.items() if k != "nonce"} for x in reversed(got)]

    def create_channel(self, gid: int, body: dict[str, Any]) -> dict[str, Any]:
        self.next_channel += 1
        cid = GUILD_ID + self.next_channel
        data = {"id": str(cid), "type": body.get("type", 0), "guild_id": str(gid), "name": body["name"], "position": 0,
                "permission_overwrites": body.get("permission_overwrites", []), "nsfw": False,
                "parent_id": str(body["parent_id"]) if body.get("parent_id") else None, "topic": body.get("topic"),
                "last_message_id": None, "rate_limit_per_user": 0, "flags": 0}
        self.channels[cid] = data
        return data

    def snowflake(self, at: datetime) -> int:
        """An id of the stand-in's clock, always above the last one given."""
        self.seq += 1
        sid = ((int(at.timestamp() * 1000) - DISCORD_EPOCH_MS) << 22) | (self.seq & 0x3FFFFF)
        self.last_id = max(sid, self.last_id + 1)
        return self.last_id

    def post(self, cid: int, body: dict[str, Any], files: list[str]) -> dict[str, Any]:
        nonce = body.get("nonce")
        # a message is stamped after the request that made it began (a millisecond after the
        # last one at the least): the bot's clock does not move within one of its steps
        now = max(read_clock(self.clock), self.last_at + timedelta(milliseconds=1))
        if nonce and body.get("enforce_nonce"):
            seen = self.nonces.get((cid, str(nonce)))
            if seen and seen[0] == self.starts and (now - seen[1]).total_seconds() < NONCE_SECONDS:
                return seen[2]
        mid = self.snowflake(now)
        self.last_at = now
        msg = {"id": str(mid), "channel_id": str(cid), "author": user(BOT_ID, "altmafia", bot=True),
               "content": body.get("content") or "", "timestamp": now.isoformat(), "edited_timestamp": None,
               "tts": False, "mention_everyone": False, "mentions": [], "mention_roles": [], "attachments": [
                   {"id": str(mid * 10 + i), "filename": f, "size": 1, "url": f"http://x/{f}", "proxy_url": f"http://x/{f}"}
                   for i, f in enumerate(files)],
               "embeds": [], "pinned": False, "type": 0, "flags": 0, "components": body.get("components") or [],
               "nonce": nonce}
        self.messages.setdefault(cid, []).append(msg)
        if nonce:
            self.nonces[(cid, str(nonce))] = (self.starts, now, msg)
        with self.log.open("a", encoding="utf-8") as f:  # append-only: what Discord holds
            f.write(json.dumps({"channel": cid, "content": msg["content"], "files": files}, ensure_ascii=False) + "\n")
        return msg
