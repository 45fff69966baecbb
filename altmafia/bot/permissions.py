"""What the bot may do on a server: the one definition of the permissions it is invited with,
and of every permission bit it ever puts in a channel's overwrite.

Discord lets a bot allow or deny in an overwrite only the bits it holds itself (Discord's
guild resource docs, *Modify Guild Channel Positions* / *Edit Channel Permissions*: "Only
permissions your bot has in the guild or parent channel (if applicable) can be allowed/denied");
a bit outside what it holds fails the whole request with 403 "Missing Permissions". So every
overwrite is built from the sets below, each a part of :data:`INVITE`, and the README's invite
list and ``altmafia run``'s token help are this list (``tests/bot/test_invite_permissions.py``
compares them, and checks every overwrite of a whole game start against :data:`INVITE`).

The thread and reaction bits are in the invite so that the bot can *deny* them: ``@everyone``
holds them by default on a new server, so a read-only channel would otherwise let a dead player
or a spectator open a thread, write in it (*Send Messages in Threads* is not *Send Messages*)
or answer with reactions.
"""

from __future__ import annotations

import discord

P = discord.Permissions

#: the bot's permissions on the server, as its invite link asks for them (the README lists
#: them by :data:`NAMES`, in this order)
INVITE_BITS = (
    "view_channel", "manage_channels", "manage_roles", "send_messages", "read_message_history", "embed_links",
    "attach_files", "manage_messages", "add_reactions", "create_public_threads", "create_private_threads",
    "send_messages_in_threads",
)
INVITE = P(**dict.fromkeys(INVITE_BITS, True))

#: each bit as Discord's server settings and the Developer Portal's URL generator name it
NAMES = {
    "view_channel": "View Channels", "manage_channels": "Manage Channels", "manage_roles": "Manage Roles",
    "send_messages": "Send Messages", "read_message_history": "Read Message History", "embed_links": "Embed Links",
    "attach_files": "Attach Files", "manage_messages": "Manage Messages", "add_reactions": "Add Reactions",
    "create_public_threads": "Create Public Threads", "create_private_threads": "Create Private Threads",
    "send_messages_in_threads": "Send Messages in Threads",
}

# ---- what goes into the overwrites (every set a part of INVITE) -----------------------------
READ = P(view_channel=True, read_message_history=True)
WRITE = P(send_messages=True, add_reactions=True, attach_files=True, embed_links=True)
#: denied where a member only reads: writing in any form, threads included
NO_WRITE = WRITE | P(send_messages_in_threads=True, create_public_threads=True, create_private_threads=True)
GM = READ | WRITE | P(manage_messages=True)
BOT = GM | P(manage_channels=True)
HIDDEN = P(view_channel=True)

#: the overwrites' sets, by name (for the test that checks each is within the invite)
SETS = {"READ": READ, "WRITE": WRITE, "NO_WRITE": NO_WRITE, "GM": GM, "BOT": BOT, "HIDDEN": HIDDEN}


def invite_names() -> list[str]:
    """The invite's permissions as people read them, in the README's order."""
    return [NAMES[bit] for bit in INVITE_BITS]


def within_invite(value: int) -> bool:
    """Whether an overwrite's allow or deny value asks only for bits the bot is invited with."""
    return value & ~INVITE.value == 0


def missing(held: discord.Permissions) -> list[str]:
    """The invite's permissions a bot holding ``held`` on a server lacks, by name (none with
    Administrator: it holds every bit)."""
    if held.administrator:
        return []
    return [NAMES[bit] for bit in INVITE_BITS if not getattr(held, bit)]
