"""Each player's own news through SimCord: after every resolve the public channel says what phase comes
now and until when (the game's time zone), once, in the batch of the public report; each
player's own news reaches their hidden channel."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from .conftest import LOCALES
from .helpers import force_resolve, gather, start

CASES = [
    ("ru", "Europe/Moscow", "Сейчас: день 1.2, до 21:00, 01.01 (Europe/Moscow)", "Сейчас: ночь 1, до 09:00, 02.01 (Europe/Moscow)",
     datetime(2026, 1, 1, 12, 0, tzinfo=UTC)),
    ("en", "Europe/London", "Now: day 1.2, until 21:00, 01.01 (Europe/London)", "Now: night 1, until 09:00, 02.01 (Europe/London)",
     datetime(2026, 1, 1, 15, 0, tzinfo=UTC)),
]


@pytest.mark.parametrize(("lang", "tz", "first", "second", "deadline"), CASES)
async def test_the_phase_and_its_deadline_once_after_each_resolve(env, lang, tz, first, second, deadline):
    t = await start(await gather(env, 4, spectators=0, language=lang, timezone=tz))
    LOCALES[t.gm.id] = lang
    pub = t.channel("public")
    assert t.info.deadline == deadline
    # day 1.1 resolves at its deadline (15:00 in the game's zone)
    await env.advance_time((deadline - env.now()).total_seconds() + 30)
    assert t.info.tick == 1
    lines = [m.content for m in pub.history() if first in m.content]
    assert len(lines) == 1, [m.content for m in pub.history()]
    header = "**— день 1.1 —**" if lang == "ru" else "**— day 1.1 —**"
    assert header in lines[0], "the line is in the batch of the report of day 1.1"
    stamp = int(t.info.deadline.timestamp())
    assert f"<t:{stamp}:R>" in lines[0]
    # a GM's forced resolve: the night comes, until 09:00 the next morning
    await force_resolve(t, label="Подсчитать" if lang == "ru" else "Resolve")
    assert t.info.tick == 2
    assert sum(first in m.content for m in pub.history()) == 1, "the first line is not repeated"
    assert sum(second in m.content for m in pub.history()) == 1, [m.content for m in pub.history()]
    # nothing pending is delivered twice on a later flush
    await t.bot.deliverer.flush(t.game_id)
    assert sum(second in m.content for m in pub.history()) == 1


async def test_a_paused_game_says_the_phase_has_no_deadline(env):
    t = await start(await gather(env, 4, spectators=0, language="ru"))
    LOCALES[t.gm.id] = "ru"
    r = await t.gm.slash(t.channel("gm"), "gm pause")
    assert r.response is not None, r
    await force_resolve(t, label="Подсчитать")
    assert t.info.tick == 1
    contents = [m.content for m in t.channel("public").history()]
    assert sum("Сейчас: день 1.2. У фазы нет срока" in c for c in contents) == 1, contents
    await env.advance_time(timedelta(hours=30).total_seconds())
    assert t.info.tick == 1, "paused: no resolve"
