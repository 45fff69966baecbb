"""The strict test Discord refuses what Discord refuses: real discord.py calls through SimCord,
one limit a test, on a bare discord.py bot (the layer is tested apart from altmafia's bot)."""

from __future__ import annotations

import io
import re
from collections.abc import AsyncIterator
from pathlib import Path

import discord
import pytest
import pytest_asyncio
import simcord
from discord import app_commands

from altmafia.bot import permissions

from . import discord_limits as limits
from . import strict_discord


class Probe(discord.Client):
    """A bot whose one command, ``/probe``, runs the test's ``plan`` inside bot work."""

    def __init__(self) -> None:
        super().__init__(intents=discord.Intents.default())
        self.tree = app_commands.CommandTree(self)
        self.plan = None
        self.outcome: object = None

        @self.tree.command(name="probe", description="runs the test's plan")
        async def probe(interaction: discord.Interaction) -> None:
            try:
                self.outcome = await self.plan(interaction)
            except discord.HTTPException as exc:
                self.outcome = exc

    async def setup_hook(self) -> None:
        await self.tree.sync()


@pytest_asyncio.fixture
async def strict(monkeypatch) -> AsyncIterator[strict_discord.StrictDiscord]:
    strict_discord.install(monkeypatch)
    env = simcord.Env(Probe(), settle_timeout=30.0)
    layer = strict_discord.StrictDiscord(env)
    await env.start()
    try:
        yield layer
    finally:
        await env.shutdown()


async def run(strict: strict_discord.StrictDiscord, plan) -> object:
    env = strict.env
    if not env._guilds:
        guild = env.create_guild("g")
        guild.create_text_channel("general")
        env.alice = guild.add_member(env.create_user("alice"))
    guild = env.guild
    env.bot.plan = plan
    env.bot.outcome = None
    await env.alice.slash(guild.channels["general"], "probe")
    return env.bot.outcome


def channel_of(interaction: discord.Interaction) -> discord.TextChannel:
    return interaction.client.get_channel(interaction.channel_id)


async def test_the_bot_role_holds_the_invite_permissions_only(strict):
    async def plan(i):
        await i.response.defer(ephemeral=True)
        return i.guild.me.guild_permissions

    perms = await run(strict, plan)
    role = next(r for r in strict.env.bot.guilds[0].roles if r.managed)
    assert role.permissions.value == limits.INVITE_PERMISSIONS
    assert perms.manage_roles and perms.manage_channels and not perms.administrator


def test_the_invite_permissions_are_the_readme_s():
    """The layer's bot role holds the README's list, read from its marked block (Discord's
    names): both are ``altmafia.bot.permissions.INVITE``."""
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")
    block = readme.split("<!-- invite permissions -->")[1].split("<!-- end of invite permissions -->")[0]
    named = {"_".join(n.lower().split()) for n in re.findall(r"\*\*([^*]+)\*\*", block)}
    named = {"view_channel" if n == "view_channels" else n for n in named}
    assert named == set(permissions.INVITE_BITS)
    assert permissions.INVITE.value == limits.INVITE_PERMISSIONS


async def test_content_over_2000_characters_is_refused(strict):
    async def plan(i):
        await i.response.defer()
        return await channel_of(i).send("x" * 2001)

    outcome = await run(strict, plan)
    assert isinstance(outcome, discord.HTTPException) and outcome.code == 50035 and outcome.status == 400
    assert [r.code for r in strict.refused] == [50035]


async def test_a_reply_over_2000_characters_is_refused(strict):
    async def plan(i):
        await i.response.send_message("x" * 2001)

    outcome = await run(strict, plan)
    assert isinstance(outcome, discord.HTTPException) and outcome.code == 50035
    assert strict.refused and strict.refused[0].path.endswith("/callback")


@pytest.mark.parametrize("embed", [
    discord.Embed(title="t" * 257), discord.Embed(description="d" * 4097),
    discord.Embed().set_footer(text="f" * 2049),
    discord.Embed(description="d" * 4000).add_field(name="n", value="v" * 1024).add_field(name="n", value="v" * 1000),
])
async def test_embeds_past_their_limits_are_refused(strict, embed):
    async def plan(i):
        await i.response.defer()
        return await channel_of(i).send(embed=embed)

    outcome = await run(strict, plan)
    assert isinstance(outcome, discord.HTTPException) and outcome.code == 50035


def test_component_limits():
    row = {"type": 1, "components": [{"type": 2, "label": "b", "custom_id": str(i)} for i in range(6)]}
    with pytest.raises(limits.Refusal):
        limits.check_components([row])
    select = {"type": 3, "custom_id": "s", "options": [{"label": str(i), "value": str(i)} for i in range(26)]}
    with pytest.raises(limits.Refusal):
        limits.check_components([{"type": 1, "components": [select]}])
    with pytest.raises(limits.Refusal):
        limits.check_components([{"type": 1, "components": [{"type": 2, "label": "x" * 81, "custom_id": "a"}]}])
    with pytest.raises(limits.Refusal):
        limits.check_components([{"type": 1, "components": [{"type": 2, "label": "x", "custom_id": "c" * 101}]}])
    with pytest.raises(limits.Refusal):
        limits.check_components([{"type": 1, "components": []}] * 6)
    limits.check_components([{"type": 1, "components": [{"type": 3, "custom_id": "s", "placeholder": "p" * 150,
                                                          "options": [{"label": "l" * 100, "value": "v"}] * 25}]}])


async def test_the_same_nonce_twice_posts_one_message(strict):
    async def plan(i):
        await i.response.defer()
        first = await channel_of(i).send("one", nonce=42)
        again = await channel_of(i).send("two", nonce=42)
        return first, again

    first, again = await run(strict, plan)
    assert first.id == again.id and again.content == "one"
    history = strict.env.guild.channels["general"].history()
    assert [m.content for m in history if m.content in ("one", "two")] == ["one"]
    assert strict.nonce_hits and not strict.refused
    assert len(strict.swallowed) == 1 and "'two'" in strict.swallowed[0]  # told to the test, not by Discord
    strict.swallowed.clear()


async def test_the_same_post_again_with_its_nonce_is_an_idempotent_retry(strict):
    async def plan(i):
        await i.response.defer()
        return await channel_of(i).send("same", nonce="n1"), await channel_of(i).send("same", nonce="n1")

    first, again = await run(strict, plan)
    assert first.id == again.id and strict.nonce_hits and not strict.swallowed


async def test_a_nonce_is_free_again_after_the_window(strict):
    async def plan(i):
        await i.response.defer()
        return await channel_of(i).send("one", nonce=7)

    await run(strict, plan)
    await strict.env.advance_time(limits.NONCE_WINDOW_SECONDS + 1)

    async def plan2(i):
        await i.response.defer()
        return await channel_of(i).send("two", nonce=7)

    second = await run(strict, plan2)
    assert second.content == "two" and not strict.nonce_hits


async def test_nonces_never_appear_in_history(strict):
    async def plan(i):
        await i.response.defer()
        await channel_of(i).send("one", nonce=99)
        return [m async for m in channel_of(i).history(limit=5)]

    history = await run(strict, plan)
    assert history and all(m.nonce is None for m in history)


async def test_more_than_100_overwrites_in_a_create_are_refused(strict):
    async def plan(i):
        await i.response.defer()
        members = {discord.Object(id=10_000 + n): discord.PermissionOverwrite(view_channel=True) for n in range(101)}
        return await i.guild.create_text_channel("big", overwrites=members)

    outcome = await run(strict, plan)
    assert isinstance(outcome, discord.HTTPException) and outcome.code == 50035


async def test_an_overwrite_with_a_bit_the_bot_lacks_is_refused(strict):
    async def plan(i):
        await i.response.defer()
        # Mention Everyone: not in the invite (altmafia.bot.permissions.INVITE)
        ow = {i.guild.default_role: discord.PermissionOverwrite(mention_everyone=True)}
        return await i.guild.create_text_channel("mentions", overwrites=ow)

    outcome = await run(strict, plan)
    assert isinstance(outcome, discord.Forbidden) and outcome.code == 50013

    async def held(i):
        await i.response.defer()
        ow = {i.guild.default_role: discord.PermissionOverwrite(view_channel=False, send_messages=True)}
        channel = await i.guild.create_text_channel("fine", overwrites=ow)
        await channel.set_permissions(i.guild.default_role, manage_webhooks=False)

    outcome = await run(strict, held)
    assert isinstance(outcome, discord.Forbidden), outcome


async def test_the_501st_channel_is_refused_with_30013(strict):
    async def plan(i):
        await i.response.defer()
        return await i.guild.create_text_channel("one-too-many")

    await run(strict, lambda i: i.response.defer())
    guild = strict.env.guild
    while len(strict.backend.get_guild(guild.id).channel_ids) < limits.GUILD_CHANNELS:
        guild.create_text_channel(f"c{len(strict.backend.get_guild(guild.id).channel_ids)}")
    outcome = await run(strict, plan)
    assert isinstance(outcome, discord.HTTPException) and outcome.code == 30013


async def test_the_51st_channel_of_a_category_is_refused(strict):
    async def plan(i):
        await i.response.defer()
        category = await i.guild.create_category("full")
        for n in range(limits.CATEGORY_CHANNELS):
            await category.create_text_channel(f"c{n}")
        return await category.create_text_channel("c50")

    outcome = await run(strict, plan)
    assert isinstance(outcome, discord.HTTPException) and outcome.code == 50035
    assert "parent_id" in str(outcome)


async def test_text_channel_names_are_normalised(strict):
    async def plan(i):
        await i.response.defer()
        return await i.guild.create_text_channel("Игра 1 -- День!  Два")

    channel = await run(strict, plan)
    assert channel.name == "игра-1-день-два"
    assert limits.normalise_channel_name("a - b") == "a-b"


def test_command_payload_limits():
    ok = {"name": "lobby", "description": "d", "type": 1, "options": []}
    limits.check_commands([ok])
    for bad in ({**ok, "name": "Lobby"}, {**ok, "name": "two words"}, {**ok, "name": "x" * 33},
                {**ok, "description": ""}, {**ok, "description": "d" * 101},
                {**ok, "name_localizations": {"ru": "Лобби"}},
                {**ok, "options": [{"type": 3, "name": f"o{n}", "description": "d"} for n in range(26)]},
                {**ok, "options": [{"type": 3, "name": "o", "description": "d",
                                    "choices": [{"name": str(n), "value": str(n)} for n in range(26)]}]},
                {**ok, "description_localizations": {loc: "d" * 100 for loc in
                                                     ("ru", "de", "fr", "es-ES", "it", "pl", "uk", "ja")},
                 "options": [{"type": 1, "name": f"s{n}", "description": "d" * 100,
                              "description_localizations": {"ru": "d" * 100, "de": "d" * 100}} for n in range(25)]}):
        with pytest.raises(limits.Refusal):
            limits.check_commands([bad])
    limits.check_command({**ok, "name": "лобби-2_x'"})
    with pytest.raises(limits.Refusal):
        limits.check_commands([{**ok, "name": f"c{n}"} for n in range(101)])


async def test_a_bad_command_sync_is_refused(strict):
    """discord.py checks command names itself, not the localisations a Translator returns."""
    async def plan(i):
        await i.response.defer()
        http = i.client.http
        payload = [{"name": "probe", "description": "d", "type": 1, "name_localizations": {"ru": "Проба"}}]
        return await http.bulk_upsert_global_commands(i.client.application_id, payload=payload)

    outcome = await run(strict, plan)
    assert isinstance(outcome, discord.HTTPException) and outcome.code == 50035
    assert "name_localizations" in str(outcome)


def test_autocomplete_limits():
    limits.check_autocomplete([{"name": "n" * 100, "value": "v" * 100}] * 25)
    for bad in ([{"name": "n", "value": "v"}] * 26, [{"name": "", "value": "v"}], [{"name": "n" * 101, "value": "v"}],
                [{"name": "n", "value": "v" * 101}]):
        with pytest.raises(limits.Refusal):
            limits.check_autocomplete(bad)


async def test_files_past_their_limits_are_refused(strict):
    async def plan(i):
        await i.response.defer()
        big = discord.File(io.BytesIO(b"0" * (limits.FILE_BYTES + 1)), "big.bin")
        return await channel_of(i).send(file=big)

    outcome = await run(strict, plan)
    assert isinstance(outcome, discord.HTTPException) and outcome.status == 413

    async def many(i):
        await i.response.defer()
        return await channel_of(i).send(files=[discord.File(io.BytesIO(b"0"), f"{n}.txt") for n in range(11)])

    with pytest.raises((ValueError, discord.HTTPException)):  # discord.py itself refuses an 11th file
        outcome = await run(strict, many)
        if isinstance(outcome, Exception):
            raise outcome
    with pytest.raises(limits.Refusal):
        limits.check_files([("f", 1)] * 11)


async def test_each_rest_call_takes_virtual_time(strict):
    async def plan(i):
        before = strict.now
        await channel_of(i).send("before the defer")
        spent = strict.now - before
        await i.response.defer()
        return spent

    spent = await run(strict, plan)
    assert spent == pytest.approx(strict.round_trip)


async def test_work_before_the_defer_counts_against_the_3_seconds(strict):
    strict.round_trip = 1.0

    async def plan(i):
        for n in range(3):
            await channel_of(i).send(f"slow {n}")
        await i.response.defer()

    outcome = await run(strict, plan)
    assert isinstance(outcome, discord.NotFound) and outcome.code == 10062
    strict.refused.clear()


async def test_a_sixth_message_in_5_seconds_waits_in_discord_py_s_own_limiter(strict):
    async def plan(i):
        await i.response.defer()
        start = strict.now
        for n in range(7):
            await channel_of(i).send(f"m{n}")
        return strict.now - start

    spent = await run(strict, plan)
    assert spent >= 5.0  # the bucket's reset, waited in virtual time
    assert not strict.refused


async def test_a_429_is_retried_by_discord_py_s_limiter(strict):
    async def plan(i):
        await i.response.defer()
        # exhaust the channel's bucket behind discord.py's back: its limiter cannot know
        strict._buckets[f"messages:{i.channel_id}"] = (strict.now, strict_discord.MESSAGE_BUCKET[0])
        start = strict.now
        message = await channel_of(i).send("after the wait")
        return message, strict.now - start

    message, spent = await run(strict, plan)
    assert message.content == "after the wait" and spent >= 4.9
    assert [r[:2] for r in strict.rate_limited] == [("POST", f"/channels/{message.channel.id}/messages")]
    assert not strict.refused


async def test_the_global_limit_answers_429_global(strict):
    async def plan(i):
        await i.response.defer()
        strict._global = (strict.now, strict_discord.GLOBAL_LIMIT)
        return await i.guild.create_text_channel("after-the-global-wait")

    channel = await run(strict, plan)
    assert channel.name == "after-the-global-wait"
    assert strict.rate_limited and strict.rate_limited[0][3] is True


async def test_a_5xx_is_retried_by_discord_py_and_an_injected_fault_is_not_a_refusal(strict):
    async def plan(i):
        await i.response.defer()
        start = strict.now
        return await channel_of(i).send("after a 500"), strict.now - start

    await run(strict, lambda i: i.response.defer())
    strict.env.inject_error("POST", "/channels/*/messages", times=1)
    message, spent = await run(strict, plan)
    assert message.content == "after a 500" and spent >= 1.0  # discord.py's 1 s before the retry, virtual
    assert [r.status for r in strict.injected] == [500] and not strict.refused
