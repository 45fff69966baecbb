"""Every string argument of every slash command, fed crafted values: a value that
is not a valid player, number or choice gets a clear ephemeral refusal from the catalog, never
the generic «something went wrong»; a free text (a PM, an anonymous post, the GM's word, a
note) is taken or refused, never a crash."""

from __future__ import annotations

import pytest
from discord import AppCommandOptionType
from simcord.backend.errors import OptionError

from altmafia.text.i18n import catalog

from .helpers import force_resolve, gather, start

pytestmark = pytest.mark.settings(gm_role="Ведущие")

CRAFTED = ["²", "-1", "99999999999999999999", "", "ы" * 200, "@everyone", "😀", "٣", "0x1", "1e3", "None", "<@1>"]
#: free texts: anything is a message
FREE = {("pm send", "message"), ("anon post", "message"), ("gm tell", "message"), ("gm settle", "note")}
#: the commands the GM uses (in the GM channel); the lobby's in the lobby's channel; the rest a player's
GM = "gm"
LOBBY = "lobby"


def valid(command: str, param: str) -> object:
    """A valid value for an argument that is not the one being crafted."""
    if param in ("minutes", "days", "value", "day"):
        return 1
    if param == "task":
        return 0
    if param in ("message", "note"):
        return "привет"
    if param in ("player", "to", "candidate", "target", "inviter"):
        return "1"
    if param == "stat":
        return "tv"
    if param == "status":
        return "prison"
    return "x"


def string_params(bot):
    for cmd in bot.tree.walk_commands():
        if not hasattr(cmd, "parameters"):
            continue
        for p in cmd.parameters:
            if p.type == AppCommandOptionType.string and not p.choices:
                yield cmd, p


def internal_texts() -> set[str]:
    return {"⛔ " + catalog(lang)["bot"]["err.internal"] for lang in ("ru", "en")}


async def fuzz(t, signup, only: tuple[str, ...] = ()) -> tuple[set[str], int]:
    """Every string argument of the commands (those starting with ``only``, if given) with every
    crafted value; returns the arguments tried and how many calls were made."""
    offered = await t.member(0).autocomplete(t.hidden(0), "action submit", "ability", "")
    with_targets = [la for la in t.game.legal_actions(0) if la.ability.targets == 1 and not la.via]
    ability = with_targets[0].key if with_targets else "x"
    assert not with_targets or ability in {c["value"] for c in offered}
    bad = internal_texts()
    seen: set[str] = set()
    tried = 0
    for cmd, param in string_params(t.bot):
        name = cmd.qualified_name
        if only and not name.startswith(only):
            continue
        root = name.split()[0]
        if root == GM:
            who, where = t.gm, t.channel("gm")
        elif root == LOBBY:
            who, where = t.players[0], (signup if name != "lobby create" else t.guild.create_text_channel(f"c{tried}"))
        else:
            who, where = t.member(0), t.hidden(0)
        for value in CRAFTED:
            args = {p.display_name: valid(name, p.display_name) for p in cmd.parameters if p.required}
            args[param.display_name] = value
            if name == "action submit" and param.display_name != "ability":  # a real ability, so that its option is read
                args["ability"] = ability
                if param.display_name != "target":
                    args["target"] = "1"
            try:
                res = await who.slash(where, name, **args)
            except OptionError:  # Discord's client would not send it (a length limit)
                continue
            tried += 1
            content = res.response.content if res.response else ""
            where_ = (name, param.display_name, value, content)
            assert res.response is not None and res.ephemeral, where_
            assert content not in bad, where_
            if (name, param.display_name) not in FREE:
                assert content.startswith("⛔ ") and not content.rstrip(".").endswith(":"), where_  # a reason, not an empty list
            seen.add(f"{name} {param.display_name}")
    return seen, tried


async def test_every_crafted_argument_is_refused_clearly(env):
    t = await gather(env, 6, spectators=0, others=1)
    await start(t)
    # an open sign-up elsewhere, for /lobby join role
    signup = t.guild.create_text_channel("набор-2")
    r = await t.others[0].slash(signup, "lobby create", ruleset="eternal_friday", practice=True)
    assert not r.response.content.startswith("⛔"), r.response.content
    seen, tried = await fuzz(t, signup)  # day 1.1: everything
    assert tried > 100, tried
    for must in ("pm send to", "action submit target", "action submit option", "faction invite player", "gm setstat player",
                 "gm tell player", "gm idle player", "lobby create timezone", "lobby create ruleset", "lobby join role",
                 "action submit for", "action cancel which"):
        assert must in seen, (must, sorted(seen))
    await force_resolve(t)  # day 1.2: the vote
    assert t.game.info.label.startswith("day")
    seen, tried = await fuzz(t, signup, ("vote",))
    assert {"vote cast candidate", "vote cast ballot"} <= seen, seen
    await force_resolve(t)  # night 1: the factions
    assert t.game.info.kind == "night"
    seen, tried = await fuzz(t, signup, ("faction", "action"))
    assert {"faction leave faction", "faction kick faction", "faction overthrow faction"} <= seen, seen
