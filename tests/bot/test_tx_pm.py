"""A PM through the real bot in two transactions: the command's own, which stages the sender's
copy and the PM for its recipient and claims both, and the flush's one mark of both sends."""

from __future__ import annotations

from tests.bot.helpers import gather, start


async def test_a_pm_commits_two_transactions_and_posts_each_message_once(env):
    t = await start(await gather(env, 13))
    await env.settle()
    sender, to = t.game.living()[0].pid, t.game.living()[1].pid
    m, ch = t.member(sender), t.hidden(sender)
    before, n0 = t.store.transactions.copy(), len(env.http_requests)
    r = await m.slash(ch, "pm send", to=str(to), message="привет")
    await env.settle()
    assert r.response is not None and r.response.ephemeral, r
    assert t.store.transactions - before == {"apply": 1, "part.sent": 1, "total": 2}
    posts = [c for c in env.http_requests[n0:] if c.method == "POST" and c.path.endswith("/messages")]
    assert sorted(c.path for c in posts) == sorted(f"/channels/{t.hidden(p).id}/messages" for p in (sender, to))
    assert await t.store.outbox.pending_parts(t.game_id) == [] and await t.store.outbox.pending_deliveries(t.game_id) == []
    got = [msg.content for msg in t.hidden(to).history() if "привет" in msg.content]
    assert len(got) == 1, got
