"""The bot offers and accepts the shipped rulesets only: never a test-only mini ruleset
(tests/rulesets/), never a file on the server, whatever a user types."""

from __future__ import annotations

from config.loader import RULESETS_DIR, TEST_RULESETS_DIR, available_rulesets

from .conftest import LOCALES
from .test_refusals import refused


async def test_lobby_create_refuses_test_only_rulesets_and_files(env):
    guild = env.create_guild("Мафия")
    ch = guild.create_text_channel("набор")
    gm = guild.add_member(env.create_user("gm"))
    LOCALES[gm.id] = "ru"
    tests_only = sorted(set(available_rulesets(include_tests=True)) - set(available_rulesets()))
    assert tests_only  # eternal_friday_mini, stats_mafia_mini, council_own_table
    offered = {c["value"] for c in await gm.autocomplete(ch, "lobby create", "ruleset", "")}
    assert offered == set(available_rulesets())
    assert not offered & set(tests_only)
    for rid in tests_only:
        assert not await gm.autocomplete(ch, "lobby create", "ruleset", rid)
        refused(await gm.slash(ch, "lobby create", ruleset=rid), rid)
    for path in (TEST_RULESETS_DIR / "eternal_friday_mini.yaml", RULESETS_DIR / "godfather.yaml"):
        assert path.is_file()
        refused(await gm.slash(ch, "lobby create", ruleset=str(path)), str(path))
    assert await env.bot.store.lobbies.lobbies(guild.id) == {}
    # a shipped one by id still opens a lobby
    r = await gm.slash(ch, "lobby create", ruleset="eternal_friday")
    assert r.response is not None and not r.response.ephemeral
    assert [lobby["ruleset"] for lobby in (await env.bot.store.lobbies.lobbies(guild.id)).values()] == ["eternal_friday"]
