"""The real bot (``create_bot()``) against SimCord's simulated Discord, on a real SQLite file."""

from __future__ import annotations

import gc
from collections.abc import AsyncIterator

import discord
import pytest
import pytest_asyncio
import simcord
import simcord.interactions

from altmafia.bot.bot import create_bot
from altmafia.bot.settings import Settings

from . import strict_discord

#: the locale each user's interactions carry (SimCord itself always sends en-US)
LOCALES: dict[int, str] = {}


@pytest.fixture(autouse=True)
def locale_shim(monkeypatch):
    """Interactions of the users listed in LOCALES carry their locale (e.g. ``ru``)."""
    original = simcord.interactions.base_payload

    def base_payload(backend, *, type, channel_id, guild_id, user_id, data):
        record, payload = original(backend, type=type, channel_id=channel_id, guild_id=guild_id, user_id=user_id, data=data)
        if user_id in LOCALES:
            payload["locale"] = LOCALES[user_id]
        return record, payload

    monkeypatch.setattr(simcord.interactions, "base_payload", base_payload)
    LOCALES.clear()
    yield
    LOCALES.clear()


@pytest.fixture(autouse=True)
def fixed_seed(monkeypatch):
    """Every game of the tests deals the same way (the seed is random in production)."""
    import altmafia.bot.lobbies

    monkeypatch.setattr(altmafia.bot.lobbies, "new_seed", lambda: 20260101)


def settings_for(tmp_path, **kw) -> Settings:
    base = dict(token=None, db_path=tmp_path / "altmafia.sqlite3", lang="ru", tz="Europe/Moscow", remind_minutes=60,
                min_phase_minutes=30, scheduler_seconds=3600.0, db_sync="NORMAL")
    base.update(kw)
    return Settings(**base)


@pytest.fixture
def settings(tmp_path, request) -> Settings:
    """``@pytest.mark.settings(gm_role=..., ...)`` changes a test's settings."""
    marker = request.node.get_closest_marker("settings")
    return settings_for(tmp_path, **(marker.kwargs if marker else {}))


def pytest_configure(config):
    config.addinivalue_line("markers", "settings(**kw): Settings fields for the bot of this test")
    config.addinivalue_line("markers", "gm_commands_default: the servers keep Discord's default for /gm (Manage Server)")
    config.addinivalue_line("markers", "lenient_discord(why): plain SimCord instead of the strict test Discord")
    config.addinivalue_line("markers", "discord_refusals(why): the test expects Discord to refuse requests "
                                       "and asserts on env.strict.refused itself")
    config.addinivalue_line("markers", "round_trip(seconds): virtual seconds each REST call takes (default "
                                       "strict_discord.ROUND_TRIP_SECONDS)")


def open_gm_commands(e: simcord.Env) -> None:
    """Every server of the test opens ``/gm`` to everyone, as a server's admins do in Server
    Settings → Integrations (Discord shows it by default only to who may manage the server,
    cogs/gm.py); the bot's own check keeps it to the games' GMs. ``test_gm_commands_shown``
    tests the default."""
    real = e.create_guild

    def create_guild(*args, **kw):
        guild = real(*args, **kw)
        gm = e.backend.find_command("gm", None)
        if gm is not None:
            guild.set_command_permissions(int(gm["id"]), {guild.default_role: True})
        return guild

    e.create_guild = create_guild


def _reason(request, name: str):
    marker = request.node.get_closest_marker(name)
    if marker is not None and not (marker.args and str(marker.args[0]).strip()):
        raise pytest.UsageError(f"@pytest.mark.{name} needs the reason as its first argument")
    return marker


@pytest_asyncio.fixture
async def env(settings, request, monkeypatch) -> AsyncIterator[simcord.Env]:
    """The bot against the strict test Discord (``strict_discord.py``) unless the test is marked
    ``lenient_discord("why")``; a refused request (or a post a nonce swallowed) fails the test
    unless it is marked ``discord_refusals("why")``; ``round_trip(seconds)`` sets the virtual
    time of each REST call; ``/gm`` is opened to @everyone on each new server unless the test is
    marked ``gm_commands_default``."""
    bot = create_bot(settings)
    e = simcord.Env(bot, settle_timeout=60.0)
    strict = None
    if _reason(request, "lenient_discord") is None:
        strict_discord.install(monkeypatch)
        trip = request.node.get_closest_marker("round_trip")
        strict = strict_discord.StrictDiscord(e, **({"round_trip": float(trip.args[0])} if trip else {}))
    await e.start()
    if "gm_commands_default" not in request.keywords:
        open_gm_commands(e)
    try:
        yield e
    finally:
        await e.shutdown()
        await e.bot.store.close()
        # SimCord never closes the bot: what its starts froze (``AltMafiaBot.open_store``) is
        # given back to the collector here, as the bot's close or the process's end would
        gc.unfreeze()
        refused = strict.problems() if strict is not None and _reason(request, "discord_refusals") is None else []
        strict_discord.log_refusals(request.node.nodeid, refused)
        try:
            e._raise_errors_since(e._errors_acknowledged)
        except BaseException as error:
            if refused:
                error.add_note("Discord refused requests:\n" + "\n".join(refused))
            raise
    if refused:
        pytest.fail("Discord refused requests:\n" + "\n".join(refused), pytrace=False)


def perms(env: simcord.Env, channel, member) -> discord.Permissions:
    """What a member may do in a channel, computed by SimCord's own permission model."""
    guild = env.backend.get_guild(channel.guild.id)
    return discord.Permissions(env.backend.compute_permissions(guild.id, member.id, channel.id))
