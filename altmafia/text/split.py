"""A text cut into Discord messages: the one splitting rule of the bot's posts and replies.

Discord refuses a message over 2000 characters (``content``, API reference, "Create Message"),
an interaction's reply included. Lines are kept whole and joined into as few messages as fit;
a line longer than a message is split between the items of a list where it can be (after a
«, », so that a name with spaces in a list of names stays whole), else at word boundaries (at a
space, the space dropped), and a single word longer than a message is split where the limit
falls. Nothing is ever cut off.

A code block (a line opening it with three backticks, another closing it) split across two
messages is closed at the end of the first and opened again at the start of the next, so the
text inside it stays in the block in both: player text that the bot quotes in a block never
spills out of it as markup.
"""

from __future__ import annotations

#: Discord's limit of a message's content, in characters
DISCORD_LIMIT = 2000
FENCE = "```"


def split_line(line: str, limit: int) -> list[str]:
    """A line in pieces of at most ``limit`` characters: cut after a list's «, » in the second
    half of a piece where there is one (the comma kept, the space dropped), else at a space (the
    space dropped); a word longer than ``limit`` cut where the limit falls."""
    out: list[str] = []
    while len(line) > limit:
        item = line.rfind(", ", 0, limit)
        if item >= limit // 2:
            out.append(line[:item + 1])
            line = line[item + 2:]
            continue
        cut = line.rfind(" ", 0, limit + 1)
        if cut <= 0:  # no space to cut at (or only a leading one): the word itself is cut
            out.append(line[:limit])
            line = line[limit:]
        else:
            out.append(line[:cut])
            line = line[cut + 1:]
    out.append(line)
    return out


def chunks(lines: list[str], limit: int = DISCORD_LIMIT) -> list[str]:
    """Lines joined into as few messages of at most ``limit`` characters as they fit, in
    order: a line stays whole when it fits a message, else it is split at word boundaries
    (:func:`split_line`); a code block cut between two messages is closed and opened again."""
    out: list[str] = []
    cur: list[str] = []
    size = 0
    inside = False  # within a code block
    opened = False  # the last piece added opened it
    close = len(FENCE) + 1  # the fence closing a block cut at the end of a message ("\n```")
    inner = limit - 2 * close  # a piece of a line in a block: room to open it again and close it
    for line in lines:
        pieces = split_line(line, inner if inside or FENCE in line else limit)
        for piece in pieces:
            toggles = piece.count(FENCE) % 2 == 1
            reserve = close if inside != toggles else 0  # in a block after this piece: room to close it
            if cur and size + 1 + len(piece) + reserve > limit:
                if inside and opened and len(cur) > 1:
                    # a line opening the block (its fence and language tag): the block opens on the next message
                    head = cur.pop()
                    if len(head) + 1 + len(piece) + close > limit:
                        head = FENCE  # a language tag too long to share the message: a plain block
                    out.append("\n".join(cur))
                    cur, size = [head], len(head)
                else:
                    if inside:
                        cur.append(FENCE)
                    out.append("\n".join(cur))
                    cur, size = ([FENCE], len(FENCE)) if inside else ([], 0)
            size += (1 if cur else 0) + len(piece)
            cur.append(piece)
            # this piece is a whole line opening a block (its fence and a language tag at most)
            opened = toggles and not inside and len(pieces) == 1 and piece.startswith(FENCE) and " " not in piece
            if toggles:
                inside = not inside
    if cur:
        out.append("\n".join(cur))
    return out


def split(text: str, limit: int = DISCORD_LIMIT) -> list[str]:
    """A text in messages of at most ``limit`` characters (:func:`chunks` of its lines); an
    empty text is one empty message."""
    return chunks(text.split("\n"), limit) or [""]
