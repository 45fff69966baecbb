"""The bot's settings: from the environment, after ``.env`` in the working folder.

| variable | meaning | default |
| --- | --- | --- |
| ``DISCORD_TOKEN`` | the bot token | none: ``altmafia run`` explains how to get one |
| ``ALTMAFIA_DB`` | the SQLite file | ``./altmafia.sqlite3`` |
| ``ALTMAFIA_DB_URL`` | a PostgreSQL database instead (``postgresql://user:pass@host/db``) | none |
| ``ALTMAFIA_SHARD_COUNT`` | how many Discord shards the bot has in all (``auto``: as Discord advises) | ``1`` |
| ``ALTMAFIA_SHARD_IDS`` | the shards this process runs (``0,2``); the others run elsewhere | all |
| ``ALTMAFIA_SYNC_COMMANDS`` | whether this process syncs the slash commands at start (``yes``/``no``) | ``yes`` on the process with shard 0 |
| ``ALTMAFIA_LANG`` | language of the texts everybody reads (``ru`` or ``en``) | ``ru`` |
| ``ALTMAFIA_TZ`` | time zone of the phase deadlines (a game may choose its own) | ``Europe/Moscow`` |
| ``ALTMAFIA_GM_ROLE`` | a server role (name or id) whose members are GMs of every game (never ``@everyone``: GMs cannot sign up) | none |
| ``ALTMAFIA_REMIND_MINUTES`` | reminders this long before a deadline (0: none; at most 1440) | ``60`` |
| ``ALTMAFIA_MIN_PHASE_MINUTES`` | a phase is never shorter than this when its deadline is set (0 to 1440) | ``30`` |
| ``ALTMAFIA_GUILD_ID`` | sync the slash commands to this server only (instant) | global sync |
| ``ALTMAFIA_SCHEDULER_SECONDS`` | the scheduler looks at the clock at least this often (1 to 3600) | ``60`` |

A value out of range stops ``altmafia run`` at once with a line naming the variable: a bot that
started on it would keep no deadline (an infinite wait) or set none (a phase years long).
A ``.env`` that is not UTF-8, or has a line that is no ``NAME=value`` (nor a comment), stops it
the same way, naming the file and the line (python-dotenv itself would skip the line with a
warning, and the missing token would then be blamed).

Tests only: ``ALTMAFIA_API_BASE`` and ``ALTMAFIA_GATEWAY`` point discord.py at a fake Discord,
``ALTMAFIA_DB_SYNC`` trades durability for speed (``NORMAL``).
"""

from __future__ import annotations

import io
import math
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from dotenv import load_dotenv
from dotenv.parser import parse_stream

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
    db_url: str | None = None
    #: None: as Discord advises (``auto``); a number: that many shards in all
    shard_count: int | None = 1
    #: the shards this process runs; None: all of them
    shard_ids: tuple[int, ...] | None = None
    #: None: yes on the process that runs shard 0
    sync_commands: bool | None = None

    @property
    def database(self) -> str | Path:
        """What the store opens: the PostgreSQL URL when one is set, else the SQLite file."""
        return self.db_url or self.db_path

    @property
    def shards(self) -> tuple[int, tuple[int, ...]] | None:
        """``(count, ids)`` for the store, None when Discord decides the count."""
        if self.shard_count is None:
            return None
        return self.shard_count, self.shard_ids if self.shard_ids is not None else tuple(range(self.shard_count))

    @property
    def syncs_commands(self) -> bool:
        if self.sync_commands is not None:
            return self.sync_commands
        return self.shard_ids is None or 0 in self.shard_ids

    def __post_init__(self) -> None:
        # also when built in code (tests, bench): a bad value never reaches the scheduler
        for attr, (name, lo, hi, why) in LIMITS.items():
            value = getattr(self, attr)
            if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value) or not lo <= value <= hi:
                raise SettingsError(f"{name}={value!r} is out of range: use {lo:g} to {hi:g} ({why})")
        if self.shard_count is not None and not 1 <= self.shard_count <= 1000:
            raise SettingsError(f"ALTMAFIA_SHARD_COUNT={self.shard_count!r} is out of range: use 1 to 1000, or auto")
        if self.shard_ids is not None:
            if self.shard_count is None:
                raise SettingsError("ALTMAFIA_SHARD_IDS needs ALTMAFIA_SHARD_COUNT: a process can own some shards only of a known count")
            bad = [i for i in self.shard_ids if not 0 <= i < self.shard_count]
            if bad or not self.shard_ids or len(set(self.shard_ids)) != len(self.shard_ids):
                raise SettingsError(
                    f"ALTMAFIA_SHARD_IDS={','.join(map(str, self.shard_ids))}: each id once, from 0 to {self.shard_count - 1}"
                )
        if self.db_url is not None and not self.db_url.startswith(("postgresql://", "postgres://")):
            raise SettingsError("ALTMAFIA_DB_URL must be a postgresql://… URL (for an SQLite file use ALTMAFIA_DB)")
        if self.gm_role is not None and self.gm_role.strip().lstrip("@").casefold() in ("everyone", "here"):
            raise SettingsError(
                f"ALTMAFIA_GM_ROLE={self.gm_role!r} would make every member a GM, and GMs cannot sign up "
                "for a game: name a role only the GMs hold (its name or id), or leave it unset"
            )
        if self.guild_id is not None and not 0 < self.guild_id < 2**64:
            raise SettingsError(f"ALTMAFIA_GUILD_ID={self.guild_id!r} is not a server id")
        if self.guild_id is not None and self.gm_role is not None and self.gm_role.strip() == str(self.guild_id):
            raise SettingsError(
                f"ALTMAFIA_GM_ROLE={self.gm_role!r} is the @everyone role of ALTMAFIA_GUILD_ID (its id is the "
                "server's): name a role only the GMs hold (its name or id), or leave it unset"
            )
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
            load_env_file(dotenv or Path.cwd() / ".env")
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
        count_raw = (get("ALTMAFIA_SHARD_COUNT") or "1").lower()
        if count_raw == "auto":
            shard_count = None
        elif count_raw.isascii() and count_raw.isdigit():
            shard_count = int(count_raw)
        else:
            raise SettingsError(f"ALTMAFIA_SHARD_COUNT={count_raw!r}: a whole number of shards, or auto")
        ids_raw = get("ALTMAFIA_SHARD_IDS")
        shard_ids = None
        if ids_raw is not None:
            parts = [x.strip() for x in ids_raw.split(",")]
            if not all(x.isascii() and x.isdigit() for x in parts):
                raise SettingsError(f"ALTMAFIA_SHARD_IDS={ids_raw!r}: shard numbers separated by commas (0,2)")
            shard_ids = tuple(int(x) for x in parts)
        sync_raw = (get("ALTMAFIA_SYNC_COMMANDS") or "").lower()
        if sync_raw not in ("", "yes", "no", "1", "0", "true", "false"):
            raise SettingsError(f"ALTMAFIA_SYNC_COMMANDS={sync_raw!r}: use yes or no")
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
            db_url=get("ALTMAFIA_DB_URL"),
            shard_count=shard_count,
            shard_ids=shard_ids,
            sync_commands=None if not sync_raw else sync_raw in ("yes", "1", "true"),
        )


def load_env_file(path: Path) -> None:
    """Fill the environment from a ``.env`` file (what is set already wins); a file that is not
    UTF-8 or has a line that is no ``NAME=value`` is refused with a sentence naming it."""
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return
    except OSError as exc:
        raise SettingsError(f"{path}: cannot read the settings file ({exc.strerror})") from None
    try:
        content = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        raise SettingsError(f"{path}, line {line}: the file is not UTF-8 text: save it as UTF-8 (or write the line again)") from None
    for binding in parse_stream(io.StringIO(content)):
        if binding.error:
            first = binding.original.string.strip().splitlines()[0][:60] if binding.original.string.strip() else ""
            raise SettingsError(
                f"{path}, line {binding.original.line}: {first!r} is not a setting: write NAME=value "
                "(a value with spaces or # in quotes), or start the line with # for a comment"
            )
    load_dotenv(stream=io.StringIO(content))


def check_timezone(name: str, what: str = "time zone") -> ZoneInfo:
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        raise SettingsError(f"{what}={name!r} is not a known time zone (for example Europe/Moscow)") from None
