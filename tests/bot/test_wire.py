"""The real ``altmafia run`` against a fake Discord on 127.0.0.1, over real sockets: settings
from ``.env``, login, command sync, a slash command answered, the database file written."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import sqlite3
import sys
from pathlib import Path

from .fake_discord import APP_ID, GUILD_ID, FakeDiscord

ROOT = Path(__file__).resolve().parents[2]


def child_env(tmp_path: Path, fake: FakeDiscord, *more: str) -> dict[str, str]:
    """The ``.env`` of a child ``altmafia`` pointed at the fake Discord (plus ``more`` lines),
    and its environment: this checkout first, none of the caller's bot settings."""
    lines = ["DISCORD_TOKEN=fake-token-123", "ALTMAFIA_DB=games.sqlite3", f"ALTMAFIA_API_BASE={fake.api}",
             f"ALTMAFIA_GATEWAY={fake.gateway_url}", *more]
    (tmp_path / ".env").write_text("\n".join(lines) + "\n", encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if k != "DISCORD_TOKEN" and not k.startswith("ALTMAFIA_")}
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    return env


async def altmafia(tmp_path: Path, env: dict[str, str], command: str) -> asyncio.subprocess.Process:
    return await asyncio.create_subprocess_exec(sys.executable, "-m", "altmafia", command, cwd=tmp_path, env=env,
                                                stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)


async def test_altmafia_run_against_a_loopback_discord(tmp_path):
    fake = FakeDiscord()
    await fake.start()
    env = child_env(tmp_path, fake, "ALTMAFIA_LANG=en")
    proc = await altmafia(tmp_path, env, "run")
    try:
        await asyncio.wait_for(fake.synced.wait(), 30)
        await asyncio.wait_for(fake.ready_sent.wait(), 30)
        await asyncio.sleep(0.5)  # READY and GUILD_CREATE parsed
        await fake.slash("lobby", "create")
        await asyncio.wait_for(fake.answered.wait(), 30)
        # the gateway connection drops mid-game; a command typed meanwhile is not lost: the bot
        # RESUMEs the session and Discord replays it
        await fake.drop()
        await fake.slash("lobby", "players")
        missed = fake.dispatched[-1]["d"]["id"]
        await asyncio.wait_for(fake.resumed.wait(), 30)
        await fake.until(lambda: missed in fake.called_back)
    finally:
        if proc.returncode is None:
            proc.send_signal(signal.SIGINT)
        try:
            out, err = await asyncio.wait_for(proc.communicate(), 30)
        except TimeoutError:
            proc.kill()
            out, err = await proc.communicate()
        await fake.stop()
    log = err.decode(errors="replace")
    assert proc.returncode == 0, log[-3000:]
    # login with the token from .env, over HTTP and over the gateway
    auth = {h.get("Authorization") for _, p, _, h in fake.requests if p == "/users/@me"}
    assert auth == {"Bot fake-token-123"}
    assert fake.identify is not None and fake.identify["token"] == "fake-token-123"
    assert fake.identify["intents"] == 1, fake.identify["intents"]  # GUILDS only: no messages, no typing
    # the commands were synced, localized
    names = {c["name"] for c in fake.commands}
    assert names == {"lobby", "action", "vote", "faction", "pm", "anon", "gm", "help"}
    assert "synced 8 slash commands" in log
    # the dropped connection was resumed (no second IDENTIFY), the missed command answered
    assert fake.identifies == 1 and len(fake.resumes) == 1, (fake.identifies, fake.resumes)
    assert fake.resumes[0]["session_id"] == "fake-session" and fake.resumes[0]["token"] == "fake-token-123"
    assert fake.refused == [], fake.refused
    # the slash command was answered: deferred, then the follow-up, in the language of .env
    methods = [(m, p) for m, p, _, _ in fake.requests]
    assert any(p.endswith("/callback") for _, p in methods)
    followups = [b for m, p, b, _ in fake.requests if m == "POST" and p.startswith("/webhooks/")]
    assert followups and "Sign-up open" in json.dumps(followups, ensure_ascii=False), followups
    # the database file named in .env holds the new lobby
    db = tmp_path / "games.sqlite3"
    assert db.exists()
    with sqlite3.connect(db) as con:
        rows = con.execute("SELECT guild_id, data FROM lobbies").fetchall()
    assert len(rows) == 1 and rows[0][0] == GUILD_ID
    assert json.loads(rows[0][1])["ruleset"] == "godfather"


async def sync(tmp_path: Path, fake: FakeDiscord, *more: str) -> str:
    """`altmafia sync` against the fake Discord (started and stopped here): its output; exit 0."""
    await fake.start()
    try:
        proc = await altmafia(tmp_path, child_env(tmp_path, fake, *more), "sync")
        out, err = await asyncio.wait_for(proc.communicate(), 60)
    finally:
        await fake.stop()
    assert proc.returncode == 0, err.decode(errors="replace")[-3000:]
    assert fake.refused == [], fake.refused
    return out.decode()


async def test_altmafia_sync_sends_the_commands_and_stops(tmp_path):
    """For a bot run as several shard processes (none syncing at start): `altmafia sync` logs
    in over HTTP, syncs the commands and stops, touching no database and no gateway."""
    fake = FakeDiscord()
    out = await sync(tmp_path, fake)
    assert f"{len(fake.commands)} slash commands synced" in out and fake.commands
    assert fake.identify is None and not (tmp_path / "games.sqlite3").exists()
    # /gm is shown by Discord only to members who manage the server (admins may open it wider)
    gm = next(c for c in fake.commands if c["name"] == "gm")
    assert int(gm["default_member_permissions"]) == 1 << 5, gm["default_member_permissions"]  # Manage Server
    assert all(c["default_member_permissions"] is None for c in fake.commands if c["name"] != "gm")


async def test_altmafia_sync_to_one_server_clears_the_global_commands(tmp_path):
    """A bot synced globally before, now with ALTMAFIA_GUILD_ID: its commands go to the server
    and the global ones are emptied (else the server would list every command twice)."""
    fake = FakeDiscord()
    fake.commands = [{"name": "lobby", "id": "1"}]  # left by an earlier global sync
    await sync(tmp_path, fake, f"ALTMAFIA_GUILD_ID={GUILD_ID}")
    assert fake.guild_commands and {c["name"] for c in fake.guild_commands} >= {"lobby", "gm"}
    assert fake.commands == []
    puts = [p for m, p, _, _ in fake.requests if m == "PUT"]
    assert puts.index(f"/applications/{APP_ID}/guilds/{GUILD_ID}/commands") < puts.index(f"/applications/{APP_ID}/commands")


async def test_sigterm_closes_the_bot_like_ctrl_c(tmp_path):
    """systemd and ``docker stop`` send SIGTERM: the bot closes (scheduler, database, gateway)
    and exits 0, as after Ctrl-C, instead of dying with the signal."""
    fake = FakeDiscord()
    await fake.start()
    env = child_env(tmp_path, fake)
    proc = await altmafia(tmp_path, env, "run")
    try:
        await asyncio.wait_for(fake.ready_sent.wait(), 30)
        await asyncio.sleep(0.5)
        proc.send_signal(signal.SIGTERM)
        out, err = await asyncio.wait_for(proc.communicate(), 30)
    finally:
        if proc.returncode is None:
            proc.kill()
            await proc.communicate()
        await fake.stop()
    log = err.decode(errors="replace")
    assert proc.returncode == 0, (proc.returncode, log[-3000:])
    assert "closing: the scheduler, the database, the connection to Discord" in log, log[-3000:]
