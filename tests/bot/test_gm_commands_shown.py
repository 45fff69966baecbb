"""``/gm`` carries ``default_member_permissions`` Manage Server: Discord shows it by default
only to members who may manage the server; the server's admins open it to the GM role (or to
everyone) in Integrations, and the bot's own check still keeps it to the games' GMs. A GM who
lacks Manage Server is told so when opening a lobby."""

from __future__ import annotations

import discord
import pytest

from altmafia.text.i18n import text

pytestmark = [pytest.mark.gm_commands_default, pytest.mark.settings(gm_role="Ведущие")]


def shown(env, member, channel) -> set[str]:
    return {c["name"] for c in env.backend.visible_commands(user_id=member.id, channel_id=channel.id)}


async def test_gm_commands_are_shown_to_server_managers_and_where_admins_open_them(env):
    guild = env.create_guild("Мафия")
    ch = guild.create_text_channel("набор")
    admins = guild.create_role("Админы", permissions=discord.Permissions(manage_guild=True))
    gm_role = guild.create_role("Ведущие")
    plain = guild.add_member(env.create_user("игрок"))
    admin = guild.add_member(env.create_user("админ"), roles=[admins])
    gm = guild.add_member(env.create_user("ведущий"), roles=[gm_role])
    assert "gm" not in shown(env, plain, ch) and "lobby" in shown(env, plain, ch)
    assert "gm" in shown(env, admin, ch)
    assert "gm" not in shown(env, gm, ch)
    # the admins open /gm to the GM role (Server Settings → Integrations)
    command = env.backend.find_command("gm", None)
    guild.set_command_permissions(int(command["id"]), {gm_role: True})
    assert "gm" in shown(env, gm, ch) and "gm" not in shown(env, plain, ch)
    # whoever opens a lobby without Manage Server is told where /gm is
    r = await plain.slash(ch, "lobby create")
    hint = [f for f in r.followups if f.content == text("en", "start.gm_commands_hidden")]
    assert hint and hint[0].ephemeral, [f.content for f in r.followups]
    await plain.slash(ch, "lobby end")
    r = await admin.slash(ch, "lobby create")
    assert not [f for f in r.followups if "Integrations" in f.content]
