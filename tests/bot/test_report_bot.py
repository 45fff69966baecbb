"""At a game's end the GM channel gets the review of the game as one HTML file."""

from __future__ import annotations

from .conftest import LOCALES
from .helpers import force_resolve, gather, start


async def test_the_gm_channel_gets_the_report(env):
    t = await gather(env, 13)
    LOCALES[t.gm.id] = "ru"
    await start(t)
    gm_ch = t.channel("gm")
    r = await t.gm.slash(gm_ch, "gm endday", day=1)
    assert r.response.content == "Готово.", r.response.content
    resolves = 0
    while t.info.status == "running":
        await force_resolve(t, label="Подсчитать")
        resolves += 1
        assert resolves <= 6
    game = t.game
    posts = [m for m in gm_ch.history() if any(a.filename == "report.html" for a in m.attachments)]
    assert len(posts) == 1 and "Разбор партии" in posts[0].content
    page = (await next(a for a in posts[0].attachments if a.filename == "report.html").read()).decode("utf-8")
    assert page.startswith("<!DOCTYPE html>") and "Разбор партии" in page and "День 1.1" in page
    for p in game.state.players:
        assert p.name in page, p.name
    public = t.channel("public").history()
    assert not any(a.filename == "report.html" for m in public for a in m.attachments)  # the GM's choice (tests/bot/test_publication.py)
