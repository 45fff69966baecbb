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

from .fake_discord import GUILD_ID, FakeDiscord

ROOT = Path(__file__).resolve().parents[2]


async def test_altmafia_run_against_a_loopback_discord(tmp_path):
    fake = FakeDiscord()
    await fake.start()
    (tmp_path / ".env").write_text(
        "DISCORD_TOKEN=fake-token-123\n"
        "ALTMAFIA_DB=games.sqlite3\n"
        "ALTMAFIA_LANG=en\n"
        f"ALTMAFIA_API_BASE={fake.api}\n"
        f"ALTMAFIA_GATEWAY={fake.gateway_url}\n",
        encoding="utf-8",
    )
    env = {k: v for k, v in os.environ.items() if k != "DISCORD_TOKEN" and not k.startswith("ALTMAFIA_")}
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "altmafia", "run", cwd=tmp_path, env=env,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
    )
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


async def test_altmafia_sync_sends_the_commands_and_stops(tmp_path):
    """For a bot run as several shard processes (none syncing at start): `altmafia sync` logs
    in over HTTP, syncs the commands and stops, touching no database and no gateway."""
    fake = FakeDiscord()
    await fake.start()
    (tmp_path / ".env").write_text(
        f"DISCORD_TOKEN=fake-token-123\nALTMAFIA_DB=games.sqlite3\nALTMAFIA_API_BASE={fake.api}\n"
        f"ALTMAFIA_GATEWAY={fake.gateway_url}\n", encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if k != "DISCORD_TOKEN" and not k.startswith("ALTMAFIA_")}
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    try:
        proc = await asyncio.create_subprocess_exec(sys.executable, "-m", "altmafia", "sync", cwd=tmp_path, env=env,
                                                    stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
        out, err = await asyncio.wait_for(proc.communicate(), 60)
    finally:
        await fake.stop()
    assert proc.returncode == 0, err.decode(errors="replace")[-3000:]
    assert f"{len(fake.commands)} slash commands synced" in out.decode() and fake.commands
    assert fake.refused == [], fake.refused
    assert fake.identify is None and not (tmp_path / "games.sqlite3").exists()
