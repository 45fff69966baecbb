"""What a request to Discord may end in besides an answer.

discord.py raises ``discord.HTTPException`` (and its kinds) when Discord answered with an
error; a connection that broke reaches the bot as it came from aiohttp or the socket: refused
or reset before Discord saw the request, closed after Discord had done it and before the answer
came back (``ServerDisconnectedError``, ``ClientOSError`` with ``ECONNRESET``), or timed out on
the bot's side (``asyncio.TimeoutError``). Such a request may or may not have been done: the bot
treats it as a 5xx that discord.py gave up on. A post stays pending and is looked for in its
channel before it is sent again (``Deliverer._find``); a channel sync is done again by the next
one; a start is rolled back by the channels' intents. Every REST path of the bot catches
:data:`FAILED`, never ``discord.HTTPException`` alone, so that no dropped connection stops a
loop half-way.
"""

from __future__ import annotations

import aiohttp
import discord

#: a request whose connection failed: Discord may have done it or not (``asyncio.TimeoutError``
#: is the builtin ``TimeoutError``)
UNREACHED: tuple[type[BaseException], ...] = (aiohttp.ClientError, TimeoutError, OSError)
#: everything a request to Discord may fail with: Discord's refusal or a connection that failed
FAILED: tuple[type[BaseException], ...] = (discord.HTTPException, *UNREACHED)


def reason(exc: BaseException) -> str:
    """Discord's own words for a refused request (its message, or the HTTP status), or the
    kind of connection failure (``ServerDisconnectedError``) with its text, for a log line or
    a refusal's ``why``."""
    if isinstance(exc, discord.HTTPException):
        return str(exc.text or exc.status)[:300]
    said = str(exc)
    return (f"{type(exc).__name__}: {said}" if said else type(exc).__name__)[:300]
