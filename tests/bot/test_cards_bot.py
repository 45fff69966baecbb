"""The role cards and the start post through the simulated Discord: each card
says what every ability does and when each phase ends in the game's time zone, in parts of at
most 2000 characters; stats mafia's card and start post speak of letters, never of PMs."""

from __future__ import annotations

from typing import Any

from altmafia.text.cards import ability_text

from .conftest import LOCALES
from .helpers import NAMES, Table, start
from .test_stats_mafia_game import gather_stats


def card_of(t: Table, pid: int) -> str:
    parts = [m.content for m in t.hidden(pid).history()]
    assert parts and all(len(c) <= 2000 for c in parts), [len(c) for c in parts]
    return "\n".join(parts)


async def gather_godfather(env: Any, n: int, tz: str) -> Table:
    guild = env.create_guild("Мафия")
    lobby = guild.create_text_channel("набор")
    gm = guild.add_member(env.create_user("ведущий"))
    players = [guild.add_member(env.create_user(f"p{i}", global_name=NAMES[i])) for i in range(n)]
    for u in [gm, *players]:
        LOCALES[u.id] = "ru"
    r = await gm.slash(lobby, "lobby create", timezone=tz)
    assert r.response is not None and not r.ephemeral, r
    for p in players:
        await p.slash(lobby, "lobby join")
    return Table(env, guild, lobby, gm, players, [])


async def test_godfather_cards_have_every_ability_s_text_and_the_game_s_zone(env):
    t = await start(await gather_godfather(env, 13, "Asia/Yekaterinburg"))
    game = t.game
    for p in game.state.players:
        card = card_of(t, p.pid)
        assert "📅 Расписание (часовой пояс Asia/Yekaterinburg): День, первый период — до 15:00" in card
        for key, _ab in game.abilities(p):
            what = ability_text(game, key, "ru")
            assert what and what in card, (p.name, key)
        assert "✉ приватов в день: " in card and "🏆 Победа: добиться наибольшего ВО" in card
    public = t.channel("public").history()[0].content
    assert "Команды: /ход сделать, /ход я, /голос отдать, /приват написать, /анонимка отправить, /фракция." in public


async def test_stats_mafia_start_post_and_cards_speak_of_letters_not_pms(env):
    t = await start(await gather_stats(env, 6, spectators=0))
    public = t.channel("public").history()[0].content
    assert "письма: /приват написать (одному игроку) и /анонимка отправить (всем)" in public, public
    assert "/фракция" not in public
    for p in t.game.state.players:
        card = card_of(t, p.pid)
        assert "писем за фазу: 1" in card and "записок на волю за фазу" in card
        assert "приватов в день" not in card.lower() and "анонимок в день" not in card.lower()


async def test_action_me_shows_no_pms_left_where_the_ruleset_has_letters(env):
    t = await start(await gather_stats(env, 6, spectators=0))
    r = await t.players[0].slash(t.hidden(0), "action me")
    assert r.response.ephemeral and "Приватов сегодня осталось" not in r.response.content
    assert "Показатели" in r.response.content


async def test_action_me_shows_pms_left_where_the_ruleset_has_pms(env):
    t = await start(await gather_godfather(env, 4, "Europe/Moscow"))
    r = await t.players[0].slash(t.hidden(0), "action me")
    quota = t.game.pm_quota(t.game.player(0))
    assert f"Приватов сегодня осталось: {quota}" in r.response.content
