"""A GM uploads their own ruleset into the running bot (``/gm ruleset upload``): checked as
``altmafia rules`` checks a file, every mistake named in the GM's language, kept for that
server only; a game plays the rules it began with to its end, whatever is uploaded or
removed since, across a restart."""

from __future__ import annotations

import logging
import shutil

import discord

import config.loader
from altmafia.bot import rulesets
from altmafia.bot.bot import create_bot
from config.loader import RULESETS_DIR, load_ruleset, load_ruleset_text
from storage.records import fingerprint

from .conftest import LOCALES
from .helpers import NAMES, Table, start
from .test_refusals import refused

QUIET = """\
# a GM's variant of the classic game: a week long
extends: classic
id: quiet_town
names: {ru: "Тихий город", en: "Quiet town"}
calendar: {days: 7}
"""

QUIET_2 = QUIET.replace("days: 7", "days: 9").replace("Тихий город", "Тихий город, второй сезон")

BROKEN = """\
extends: classic
id: broken_town
names: {ru: "Сломанный город", en: "Broken town"}
table:
  decks:
    - {upto: 6, cards: {mafioso: 1, docter: 1, cop: 1}}
"""


def admin_of(env, guild, name: str = "админ"):
    """A member who may manage the server (and so its rulesets), reading Russian."""
    role = guild.create_role(f"Админы-{name}", permissions=discord.Permissions(manage_guild=True))
    member = guild.add_member(env.create_user(name), roles=[role])
    LOCALES[member.id] = "ru"
    return member


async def upload(member, channel, file_name: str, text: str):
    return await member.slash(channel, "gm ruleset upload", file=(file_name, text.encode("utf-8")))


def ok(r) -> str:
    assert r.acknowledged, r
    msg = r.response if r.response is not None and r.response.content else r.followups[0]
    assert msg.ephemeral and msg.content.startswith("✅"), msg.content
    return msg.content


def answer(r) -> str:
    """The whole answer of a deferred command (its follow-ups)."""
    return "\n".join(m.content for m in ([r.response] if r.response is not None and r.response.content else []) + list(r.followups))


async def offered(member, channel) -> set[str]:
    return {c["value"] for c in await member.autocomplete(channel, "lobby create", "ruleset", "")}


async def test_a_good_upload_is_kept_for_its_server_only(env):
    guild, other = env.create_guild("Мафия"), env.create_guild("Соседи")
    ch, other_ch = guild.create_text_channel("набор"), other.create_text_channel("набор")
    gm, stranger = admin_of(env, guild), admin_of(env, other, "сосед")
    expected = fingerprint(load_ruleset_text(QUIET.encode(), "quiet_town.yaml"))

    said = ok(await upload(gm, ch, "quiet_town.yaml", QUIET))
    assert "Тихий город" in said and expected in said, said
    listing = answer(await gm.slash(ch, "gm ruleset list"))
    assert "Тихий город" in listing and "quiet\\_town" in listing and expected in listing, listing
    assert "8 ролей" in listing and "от 5 до 64" in listing, listing
    assert "quiet_town" in await offered(gm, ch)
    # the neighbours' server sees none of it
    assert "quiet_town" not in await offered(stranger, other_ch)
    assert "нет загруженных" in answer(await stranger.slash(other_ch, "gm ruleset list"))
    refused(await stranger.slash(other_ch, "lobby create", ruleset="quiet_town"), "quiet_town")
    refused(await stranger.slash(other_ch, "gm ruleset remove", ruleset="quiet_town"), "нет загруженного")
    # a lobby opens with it here
    r = await gm.slash(ch, "lobby create", ruleset="quiet_town")
    assert r.response is not None and not r.response.ephemeral and "Тихий город" in r.response.content, r.response
    (lobby,) = (await env.bot.store.lobbies.lobbies(guild.id)).values()
    assert (lobby["ruleset"], lobby["fingerprint"]) == ("quiet_town", expected)


async def test_mistakes_are_named_in_russian_and_nothing_is_kept(env):
    guild = env.create_guild("Мафия")
    ch = guild.create_text_channel("набор")
    gm = admin_of(env, guild)
    player = guild.add_member(env.create_user("игрок"))
    LOCALES[player.id] = "ru"

    said = refused(await upload(gm, ch, "broken_town.yaml", BROKEN), "не загружен", "неизвестная роль 'docter'",
                   "может быть, 'doctor'?", "table.decks(upto 6)")
    assert "```" in said  # the loader's sentences as written: nothing in them is markup
    english = admin_of(env, guild, "admin")
    del LOCALES[english.id]  # SimCord's en-US
    refused(await upload(english, ch, "broken_town.yaml", BROKEN), "was not uploaded", "unknown role 'docter'",
            "did you mean 'doctor'?")
    refused(await upload(gm, ch, "town.yaml", QUIET), "id набора правил «quiet_town»", "town.yaml")
    refused(await upload(gm, ch, "quiet_town.yaml", QUIET.replace("extends: classic", "extends: ../config/rulesets/classic.yaml")),
            "такого набора правил нет", "известны: classic")
    refused(await upload(gm, ch, "quiet_town.yaml", "id: [не закрыта"), "это не YAML")
    refused(await upload(gm, ch, "quiet_town.yaml", "!!python/object/apply:os.system [echo]"), "это не YAML")
    refused(await upload(gm, ch, "classic.yaml", "extends: classic\nid: classic\n"), "встроенного набора", "`id: my_classic`")
    refused(await upload(gm, ch, "friday.yaml", "extends: classic\nid: friday\n"), "встроенного набора")
    refused(await upload(gm, ch, "quiet_town.txt", QUIET), "расширением .yaml")
    refused(await upload(gm, ch, "quiet_town.yaml", QUIET + "#" * (300 * 1024)), "слишком велик", "256 КиБ")
    refused(await upload(player, ch, "quiet_town.yaml", QUIET), "Управлять сервером")
    assert await env.bot.store.rulesets.guild_rulesets(guild.id) == []
    assert "нет загруженных" in answer(await gm.slash(ch, "gm ruleset list"))


async def test_remove_takes_it_from_new_lobbies_only(env):
    guild = env.create_guild("Мафия")
    ch = guild.create_text_channel("набор")
    gm = admin_of(env, guild)
    ok(await upload(gm, ch, "quiet_town.yaml", QUIET))
    assert [c["value"] for c in await gm.autocomplete(ch, "gm ruleset remove", "ruleset", "")] == ["quiet_town"]
    await gm.slash(ch, "lobby create", ruleset="quiet_town")
    r = await gm.slash(ch, "gm ruleset remove", ruleset="quiet_town")
    assert r.response.ephemeral and "убран" in r.response.content, r.response.content
    assert "quiet_town" not in await offered(gm, ch)
    assert "нет загруженных" in answer(await gm.slash(ch, "gm ruleset list"))
    refused(await gm.slash(ch, "gm ruleset remove", ruleset="quiet_town"), "нет загруженного")
    other = guild.create_text_channel("второй-набор")
    refused(await gm.slash(other, "lobby create", ruleset="quiet_town"), "quiet_town")
    # the lobby opened before plays on with it: its players still see its table
    r = await gm.slash(ch, "lobby players")
    assert not r.response.content.startswith("⛔"), r.response.content


async def gathered(env, guild, lobby, gm, ruleset: str, n: int = 5) -> Table:
    players = [guild.add_member(env.create_user(f"p{i}", global_name=NAMES[i])) for i in range(n)]
    r = await gm.slash(lobby, "lobby create", ruleset=ruleset)
    assert r.response is not None and not r.response.ephemeral, r.response.content
    for p in players:
        await p.slash(lobby, "lobby join")
    return Table(env, guild, lobby, gm, players)


async def test_a_game_keeps_its_rules_after_a_reupload_and_a_restart(env, settings):
    guild = env.create_guild("Мафия")
    ch = guild.create_text_channel("набор")
    gm = admin_of(env, guild)
    ok(await upload(gm, ch, "quiet_town.yaml", QUIET))
    t = await start(await gathered(env, guild, ch, gm, "quiet_town"))
    first = t.info.ruleset_fingerprint
    assert (t.info.ruleset, t.game.rules.calendar.days) == ("quiet_town", 7)

    said = ok(await upload(gm, ch, "quiet_town.yaml", QUIET_2))
    assert "заменил прежний" in said and first in said, said
    assert t.store.games.info(t.game_id).ruleset_fingerprint == first and t.game.rules.calendar.days == 7
    # a new lobby gets the new rules
    second_ch = guild.create_text_channel("второй-набор")
    r = await gm.slash(second_ch, "lobby create", ruleset="quiet_town")
    assert "второй сезон" in r.response.content, r.response.content

    # the upload removed too, then a restart: the game still plays the rules it began with
    await gm.slash(ch, "gm ruleset remove", ruleset="quiet_town")
    env.bot.scheduler.stop()
    await env.bot.store.close()
    await env.restart_bot(create_bot(settings))
    assert t.store.games.info(t.game_id).ruleset_fingerprint == first
    assert t.game.rules.calendar.days == 7 and t.game.rules.names.ru == "Тихий город"
    assert (await t.store.games.rebuild(t.game_id)).rules.calendar.days == 7
    assert (await t.store.games.snapshot(t.game_id))["ruleset"] == "quiet_town"
    # and its GM commands answer as before
    r = await gm.slash(t.channel("gm"), "gm status")
    assert r.response is not None and not r.response.content.startswith("⛔"), r.response.content
    # the lobby opened with the second upload starts with it, though it was removed since
    await start_second(env, guild, second_ch, gm)


async def start_second(env, guild, lobby, gm) -> None:
    players = [guild.add_member(env.create_user(f"q{i}", global_name=NAMES[i])) for i in range(5)]
    for p in players:
        await p.slash(lobby, "lobby join")
    r = await gm.slash(lobby, "lobby start")
    assert r.response is not None and "<#" in r.response.content, r
    second = next(i for i in env.bot.store.games.games() if i.meta.get("lobby_channel") == lobby.id)
    assert env.bot.store.games.game(second.game_id).rules.calendar.days == 9


async def test_a_file_that_drops_most_of_its_base_is_kept_with_the_loader_s_note(env):
    guild = env.create_guild("Мафия")
    ch = guild.create_text_channel("набор")
    gm = admin_of(env, guild)
    one_deck = QUIET + "table: {decks: {replace: [{upto: 64, cards: {mafioso: 1, doctor: 1, cop: 1}}]}}\n"
    said = answer(await upload(gm, ch, "quiet_town.yaml", one_deck))
    assert said.startswith("✅") and "Проверьте, так ли задумано" in said, said
    assert "остаётся 1 из 8 записей classic" in said, said


async def test_a_broken_shipped_file_is_named_not_dropped(env, monkeypatch, tmp_path, caplog):
    shipped = tmp_path / "rulesets"
    shipped.mkdir()
    shutil.copy(RULESETS_DIR / "classic.yaml", shipped / "classic.yaml")
    (shipped / "broken_town.yaml").write_text(BROKEN, encoding="utf-8")
    monkeypatch.setattr(config.loader, "RULESETS_DIR", shipped)
    guild = env.create_guild("Мафия")
    ch = guild.create_text_channel("набор")
    gm = guild.add_member(env.create_user("ведущий"))
    LOCALES[gm.id] = "ru"
    try:
        choices = {c["value"]: c["name"] for c in await gm.autocomplete(ch, "lobby create", "ruleset", "")}
        assert choices == {"classic": "Классическая мафия (classic)", "broken_town": "⚠ broken_town: файл с ошибками"}
        refused(await gm.slash(ch, "lobby create", ruleset="broken_town"), "сейчас не загружается", "неизвестная роль 'docter'")
        with caplog.at_level(logging.ERROR, logger="altmafia.bot.rulesets"):
            rulesets.log_broken_shipped()
        assert any("broken_town" in r.getMessage() and "docter" in r.getMessage() for r in caplog.records), caplog.records
    finally:
        load_ruleset.cache_clear()
