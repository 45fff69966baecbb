"""Delivery through the simulated Discord, checked on the bot's own requests (the request log):
after ``/gm undo`` the redone resolve's posts carry nonces never sent before and all arrive (Discord
answers a nonce seen in the last minutes with the old message and posts nothing)."""

from __future__ import annotations

from altmafia.text.i18n import text

from .helpers import force_resolve, gather, start
from .test_undo import submit_one


def message_posts(env, since: int = 0) -> list[tuple[str, dict]]:
    """Every message the bot posted in a channel (not an interaction's reply): (path, body)."""
    out = []
    for r in env.http_requests[since:]:
        if r.method == "POST" and r.path.startswith("/channels/") and r.path.endswith("/messages"):
            body = r.json if isinstance(r.json, dict) else (r.json or {}).get("payload_json", {})
            out.append((r.path, body or {}))
    return out


async def test_a_redone_resolve_after_undo_sends_fresh_nonces_and_every_post_arrives(env):
    t = await start(await gather(env, 6, spectators=1))
    await submit_one(t, 0)
    await submit_one(t, 2)
    first = len(env.http_requests)
    await force_resolve(t)
    undone = message_posts(env, first)
    r = await t.gm.slash(t.channel("gm"), "gm undo")
    await t.gm.click(r.response, label="Take it back")
    r = await t.member(2).slash(t.hidden(2), "action cancel")
    assert r.response is not None, r
    mark = len(env.http_requests)
    seen = {b.get("nonce") for _, b in message_posts(env)[: len(message_posts(env, 0)) - len(message_posts(env, mark))]}
    before = {cid: len(list(t.channel(k).history())) for k, cid in t.info.meta["channels"].items()
              if k != "category" and not k.startswith("category")}
    await force_resolve(t)
    redone = message_posts(env, mark)
    assert redone, "the redone resolve posted"
    for path, body in redone:
        assert body.get("nonce"), (path, body)
        assert body["nonce"] not in seen, ("a nonce sent before the undo", path, body.get("content", "")[:80])
        assert len(body.get("content") or "") <= 2000
    # the same channels hear of the redone resolve: the GM's line of the forced resolve, every
    # seat's new panel (on its news, or alone)
    assert {p for p, _ in redone} == {p for p, _ in undone}
    gm_path = f"/channels/{t.info.meta['channels']['gm']}/messages"
    forced = next(b["content"] for p, b in undone if p == gm_path).split("\n")[0]
    assert forced.startswith("🛠") and any(b["content"].startswith(forced) for p, b in redone if p == gm_path)
    for pid in range(6):
        path = f"/channels/{t.info.meta['channels'][f'player:{pid}']}/messages"
        assert any("🎛" in b["content"] for p, b in redone if p == path), pid
    # every post arrived: each channel posted to has as many new messages as posts sent there
    wanted: dict[str, int] = {}
    for path, _ in redone:
        wanted[path.split("/")[2]] = wanted.get(path.split("/")[2], 0) + 1
    for k, cid in t.info.meta["channels"].items():
        if str(cid) in wanted:
            assert len(list(t.channel(k).history())) - before[cid] == wanted[str(cid)], k


async def say(t, message: str) -> None:
    r = await t.gm.slash(t.channel("gm"), "gm say", where="public", message=message)
    assert r.response is not None, r


async def test_a_repeated_announcement_with_failed_sends_is_delivered_each_time(env):
    """The same GM announcement three times (and its same GM log line): the 2nd and the 3rd
    sends fail; the retries deliver both, and each part keeps its own message, never the first
    announcement's (Discord's history carries no nonce: equal text is no evidence)."""
    t = await start(await gather(env, 5, spectators=0))
    public = t.channel("public")
    path = f"/channels/{public.id}/messages"
    before = len(list(public.history()))
    await say(t, "Ночь близко: сдайте ходы")
    env.inject_error("POST", path, status=503, times=1)
    await env.advance_time(60)
    await say(t, "Ночь близко: сдайте ходы")  # its send fails
    await env.advance_time(60)
    await env.bot.scheduler.tick()  # the loop's flush retries it
    env.inject_error("POST", path, status=503, times=1)
    await say(t, "Ночь близко: сдайте ходы")  # no time passes: the claim and the 2nd message share a moment
    await env.bot.scheduler.tick()
    said = [m for m in public.history() if "Ночь близко: сдайте ходы" in m.content]
    assert len(said) == 3 and len(list(public.history())) == before + 3
    assert not await t.store.outbox.pending_parts(t.game_id)
    rows = await t.store.db.read("SELECT message_id FROM outbox_parts WHERE channel_key = 'public' AND content LIKE ?",
                               ("%Ночь близко: сдайте ходы%",))
    assert sorted(r[0] for r in rows) == sorted(m.id for m in said), "each part marked with its own message"
    gm_lines = [m for m in t.channel("gm").history() if "Ночь близко: сдайте ходы" in m.content]
    assert len(gm_lines) == 3


async def test_an_older_equal_text_no_part_holds_is_no_evidence(env):
    """A message of the bot with the very text of a pending part, older than the part's attempt
    and recorded for no part (a database restored from a backup, a message posted by hand):
    the part is still sent."""
    t = await start(await gather(env, 5, spectators=0))
    public = t.channel("public")
    old = await env.bot.get_channel(public.id).send(text(t.info.meta.get("lang", "ru"), "public.gm_says", text="Сбор в полночь"))
    await env.advance_time(60)
    env.inject_error("POST", f"/channels/{public.id}/messages", status=503, times=1)
    await say(t, "Сбор в полночь")
    await env.advance_time(60)
    (part,) = [p for p in await t.store.outbox.pending_parts(t.game_id) if p.channel_key == "public"]
    assert part.attempts == 1 and part.content == old.content
    await env.bot.scheduler.tick()
    (sent,) = await t.store.outbox.parts(part.batch_id)
    assert sent.message_id not in (None, old.id)
