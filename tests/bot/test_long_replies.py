"""Replies longer than one Discord message, at the largest tables: 64 seats with 32-character
names. Each reply comes as its first response and follow-ups, as ephemeral as the first, every
message within Discord's 2000 characters, cut between lines (a long line at word boundaries),
nothing left out; and a long line of a post is split, never cut."""

from __future__ import annotations

from .conftest import LOCALES
from .helpers import Table, force_resolve, start

SEATS = 64


def long_name(i: int) -> str:
    """32 characters, unique, ending in the seat's number (so a cut name would show)."""
    return f"Очень-длинное-имя-игрока-номер{i:02d}"


async def gather_long(env, n: int = SEATS) -> Table:
    guild = env.create_guild("Мафия")
    lobby = guild.create_text_channel("набор")
    gm = guild.add_member(env.create_user("ведущий"))
    players = [guild.add_member(env.create_user(f"p{i}", global_name=long_name(i))) for i in range(n)]
    r = await gm.slash(lobby, "lobby create", ruleset="classic")
    assert r.response is not None and not r.ephemeral, r
    for p in players:
        r = await p.slash(lobby, "lobby join")
        assert r.response is not None, r
    return Table(env, guild, lobby, gm, players)


def replies(env, since: int) -> list[dict]:
    """The bodies of every interaction response and follow-up the bot sent since ``since``."""
    out = []
    for r in env.http_requests[since:]:
        body = r.json if isinstance(r.json, dict) else None
        if body is None:
            continue
        if r.method == "POST" and r.path.startswith("/interactions/"):
            out.append(body.get("data") or {})
        elif r.path.startswith("/webhooks/") and r.method in ("POST", "PATCH"):
            out.append(body)
    return [b for b in out if "content" in b]


def whole(env, since: int, ephemeral: bool = True) -> str:
    """Every message of the replies since ``since``: each within 2000 characters and as
    ephemeral as asked; their texts joined."""
    got = replies(env, since)
    assert len(got) > 1, "a long reply comes in several messages"
    for b in got:
        assert len(b["content"]) <= 2000, len(b["content"])
        assert bool((b.get("flags") or 0) & 64) == ephemeral, b.get("flags")
    return "\n".join(b["content"] for b in got)


async def test_long_replies_at_64_seats_come_in_several_messages(env):
    t = await gather_long(env)
    LOCALES[t.gm.id] = "ru"
    mark = len(env.http_requests)
    await t.gm.slash(t.lobby, "lobby players")
    listing = whole(env, mark)
    assert all(long_name(i) in listing for i in range(SEATS))
    await start(t)
    gm = t.channel("gm")
    mark = len(env.http_requests)
    await t.gm.slash(gm, "gm status")
    status = whole(env, mark)
    assert all(long_name(i) in status for i in range(SEATS))
    # the start announcement names every player, none cut
    announced = "\n".join(m.content for m in t.channel("public").history())
    assert all(long_name(i) in announced for i in range(SEATS))
    for _ in range(3):  # classic's day vote: every living seat a candidate
        if t.game.open_votes():
            break
        await force_resolve(t, label="Подсчитать")
    assert t.game.open_votes()
    voter = next(p.pid for p in t.game.state.players if t.game.alive(p))
    mark = len(env.http_requests)
    await t.member(voter).slash(t.hidden(voter), "vote show")
    shown = whole(env, mark)
    alive = [p.pid for p in t.game.state.players if t.game.alive(p)]
    assert len(alive) > 40 and all(long_name(i) in shown for i in alive)


async def test_a_long_settle_note_leaves_gm_tasks_working(env):
    from .helpers import gather

    t = await start(await gather(env, 13, spectators=0))
    LOCALES[t.gm.id] = "ru"
    gm = t.channel("gm")
    r = await t.member(7).slash(t.hidden(7), "action submit", ability="role:privateer_seller:quarrel", target="0")
    assert r.response.content.startswith("✅"), r.response.content
    await force_resolve(t, label="Подсчитать")
    note = " ".join(f"слово{i:04d}" for i in range(300))  # 3 000 characters
    assert len(note) >= 2999
    await t.gm.slash(gm, "gm settle", task=0, note=note)
    mark = len(env.http_requests)
    await t.gm.slash(gm, "gm tasks")
    tasks = whole(env, mark)
    assert all(f"слово{i:04d}" in tasks for i in range(300)), "the note whole, split at words"
    # the GM's log line carries the note whole too, in parts of at most 2000 characters
    log = [m.content for m in gm.history() if "слово" in m.content]
    assert all(len(c) <= 2000 for c in log)
    assert all(f"слово{i:04d}" in "\n".join(log) for i in range(300))
