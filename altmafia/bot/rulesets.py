"""The rulesets a server plays: the shipped ones (``config/rulesets/``) and those its GMs
uploaded (``/gm ruleset upload``, ``cogs/rulesets.py``).

An upload is checked as ``altmafia rules <file>`` checks a file (``config.loader``: safe YAML,
data only, the schema and every cross-check, ``extends:`` of a shipped ruleset by id), and its
mistakes are the loader's own sentences in the GM's language. A good file is kept in the store
for its server only (``Store.rulesets.upload_ruleset``), under its fingerprint. A lobby opened with it
names that fingerprint, and so does the game it starts: a re-upload of the same id or its
removal reaches new lobbies only, a running game plays the rules it began with to its end,
across restarts. A shipped ruleset's id (or short name) is refused: the shipped rulesets stay
read-only and an id finds the same rules everywhere. A shipped file that does not load is
logged at the start and offered in ``/lobby create``'s list marked as broken; choosing it
answers with the loader's sentences.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

import discord
from discord import app_commands

from altmafia.text import safe
from altmafia.text.i18n import text
from config.loader import (
    RulesetFileError,
    available_rulesets,
    load_ruleset,
    load_ruleset_text,
    shipped_ids,
)
from engine import Ruleset
from storage import Upload

from .interact import holds_gm_role, refuse, reply
from .services import Services

log = logging.getLogger(__name__)

#: the largest file a GM may upload (the biggest shipped ruleset is about 85 KiB); Discord
#: lets a bot receive far more (``Attachment.size`` is checked before the file is read)
MAX_BYTES = 256 * 1024
#: uploads a server may keep at once (``/lobby create`` suggests at most 25 rulesets)
MAX_PER_GUILD = 20
SUFFIXES = (".yaml", ".yml")


class UploadRefused(Exception):
    """An upload refused before or after the loader: a catalog key and its arguments."""

    def __init__(self, key: str, **args: Any) -> None:
        super().__init__(key)
        self.key, self.args_ = key, args


@dataclass(frozen=True)
class Uploaded:
    upload: Upload
    rules: Ruleset
    replaced: Upload | None  # the server's upload of the same id before this one
    notes: list[RulesetFileError]  # what the GM should check although the file loads


def broken_shipped() -> dict[str, RulesetFileError]:
    """The shipped ruleset files that do not load, by id, with why."""
    out = {}
    for rid in available_rulesets():
        try:
            load_ruleset(rid)
        except RulesetFileError as exc:
            out[rid] = exc
    return out


def log_broken_shipped() -> None:
    """Every shipped ruleset that cannot be offered is named in the log at the start (each is
    also marked in ``/lobby create``'s list)."""
    for rid, exc in broken_shipped().items():
        log.error("ruleset %s (config/rulesets/%s.yaml) does not load; /lobby create marks it as broken:\n%s", rid, rid, exc)


def loader_text(lang: str, *errors: RulesetFileError) -> str:
    """The loader's sentences as a block the reader sees as written: nothing in it is markup."""
    body = "\n".join(exc.render(lang) for exc in errors)
    body = "".join(c for c in body if c.isprintable() or c == "\n").replace("`", "'")
    return f"```\n{body}\n```"


def may_manage(bot: Services, interaction: discord.Interaction) -> bool:
    """Who may upload and remove a server's rulesets: who manages the server, or holds the
    server's GM role (``ALTMAFIA_GM_ROLE``)."""
    perms = getattr(interaction, "permissions", None)
    return bool(perms and perms.manage_guild) or holds_gm_role(bot, interaction.user)


async def read_upload(attachment: discord.Attachment) -> tuple[Ruleset, str, list[RulesetFileError]]:
    """The ruleset of an attached file, its text and the loader's notes; an
    :class:`UploadRefused` or the loader's :class:`RulesetFileError` when it cannot be used."""
    name = attachment.filename
    if not name.lower().endswith(SUFFIXES):
        raise UploadRefused("err.ruleset_not_yaml", file=safe.name(name))
    if attachment.size > MAX_BYTES:
        raise UploadRefused("err.ruleset_too_big", file=safe.name(name), size=-(-attachment.size // 1024), max=MAX_BYTES // 1024)
    raw = await attachment.read()
    if len(raw) > MAX_BYTES:
        raise UploadRefused("err.ruleset_too_big", file=safe.name(name), size=-(-len(raw) // 1024), max=MAX_BYTES // 1024)
    notes: list[RulesetFileError] = []
    rules = load_ruleset_text(raw, name, notes)
    if rules.id in shipped_ids():
        raise UploadRefused("err.ruleset_shipped_id", id=rules.id)  # a shipped id: plain letters
    return rules, raw.decode("utf-8"), notes


async def upload(bot: Services, guild_id: int, uploader: int, attachment: discord.Attachment) -> Uploaded:
    """Check and keep an attached ruleset for one server."""
    rules, source, notes = await read_upload(attachment)
    done = await bot.store.rulesets.upload_ruleset(guild_id, rules, source=source, file_name=attachment.filename, uploader=uploader,
                                          limit=MAX_PER_GUILD)
    if done is None:
        raise UploadRefused("err.ruleset_too_many", max=MAX_PER_GUILD)
    return Uploaded(done[0], rules, done[1], notes)


async def for_lobby(bot: Services, guild_id: int, ref: str) -> tuple[Ruleset, str | None]:
    """The ruleset a new lobby of this server opens with (``/lobby create``): the server's
    upload of that id with its fingerprint, else a shipped one by id or short name (fingerprint
    None); the loader's :class:`RulesetFileError` when there is none or its file is broken."""
    found = await bot.store.rulesets.guild_ruleset(guild_id, ref)
    if found is not None:
        rules = await bot.store.rulesets.stored_ruleset(found.fingerprint)
        if rules is not None:
            return rules, found.fingerprint
    return load_ruleset(ref), None


async def of_lobby(bot: Services, lobby: dict[str, Any]) -> Ruleset:
    """The ruleset an open lobby plays: the upload it was opened with (by fingerprint, kept
    while the lobby is open), or the shipped one of its id."""
    fp = lobby.get("fingerprint")
    if not fp:
        return load_ruleset(lobby["ruleset"])
    rules = await bot.store.rulesets.stored_ruleset(fp)
    if rules is None:  # kept while a lobby names it (Store.rulesets._forget_unused): a damaged database
        raise RulesetFileError("loader.no_ruleset", ref=f"{lobby['ruleset']!r} ({fp})")
    return rules


async def refuse_lobby_ruleset(interaction: discord.Interaction, ref: str, exc: RulesetFileError, lang: str) -> None:
    """``/lobby create`` with a ruleset it cannot open: a shipped one whose file is broken is
    said so with the loader's sentences, any other name is unknown here."""
    if ref in available_rulesets():
        await reply(interaction, "⛔ " + text(lang, "err.ruleset_broken", id=safe.name(ref)) + "\n" + loader_text(lang, exc))
        return
    await refuse(interaction, "err.unknown_ruleset", ruleset=ref)


async def choices(bot: Services, guild_id: int | None, current: str, lang: str) -> list[app_commands.Choice[str]]:
    """``/lobby create``'s suggestions: the shipped rulesets (a broken file marked as such) and
    this server's uploads, filtered by what is typed."""
    cur = current.casefold()
    out: list[app_commands.Choice[str]] = []
    for rid in available_rulesets():
        try:
            label = f"{getattr(load_ruleset(rid).names, lang)} ({rid})"
        except RulesetFileError:
            label = text(lang, "gm.ruleset_broken_choice", id=rid)
        if cur in f"{rid} {label}".casefold():
            out.append(app_commands.Choice(name=label[:100], value=rid))
    for u in await bot.store.rulesets.guild_rulesets(guild_id) if guild_id is not None else []:
        label = text(lang, "gm.ruleset_uploaded_choice", name=u.names.get(lang) or u.ruleset_id, id=u.ruleset_id)
        if cur in f"{u.ruleset_id} {label}".casefold():
            out.append(app_commands.Choice(name=label[:100], value=u.ruleset_id))
    return out[:25]
