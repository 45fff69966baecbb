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


async def test_the_files_name_a_substitute_and_the_reveal_says_who_played_the_seat(env):
    t = await gather(env, 13, others=1)
    LOCALES[t.gm.id] = "ru"
    await start(t)
    gm_ch = t.channel("gm")
    (newcomer,) = t.others
    old = t.member(2)
    r = await t.gm.slash(gm_ch, "gm substitute", player="2", member=newcomer)
    assert not r.response.content.startswith("⛔"), r.response.content
    await t.gm.slash(gm_ch, "gm endday", day=1)
    while t.info.status == "running":
        await force_resolve(t, label="Подсчитать")
    review = next(m for m in gm_ch.history() if any(a.filename == "report.html" for a in m.attachments))
    files = {a.filename: (await a.read()).decode("utf-8") for a in review.attachments}
    public = next(m for m in t.channel("public").history() if any(a.filename == "timeline.txt" for a in m.attachments))
    files["timeline.txt"] = (await next(a for a in public.attachments if a.filename == "timeline.txt").read()).decode("utf-8")
    for name in ("report.html", "timeline-full.txt", "timeline.txt"):
        body = files[name]
        assert "<@" not in body and "&lt;@" not in body, name  # a file shows no mention: a name
        assert newcomer.user.global_name in body and old.user.global_name in body, name
    reveal = next(m.content for m in t.channel("public").history() if "Кто был кем" in m.content)
    seat = next(line for line in reveal.splitlines() if t.game.player(2).name in line)
    assert seat.endswith(f"; место играли по очереди: <@{old.id}> → <@{newcomer.id}>"), seat
