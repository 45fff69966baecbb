"""What is published at a game's end is the GM's choice: by default the public
gets the reveal, the chart and the timeline of what was public; the GM channel the full
timeline (the GM's lines, the anonymous authors, every PM's text) and the full report, with a
button that publishes them, GMs only, once."""

from __future__ import annotations

import discord
import pytest

from altmafia.text.i18n import text

from .conftest import LOCALES, perms
from .helpers import force_resolve, gather, start

pytestmark = pytest.mark.settings(gm_role="Ведущие")

PMS = [f"секретное письмо номер {i}" for i in range(4)]
ANON = "анонимка без подписи"


def files_of(message) -> dict:
    return {a.filename: a for a in message.attachments}


async def play_to_the_end(env):
    t = await gather(env, 13)
    role = t.guild.create_role("Ведущие")
    helper = t.guild.add_member(env.create_user("помощник", global_name="Помощник"), roles=[role])
    LOCALES[t.gm.id] = "ru"
    await start(t)
    for i, pm in enumerate(PMS):
        r = await t.member(i).slash(t.hidden(i), "pm send", to=str(i + 4), message=pm)
        assert not r.response.content.startswith("⛔"), r.response.content
    r = await t.member(2).slash(t.hidden(2), "anon post", message=ANON)
    assert not r.response.content.startswith("⛔"), r.response.content
    r = await t.gm.slash(t.channel("gm"), "gm endday", day=1)
    assert r.response.content == "Готово.", r.response.content
    resolves = 0
    while t.info.status == "running":
        await force_resolve(t, label="Подсчитать")
        resolves += 1
        assert resolves <= 6
    return t, helper


async def test_the_public_gets_what_was_public_and_the_gm_the_rest(env):
    t, helper = await play_to_the_end(env)
    author = t.game.player(2).name
    public = t.channel("public").history()
    reveal = next(m for m in public if "Кто был кем" in m.content)
    files = files_of(reveal)
    assert set(files) == {"chart.png", "timeline.txt"}
    shown = (await files["timeline.txt"].read()).decode("utf-8")
    assert "== день 1.1 ==" in shown and ANON in shown  # the anonymous post was public…
    assert "[всем]" in shown
    for hidden in ("[ведущему]", "[→", "[фракции"):  # …its author, the GM's lines were not
        assert hidden not in shown, hidden
    # a PM is in the public timeline only if the game made it public (the book's «вскрытый приват»)
    said = "\n".join(m.content for m in public)
    assert [pm in shown for pm in PMS] == [pm in said for pm in PMS]
    assert not all(pm in shown for pm in PMS)
    assert not any(f in files_of(m) for m in public for f in ("report.html", "timeline-full.txt"))

    gm_ch = t.channel("gm")
    review = next(m for m in gm_ch.history() if "report.html" in files_of(m))
    assert set(files_of(review)) == {"report.html", "timeline-full.txt"}
    assert "Разбор партии" in review.content and text("ru", "reveal.publish_ask") in review.content
    full = (await files_of(review)["timeline-full.txt"].read()).decode("utf-8")
    assert all(pm in full for pm in PMS) and "[ведущему]" in full and author in full and ANON in full
    assert [c.label for row in review.components for c in row.children] == ["Опубликовать полный разбор"]

    # the channels archived, the review unpublished: a player does not read the GM channel; a
    # server administrator who is no GM of the game reads it, but the button is the GMs' only
    ask = next(m for m in gm_ch.history() if m.components and "Что сделать с каналами" in m.content)
    await t.gm.click(ask, label="В архив")
    assert not perms(env, gm_ch, t.member(0)).view_channel
    admin = t.guild.add_member(env.create_user("админ", global_name="Админ"),
                               roles=[t.guild.create_role("Админы", permissions=discord.Permissions(administrator=True))])
    r = await admin.click(review, label="Опубликовать полный разбор")
    assert r.response.ephemeral and r.response.content == "⛔ " + text("en", "err.not_gm"), r.response.content
    assert not t.info.meta.get("review_published")

    # a GM (here one by the server's role) publishes: once, the button goes
    r = await helper.click(review, label="Опубликовать полный разбор")
    assert r.ephemeral and r.response.content == text("en", "reveal.published_done"), r.response
    published = [m for m in t.channel("public").history() if "timeline-full.txt" in files_of(m)]
    assert len(published) == 1 and set(files_of(published[0])) == {"report.html", "timeline-full.txt"}
    assert "Полный разбор партии" in published[0].content
    again = (await files_of(published[0])["timeline-full.txt"].read()).decode("utf-8")
    assert again == full
    review = next(m for m in gm_ch.history() if m.id == review.id)
    assert not review.components and "✅ Опубликовано в общем канале" in review.content
    assert t.info.meta["review_published"] == helper.id


@pytest.mark.discord_refusals("the public channel is deleted by hand: Discord refuses the post")
async def test_a_publication_that_cannot_be_posted_is_not_recorded(env):
    t, helper = await play_to_the_end(env)
    gm_ch = t.channel("gm")
    review = next(m for m in gm_ch.history() if any(a.filename == "report.html" for a in m.attachments))
    await t.bot.http.delete_channel(t.channel("public").id)  # someone deleted the public channel by hand
    await env.settle()
    r = await t.gm.click(review, label="Опубликовать полный разбор")
    assert r.ephemeral and r.response.content == "⛔ " + text("ru", "err.publish_failed"), r.response.content
    assert "review_published" not in t.info.meta
    review = next(m for m in gm_ch.history() if m.id == review.id)
    assert review.components  # the button stays: the GM may try again
    assert [(r.method, r.code) for r in env.strict.refused] == [("POST", 10003)], env.strict.refused
