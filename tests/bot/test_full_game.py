"""A complete Godfather's Legacy game of 13 members, through slash commands only: sign-up,
the deal, actions picked from autocomplete, votes, PMs, anonymous posts, factions, GM
resolves, the end, the reveal with its chart, and the archive."""

from __future__ import annotations

import random
from collections import Counter

from altmafia.bot.delivery import reader_lang
from altmafia.text.i18n import Renderer, text
from engine.state import Event

from .conftest import LOCALES, perms
from .helpers import act, force_resolve, gather, start


async def test_full_godfather_game(env):
    t = await gather(env, 13, spectators=2)
    LOCALES[t.gm.id] = "ru"
    r = await t.gm.slash(t.lobby, "lobby players")
    assert "13 игроков" in r.response.content and "2 зрителя" in r.response.content
    await start(t)
    rnd = random.Random(7)
    gm_ch = t.channel("gm")
    r = await t.gm.slash(gm_ch, "gm endday", day=2)
    assert r.response.content == "Готово.", r.response.content
    resolves = votes = pms = anons = invites = 0
    while t.info.status == "running":
        g = t.game
        for p in g.living():
            if rnd.random() < 0.85:
                res = await act(t, p.pid, rnd)
                if res is not None:
                    assert res.response is not None and res.response.ephemeral, res
        for p in rnd.sample(g.living(), 3):  # a few PMs and anonymous posts
            m, ch = t.member(p.pid), t.hidden(p.pid)
            to = await m.autocomplete(ch, "pm send", "to", "")
            res = await m.slash(ch, "pm send", to=rnd.choice(to)["value"], message=f"привет от {p.name}")
            pms += not res.response.content.startswith("⛔")
            res = await m.slash(ch, "anon post", message=f"слух №{resolves}-{p.pid}")
            anons += not res.response.content.startswith("⛔")
        if g.open_votes():
            for p in g.living():
                m, ch = t.member(p.pid), t.hidden(p.pid)
                cands = await m.autocomplete(ch, "vote cast", "candidate", "")
                if cands:
                    res = await m.slash(ch, "vote cast", candidate=rnd.choice(cands)["value"])
                    votes += not res.response.content.startswith("⛔")
        if g.info.kind == "night":
            for p in rnd.sample(g.living(), 4):
                m, ch = t.member(p.pid), t.hidden(p.pid)
                others = await m.autocomplete(ch, "faction invite", "player", "")
                res = await m.slash(ch, "faction invite", player=rnd.choice(others)["value"])
                invites += not res.response.content.startswith("⛔")
            for p in g.living():  # whoever was invited accepts
                m, ch = t.member(p.pid), t.hidden(p.pid)
                inviters = await m.autocomplete(ch, "faction accept", "inviter", "")
                if inviters:
                    await m.slash(ch, "faction accept", inviter=inviters[0]["value"])
        r = await t.gm.slash(gm_ch, "gm status")
        assert "Ещё не сходили" in r.response.content
        await force_resolve(t, label="Подсчитать")
        resolves += 1
        assert resolves <= 15  # abilities may move the end day by a day or two
    assert t.info.status == "over"
    assert pms and anons and invites
    print(f"{resolves} resolves, {votes} votes, {pms} PMs, {anons} anonymous posts, {invites} invitations")
    game = t.game
    winners = [game.player(w).name for w in game.state.winner or []]

    # no moment where a player is not told what happened to them — every status
    # change of the game's log, every listing for the prison vote and every change of their
    # own stats (with its cause) has its line in that player's hidden channel, in their language
    checked = 0
    log = await t.store.games.events(t.game_id)  # the whole log (memory holds only what the rules still read)
    for p in game.state.players:
        lang = reader_lang(t.info.meta, f"player:{p.pid}")
        rd = Renderer(game, lang)
        got = Counter(line for m in t.hidden(p.pid).history() for line in m.content.split("\n"))
        want: Counter[str] = Counter()
        for ev in log:
            if ev.key in ("report.status_on", "report.status_off") and ev.args.get("player") == p.pid:
                told = ev if ev.audience == "players" else Event(ev.tick, "notice." + ev.key.split(".")[1], {"status": ev.args["status"]}, "players", [p.pid])
            elif ev.key == "vote.listed" and ev.args.get("player") == p.pid:
                told = Event(ev.tick, "notice.listed", {"vote": ev.args["vote"]}, "players", [p.pid])
            elif ev.key in ("notice.stat", "private.stat") and ev.ids == [p.pid]:
                told = ev  # a change of their own stat, with its cause
                assert ev.args.get("causes") or ev.args.get("correction"), ev
            else:
                continue
            want[text(lang, "delivery.line", text=rd.event(told))] += 1
        # every change of their ВО in the public report came with its private line and cause
        for ev in log:
            if ev.key == "report.stat" and ev.args.get("player") == p.pid and not ev.args.get("correction"):
                assert any(e.key == "notice.stat" and e.tick == ev.tick and e.ids == [p.pid] and e.args["stat"] == ev.args["stat"]
                           for e in log), (p.name, ev)
        missing = want - got
        assert not missing, (p.name, dict(missing))
        checked += sum(want.values())
    print(f"{checked} status changes, listings and stat changes told")
    assert checked >= 5, checked

    # the reveal: who was who, the winners, the chart and the timeline
    public = t.channel("public").history()
    reveal = next(m for m in public if "Кто был кем" in m.content)
    assert all(p.name in reveal.content for p in game.state.players)
    assert "Победители" in reveal.content and all(w in reveal.content for w in winners)
    files = {a.filename: a for a in reveal.attachments}
    assert set(files) == {"chart.png", "timeline.txt"}
    png = await files["chart.png"].read()
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and len(png) > 10_000
    timeline = (await files["timeline.txt"].read()).decode("utf-8")
    assert "== день 1.1 ==" in timeline and "[всем]" in timeline
    assert "[ведущему]" not in timeline and "[→" not in timeline  # what was public only
    review = next(m for m in gm_ch.history() if any(a.filename == "timeline-full.txt" for a in m.attachments))
    full = (await next(a for a in review.attachments if a.filename == "timeline-full.txt").read()).decode("utf-8")
    assert "== день 1.1 ==" in full and "[ведущему]" in full
    # every anonymous post was published in the public channel, the GM log has the resolves
    assert sum("Анонимное сообщение" in m.content for m in public) >= 1
    gm_log = "\n".join(m.content for m in gm_ch.history())
    assert "🛠" in gm_log and "досрочно" in gm_log and "последний день партии: 2" in gm_log
    # the GM archives: nobody but the GM writes; the full review unpublished, the GM channel
    # (the anonymous authors) stays the GMs' and the public and vote channels are everyone's
    # (the cleanup question: the GM channel also holds the queued anonymous posts' refuse buttons)
    ask = next(m for m in gm_ch.history() if m.components and "Что сделать с каналами" in m.content)
    await t.gm.click(ask, label="В архив")
    for key in t.info.meta["channels"]:
        ch = t.channel(key)
        for m in t.players + t.spectators:
            p = perms(env, ch, m)
            assert not (p.view_channel and p.send_messages), (key, m.name)
            if key in ("public", "votes"):
                assert p.view_channel, (key, m.name)
            if key == "gm":
                assert not p.view_channel, m.name
        assert perms(env, ch, t.gm).send_messages
