"""Discord's payload limits as plain functions over the JSON a bot sends.

Shared by the strict layer around SimCord (``strict_discord.py``) and the loopback fake Discord
(``fake_discord.py``): each check raises :class:`Refusal` carrying the status, JSON error code
and message Discord answers with, so the bot's own error handling runs as it would in
production. Every limit names the page of Discord's API reference it comes from
(https://discord.com/developers/docs/...); the few that Discord does not document are marked
as observed behaviour.
"""

from __future__ import annotations

import json
import re
import unicodedata
from collections.abc import Iterable, Mapping
from typing import Any

import discord

from altmafia.bot.permissions import INVITE

#: The permissions the bot is invited with (``altmafia.bot.permissions.INVITE``, the one
#: definition the README's list is generated from), and nothing else: the bot's managed role
#: gets exactly these in every strict test.
INVITE_PERMISSIONS = INVITE.value
MANAGE_ROLES = discord.Permissions(manage_roles=True).value
_ALL_BITS = dict(discord.Permissions.VALID_FLAGS)

#: Message "Create Message": with ``enforce_nonce`` a nonce "will be checked for uniqueness in
#: the past few minutes"; the layer keeps each nonce this many seconds of virtual time.
NONCE_WINDOW_SECONDS = 300.0

MESSAGE_CONTENT = 2000
MAX_EMBEDS = 10
MAX_FILES = 10
FILE_BYTES = 10 * 1024 * 1024
REQUEST_BYTES = 25 * 1024 * 1024
CREATE_OVERWRITES = 100
CHANNEL_OVERWRITES = 1000
GUILD_CHANNELS = 500
CATEGORY_CHANNELS = 50
GLOBAL_COMMANDS = 100
COMMAND_CHARACTERS = 8000
AUTOCOMPLETE_CHOICES = 25


class Refusal(Exception):
    """What Discord answers instead of doing the request."""

    def __init__(self, status: int, code: int, message: str, errors: dict[str, Any] | None = None,
                 *, detail: str = "") -> None:
        super().__init__(f"{status} (error code: {code}): {message}")
        self.status, self.code, self.message, self.errors = status, code, message, errors
        self.detail = detail  # for the test's record only: Discord's answer carries none

    def to_json(self) -> dict[str, Any]:
        body: dict[str, Any] = {"code": self.code, "message": self.message}
        if self.errors is not None:
            body["errors"] = self.errors
        return body


def invalid_form(path: str, code: str, message: str) -> Refusal:
    """400 / 50035 "Invalid Form Body" with Discord's nested ``errors`` object (Reference,
    "Error Messages"): discord.py prints it as ``In <path>: <message>``."""
    errors: dict[str, Any] = {"_errors": [{"code": code, "message": message}]}
    for part in reversed([p for p in re.split(r"[.\[\]]+", path) if p]):
        errors = {part: errors}
    return Refusal(400, 50035, "Invalid Form Body", errors)


def _length(value: Any, path: str, maximum: int, *, minimum: int = 0) -> None:
    if value is None:
        return
    n = len(str(value))
    if n > maximum:
        raise invalid_form(path, "BASE_TYPE_MAX_LENGTH", f"Must be {maximum} or fewer in length.")
    if n < minimum:
        raise invalid_form(path, "BASE_TYPE_MIN_LENGTH", f"Must be {minimum} or more in length.")


def _count(items: Any, path: str, maximum: int) -> list[Any]:
    items = list(items or [])
    if len(items) > maximum:
        raise invalid_form(path, "BASE_TYPE_MAX_LENGTH", f"Must be {maximum} or fewer in length.")
    return items


# ---- messages ------------------------------------------------------------------------------

def check_message(body: Mapping[str, Any] | None, files: Iterable[tuple[str, int]] = (), *, path: str = "") -> None:
    """A message body (Create/Edit Message, an interaction's message response, a followup).

    Channel resource, "Create Message": ``content`` up to 2000 characters, up to 10 ``embeds``
    whose text totals at most 6000 characters; Message resource, "Embed Limits": title 256,
    description 4096, 25 fields, field name 256 and value 1024, footer text 2048, author name
    256; Message Components reference for ``components``; "Uploading Files": at most 10 files.
    ``files`` is (name, size in bytes) per file.
    """
    body = body or {}
    _length(body.get("content"), f"{path}content", MESSAGE_CONTENT)
    embeds = list(body.get("embeds") or [])
    if body.get("embed"):
        embeds.append(body["embed"])
    check_embeds(embeds, path=f"{path}embeds")
    check_components(body.get("components") or [], path=f"{path}components")
    check_files(list(files))


def check_embeds(embeds: list[Mapping[str, Any]], *, path: str = "embeds") -> None:
    """Message resource, "Embed Limits" (the sum over every embed of a message ≤ 6000)."""
    _count(embeds, path, MAX_EMBEDS)
    total = 0
    for i, embed in enumerate(embeds):
        here = f"{path}[{i}]"
        texts = [("title", embed.get("title"), 256), ("description", embed.get("description"), 4096),
                 ("footer.text", (embed.get("footer") or {}).get("text"), 2048),
                 ("author.name", (embed.get("author") or {}).get("name"), 256)]
        for j, f in enumerate(_count(embed.get("fields"), f"{here}.fields", 25)):
            texts += [(f"fields[{j}].name", f.get("name"), 256), (f"fields[{j}].value", f.get("value"), 1024)]
        for key, text, limit in texts:
            _length(text, f"{here}.{key}", limit)
            total += len(text or "")
    if total > 6000:
        raise invalid_form(path, "BASE_TYPE_MAX_LENGTH", "Embed size exceeds maximum size of 6000")


def check_components(rows: list[Mapping[str, Any]], *, path: str = "components") -> None:
    """Message Components reference ("Action Row", "Button", "String Select"): at most 5 action
    rows; a row holds up to 5 buttons or one select; a button label ≤ 80, a ``custom_id`` ≤ 100;
    a select ≤ 25 options, placeholder ≤ 150, an option's label, value and description ≤ 100."""
    for r, row in enumerate(_count(rows, path, 5)):
        here = f"{path}[{r}].components"
        children = list(row.get("components") or [])
        selects = [c for c in children if c.get("type") in (3, 5, 6, 7, 8)]
        if selects and len(children) > 1:
            raise invalid_form(here, "COMPONENT_LAYOUT_WIDTH_EXCEEDED",
                               "The specified component exceeds the maximum width")
        _count(children, here, 5)
        for c, child in enumerate(children):
            at = f"{here}[{c}]"
            _length(child.get("custom_id"), f"{at}.custom_id", 100)
            _length(child.get("label"), f"{at}.label", 80)
            _length(child.get("placeholder"), f"{at}.placeholder", 150)
            for o, option in enumerate(_count(child.get("options"), f"{at}.options", 25)):
                for key in ("label", "value", "description"):
                    _length(option.get(key), f"{at}.options[{o}].{key}", 100)


def check_files(files: list[tuple[str, int]]) -> None:
    """Reference, "Uploading Files": 10 files a message, 10 MiB a file on a server without
    boosts, 25 MiB a request (the request is refused with 413 / 40005 "Request entity too
    large")."""
    _count(files, "files", MAX_FILES)
    for name, size in files:
        if size > FILE_BYTES:
            raise Refusal(413, 40005, f"Request entity too large: {name} is {size} bytes")
    if sum(size for _, size in files) > REQUEST_BYTES:
        raise Refusal(413, 40005, "Request entity too large")


def check_interaction_callback(body: Mapping[str, Any]) -> None:
    """Interactions, "Receiving and Responding": a message response (types 4 and 7) is a
    message; an autocomplete result (type 8) has at most 25 choices."""
    data = body.get("data") or {}
    if body.get("type") in (4, 7):
        check_message(data, path="data.")
    elif body.get("type") == 8:
        check_autocomplete(data.get("choices") or [])


def check_autocomplete(choices: list[Mapping[str, Any]]) -> None:
    """Application Commands, "Autocomplete" and "Application Command Option Choice Structure":
    at most 25 choices; a name 1–100 characters (its localisations too), a string value up to
    100 characters."""
    for i, choice in enumerate(_count(choices, "data.choices", AUTOCOMPLETE_CHOICES)):
        _length(choice.get("name"), f"data.choices[{i}].name", 100, minimum=1)
        for locale, name in (choice.get("name_localizations") or {}).items():
            _length(name, f"data.choices[{i}].name_localizations.{locale}", 100, minimum=1)
        if isinstance(choice.get("value"), str):
            _length(choice["value"], f"data.choices[{i}].value", 100)


# ---- application commands ------------------------------------------------------------------

def _name_char(ch: str) -> bool:
    if ch in "-_'":
        return True
    if unicodedata.category(ch)[0] in "LN":
        return True
    return 0x0900 <= ord(ch) <= 0x097F or 0x0E00 <= ord(ch) <= 0x0E7F  # Devanagari, Thai


def _check_name(name: Any, path: str, *, chat_input: bool) -> None:
    """Application Commands, "Application Command Naming": CHAT_INPUT command and option names
    match ``^[-_'\\p{L}\\p{N}\\p{sc=Deva}\\p{sc=Thai}]{1,32}$`` and use the lower-case variant of
    every letter that has one; other command types take 1–32 characters."""
    text = str(name or "")
    if not 1 <= len(text) <= 32:
        raise invalid_form(path, "APPLICATION_COMMAND_INVALID_NAME", "Command name is invalid")
    if chat_input and (not all(_name_char(ch) for ch in text) or text != text.lower()):
        raise invalid_form(path, "APPLICATION_COMMAND_INVALID_NAME", "Command name is invalid")


def _check_named(item: Mapping[str, Any], path: str, *, chat_input: bool, description: bool) -> None:
    _check_name(item.get("name"), f"{path}.name", chat_input=chat_input)
    for locale, name in (item.get("name_localizations") or {}).items():
        _check_name(name, f"{path}.name_localizations.{locale}", chat_input=chat_input)
    if description:
        _length(item.get("description"), f"{path}.description", 100, minimum=1)
        for locale, text in (item.get("description_localizations") or {}).items():
            _length(text, f"{path}.description_localizations.{locale}", 100, minimum=1)


def _check_options(options: list[Mapping[str, Any]], path: str) -> None:
    """Application Commands, "Application Command Option Structure": up to 25 options (or
    subcommands and groups) at each level; up to 25 choices, each name 1–100 characters."""
    for i, option in enumerate(_count(options, path, 25)):
        here = f"{path}[{i}]"
        _check_named(option, here, chat_input=True, description=True)
        for c, choice in enumerate(_count(option.get("choices"), f"{here}.choices", 25)):
            _length(choice.get("name"), f"{here}.choices[{c}].name", 100, minimum=1)
            if isinstance(choice.get("value"), str):
                _length(choice["value"], f"{here}.choices[{c}].value", 100)
        if option.get("type") in (1, 2):
            _check_options(list(option.get("options") or []), f"{here}.options")


def _command_characters(command: Mapping[str, Any]) -> int:
    """"the combined sum of characters" of a command: names, descriptions, option names,
    descriptions and choice names and values, with their localisations (Application
    Commands, "Limits")."""
    total = 0

    def add(item: Mapping[str, Any]) -> None:
        nonlocal total
        for key in ("name", "description"):
            total += len(str(item.get(key) or ""))
        for key in ("name_localizations", "description_localizations"):
            total += sum(len(str(v)) for v in (item.get(key) or {}).values())
        for choice in item.get("choices") or []:
            add(choice)
            if isinstance(choice.get("value"), str):
                total += len(choice["value"])
        for option in item.get("options") or []:
            add(option)

    add(command)
    return total


def check_command(command: Mapping[str, Any], *, path: str = "") -> None:
    """One command of a sync payload (Application Commands, "Application Command Object",
    "Limits"): name and description rules, ≤ 25 options, 8000 characters a command."""
    chat_input = command.get("type", 1) == 1
    _check_named(command, path.rstrip(".") or "command", chat_input=chat_input, description=chat_input)
    _check_options(list(command.get("options") or []), f"{path}options")
    if _command_characters(command) > COMMAND_CHARACTERS:
        raise invalid_form(path.rstrip(".") or "command", "APPLICATION_COMMAND_TOO_LARGE",
                           "Command exceeds maximum size (8000)")


def check_commands(commands: list[Mapping[str, Any]]) -> None:
    """Bulk Overwrite Global/Guild Application Commands (Application Commands, "Registering a
    Command"): up to 100 CHAT_INPUT commands, 15 USER and 15 MESSAGE; names unique per type."""
    limits = {1: GLOBAL_COMMANDS, 2: 15, 3: 15}
    seen: set[tuple[int, str]] = set()
    for kind, limit in limits.items():
        if sum(1 for c in commands if c.get("type", 1) == kind) > limit:
            raise Refusal(400, 30032, f"Maximum number of application commands reached ({limit})")
    for i, command in enumerate(commands):
        check_command(command, path=f"{i}.")
        key = (command.get("type", 1), str(command.get("name")))
        if key in seen:
            raise invalid_form(f"{i}.name", "APPLICATION_COMMANDS_DUPLICATE_NAME",
                               "Application command names must be unique")
        seen.add(key)


# ---- channels --------------------------------------------------------------------------------

_STRIPPED = re.compile(r"[!\"#$%&()*+,./:;<=>?@\[\\\]^`{|}~]")


def normalise_channel_name(name: str) -> str:
    """What Discord stores for a text (or announcement) channel's name: lower case, runs of
    spaces as one dash, ASCII punctuation other than ``-``, ``_`` and ``'`` dropped, repeated
    dashes collapsed, no dash at either end. Observed behaviour of the API (the Channel
    resource documents only "1-100 characters"); voice channels and categories keep theirs."""
    text = re.sub(r"\s+", "-", name.strip().lower())
    text = _STRIPPED.sub("", text)
    return re.sub(r"-{2,}", "-", text).strip("-")


def check_channel_name(name: Any, *, path: str = "name") -> None:
    """Guild resource, "Create Guild Channel": ``name`` 1–100 characters."""
    _length(name, path, 100, minimum=1)


def check_overwrite_bits(overwrites: Iterable[Mapping[str, Any]], held: int, *, manage_roles_overwrite: bool = False) -> None:
    """Guild resource, "Create Guild Channel" and Channel resource, "Modify Channel" / "Edit
    Channel Permissions": "Only permissions your bot has in the guild or parent channel (if
    applicable) can be allowed/denied (unless your bot has a MANAGE_ROLES overwrite in the
    channel)"; the change log of 2021-01-22 adds that setting Manage Roles itself needs an
    administrator or a Manage Roles overwrite. Refused with 403 / 50013."""
    if manage_roles_overwrite:
        return
    for o in overwrites:
        bits = int(o.get("allow") or 0) | int(o.get("deny") or 0)
        extra = bits & (~held | MANAGE_ROLES)
        if extra:
            names = [name for name, value in _ALL_BITS.items() if extra & value]
            raise Refusal(403, 50013, "Missing Permissions", detail="bits not held: " + ", ".join(names))


def check_create_overwrites(overwrites: list[Any]) -> None:
    """At most 100 overwrites in one channel-create request (Discord's own 50035 text, as
    reported by library users; not in the reference)."""
    _count(overwrites, "permission_overwrites", CREATE_OVERWRITES)


def json_size(body: Any) -> int:
    return len(json.dumps(body, ensure_ascii=False)) if body is not None else 0
