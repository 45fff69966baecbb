"""The server's GM role (``ALTMAFIA_GM_ROLE``) given as the id of the guild: that is the
@everyone role, which every member holds. It never makes anyone a GM, and ``/lobby start``
refuses it with a sentence naming the value and what to do (as ``@everyone`` by name is
refused when the settings are read)."""

from __future__ import annotations

import dataclasses

import pytest

from altmafia.bot.settings import Settings, SettingsError
from altmafia.text.i18n import text

from .helpers import gather, start


async def test_the_everyone_role_as_the_gm_role_makes_no_gm_and_refuses_the_start(env):
    t = await gather(env, 4, spectators=0, others=0)
    everyone = str(t.guild.id)
    env.bot.settings = dataclasses.replace(env.bot.settings, gm_role=everyone)
    newcomer = t.guild.add_member(env.create_user("новичок", global_name="Новичок"))
    r = await newcomer.slash(t.lobby, "lobby join")  # a member is no GM through @everyone
    assert not r.response.content.startswith("⛔"), r.response.content
    r = await t.gm.slash(t.lobby, "lobby start")
    assert r.response.ephemeral and r.response.content == "⛔ " + text("en", "start.gm_role_everyone", value=everyone), \
        r.response.content
    assert not t.store.games.games() and not await t.store.outbox.channel_intents()
    env.bot.settings = dataclasses.replace(env.bot.settings, gm_role=None)  # the operator unsets it
    await start(t)
    r = await newcomer.slash(t.lobby, "gm status")  # nor a GM of the game
    assert r.response.ephemeral and r.response.content.startswith("⛔"), r.response.content


def test_the_guild_id_as_the_gm_role_is_refused_with_the_guild_known():
    with pytest.raises(SettingsError, match="ALTMAFIA_GM_ROLE='42' is the @everyone role"):
        Settings(token="t", guild_id=42, gm_role="42")
    assert Settings(token="t", guild_id=42, gm_role="43").gm_role == "43"
