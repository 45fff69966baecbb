"""The bot's settings: from the environment, after ``.env`` in the working folder.

| variable | meaning | default |
| --- | --- | --- |
| ``DISCORD_TOKEN`` | the bot token | none: ``altmafia run`` explains how to get one |
| ``ALTMAFIA_DB`` | the SQLite file | ``./altmafia.sqlite3`` |
| ``ALTMAFIA_LANG`` | language of the texts everybody reads (``ru`` or ``en``) | ``ru`` |
| ``ALTMAFIA_TZ`` | time zone of the phase deadlines (a game may choose its own) | ``Europe/Moscow`` |
| ``ALTMAFIA_GM_ROLE`` | a server role (name or id) whose members are GMs of every game | none |
| ``ALTMAFIA_REMIND_MINUTES`` | reminders this long before a deadline (0: none; at most 1440) | ``60`` |
| ``ALTMAFIA_MIN_PHASE_MINUTES`` | a phase is never shorter than this when its deadline is set (0 to 1440) | ``30`` |
| ``ALTMAFIA_GUILD_ID`` | sync the slash commands to this server only (instant) | global sync |
| ``ALTMAFIA_SCHEDULER_SECONDS`` | the scheduler looks at the clock at least this often (1 to 3600) | ``60`` |

A value out of range stops ``altmafia run`` at once with a line naming the variable: a bot that
started on it would keep no deadline (an infinite wait) or set none (a phase years long).

Tests only: ``ALTMAFIA_API_BASE`` and ``ALTMAFIA_GATEWAY`` point discord.py at a fake Discord,
``ALTMAFIA_DB_SYNC`` trades durability for speed (``NORMAL``).
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from dotenv import load_dotenv

from storage.store import DEFAULT_DB

LANGS = ("ru", "en")
# (variable, lowest, highest, why): the numbers a bot can run on
LIMITS: dict[str, tuple[str, float, float, str]] = {
    "remind_minutes": ("ALTMAFIA_REMIND_MINUTES", 0, 1440, "minutes; a phase ends at least once a day"),
    "min_phase_minutes": ("ALTMAFIA_MIN_PHASE_MINUTES", 0, 1440, "minutes; every period ends once a day"),
    "scheduler_seconds": ("ALTMAFIA_SCHEDULER_SECONDS", 1, 3600, "seconds between looks at the clock"),
}


class SettingsError(ValueError):
    """A setting has a value the bot cannot use; the message names the variable."""


@dataclass(frozen=True)
class Settings:
    token: str | None = None
    db_path: Path = Path("altmafia.sqlite3")
    lang: str = "ru"
    tz: str = "Europe/Moscow"
    gm_role: str | None = None
    remind_minutes: int = 60
    min_phase_minutes: int = 30
    guild_id: int | None = None
    scheduler_seconds: float = 60.0
    api_base: str | None = None
    gateway: str | None = None
    db_sync: str = "FULL"

    def __post_init__(self) -> None:
        # also when built in code (tests, bench): a bad value never reaches the scheduler
        for attr, (name, lo, hi, why) in LIMITS.items():
            value = getattr(self, attr)
            if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value) or not lo <= value <= hi:
                raise SettingsError(f"{name}={value!r} is out of range: use {lo:g} to {hi:g} ({why})")
        if self.guild_id is not None and not 0 < self.guild_id < 2**64:
            raise SettingsError(f"ALTMAFIA_GUILD_ID={self.guild_id!r} is not a server id")
        if self.token is not None:
            if self.token.lower().startswith("bot "):
                raise SettingsError('DISCORD_TOKEN starts with "Bot ": write the token alone')
            if any(c.isspace() or not c.isascii() or not c.isprintable() for c in self.token):
                raise SettingsError(
                    "DISCORD_TOKEN has spaces or characters a Discord token never has: "
                    "copy it again from the Developer Portal (Bot -> Reset Token)"
                )

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None, *, dotenv: Path | None = None) -> Settings:
        """Read the settings; ``dotenv`` (default ``./.env``) fills what the environment lacks."""
        if env is None:
            load_dotenv(dotenv or Path.cwd() / ".env")
            env = os.environ

        def get(name: str) -> str | None:
            v = env.get(name)
            return v.strip() if v and v.strip() else None

        def number(name: str, default: float, kind: type = int) -> float:
            raw = get(name)
            if raw is None:
                return default
            try:
                value = kind(raw)
            except ValueError:
                whole = " whole" if kind is int else ""
                raise SettingsError(f"{name}={raw!r} is not a{whole} number") from None
            if isinstance(value, float) and not math.isfinite(value):
                raise SettingsError(f"{name}={raw!r} is not a finite number")
            if value < 0:
                raise SettingsError(f"{name}={raw!r} must not be negative")
            return value

        lang = (get("ALTMAFIA_LANG") or "ru").lower()
        if lang not in LANGS:
            raise SettingsError(f"ALTMAFIA_LANG={lang!r}: use one of {', '.join(LANGS)}")
        tz = get("ALTMAFIA_TZ") or "Europe/Moscow"
        check_timezone(tz, "ALTMAFIA_TZ")
        guild = get("ALTMAFIA_GUILD_ID")
        if guild is not None and not (guild.isascii() and guild.isdigit()):
            raise SettingsError(f"ALTMAFIA_GUILD_ID={guild!r} is not a server id (a number)")
        sync = (get("ALTMAFIA_DB_SYNC") or "FULL").upper()
        if sync not in ("FULL", "NORMAL"):
            raise SettingsError(f"ALTMAFIA_DB_SYNC={sync!r}: use FULL or NORMAL")
        db = get("ALTMAFIA_DB")
        return cls(
            token=get("DISCORD_TOKEN"),
            db_path=Path(db or f"./{DEFAULT_DB}"),
            lang=lang,
            tz=tz,
            gm_role=get("ALTMAFIA_GM_ROLE"),
            remind_minutes=int(number("ALTMAFIA_REMIND_MINUTES", 60)),
            min_phase_minutes=int(number("ALTMAFIA_MIN_PHASE_MINUTES", 30)),
            guild_id=int(guild) if guild else None,
            scheduler_seconds=float(number("ALTMAFIA_SCHEDULER_SECONDS", 60.0, float)),
            api_base=get("ALTMAFIA_API_BASE"),
            gateway=get("ALTMAFIA_GATEWAY"),
            db_sync=sync,
        )


def check_timezone(name: str, what: str = "time zone") -> ZoneInfo:
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        raise SettingsError(f"{what}={name!r} is not a known time zone (for example Europe/Moscow)") from None
