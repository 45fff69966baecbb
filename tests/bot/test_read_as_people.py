"""Whole games of every ruleset through the simulated Discord, read as the people at the table
read them: random players act, vote, write and join factions through
slash commands and autocomplete; at the end every message of every channel of the game (the
public and vote channels, the GM's, each hidden channel, the faction and team channels, the
sign-up channel), every reply a person got and every text file the bot posted is checked by
one checker (tests/text/readable.py): no raw id, no English in a Russian game, no «+0», no
wrong plural, no name where Russian needs another case, no verb in the wrong number."""

from __future__ import annotations

import random
import re
from typing import Any

import pytest

from altmafia.text.i18n import Renderer
from tests.text.readable import problems

from .conftest import LOCALES
from .helpers import NAMES, Table, act, force_resolve, start

FRIDAY_NAMES = [*NAMES, "Сева", "Таня"]
# (ruleset, table, days, language)
GAMES = [
    ("godfather", 13, 2, "ru"),
    ("godfather", 13, 2, "en"),
    ("council", 10, 2, "ru"),
    ("eternal_friday", 18, 2, "ru"),
    ("stats_mafia", 9, 2, "ru"),
    ("classic", 8, 2, "ru"),
]


async def sit_down(env: Any, ruleset: str, n: int, days: int, lang: str) -> Table:
    guild = env.create_guild("Мафия")
    lobby = guild.create_text_channel("набор")
    gm = guild.add_member(env.create_user("gm", global_name="Гоша"))
    players = [guild.add_member(env.create_user(f"p{i}", global_name=FRIDAY_NAMES[i])) for i in range(n)]
    specs = [guild.add_member(env.create_user("s0", global_name="Зритель"))]
    if lang == "ru":
        for u in [gm, *players, *specs]:
            LOCALES[u.id] = "ru"
    r = await gm.slash(lobby, "lobby create", ruleset=ruleset, days=days, language=lang)
    assert r.response is not None and not r.response.ephemeral, r
    for p in players:
        await p.slash(lobby, "lobby join")
    for s in specs:
        await s.slash(lobby, "lobby spectate")
    return await start(Table(env, guild, lobby, gm, players, specs))


async def play(t: Table, rnd: random.Random, replies: list[str], lang: str) -> int:
    """Random players until the game is over; every reply anyone got goes to ``replies``."""
    gm_ch = t.channel("gm")

    async def say(member: Any, ch: Any, command: str, **kw: Any) -> None:
        r = await member.slash(ch, command, **kw)
        if r.response is not None:
            replies.append(r.response.content)

    resolves = 0
    while t.info.status == "running":
        g = t.game
        for p in g.living():
            if rnd.random() < 0.8:
                r = await act(t, p.pid, rnd)
                if r is not None and r.response is not None:
                    replies.append(r.response.content)
        for p in rnd.sample(g.living(), min(2, len(g.living()))):
            m, ch = t.member(p.pid), t.hidden(p.pid)
            to = await m.autocomplete(ch, "pm send", "to", "")
            if to:
                await say(m, ch, "pm send", to=rnd.choice(to)["value"], message="привет")
            await say(m, ch, "anon post", message="слух")
        if g.open_votes():
            for p in g.living():
                m, ch = t.member(p.pid), t.hidden(p.pid)
                cands = await m.autocomplete(ch, "vote cast", "candidate", "")
                if cands and t.game.open_votes():
                    await say(m, ch, "vote cast", candidate=rnd.choice(cands)["value"])
        if g.info.kind == "night":
            for p in rnd.sample(g.living(), min(3, len(g.living()))):
                m, ch = t.member(p.pid), t.hidden(p.pid)
                others = await m.autocomplete(ch, "faction invite", "player", "")
                if others:
                    await say(m, ch, "faction invite", player=rnd.choice(others)["value"])
            for p in g.living():
                m, ch = t.member(p.pid), t.hidden(p.pid)
                inviters = await m.autocomplete(ch, "faction accept", "inviter", "")
                if inviters:
                    await say(m, ch, "faction accept", inviter=inviters[0]["value"])
        r = await t.gm.slash(gm_ch, "gm status")
        replies.append(r.response.content)
        if t.info.status != "running":
            break
        r = await force_resolve(t, label="Подсчитать" if lang == "ru" else "Resolve")
        resolves += 1
        assert resolves <= 12, resolves
    return resolves


async def everything_read(t: Table, files: dict[str, str]) -> dict[str, list[str]]:
    """Every message of every channel of the game and of the sign-up channel, and every text
    file (also kept by name in ``files``, with the HTML report)."""
    out: dict[str, list[str]] = {}
    keys = [k for k in t.info.meta["channels"] if k != "category"]
    for key, ch in [("lobby", t.lobby), *((k, t.channel(k)) for k in keys)]:
        texts = []
        for m in ch.history():
            texts.append(m.content)
            texts += [e.description or "" for e in m.embeds] + [e.title or "" for e in m.embeds]
            texts += [f.value for e in m.embeds for f in e.fields] + [f.name for e in m.embeds for f in e.fields]
            for a in m.attachments:
                if a.filename.endswith((".txt", ".html")):
                    files[a.filename] = (await a.read()).decode("utf-8")
                if a.filename.endswith(".txt"):
                    texts.append(files[a.filename])
        out[key] = texts
    return out


def told_privately(t: Table, read: dict[str, list[str]], events: list) -> None:
    """Every public change of a player's own status reached that player in their hidden channel,
    in words, unless the book keeps news from them then (the dead, one in a coma: seed 002)."""
    from altmafia.bot.delivery import reader_lang

    g = t.game
    quiet = {s.id for s in g.rules.statuses if s.dead or s.messages in ("drop", "hold")}
    out: dict[int, set[str]] = {}  # the quiet statuses each player holds, as the log goes
    quiet_at: set[tuple[int, int]] = set()  # (pid, tick): told nothing then
    for ev in events:
        if ev.key in ("report.status_on", "report.status_off") and ev.args.get("status") in quiet:
            held = out.setdefault(ev.args["player"], set())
            (held.add if ev.key == "report.status_on" else held.discard)(ev.args["status"])
            quiet_at.add((ev.args["player"], ev.tick))
        for pid, held in out.items():
            if held:
                quiet_at.add((pid, ev.tick))
    checked = 0
    for ev in events:
        if ev.key not in ("report.status_on", "report.status_off") or ev.audience != "public":
            continue
        pid, kind = ev.args["player"], ev.key.split(".")[1]
        if (pid, ev.tick) in quiet_at:
            continue
        notice = next((e for e in events if e.key == f"notice.{kind}" and e.ids == [pid] and e.tick == ev.tick
                       and e.args.get("status") == ev.args["status"]), None)
        assert notice is not None, (g.player(pid).name, ev)
        line = Renderer(g, reader_lang(t.info.meta, f"player:{pid}")).event(notice)
        assert any(line in c for c in read[f"player:{pid}"]), (g.player(pid).name, line)
        checked += 1
    print(f"{checked} status changes told privately")


@pytest.mark.parametrize(("ruleset", "n", "days", "lang"), GAMES, ids=[f"{g[0]}-{g[3]}" for g in GAMES])
async def test_a_whole_game_reads_right(env, ruleset, n, days, lang):
    t = await sit_down(env, ruleset, n, days, lang)
    replies: list[str] = []
    resolves = await play(t, random.Random(5), replies, lang)
    assert t.info.status == "over", resolves
    g = t.game
    names = [p.name for p in g.state.players] + ["Гоша", "Зритель"]
    if lang == "en":
        names += ["привет", "слух"]  # what the players wrote, in their own words
    files: dict[str, str] = {}
    read = await everything_read(t, files)
    # the timelines and the report are history: no live «Сейчас: …» notice of each period
    assert {"timeline.txt", "timeline-full.txt"} <= set(files) and any(f.endswith(".html") for f in files), set(files)
    rd = Renderer(g, lang)
    log = await t.store.games.events(t.game_id)  # the whole log: the tables keep it, not the game in memory
    live = {rd.event(ev) for ev in log if ev.key == "notice.phase"}
    assert live  # every resolve announced the period that came (posted live, with its deadline)
    for name, body in files.items():
        lines = {re.sub(r"^\[[^]]*\] ", "", x) for x in body.split("\n")} | set(re.findall(r">([^<>]+)<", body))
        assert not live & lines, (name, live & lines)
    read["replies"] = replies
    assert sum(len(v) for v in read.values()) > 50
    told_privately(t, read, log)
    bad = []
    for where, texts in read.items():
        for text in texts:
            for problem in problems(text, lang, names, g.rules):
                bad.append(f"[{where}] {problem}\n    {text[:300]!r}")
    seen: set[str] = set()
    unique = [b for b in bad if not (b.split("\n")[0] in seen or seen.add(b.split("\n")[0]))]
    assert not unique, f"{len(unique)} problems:\n" + "\n".join(unique[:80])
