"""Nothing the bot sends pings anyone it does not mean to: members whose display names read
``@everyone``, ``@here`` or a role's mention join and leave a lobby and play; every message and
reply the bot sent (the request log) carries allowed mentions that ping nobody, but the seat's
own player on their news and the living players' role on the phase's announcement."""

from __future__ import annotations

from .helpers import NAMES, Table, force_resolve, start

ROLE = "<@&123456789012345678>"
TRICKY = ["@everyone", "@here", ROLE, "<@1>"]


def sent(env, since: int = 0) -> list[dict]:
    """The message bodies of every post, reply, follow-up and edit since ``since``."""
    out = []
    for r in env.http_requests[since:]:
        body = r.json if isinstance(r.json, dict) else None
        if body is None or r.method not in ("POST", "PATCH"):
            continue
        if r.path.startswith("/interactions/"):
            body = body.get("data") or {}
        if "content" in body:
            out.append(body)
    return out


def check(bodies: list[dict], living_role: str | None = None) -> None:
    for b in bodies:
        am = b.get("allowed_mentions")
        assert am is not None, ("no allowed_mentions: the bot's default pings", b["content"][:80])
        assert not am.get("parse"), (am, b["content"][:80])
        assert not am.get("replied_user"), am
        assert {str(x) for x in am.get("roles") or []} <= ({living_role} if living_role else set()), (am, b["content"][:80])
        content = b.get("content") or ""
        for uid in am.get("users") or []:  # a user's mention pings only where the bot opens the text with it
            rest = content[len(f"<@{uid}>"):] if content.startswith(f"<@{uid}>") else content
            assert f"<@{uid}>" not in rest and f"<@!{uid}>" not in rest, ("a ping inside the text", am, content[:80])


async def test_names_that_read_as_mentions_ping_nobody(env):
    guild = env.create_guild("Мафия")
    lobby = guild.create_text_channel("набор")
    gm = guild.add_member(env.create_user("ведущий"))
    players = [guild.add_member(env.create_user(f"p{i}", global_name=(TRICKY + NAMES)[i])) for i in range(6)]
    r = await gm.slash(lobby, "lobby create")
    for p in players:
        r = await p.slash(lobby, "lobby join")
        assert r.response is not None
    r = await players[0].slash(lobby, "lobby leave")
    r = await players[0].slash(lobby, "lobby join")
    r = await gm.slash(lobby, "lobby players")
    check(sent(env))
    assert any("everyone" in b["content"] for b in sent(env)), "the names are shown (as text)"
    r = await gm.slash(lobby, "lobby options", living_role=True)
    t = await start(Table(env, guild, lobby, gm, players))
    await t.member(1).slash(t.hidden(1), "pm send", to="2", message="@everyone @here " + ROLE + " слушайте")
    await force_resolve(t)  # the next phase's announcement rides on the public report
    rid = str(t.info.meta["living_role"])
    check(sent(env), rid)
    # the phases' announcements are the posts that ping the living role, alone and riding
    pinging = [b["content"] for b in sent(env) if rid in [str(x) for x in (b.get("allowed_mentions") or {}).get("roles", [])]]
    assert len(pinging) == 2 and all(f"<@&{rid}>" in c for c in pinging), pinging
