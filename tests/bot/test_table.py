"""What a GM and players met at a whole game's table: a forced resolve that chose the next
phase's deadline, a private word for those the GM acts on, the archive that keeps what was not
published, /help that knows where it is asked, and texts that say what happened."""

from __future__ import annotations

from datetime import timedelta
from zoneinfo import ZoneInfo

from altmafia.bot.deadlines import now

from .conftest import LOCALES, perms
from .helpers import Table, force_resolve, gather, start, started_with

MSK = ZoneInfo("Europe/Moscow")


async def friday(env, n: int = 5) -> Table:
    """An Eternal Friday practice table of ``n``, started: night 1 runs until 04:00 Moscow."""
    guild = env.create_guild("Мафия")
    lobby = guild.create_text_channel("набор")
    gm = guild.add_member(env.create_user("ведущий"))
    players = [guild.add_member(env.create_user(f"p{i}", global_name=f"Игрок{i}")) for i in range(n)]
    LOCALES[gm.id] = "ru"
    r = await gm.slash(lobby, "lobby create", ruleset="eternal_friday", practice=True)
    assert not r.response.ephemeral, r.response.content
    for m in players:
        await m.slash(lobby, "lobby join")
    return await start(Table(env, guild, lobby, gm, players))


async def at_moscow(env, t: Table, hour: int) -> None:
    """The clock moved on to the next ``hour``:00 in Moscow before the phase's deadline."""
    if t.info.deadline - now() < timedelta(hours=25):
        r = await t.gm.slash(t.channel("gm"), "gm extend", minutes=1440)
        assert not r.response.content.startswith("⛔"), r.response.content
    local = now().astimezone(MSK)
    target = local.replace(hour=hour, minute=0, second=0, microsecond=0)
    if target <= local:
        target += timedelta(days=1)
    await env.advance_time((target - local).total_seconds())
    assert now().astimezone(MSK).hour == hour


async def test_a_forced_resolve_shows_both_deadlines_and_keeps_the_full_day(env):
    t = await friday(env)
    await at_moscow(env, t, 23)
    r = await t.gm.slash(t.channel("gm"), "gm resolve")
    body = r.response.content
    assert r.response.ephemeral and "Подвести итоги фазы «ночь 1» прямо сейчас?" in body, body
    # both ends of day 1 are shown before the GM chooses: 04:00 (five hours) or a whole day
    assert "Срок следующей фазы «день 1»" in body and "24 часа" in body, body
    calendar = (now() + timedelta(hours=5)).replace(second=0, microsecond=0)
    full = now() + timedelta(hours=24)
    assert f"<t:{int(calendar.timestamp())}:f>" in body and f"<t:{int(full.timestamp())}:f>" in body, body
    labels = [c["label"] for row in r.response.components for c in row["components"]]
    assert labels == ["Подсчитать", "Подсчитать, полная фаза", "Отмена"], labels
    await t.gm.click(r.response, label="Подсчитать, полная фаза")
    assert t.game.info.label.startswith("day"), t.game.info.label
    assert abs((t.info.deadline - full).total_seconds()) < 2, (t.info.deadline, full)
    # the result says the new deadline
    result = r.response.content
    assert "Готово" in result and f"Фаза «день 1» идёт до <t:{int(t.info.deadline.timestamp())}:f>" in result, result
    # the calendar's choice: day 1 forced at 23:00 ends at 04:00, as before
    r = await t.gm.slash(t.channel("gm"), "gm resolve")
    await t.gm.click(r.response, label="Подсчитать")
    dl = t.info.deadline.astimezone(MSK)
    assert (dl.hour, dl.minute) == (4, 0) and t.info.deadline - now() < timedelta(hours=6), dl


async def ended(env, n: int = 4, **kw) -> Table:
    """A Godfather's Legacy table of ``n`` (and a spectator), ended by the GM at once."""
    t = await start(await gather(env, n, **kw))
    LOCALES[t.gm.id] = "ru"
    r = await t.gm.slash(t.channel("gm"), "lobby end")
    await t.gm.click(r.response, label="Завершить игру")
    assert t.info.status == "over"
    return t


def reads(env, ch, m) -> bool:
    return perms(env, ch, m).view_channel


def writes(env, ch, m) -> bool:
    p = perms(env, ch, m)
    return p.view_channel and p.send_messages


async def test_the_archive_keeps_what_the_gm_did_not_publish(env):
    t = await ended(env, 4, spectators=1)
    gm_ch = t.channel("gm")
    ask = next(m for m in gm_ch.history() if m.components and "Что сделать с каналами" in m.content)
    assert "только если опубликован полный разбор" in ask.content, ask.content
    r = await t.gm.click(ask, label="В архив")
    assert "Полный разбор не опубликован" in r.response.content, r.response.content
    everyone = [*t.players, *t.spectators]
    for m in everyone:
        # the public and vote channels for all; the GM channel (anonymous authors) for nobody
        assert reads(env, t.channel("public"), m) and reads(env, t.channel("votes"), m), m.name
        assert not reads(env, gm_ch, m), m.name
        for key in t.info.meta["channels"]:
            assert not writes(env, t.channel(key), m), (key, m.name)
    for pid in range(4):
        # a hidden channel (its PMs) is its holder's alone
        assert [m.name for m in everyone if reads(env, t.hidden(pid), m)] == [t.member(pid).name], pid
    assert perms(env, gm_ch, t.gm).send_messages
    # the GM publishes the full review afterwards: the archive opens to every participant
    review = next(m for m in gm_ch.history() if m.components and "Опубликовать полный разбор" in str(m.components))
    await t.gm.click(review, label="Опубликовать полный разбор")
    for key in t.info.meta["channels"]:
        for m in everyone:
            assert reads(env, t.channel(key), m) and not writes(env, t.channel(key), m), (key, m.name)



async def test_a_replaced_player_is_told_by_dm_and_the_gm_when_it_fails(env):
    t = await start(await gather(env, 5, spectators=0, others=2))
    LOCALES[t.gm.id] = "ru"
    newcomer, second = t.others
    old = t.member(2)
    name = t.game.player(2).name
    r = await t.gm.slash(t.channel("gm"), "gm substitute", player="2", member=newcomer)
    assert r.response.content == "Готово.", r.response.content
    # the old member reads, where the bot still reaches them, that the seat passed on
    said = [m.content for m in old.user.dm_channel.history()]
    assert any(f"передал ваше место ({name}) другому участнику" in m for m in said), said
    assert not perms(env, t.hidden(2), old).view_channel
    # the newcomer's DMs are closed when the seat passes again: the GM channel says so
    t.players.append(newcomer)
    env.inject_error("POST", f"/channels/{newcomer.user.dm_channel.id}/messages", status=403, code=50007,
                     message="Cannot send messages to this user")
    r = await t.gm.slash(t.channel("gm"), "gm substitute", player="2", member=second)
    assert r.response.content == "Готово.", r.response.content
    gm_log = "\n".join(m.content for m in t.channel("gm").history())
    assert f"Не удалось написать в личные сообщения — <@{newcomer.id}>" in gm_log and "другому участнику" in gm_log, gm_log
    assert not [m.content for m in newcomer.user.dm_channel.history()]


async def test_spectators_added_and_taken_away_by_the_gm_are_told(env):
    t = await start(await gather(env, 4, spectators=0, others=2))
    LOCALES[t.gm.id] = "ru"
    watcher, other = t.others
    assert not perms(env, t.channel("public"), watcher).view_channel
    r = await t.gm.slash(t.channel("gm"), "gm spectate", member=watcher)
    assert r.response.ephemeral and r.response.content == "Готово.", r.response.content
    assert perms(env, t.channel("public"), watcher).view_channel and not perms(env, t.channel("public"), watcher).send_messages
    assert any("сделал вас зрителем" in m.content for m in watcher.user.dm_channel.history())
    assert any("зритель добавлен" in m.content for m in t.channel("gm").history())
    # refusals, each with its reason: again, a player, a bot, a player's try
    r = await t.gm.slash(t.channel("gm"), "gm spectate", member=watcher)
    assert r.response.content.startswith("⛔") and "уже зритель" in r.response.content, r.response.content
    r = await t.gm.slash(t.channel("gm"), "gm spectate", member=t.member(0))
    assert r.response.content.startswith("⛔") and "играет в этой игре" in r.response.content, r.response.content
    r = await t.member(0).slash(t.hidden(0), "gm spectate", member=other)
    assert r.response.content.startswith("⛔") and not perms(env, t.channel("public"), other).view_channel
    # taken away: a word by DM, and no channel any more
    r = await t.gm.slash(t.channel("gm"), "gm unspectate", member=watcher)
    assert r.response.content == "Готово.", r.response.content
    assert any("убрал вас из зрителей" in m.content for m in watcher.user.dm_channel.history())
    assert not perms(env, t.channel("public"), watcher).view_channel


async def test_a_modkilled_player_reads_why_and_where_the_dead_talk(env):
    t = await started_with(env, 5, dead_channel=True)
    r = await t.gm.slash(t.channel("gm"), "gm remove", player="3", mode="modkill")
    assert r.response.content == "Готово.", r.response.content
    dead = t.channel("dead")
    said = "\n".join(m.content for m in t.hidden(3).history())
    # (the players' clients are English: their words are)
    assert "The GM has taken you out of the game (a modkill)" in said and f"The players who are out talk in <#{dead.id}>" in said, said
    # the channel of the dead says what it is, once
    intros = [m.content for m in dead.history() if "Канал выбывших" in m.content]
    assert len(intros) == 1 and "Живые игроки этот канал не видят" in intros[0], intros
    assert perms(env, dead, t.member(3)).view_channel and not perms(env, dead, t.member(0)).view_channel
    r = await t.gm.slash(t.channel("gm"), "gm remove", player="1", mode="left")
    assert "as gone for good" in "\n".join(m.content for m in t.hidden(1).history())
    assert len([m for m in dead.history() if "Канал выбывших" in m.content]) == 1


async def test_help_knows_where_it_is_asked(env):
    t = await gather(env, 3, spectators=1)
    LOCALES[t.gm.id] = "ru"
    LOCALES[t.players[0].id] = "ru"
    LOCALES[t.spectators[0].id] = "ru"
    # the GM of the lobby open in this channel: the lobby's next steps, not «no game here»
    r = await t.gm.slash(t.lobby, "help")
    body = r.response.content
    assert r.response.ephemeral and "Вы ведущий набора" in body and "записались: 3 игрока" in body, body
    assert "/набор начать" in body and "Здесь нет вашей игры" not in body, body
    r = await t.players[0].slash(t.lobby, "help")
    assert "Вы записаны в набор" in r.response.content and "Здесь нет" not in r.response.content, r.response.content
    await start(t)
    # a spectator: one answer, what they read and the table
    r = await t.spectators[0].slash(t.channel("public"), "help")
    body = r.response.content
    assert "Вы наблюдаете за игрой" in body and "/набор игроки" in body and "Здесь нет вашей игры" not in body, body
    # in a DM: games are played in a server; the player's game linked to their hidden channel
    seat = next(p.pid for p in t.game.state.players if p.user_id == t.players[0].id)
    r = await t.players[0].user.slash("help")
    body = r.response.content
    assert r.response.ephemeral and "Игры идут на сервере" in body and "`/помощь`" in body, body
    assert f"<#{t.hidden(seat).id}>" in body, body
    r = await t.others[0].user.slash("help")
    assert "Games are played in a server" in r.response.content and "<#" not in r.response.content, r.response.content  # en-US
    # after the end the GM is told of the buttons left
    r = await t.gm.slash(t.channel("gm"), "lobby end")
    await t.gm.click(r.response, label="Завершить игру")
    r = await t.gm.slash(t.channel("gm"), "help")
    body = r.response.content
    assert "Эта игра окончена" in body and "«Опубликовать полный разбор»" in body and "«В архив»" in body, body
    r = await t.players[1].slash(t.channel("public"), "help")
    assert "Опубликовать" not in r.response.content, r.response.content


async def test_sign_up_moves_in_a_running_game_say_it_runs(env):
    t = await start(await gather(env, 4, spectators=0, others=1))
    late = t.others[0]
    LOCALES[late.id] = "ru"
    LOCALES[t.players[0].id] = "ru"
    title = t.info.meta["title"]
    r = await late.slash(t.lobby, "lobby join")
    assert r.response.ephemeral and r.response.content == (
        f"⛔ Игра «{title}» уже идёт: набор закрыт, записаться нельзя. Смотреть за ней можно — `/набор наблюдать`;"
        " в новую игру — когда откроют новый набор."), r.response.content
    r = await t.players[0].slash(t.lobby, "lobby leave")
    assert r.response.content.startswith(f"⛔ Игра «{title}» уже идёт: выписаться из неё нельзя") and "замену" in r.response.content
    r = await t.players[0].slash(t.channel("public"), "lobby leave")
    assert "выписаться из неё нельзя" in r.response.content, r.response.content


async def test_undo_says_one_step_and_the_end_and_the_living_are_pinged_once(env):
    t = await started_with(env, 5, spectators=0, living_role=True)
    rid = t.info.meta["living_role"]
    gm_ch = t.channel("gm")
    await force_resolve(t, label="Подсчитать")
    r = await t.gm.slash(gm_ch, "gm undo")
    await t.gm.click(r.response, label=next(c["label"] for row in r.response.components for c in row["components"]
                                            if c["label"] != "Отмена"))
    assert t.info.tick == 0
    # a second undo: only one step back, and which one was taken back
    r = await t.gm.slash(gm_ch, "gm undo")
    assert r.response.content == "⛔ Отменить можно только один шаг: подсчёт фазы «день 1.1» уже отменён, более ранний отменить нельзя.", \
        r.response.content
    # redone: day 1.2 announced again, its role pinged once in all
    await force_resolve(t, label="Подсчитать")
    said = [m.content for m in t.channel("public").history() if "Началась фаза «день 1.2»" in m.content]
    assert len(said) == 2 and sum(f"<@&{rid}>" in m for m in said) == 1, said
    assert "снова, после отмены подсчёта" in said[-1], said
    # the game over: undo says the game is over and its last resolve stays
    r = await t.gm.slash(gm_ch, "lobby end")
    await t.gm.click(r.response, label="Завершить игру")
    r = await t.gm.slash(gm_ch, "gm undo")
    assert r.response.content == "⛔ Игра окончена: её последний подсчёт уже не отменить.", r.response.content


async def test_clearing_a_status_the_player_lacks_is_refused(env):
    t = await start(await gather(env, 4, spectators=0))
    LOCALES[t.gm.id] = "ru"
    sid = next(s for s in t.game.rules.statuses if not t.game.player(1).has(s.id)).id
    name = t.game.player(1).name
    status = next(s.names.ru for s in t.game.rules.statuses if s.id == sid)
    r = await t.gm.slash(t.channel("gm"), "gm clearstatus", player="1", status=sid)
    assert r.response.ephemeral and r.response.content == f"⛔ {name}: нет статуса «{status}», снимать нечего.", r.response.content
    r = await t.gm.slash(t.channel("gm"), "gm setstatus", player="1", status=sid)
    assert r.response.content == "Готово.", r.response.content
    r = await t.gm.slash(t.channel("gm"), "gm clearstatus", player="1", status=sid)
    assert r.response.content == "Готово." and not t.game.player(1).has(sid), r.response.content


async def test_the_stats_mafia_panel_calls_its_letters_letters(env):
    from .test_stats_mafia_game import gather_stats

    t = await start(await gather_stats(env, 4, spectators=0))
    msg = next(m for m in reversed(t.hidden(0).history()) if m.components and "amy:" in str(m.components))
    labels = [c.label for row in msg.components for c in row.children if getattr(c, "custom_id", "").startswith("amy:")]
    assert "Анонимное письмо игроку" in labels and "Письмо городу" in labels and "Написать приват" not in labels, labels
    r = await t.member(0).click(msg, label="Анонимное письмо игроку")
    assert r.modal is not None and r.modal["title"] == "Анонимное письмо", r.modal
