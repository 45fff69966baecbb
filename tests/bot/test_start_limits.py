"""A start stays inside what Discord accepts, and a start Discord refuses leaves nothing behind:
at most 100 overwrites a create request (the rest put after, the hiding ones first), the
server's 500 channels checked first, the invite's permissions checked first, the interaction
deferred before any REST call, a refused creation rolled back (the channels deleted, the lobby
open again, the GM told), channels of an intent matched by their recorded id. Asserted on
SimCord's request log, which records what the bot sends whatever SimCord forgives."""

from __future__ import annotations

import discord
import pytest
import simcord.http.router as router

from altmafia.bot import permissions
from altmafia.bot.channels import MAX_CREATE_OVERWRITES, carries, discord_name
from altmafia.text.i18n import text
from storage.store import ChannelIntent

from .conftest import perms
from .crash.test_channel_intents import die_saving_the_votes_channel
from .helpers import gather, start
from .test_restart import restart


def creates(env) -> list[object]:
    return [r for r in env.http_requests if r.method == "POST" and r.path.endswith("/channels") and r.path.startswith("/guilds/")]


async def test_thirteen_seats_and_ninety_spectators(env):
    t = await gather(env, 13, spectators=90, others=1)
    env.http_requests.clear()
    await start(t)
    log = env.http_requests
    made = creates(env)
    assert made and all(len(r.json["permission_overwrites"]) <= MAX_CREATE_OVERWRITES for r in made)
    big = [i for i, r in enumerate(log) if r in made and len(r.json["permission_overwrites"]) == MAX_CREATE_OVERWRITES]
    assert big, "the shared channels carry more than 100 overwrites: some are put after the create"
    for i in big:
        first = log[i].json["permission_overwrites"]
        everyone = [ow for ow in first if int(ow["id"]) == t.guild.id]
        assert everyone and int(everyone[0]["deny"]) & discord.Permissions(view_channel=True).value  # hidden from the first request
        cid = next(c for c, ch in env.backend.channels.items() if ch.name == log[i].json["name"]
                   and ch.parent_id == int(log[i].json.get("parent_id") or 0) or None)
        puts = [r for r in log[i + 1:] if r.method == "PUT" and r.path.startswith(f"/channels/{cid}/permissions/")]
        assert puts, "the overwrites past the first 100 are put right after the create"
        assert all(int(r.json["allow"]) for r in puts), "only access is added later: every deny came with the create"
    # everyone ends where they should: spectators read the shared channels, outsiders nothing
    public = t.channel("public")
    for s in t.spectators:
        p = perms(env, public, s)
        assert p.view_channel and not p.send_messages and not p.add_reactions and not p.create_public_threads, s.name
    assert not perms(env, public, t.others[0]).view_channel
    assert perms(env, public, t.member(0)).send_messages


async def test_a_server_without_room_is_refused_before_anything_is_made(env):
    t = await gather(env, 6, spectators=0, others=0)
    filler = [t.guild.create_text_channel(f"старый-{i}") for i in range(490)]
    await env.settle()
    env.http_requests.clear()
    r = await t.gm.slash(t.lobby, "lobby start")
    have = len(env.bot.get_guild(t.guild.id).channels)
    need = 1 + 4 + 6  # a category, the four shared channels, a hidden channel a seat
    assert r.response.ephemeral, r.response
    assert r.response.content == "⛔ " + text("en", "start.too_many_channels", need=need, have=have, max=500,
                                              remove=have + need - 500), r.response.content
    assert not creates(env) and not t.store.games.games()
    # the lobby is open, not "starting": its sign-up goes on, and a start with room works
    r = await t.players[0].slash(t.lobby, "lobby leave")
    assert not r.response.content.startswith("⛔"), r.response.content
    await t.players[0].slash(t.lobby, "lobby join")
    for ch in filler[:20]:
        env.backend.delete_channel(ch.id)
    await env.settle()
    await start(t)


async def test_a_bot_lacking_an_invited_permission_is_told_which(env):
    t = await gather(env, 4, spectators=0, others=0)
    """A server whose @everyone lacks reactions and public threads, the bot invited without
    them: Discord would refuse the first overwrite denying them."""
    roles = env.backend.guilds[t.guild.id].roles
    role = next(r for r in roles.values() if r.managed)
    lacking = discord.Permissions(add_reactions=True, create_public_threads=True).value
    env.backend.edit_role(t.guild.id, t.guild.id, {"permissions": roles[t.guild.id].permissions & ~lacking})
    env.backend.edit_role(t.guild.id, role.id, {"permissions": permissions.INVITE.value & ~lacking})
    await env.settle()
    env.http_requests.clear()
    r = await t.gm.slash(t.lobby, "lobby start")
    assert r.response.content == "⛔ " + text("en", "start.missing_permissions", names="Add Reactions, Create Public Threads")
    assert not creates(env) and not t.store.games.games()
    env.backend.edit_role(t.guild.id, role.id, {"permissions": permissions.INVITE.value})  # exactly the invite: enough
    await env.settle()
    await start(t)


def fail_at(monkeypatch, n: int, status: int = 403, code: int = 50013, message: str = "Missing Permissions") -> dict[str, int]:
    """The ``n``-th channel creation (and only it) refused by Discord, as SimCord's fault
    injection does it (``env.inject_error`` fails the first matching call; this counts)."""
    seen = {"creates": 0}
    real = router._check_faults

    def check(backend, method, path):
        if method == "POST" and path.startswith("/guilds/") and path.endswith("/channels"):
            seen["creates"] += 1
            if seen["creates"] == n:
                raise router.BackendError(status, code, message)
        real(backend, method, path)

    monkeypatch.setattr(router, "_check_faults", check)
    return seen


@pytest.mark.discord_refusals("the fifth channel creation is refused on purpose (fail_at)")
async def test_a_refused_creation_rolls_the_start_back(env, monkeypatch):
    t = await gather(env, 6, spectators=1, others=0)
    before = set(env.backend.channels)
    seen = fail_at(monkeypatch, 5)
    r = await t.gm.slash(t.lobby, "lobby start")
    # the category, then its 4 + 6 channels at once: the refusal of one stops no other of its
    # wave (each is waited for, so the roll-back deletes it too)
    assert seen["creates"] == 1 + 4 + 6
    assert r.response.ephemeral
    assert r.response.content == "⛔ " + text("en", "start.failed", why="Missing Permissions"), r.response.content
    assert not r.followups, "nothing public: the table was not told of a start that did not happen"
    assert set(env.backend.channels) == before, "every channel the start made is deleted"
    assert not t.store.games.games() and not await t.store.outbox.channel_intents()
    [(lobby_id, lobby)] = (await t.store.lobbies.lobbies()).items()
    assert not lobby.get("starting") and not lobby.get("channels"), lobby
    r = await t.players[0].slash(t.lobby, "lobby leave")  # the sign-up is open again
    assert not r.response.content.startswith("⛔"), r.response.content
    assert [(r.method, r.code) for r in env.strict.refused] == [("POST", 50013)], env.strict.refused
    await t.players[0].slash(t.lobby, "lobby join")
    monkeypatch.undo()
    await start(t)
    assert len(set(env.backend.channels) - before) == len(t.info.meta["channels"]) == 1 + 4 + 6


def test_names_are_matched_as_discord_keeps_them():
    assert discord_name("Скрытый - Лев  Толстой", 0) == "скрытый-лев-толстой"
    assert discord_name("Godfather #ab12 (2)", 4) == "Godfather #ab12 (2)"  # a category keeps its name
    intent = ChannelIntent("g", "player:1", 1, 0, "скрытый--лев", 10)
    assert carries({"id": "5", "type": 0, "name": "скрытый-лев", "parent_id": "10"}, intent)
    assert not carries({"id": "5", "type": 0, "name": "скрытый-лев", "parent_id": "11"}, intent)
    # once Discord answered the create, the id recorded is the match, whatever the name
    made = ChannelIntent("g", "player:1", 1, 0, "скрытый-лев", 10, channel_id=7)
    assert carries({"id": "7", "type": 0, "name": "renamed", "parent_id": "10"}, made)
    assert not carries({"id": "5", "type": 0, "name": "скрытый-лев", "parent_id": "10"}, made)


async def test_a_channel_renamed_before_recovery_is_found_by_its_id(env, settings):
    """The process dies after Discord made the votes channel and before its id was saved; a GM
    renames it meanwhile. The restart adopts it by the id the intent recorded: no second one."""
    t = await gather(env, 5, spectators=0)
    store = t.store
    die_saving_the_votes_channel(store)
    await t.gm.slash(t.lobby, "lobby start")
    assert [e for e in env.errors if "before save" in str(e)]
    [open_intent] = await store.outbox.channel_intents()
    assert open_intent.channel_key == "votes" and open_intent.channel_id is not None
    env.backend.channels[open_intent.channel_id].name = "переименован"
    await restart(env, settings)
    t.env = env
    await start(t)
    assert t.info.meta["channels"]["votes"] == open_intent.channel_id
    assert not [c for c in env.backend.channels.values() if c.name == discord_name(text("ru", "channel.votes"), 0)]
