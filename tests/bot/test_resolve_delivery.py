"""A resolve and its delivery through the real bot: the mark, the resolve, its delivery staged
and claimed from what it committed, one transaction marking every part sent; a crash after the
sends and before that last one sends nothing twice."""

from __future__ import annotations

from .helpers import force_resolve, gather, start
from .test_gm_tools import TAVERN
from .test_restart import restart


def posted(env, since: int) -> list[str]:
    return [c.path for c in env.http_requests[since:] if c.method == "POST" and c.path.endswith("/messages")]


async def test_a_resolve_and_its_delivery_take_four_transactions(env):
    t = await start(await gather(env, 6, spectators=0))
    store = t.store
    tick = store.games.info(t.game_id).tick
    before, n0 = store.transactions.copy(), len(env.http_requests)
    done = await env.bot.scheduler.resolve(t.game_id, expect_tick=tick)  # what a deadline does
    await env.settle()
    assert done and store.games.info(t.game_id).tick == tick + 1
    # the mark, the resolve, its delivery staged from what it committed, the marks of the sends
    assert store.transactions - before == {"resolve.mark": 1, "resolve": 1, "stage": 1, "part.sent": 1, "total": 4}
    # every channel with news got its message, and every living seat the new phase's panel
    paths = posted(env, n0)
    assert len(paths) >= 1 + len(store.games.game(t.game_id).living())
    assert not await store.outbox.pending_parts(t.game_id) and not await store.outbox.pending_deliveries(t.game_id)
    label = "day 1.2"  # the phase the resolve began, as the panels name it (the players read English)
    assert all(any(m.content.startswith("🎛") and label in m.content for m in t.hidden(p.pid).history())
               for p in store.games.game(t.game_id).living())


async def test_a_crash_between_the_sends_and_their_mark_sends_nothing_twice(env, settings):
    t = await start(await gather(env, 6, spectators=0))
    store = t.store

    async def dies(sent):  # the process dies after its sends, before the one transaction marking them
        raise RuntimeError("killed before the marks")

    store.outbox.mark_parts_sent = dies
    n0 = len(env.http_requests)
    await force_resolve(t)  # the button's callback dies in the flush, after its sends (logged by discord.py)
    sent = posted(env, n0)
    assert sent  # the resolve's messages went out
    left = await store.outbox.pending_parts(t.game_id)
    assert len(left) == len(sent) and all(p.attempts == 1 for p in left)  # claimed at staging, none marked
    del store.outbox.mark_parts_sent
    keys = ["public", "gm"] + [f"player:{p}" for p in range(6)]
    seen = {k: [m.content for m in t.channel(k).history()] for k in keys}
    await restart(env, settings)
    await env.settle()
    # the next start looks for each claimed part in its channel and finds it: nothing is sent again
    assert not await env.bot.store.outbox.pending_parts(t.game_id)
    assert {k: [m.content for m in t.channel(k).history()] for k in keys} == seen
    marked = await env.bot.store.db.read("SELECT COUNT(*) FROM outbox_parts WHERE game_id = ? AND message_id IS NOT NULL "
                                       "AND attempts = 1 AND sent_at IS NOT NULL", (t.game_id,))
    assert marked[0][0] >= len(sent)  # each marked with the message found in its channel


async def test_a_riot_delivers_both_resolves_of_the_turn_together(env):
    """A riot cuts the day short: day 1.1 and day 1.2 resolve at once; the first resolve's
    messages go with the second's (one message a channel), only the last phase line stands,
    and the skipped phase gets no panels."""
    t = await start(await gather(env, 13, spectators=0))
    await t.gm.slash(t.channel("gm"), "gm setstat", player=str(TAVERN), stat="vo", value=9)
    store = t.store
    before = store.transactions.copy()
    shown = len(t.channel("public").history())
    r = await t.member(TAVERN).slash(t.hidden(TAVERN), "action submit", ability="role:tavern_keeper:riot")
    assert r.response.content.startswith("✅"), r.response.content
    assert t.game.info.kind == "night", t.game.info
    spent = store.transactions - before
    # the command (1) and its own message (stage, claim, mark: 3); then the two resolves, each
    # marked (2) and committed (2), the first's messages staged with the second's (1: the first
    # stages nothing, its turn goes on), one mark (1)
    assert spent == {"apply": 1, "stage": 2, "part.claim": 1, "part.sent": 2, "resolve.mark": 2, "resolve": 2,
                     "total": 10}, spent
    public = [m.content for m in t.channel("public").history()][shown:]
    assert sum("Сейчас:" in m for m in public) == 1, public  # the night's, not day 1.2's
    assert not any("🎛 **Action panel** — day 1.2" in m.content for p in range(13) for m in t.hidden(p).history())
