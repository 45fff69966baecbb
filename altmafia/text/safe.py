"""Player text as data, never markup: what people type (names, PMs, anonymous posts, the GM's
notes and announcements) is escaped here, once, before it joins a text of the bot.

- :func:`name` — a name inside a line: every markdown character escaped, mentions broken, no
  line breaks (a name can never start a line, a list, a quote or a header of its own).
- :func:`said` — a free text: escaped like a name; a text of several lines is set apart as a
  Discord block quote (each line ``> …``, on lines of its own), so that none of its lines can
  read as one of the bot's, and an open code fence or emphasis cannot reach the bot's lines.
- :func:`clean_name` — a name as it is stored: NFKC, no invisible or bidi control characters,
  no mention syntax, spaces collapsed, trimmed, cut to a length.
- :func:`blank` — whether a text shows nothing (only spaces and invisible characters).

The HTML report escapes for HTML instead (``altmafia.text.report``) and takes names and texts
unescaped from the renderer.
"""

from __future__ import annotations

import re
import unicodedata

#: Discord's markdown characters anywhere in a line (emphasis, spoilers, code, masked links,
#: mentions, timestamps and custom emoji in angle brackets): a backslash shows the character
_MARKDOWN = re.compile(r"([\\*_~|`\[\]<])")
#: what is markup only at the start of a line: quotes, headers, subtexts, lists
_LINE_START = re.compile(r"^(\s*)([>#\-+])|^(\s*\d+)(\.)", re.MULTILINE)
#: a link is left as it is (escaping would break it), its backticks excepted
_LINK = re.compile(r"(https?://[^\s<>`]+)")
#: @everyone and @here (a zero-width space after the "@", as discord.py's escape_mentions does)
_MENTION = re.compile(r"@(?=everyone|here)", re.IGNORECASE)
_ZWSP = "\u200b"
#: characters that show nothing: the zero-width ones, the bidi controls, the word joiner…
_INVISIBLE = re.compile("[\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b-\u200f\u202a-\u202e"
                        "\u2060-\u206f\u3164\ufe00-\ufe0f\ufeff\uffa0\U000e0000-\U000e0fff]")
#: mention syntax in a name: ``@everyone``, ``@here``, ``<@…>``, ``<#…>``, ``<@&…>``, ``<t:…>``
_NAME_MENTION = re.compile(r"<[@#][!&]?\d*>?|<t:[^>]*>?|@+(?=\S)", re.IGNORECASE)

_BEFORE_QUOTE = re.compile(r"[ \t]+\n> ")
_AFTER_QUOTE = re.compile(r"(\n> [^\n]*)\n[ \t]+")

#: the longest seat name (Discord's nickname limit)
NAME_MAX = 32


def _escape(s: str) -> str:
    """Markdown escaped (links kept whole), mentions broken."""
    parts = _LINK.split(s)
    out = "".join(part if i % 2 else _MARKDOWN.sub(r"\\\1", part) for i, part in enumerate(parts))
    out = _LINE_START.sub(lambda m: f"{m.group(1)}\\{m.group(2)}" if m.group(2) else f"{m.group(3)}\\{m.group(4)}", out)
    return _MENTION.sub("@" + _ZWSP, out)


def _visible(s: str) -> str:
    """Invisible characters and control characters (line breaks and tabs excepted) removed."""
    s = _INVISIBLE.sub("", s)
    return "".join(c for c in s if c in "\n\t" or unicodedata.category(c) not in ("Cc", "Cf", "Cs", "Co", "Cn"))


def name(s: str) -> str:
    """A name for a line of the bot: one line, markdown escaped, mentions broken."""
    return _escape(" ".join(_visible(str(s)).split()))


def said(s: str) -> str:
    """A text someone typed, for a message of the bot: escaped; several lines become a block
    quote on lines of their own (a line break before and after), so that each stays readable
    and none can pass for a line of the bot."""
    lines = [line.rstrip() for line in _visible(str(s)).replace("\r\n", "\n").replace("\r", "\n").split("\n")]
    while lines and not lines[0].strip():
        lines.pop(0)
    while lines and not lines[-1].strip():
        lines.pop()
    if len(lines) <= 1:
        return _escape(lines[0].strip()) if lines else ""
    return "\n" + "\n".join(f"> {_escape(line)}" for line in lines) + "\n"


def tidy(filled: str) -> str:
    """A filled template with a quoted text in it, tidied: no space left before the quote's
    line break nor at the start of the line after it, no line break at the very end (nothing of the bot's follows the quote)."""
    if "\n> " not in filled:
        return filled
    return _AFTER_QUOTE.sub(r"\1\n", _BEFORE_QUOTE.sub("\n> ", filled)).rstrip("\n")


def blank(s: str) -> bool:
    """True when a text shows nothing: only spaces and invisible characters."""
    return not _visible(s or "").strip()


def clean_name(s: str, limit: int = NAME_MAX) -> str:
    """A name as it is stored: NFKC, no invisible or control characters, no mention syntax, one
    line, spaces collapsed, trimmed, at most ``limit`` characters ("" when nothing is left)."""
    s = _visible(unicodedata.normalize("NFKC", str(s or "")))
    s = _NAME_MENTION.sub("", s)
    s = s.replace("@", "")
    return " ".join(s.split())[:limit].strip()
