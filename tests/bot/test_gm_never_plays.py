"""A GM of a game never plays in it; a player of a game is never its GM: the
server's GM role (``ALTMAFIA_GM_ROLE``) makes its holders GMs of every game, so they cannot sign
up, a game does not start with one of them at the table, and a player who gets the role later
is still refused the GM's commands and buttons of their own game."""

from __future__ import annotations

import pytest

from altmafia.text.i18n import text

from .conftest import perms
from .helpers import gather, start

pytestmark = pytest.mark.settings(gm_role="Ведущие")


async def test_a_holder_of_the_gm_role_cannot_sign_up(env):
    t = await gather(env, 4, spectators=0, others=0)
    role = t.guild.create_role("Ведущие")
    helper = t.guild.add_member(env.create_user("помощник", global_name="Помощник"), roles=[role])
    r = await helper.slash(t.lobby, "lobby join")
    assert r.response.ephemeral and r.response.content == "⛔ " + text("en", "err.gm_role_cannot_play"), r.response.content
    lobby = next(iter((await t.store.lobbies.lobbies(t.guild.id)).values()))
    assert helper.id not in [p["user_id"] for p in lobby["players"]]
    # the game's own GM neither
    r = await t.gm.slash(t.lobby, "lobby join")
    assert r.response.ephemeral and r.response.content.startswith("⛔"), r.response.content


async def test_a_player_given_the_gm_role_is_not_a_gm_of_their_game(env):
    t = await gather(env, 4, spectators=0, others=0)
    role = t.guild.create_role("Ведущие")
    late = t.players[1]
    env.backend.add_member_role(t.guild.id, late.id, role.id)  # the role comes after the sign-up
    await env.settle()
    r = await t.gm.slash(t.lobby, "lobby start")
    assert r.response.ephemeral and r.response.content.startswith("⛔"), r.response.content
    assert r.response.content == "⛔ " + text("en", "err.gm_role_players", names="Борис"), r.response.content
    assert not t.store.games.games()
    env.backend.remove_member_role(t.guild.id, late.id, role.id)
    await env.settle()
    await start(t)
    env.backend.add_member_role(t.guild.id, late.id, role.id)  # and again, once the game runs
    await env.settle()
    pid = next(p.pid for p in t.game.state.players if p.user_id == late.id)
    for cmd in ("gm status", "gm preview", "gm resolve", "gm end"):
        r = await late.slash(t.hidden(pid), cmd)
        assert r.response.ephemeral and r.response.content == "⛔ " + text("en", "err.not_gm"), (cmd, r.response.content)
    r = await late.slash(t.hidden(pid), "lobby end")
    assert r.response.ephemeral and r.response.content.startswith("⛔"), r.response.content
    # nor does the role open the GM channel or another player's hidden channel to them
    other = next(q.pid for q in t.game.state.players if q.pid != pid)
    assert not perms(env, t.channel("gm"), late).view_channel
    assert not perms(env, t.hidden(other), late).view_channel
    assert perms(env, t.hidden(pid), late).view_channel
    # the real GM still is one
    r = await t.gm.slash(t.channel("gm"), "gm status")
    assert not r.response.content.startswith("⛔"), r.response.content
