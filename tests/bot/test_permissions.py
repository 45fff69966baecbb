"""Who reads and writes where: every channel of a game, for every member, spectator and GM."""

from __future__ import annotations

import pytest

from .conftest import perms
from .helpers import force_resolve, gather, start

pytestmark = pytest.mark.settings(gm_role="Ведущие")


def can(env, channel, member) -> tuple[bool, bool]:
    p = perms(env, channel, member)
    return p.view_channel, p.view_channel and p.send_messages


async def test_every_channel_for_everyone(env):
    t = await gather(env, 13, spectators=2, others=2)
    role = t.guild.create_role("Ведущие")
    helper = t.guild.add_member(env.create_user("помощник", global_name="Помощник"), roles=[role])
    await start(t)
    keys = set(t.info.meta["channels"])
    assert {"category", "public", "votes", "gm", "spectators"} | {f"player:{i}" for i in range(13)} == keys
    for key in keys:
        ch = t.channel(key)
        for gm in (t.gm, helper):
            assert can(env, ch, gm) == (True, True), (key, gm.name)
        for o in t.others:
            assert can(env, ch, o) == (False, False), (key, o.name)
        for s in t.spectators:
            expected = (key in ("category", "public", "votes", "spectators"), False)
            if key == "category":
                expected = (False, False)
            assert can(env, ch, s) == expected, (key, s.name)
        for pid in range(13):
            m = t.member(pid)
            if key == "public":
                expected = (True, True)
            elif key == "votes":
                expected = (True, False)
            elif key == f"player:{pid}":
                expected = (True, True)
            else:
                expected = (False, False)
            assert can(env, ch, m) == expected, (key, pid)
    # a holder of the server's GM role is a GM of the game
    r = await helper.slash(t.channel("gm"), "gm status")
    assert not r.response.content.startswith("⛔"), r.response.content
    r = await t.others[0].slash(t.lobby, "gm status")
    assert r.response.content.startswith("⛔")
    # the bot itself sees everything without being an administrator
    me = t.guild.me
    assert not me.guild_permissions.administrator
    for key in keys:
        assert t.channel(key).id in {c.id for c in t.bot.get_guild(t.guild.id).channels}


async def test_the_dead_stop_writing_prisoners_go_on_and_factions_get_a_channel(env):
    t = await start(await gather(env, 6, spectators=1, others=1))
    gm_ch = t.channel("gm")
    r = await t.gm.slash(gm_ch, "gm setstatus", player="0", status="dead")
    assert r.response and not r.response.content.startswith("⛔"), r.response
    r = await t.gm.slash(gm_ch, "gm setstatus", player="1", status="prison")
    pub = t.channel("public")
    assert can(env, pub, t.member(0)) == (True, False)  # the dead read, no longer write
    assert can(env, pub, t.member(1)) == (True, True)  # prisoners still talk in Godfather's Legacy
    assert can(env, pub, t.member(2)) == (True, True)
    # a dead player still asks the GM in their hidden channel
    assert can(env, t.hidden(0), t.member(0)) == (True, True)

    # night 1: Вера invites Глеб, who accepts; the faction gets a channel of its own
    await force_resolve(t)
    await force_resolve(t)
    assert t.game.info.kind == "night"
    await t.gm.slash(gm_ch, "gm setstat", player="2", stat="tv", value=5)
    r = await t.member(2).slash(t.hidden(2), "faction invite", player="3")
    assert r.response and not r.response.content.startswith("⛔"), r.response.content
    r = await t.member(3).slash(t.hidden(3), "faction accept", inviter="2")
    assert r.response and not r.response.content.startswith("⛔"), r.response.content
    await force_resolve(t)
    factions = t.game.state.factions
    assert len(factions) == 1
    fid = next(iter(factions))
    key = f"faction:{fid}"
    assert key in t.info.meta["channels"]
    fch = t.channel(key)
    for pid in range(6):
        expected = (True, True) if pid in (2, 3) else (False, False)
        assert can(env, fch, t.member(pid)) == expected, pid
    assert can(env, fch, t.spectators[0]) == (False, False)
    assert can(env, fch, t.others[0]) == (False, False)
    assert can(env, fch, t.gm) == (True, True)
    # the faction's news went to its channel, and only there
    assert any("Во фракцию вступает" in m.content or "joined" in m.content for m in fch.history()), [m.content for m in fch.history()]


async def test_a_late_spectator_reads_the_shared_channels_only(env):
    t = await start(await gather(env, 4, spectators=0, others=1))
    late = t.others[0]
    r = await late.slash(t.lobby, "lobby spectate")
    assert r.response and r.response.ephemeral and not r.response.content.startswith("⛔"), r.response
    for key in t.info.meta["channels"]:
        ch = t.channel(key)
        view, write = can(env, ch, late)
        assert not write, key
        assert view == (key in ("public", "votes", "spectators")), key
