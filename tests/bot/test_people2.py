"""The rest of the GM's people tools through the simulated Discord: the channel of
the dead and the spectators (the GM's option, where the rules let the dead talk), the server
role of the living players (given, mentioned when a phase starts, taken away at a removal), and
spectators by the GM's approval (before the start and in a running game); restarts in the middle
of each, permissions checked, the refusals of the wrong person and the wrong time."""

from __future__ import annotations

from storage import Command

from .conftest import LOCALES, perms
from .helpers import force_resolve, gather, start, started_with
from .test_restart import restart


def can(env, channel, member) -> tuple[bool, bool]:
    p = perms(env, channel, member)
    return p.view_channel, p.view_channel and p.send_messages


def holders(env, guild, rid: int) -> set[int]:
    """Who holds a role, as Discord has it (the simulated server's own record)."""
    return {uid for uid, m in env.backend.get_guild(guild.id).members.items() if rid in m.role_ids}


async def test_the_channel_of_the_dead_and_the_spectators(env, settings):
    t = await gather(env, 6, spectators=1)
    LOCALES[t.gm.id] = "ru"
    r = await t.players[0].slash(t.lobby, "lobby options", dead_channel=True)
    assert r.response.ephemeral and r.response.content.startswith("⛔"), "a player is not the GM"
    r = await t.gm.slash(t.lobby, "lobby options", dead_channel=True)
    assert not r.response.ephemeral and "Канал выбывших и зрителей: да" in r.response.content, r.response.content
    await start(t)
    assert t.game.state.settings.get("dead_channel") is True
    dead = t.channel("dead")  # made at the start: the spectator reads it already
    spec = t.spectators[0]
    assert can(env, dead, spec) == (True, True), "spectators talk there"
    for p in t.players:
        assert can(env, dead, p) == (False, False), "the living do not see it"
    # a removal (journaled), then the bot dies before the channels moved; the next sync puts it right
    await t.store.games.apply(t.game_id, Command.gm("remove", pid=3, mode="left", user_id=t.gm.id))
    out = t.member(3)
    await restart(env, settings)
    await force_resolve(t, label="Подсчитать")
    assert can(env, t.channel("dead"), out) == (True, True), "the dead talk there"
    assert can(env, t.channel("public"), out) == (True, False)
    assert can(env, t.channel("dead"), t.member(0)) == (False, False)
    # a spectator taken away loses it too
    r = await t.gm.slash(t.channel("gm"), "gm unspectate", member=spec)
    assert not r.response.content.startswith("⛔"), r.response.content
    assert can(env, t.channel("dead"), spec) == (False, False)
    # a late spectator (no approval asked in this game) gets it at once, writing
    late = t.others[0]
    await late.slash(t.lobby, "lobby spectate")
    assert can(env, t.channel("dead"), late) == (True, True)


async def test_no_channel_of_the_dead_where_the_book_forbids_it(env):
    guild = env.create_guild("Мафия")
    lobby = guild.create_text_channel("набор")
    gm = guild.add_member(env.create_user("ведущий"))
    LOCALES[gm.id] = "ru"
    await gm.slash(lobby, "lobby create", ruleset="stats_mafia")
    r = await gm.slash(lobby, "lobby options", dead_channel=True)
    assert r.response.content.startswith("⛔") and "выбывшим нельзя" in r.response.content, r.response.content
    r = await gm.slash(lobby, "lobby options")
    assert "Канал выбывших и зрителей: нет" in r.response.content


async def test_the_role_of_the_living(env, settings):
    t = await started_with(env, 6, spectators=0, living_role=True)
    rid = t.info.meta["living_role"]
    assert holders(env, t.guild, rid) == {p.id for p in t.players}
    mentions = [m.content for m in t.channel("public").history() if m.content.startswith(f"<@&{rid}>")]
    assert len(mentions) == 1 and "Началась фаза «день 1.1»" in mentions[0], mentions
    r = await t.gm.slash(t.channel("gm"), "gm remove", player="2", mode="modkill")
    assert not r.response.content.startswith("⛔"), r.response.content
    gone = t.member(2)
    assert gone.id not in holders(env, t.guild, rid) and len(holders(env, t.guild, rid)) == 5
    # a removal journaled, the bot down before the role moved: put right at the next phase
    await t.store.games.apply(t.game_id, Command.gm("remove", pid=4, mode="left", user_id=t.gm.id))
    await restart(env, settings)
    await force_resolve(t, label="Подсчитать")
    assert t.member(4).id not in holders(env, t.guild, rid) and len(holders(env, t.guild, rid)) == 4
    # the announcement rides on the public report of the resolve (its lines after the report's)
    mentions = [m.content for m in t.channel("public").history() if f"<@&{rid}>" in m.content]
    assert len(mentions) == 2 and "Началась фаза «день 1.2»" in mentions[-1], "\n=====\n".join(mentions)
    last = mentions[-1]
    assert last.startswith("**— день 1.1 —**") and last.index("Сейчас:") < last.index(f"<@&{rid}>"), last
    # the game over and its channels deleted: the role goes with them
    r = await t.gm.slash(t.channel("gm"), "lobby end")
    await t.gm.click(r.response, label="Завершить игру")
    ask = next(m for m in t.channel("gm").history() if m.components and "Что сделать с каналами" in m.content)
    await t.gm.click(ask, label="Удалить каналы")
    assert rid not in env.backend.get_guild(t.guild.id).roles


async def test_the_role_of_the_living_needs_manage_roles(env):
    t = await gather(env, 5, spectators=0)
    LOCALES[t.gm.id] = "ru"
    me = env.bot.get_guild(t.guild.id).me
    if me.guild_permissions.manage_roles:  # take the right away: the bot's roles lose it
        for role in me.roles:
            if role.permissions.manage_roles or role.permissions.administrator:
                env.backend.edit_role(t.guild.id, role.id, {"permissions": 0})
    assert not env.bot.get_guild(t.guild.id).me.guild_permissions.manage_roles
    r = await t.gm.slash(t.lobby, "lobby options", living_role=True)
    assert r.response.content.startswith("⛔") and "Управлять ролями" in r.response.content, r.response.content


async def test_spectators_by_approval(env, settings):
    t = await gather(env, 5, spectators=0, others=3)
    LOCALES[t.gm.id] = "ru"
    a, b, c = t.others
    await t.gm.slash(t.lobby, "lobby options", approve_spectators=True)
    r = await a.slash(t.lobby, "lobby spectate")
    request = next(m for m in t.lobby.history() if m.content.startswith("👀"))
    r = await a.slash(t.lobby, "lobby spectate")
    assert r.response.ephemeral and r.response.content.startswith("⛔"), "asked already"
    r = await t.players[0].click(request, label="Пустить")
    assert r.response is not None and r.response.content.startswith("⛔"), "a player cannot approve"
    await restart(env, settings)  # the request and its buttons survive
    await t.gm.click(request, label="Пустить")
    lobby = next(iter((await t.store.lobbies.lobbies()).values()))
    assert a.id in lobby["spectators"] and not lobby.get("pending_spectators")
    await start(t)
    assert can(env, t.channel("public"), a) == (True, False)
    # in the running game: the request goes to the GM channel
    r = await b.slash(t.lobby, "lobby spectate")
    assert r.response.content and not r.response.content.startswith("⛔"), r.response.content
    assert can(env, t.channel("public"), b) == (False, False), "not before the GM says so"
    asked = [m for m in t.channel("gm").history() if m.content.startswith("👀") and f"<@{b.id}>" in m.content]
    assert len(asked) == 1
    await restart(env, settings)
    await t.gm.click(asked[0], label="Отказать")
    assert can(env, t.channel("public"), b) == (False, False)
    assert b.id not in t.info.meta["spectators"]
    r = await b.slash(t.lobby, "lobby spectate")  # asking again after a refusal is a new request
    assert len([m for m in t.channel("gm").history() if m.content.startswith("👀") and f"<@{b.id}>" in m.content]) == 2
    await c.slash(t.lobby, "lobby spectate")
    asked = next(m for m in t.channel("gm").history() if m.content.startswith("👀") and f"<@{c.id}>" in m.content)
    await t.gm.click(asked, label="Пустить")
    assert can(env, t.channel("public"), c) == (True, False) and c.id in t.info.meta["spectators"]
    log = "\n".join(m.content for m in t.channel("gm").history())
    assert "зрителю отказано" in log and "зритель одобрен" in log
