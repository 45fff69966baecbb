"""/help for a player, a GM and a newcomer (ru and en); the GM's briefing at the start; a GM
task's notice with the command that settles it, and the player told when it is settled."""

from __future__ import annotations

import pytest

from .conftest import LOCALES
from .helpers import force_resolve, gather, start

PRIVATEER = 7  # the deal of the tests' fixed seed with 13 players
QUARREL = "role:privateer_seller:quarrel"


@pytest.mark.parametrize("locale", ["ru", "en-US"])
async def test_help_for_a_player_says_what_they_can_do_now(env, locale):
    t = await start(await gather(env, 13, spectators=0))
    m = t.member(PRIVATEER)
    LOCALES[m.id] = locale
    ru = locale == "ru"
    r = await m.slash(t.hidden(PRIVATEER), "help")
    body = r.response.content
    assert r.response.ephemeral
    name = t.game.player(PRIVATEER).name
    assert name in body and ("день 1.1" if ru else "day 1.1") in body
    assert ("Срок фазы" if ru else "<t:") in body and "<t:" in body
    # what the engine allows now, and the command to do it
    legal = t.game.legal_actions(PRIVATEER)
    assert legal
    from altmafia.text.i18n import Renderer
    for la in legal:
        assert Renderer(t.game, "ru" if ru else "en").ability(la.key) in body, body
    assert ("`/ход сделать`" if ru else "`/action submit`") in body
    quota = t.game.pm_quota(t.game.player(PRIVATEER))  # the engine's (20, or 30 with a character's extra)
    assert (f"Приваты: сегодня осталось {quota}" if ru else f"PMs: {quota} left today") in body
    assert ("`/приват написать`" if ru else "`/pm send`") in body
    assert "Идёт голосование" not in body and "vote “" not in body  # no vote is open on day 1.1
    # a submitted action is shown with how to replace or cancel it
    await m.slash(t.hidden(PRIVATEER), "action submit", ability=QUARREL, target="0")
    body = (await m.slash(t.hidden(PRIVATEER), "help")).response.content
    assert ("Заявлено: Поссорить англичан и французов" if ru else "Submitted: Set the English against the French") in body
    assert ("`/ход отменить`" if ru else "`/action cancel`") in body


async def test_help_shows_an_open_vote_and_the_players_ballot(env):
    t = await start(await gather(env, 5, spectators=0))
    await t.gm.slash(t.channel("gm"), "gm setstat", player="2", stat="vo", value=-3)
    await force_resolve(t)  # the prison list opens after a period
    assert t.game.open_votes()
    m = t.member(0)
    LOCALES[m.id] = "ru"
    body = (await m.slash(t.hidden(0), "help")).response.content
    assert "🗳 Идёт голосование" in body and "Вы ещё не голосовали." in body and "`/голос отдать`" in body
    await m.slash(t.hidden(0), "vote cast", candidate="2")
    body = (await m.slash(t.hidden(0), "help")).response.content
    assert f"Ваш голос: {t.game.player(2).name}." in body
    # out of the game: said so, no actions offered
    await t.gm.slash(t.channel("gm"), "gm remove", player="0", mode="left")
    body = (await m.slash(t.hidden(0), "help")).response.content
    assert "Вы выбыли из игры" in body and "Что можно сделать сейчас" not in body


@pytest.mark.parametrize("locale", ["ru", "en-US"])
async def test_help_for_the_gm_is_the_short_guide(env, locale):
    t = await start(await gather(env, 5, spectators=0))
    LOCALES[t.gm.id] = locale
    ru = locale == "ru"
    r = await t.gm.slash(t.channel("gm"), "help")
    body = r.response.content
    assert r.response.ephemeral
    assert ("Памятка ведущему" if ru else "The GM's short guide") in body
    assert ("`/ведущий решить`" if ru else "`/gm settle`") in body and ("`/ведущий статус`" if ru else "`/gm status`") in body
    assert ("docs/bot.ru.md" if ru else "docs/bot.md") in body
    # the GM asking elsewhere (the lobby channel) is still the game's GM
    body = (await t.gm.slash(t.lobby, "help")).response.content
    assert ("Памятка ведущему" if ru else "The GM's short guide") in body


@pytest.mark.parametrize("locale", ["ru", "en-US"])
async def test_help_outside_a_game_says_how_to_make_or_join_a_lobby(env, locale):
    guild = env.create_guild("Мафия")
    channel = guild.create_text_channel("общий")
    newcomer = guild.add_member(env.create_user("new", global_name="Новичок"))
    LOCALES[newcomer.id] = locale
    ru = locale == "ru"
    r = await newcomer.slash(channel, "help")
    body = r.response.content
    assert r.response.ephemeral
    assert ("`/набор создать`" if ru else "`/lobby create`") in body and ("`/набор вступить`" if ru else "`/lobby join`") in body
    assert ("Здесь нет вашей игры" if ru else "You have no game here") in body
    # a member who does not play a running game gets the same
    t = await start(await gather(env, 5, spectators=0))
    other = t.others[0]
    LOCALES[other.id] = locale
    body = (await other.slash(t.lobby, "help")).response.content
    assert ("`/набор вступить`" if ru else "`/lobby join`") in body and "Памятка" not in body


async def test_the_gm_channel_gets_a_briefing_at_the_start(env):
    t = await start(await gather(env, 13, spectators=0))
    posts = [m.content for m in t.channel("gm").history() if "Брифинг ведущего" in m.content]
    assert len(posts) == 1, posts
    body = "\n".join(m.content for m in t.channel("gm").history())
    assert "Europe/Moscow" in body
    # the schedule: the phases of two cycles, each with its end in the game's time zone
    for label in ("день 1.1 — до", "день 1.2 — до", "ночь 1 — до", "день 2.1 — до", "ночь 2 — до"):
        assert label in body, body
    # every GM command, with what it does
    for cmd in ("`/ведущий подсчёт`", "`/ведущий решить`", "`/ведущий задачи`", "`/ведущий пауза`", "`/набор начать`"):
        assert cmd in body, body
    # GM tasks: what they are, and this ruleset's
    assert "Задачи ведущего:" in body and "«Поссорить англичан и французов»" in body
    # not posted twice when the start's last steps run again (a restart that cut it short)
    from altmafia.bot.lobbies import post_briefing
    await post_briefing(t.bot, t.game_id)
    assert len([m for m in t.channel("gm").history() if "Брифинг ведущего" in m.content]) == 1


async def test_the_briefing_in_an_english_game(env):
    t = await start(await gather(env, 5, spectators=0, language="en"))
    body = "\n".join(m.content for m in t.channel("gm").history())
    assert "The GM's briefing" in body and "day 1.1 — until" in body and "`/gm settle`" in body


async def test_a_gm_task_shows_its_text_and_command_and_settling_tells_the_player(env):
    t = await start(await gather(env, 13, spectators=0))
    gm = t.channel("gm")
    p7 = t.member(PRIVATEER)
    LOCALES[p7.id] = "ru"
    LOCALES[t.gm.id] = "ru"
    await p7.slash(t.hidden(PRIVATEER), "action submit", ability=QUARREL, target="0")
    await force_resolve(t, label="Подсчитать")
    notice = next(m.content for m in gm.history() if "Задача для ведущего №1" in m.content)
    assert "`/ведущий решить задача:1 решение:…`" in notice, notice
    assert "Текст способности" in notice or "нет текста в правилах" in notice
    assert "`/ведущий изменить`" in notice or "`/ведущий" in notice
    tasks = (await t.gm.slash(gm, "gm tasks")).response.content
    assert "`/ведущий решить задача:N решение:…`" in tasks
    before = len(t.hidden(PRIVATEER).history())
    await t.gm.slash(gm, "gm settle", task=1, note="англичане и французы поссорились")
    told = [m.content for m in t.hidden(PRIVATEER).history()[before:]] if before else [m.content for m in t.hidden(PRIVATEER).history()]
    assert any("Ведущий решил ваше действие «Поссорить англичан и французов» (день 1.1): англичане и французы поссорились" in c
               for c in told), told
    for pid in range(13):
        if pid != PRIVATEER:
            assert not any("англичане и французы поссорились" in m.content for m in t.hidden(pid).history())
    assert not any("поссорились" in m.content for m in t.channel("public").history())
    r = await t.gm.slash(gm, "gm settle", task=5)
    assert r.response.ephemeral and r.response.content.startswith("⛔")


@pytest.mark.settings(gm_role="Ведущие")
async def test_help_for_a_holder_of_the_gm_role(env):
    t = await gather(env, 5, spectators=0)
    role = t.guild.create_role("Ведущие")
    helper = t.guild.add_member(env.create_user("помощник", global_name="Помощник"), roles=[role])
    await start(t)
    LOCALES[helper.id] = "ru"
    body = (await helper.slash(t.channel("gm"), "help")).response.content
    assert "Памятка ведущему — " + t.info.meta["title"] in body
    # outside the game's channels: the guide without a game, and how to open a lobby
    body = (await helper.slash(t.lobby, "help")).response.content
    assert "Памятка ведущему — без игры" in body and "`/набор создать`" in body


async def test_help_in_a_finished_games_channel(env):
    t = await start(await gather(env, 4, spectators=0))
    LOCALES[t.gm.id] = "ru"
    r = await t.gm.slash(t.channel("gm"), "lobby end")
    await t.gm.click(r.response, label="Завершить игру")
    assert t.info.status == "over"
    m = t.member(0)
    LOCALES[m.id] = "ru"
    r = await m.slash(t.channel("public"), "help")
    assert r.response.ephemeral
    assert r.response.content.startswith("Эта игра окончена.") and "`/набор создать`" in r.response.content


async def test_help_for_a_spectator_says_what_they_see(env):
    t = await start(await gather(env, 5, spectators=1))
    s = t.spectators[0]
    LOCALES[s.id] = "ru"
    body = (await s.slash(t.channel("public"), "help")).response.content
    assert body.startswith("👀 Вы наблюдаете за игрой «" + t.info.meta["title"] + "»") and "Памятка" not in body


async def test_a_start_cut_short_before_the_briefing_posts_it_at_the_next_start(env, settings, monkeypatch):
    import altmafia.bot.lobbies

    from .test_restart import restart

    async def crash_before_briefing(bot, game_id):  # the process died right after the role cards
        return None

    monkeypatch.setattr(altmafia.bot.lobbies, "post_briefing", crash_before_briefing)
    t = await start(await gather(env, 5, spectators=0))
    assert not [m for m in t.channel("gm").history() if "Брифинг ведущего" in m.content]
    monkeypatch.undo()
    await restart(env, settings)
    assert len([m for m in t.channel("gm").history() if "Брифинг ведущего" in m.content]) == 1
    assert t.info.meta.get("briefed")
    await restart(env, settings)  # and never again
    assert len([m for m in t.channel("gm").history() if "Брифинг ведущего" in m.content]) == 1


async def test_help_in_eternal_friday_names_the_teammates_one_may_order(env):
    from .test_eternal_friday_game import gather_friday

    t = await gather_friday(env)
    for p in t.players:
        await p.slash(t.lobby, "lobby join")
    await start(t)
    mafia = sorted(t.game.state.factions["mafia"].members)
    m = t.member(mafia[0])
    LOCALES[m.id] = "ru"
    body = (await m.slash(t.hidden(mafia[0]), "help")).response.content
    assert "ночь 1" in body  # the game starts at night
    assert "Действие за товарища по команде — `/ход сделать вместо:…`" in body, body
    assert all(t.game.player(x).name in body.split("товарищи:")[1] for x in mafia[1:])
    # a town player has no one to order
    town = next(p.pid for p in t.game.state.players if p.pid not in {x for f in t.game.state.factions.values() for x in f.members})
    LOCALES[t.member(town).id] = "ru"
    assert "товарищи:" not in (await t.member(town).slash(t.hidden(town), "help")).response.content
