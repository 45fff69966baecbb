"""What a GM and players met at a whole game's table: a forced resolve that chose the next
phase's deadline, a private word for those the GM acts on, the archive that keeps what was not
published, /help that knows where it is asked, and texts that say what happened."""

from __future__ import annotations

from datetime import timedelta
from zoneinfo import ZoneInfo

from altmafia.bot.deadlines import now

from .conftest import LOCALES, perms
from .helpers import Table, gather, start

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
