"""«Вечная пятница» needs 18 players («Для начала игры нужно минимум 18 игроков»): a smaller table
only as the GM's explicit practice table, which the lobby shows when it opens and in its list."""

from __future__ import annotations

from .conftest import LOCALES
from .test_refusals import refused

NAMES = ["Аня", "Борис", "Вера", "Глеб", "Даша"]


async def sign_up(env, practice: bool | None):
    guild = env.create_guild("Мафия")
    ch = guild.create_text_channel("набор")
    gm = guild.add_member(env.create_user("ведущий"))
    players = [guild.add_member(env.create_user(f"p{i}", global_name=n)) for i, n in enumerate(NAMES)]
    for m in (gm, *players):
        LOCALES[m.id] = "ru"
    opts = {"ruleset": "eternal_friday"} | ({} if practice is None else {"practice": practice})
    created = await gm.slash(ch, "lobby create", **opts)
    assert created.response is not None and not created.response.ephemeral, created
    for m in players:
        r = await m.slash(ch, "lobby join")
        assert not r.response.ephemeral, r.response.content
    return gm, ch, players, created.response.content


async def test_book_table_refuses_five(env):
    gm, ch, players, opened = await sign_up(env, None)
    assert "от 18 до 20" in opened and "Тренировочный" not in opened, opened
    listing = await players[0].slash(ch, "lobby players")
    assert "Тренировочный" not in listing.response.content, listing.response.content
    refused(await gm.slash(ch, "lobby start"), "от 18 до 20", "5")
    assert env.bot.store.games.games() == []


async def test_practice_table_shown_and_started(env):
    gm, ch, players, opened = await sign_up(env, True)
    # the lobby says so when it opens, and in its list
    assert "Игроков: от 2 до 20" in opened, opened
    assert "🧪 Тренировочный стол: от 2 до 20 игроков — меньше, чем требуют правила (от 18)" in opened, opened
    listing = await players[0].slash(ch, "lobby players")
    assert listing.response.ephemeral and "🧪 Тренировочный стол" in listing.response.content, listing.response.content
    assert all(n in listing.response.content for n in NAMES)
    r = await gm.slash(ch, "lobby start")
    assert r.response is not None and "<#" in r.response.content, r.response.content
    (info,) = env.bot.store.games.games()
    game = env.bot.store.games.game(info.game_id)
    assert game.state.settings.get("practice_table") is True
    assert len(game.state.players) == 5 and game.info.kind == "night"
    deck = {c.id for c in game.rules.characters}
    assert all(p.character in deck for p in game.state.players)


async def test_practice_table_refused_where_the_rules_have_none(env):
    guild = env.create_guild("Мафия")
    ch = guild.create_text_channel("набор")
    gm = guild.add_member(env.create_user("ведущий"))
    LOCALES[gm.id] = "ru"
    refused(await gm.slash(ch, "lobby create", practice=True), "нет тренировочного стола", "Наследие крестного отца")
    assert await env.bot.store.lobbies.lobbies(guild.id) == {}
