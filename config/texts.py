"""The loader's own texts, Russian and English: the section ``variants`` of
``config/messages/<lang>.variants.yaml`` (the bot's catalog merges the same files; this table
reads only its own section, so that ``config`` needs nothing from ``altmafia``)."""

from __future__ import annotations

import difflib
from collections.abc import Iterable
from functools import lru_cache
from pathlib import Path
from typing import Any

import yaml

MESSAGES_DIR = Path(__file__).parent / "messages"
LANGS = ("ru", "en")
_Loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


@lru_cache(maxsize=2)
def table(lang: str) -> dict[str, str]:
    if lang not in LANGS:
        raise ValueError(f"unknown language {lang!r}")
    data = yaml.load((MESSAGES_DIR / f"{lang}.variants.yaml").read_text(encoding="utf-8"), Loader=_Loader) or {}
    return dict(data.get("variants") or {})


def say(lang: str, key: str, default: str | None = None, /, **args: Any) -> str:
    """The text ``key`` filled with ``args``; ``default`` (an English text already filled)
    when the table lacks the key, else the key itself."""
    template = table(lang).get(key)
    if template is None:
        return default if default is not None else key
    try:
        return template.format(**args)
    except (KeyError, IndexError, ValueError):
        return default if default is not None else template


def known_values(lang: str, name: str, known: Iterable[str]) -> str:
    """«; did you mean 'x'? known: a, b, c» for an unknown ``name`` among ``known``."""
    names = sorted({str(k) for k in known})
    if not names:
        return ""
    close = difflib.get_close_matches(str(name), names, n=1, cutoff=0.5)
    out = say(lang, "loader.known", names=", ".join(names))
    if close:
        out += say(lang, "loader.did_you_mean", names=", ".join(repr(c) for c in close))
    return out
