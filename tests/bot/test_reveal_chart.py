"""The reveal's chart.png: drawn in a worker thread (the bot goes on answering), a picture with
a panel per player."""

from __future__ import annotations

import asyncio
import io
import threading

from PIL import Image

from altmafia.bot import bot as bot_mod

from .conftest import LOCALES
from .helpers import force_resolve, gather, start


async def test_the_chart_is_drawn_off_the_event_loop(env, monkeypatch):
    calls: list[tuple[bool, bool]] = []
    real = bot_mod.chart_png

    def watched(*args, **kwargs):  # the real chart, noting where it was drawn
        try:
            asyncio.get_running_loop()
            on_loop = True
        except RuntimeError:
            on_loop = False
        calls.append((on_loop, threading.current_thread() is threading.main_thread()))
        return real(*args, **kwargs)

    monkeypatch.setattr(bot_mod, "chart_png", watched)
    t = await gather(env, 13)
    LOCALES[t.gm.id] = "ru"
    await start(t)
    r = await t.gm.slash(t.channel("gm"), "gm endday", day=1)
    assert r.response.content == "Готово.", r.response.content
    resolves = 0
    while t.info.status == "running":
        await force_resolve(t, label="Подсчитать")
        resolves += 1
        assert resolves <= 6
    assert calls == [(False, False)]  # once, in a worker thread with no event loop
    reveal = next(m for m in t.channel("public").history() if "Кто был кем" in m.content)
    png = await next(a for a in reveal.attachments if a.filename == "chart.png").read()
    img = Image.open(io.BytesIO(png))
    assert img.format == "PNG" and img.width > img.height * 1.0  # 4 panels a row
