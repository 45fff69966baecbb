"""Players' names where a medium limits their length: cut at a word boundary with «…» (never
mid-word without a sign), and a name left empty given a word of the catalog, not an id."""

from __future__ import annotations

from .i18n import catalog

#: the longest seat name (Discord's limit of a display name and a nickname)
SEAT_NAME_WIDTH = 32


def shorten(name: str, width: int) -> str:
    """``name`` with its spaces collapsed, whole when it fits in ``width`` characters; else cut
    after the last whole word that fits (or, for one long word, inside it) and marked «…»."""
    name = " ".join(name.split())
    if len(name) <= width:
        return name
    cut = name[: width - 1]
    head, sep, _ = cut.rpartition(" ")
    if sep and len(head) >= width // 2:  # a word boundary that keeps most of the name
        cut = head
    return cut.rstrip(" ,.;:-—") + "…"


def seat_name(wanted: str, lang: str, width: int = SEAT_NAME_WIDTH) -> str:
    """The name a seat takes from a member's name: shortened to ``width`` (:func:`shorten`), or
    the catalog's word for a player (``words.unnamed_player``) when nothing is left of it."""
    return shorten(wanted, width) or catalog(lang)["words"]["unnamed_player"]
