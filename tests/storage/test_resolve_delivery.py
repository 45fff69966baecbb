"""A resolve and its delivery: the resolve commits the game and its events and returns what it
committed; the caller renders its delivery from that and stages it, claimed, in a transaction
of its own (``stage_posts(…, claim=True)``, under the resolve's deterministic key); the parts
are sent and marked together (``mark_parts_sent``). A crash anywhere loses nothing and claims
nothing twice (docs/storage.md, "A resolve")."""

from __future__ import annotations

from datetime import timedelta

import pytest

from storage import Command, Post, Store
from storage.store import CLAIM_MARGIN, CLAIM_SECONDS

from . import game_script
from .conftest import new_game


class Killed(Exception):
    pass


def by_channel(game, info, deliveries, own):
    """A stand-in for the bot's renderer: one post a destination, a line per delivery."""
    batches: dict[str, list] = {}
    for d in deliveries:
        key = d.dest if d.dest_id is None else f"{d.dest}:{d.dest_id}"
        batches.setdefault(key, []).append(d)
    posts = []
    for key, batch in batches.items():
        lines = [p.content for p in own if p.channel_key == key] + [f"{d.event.key} {d.event_idx}" for d in batch]
        posts.append(Post(key, 100 + len(posts), ({"content": "\n".join(lines)},), keys=tuple(d.key for d in batch),
                          batch=f"{batch[0].key}>{key}", absorb=tuple(p for p in own if p.channel_key == key)))
    posts.append(Post("public", 99, ({"content": f"phase {game.state.tick}, version {info.version}"},),
                      batch=f"{info.game_id}/phase:{game.state.tick}>public"))
    return posts


async def resolve_and_stage(store: Store, gid: str, **kw):
    """What the bot's scheduler does: resolve, then stage the delivery rendered from what the
    resolve committed (the rows not staged yet, the resolve's own lines), claimed."""
    resolved = await store.turns.resolve(gid, **kw)
    if resolved is None:
        return None, []
    own = [p for p in await store.outbox.pending_parts(gid) if p.batch_id.startswith(f"{gid}/resolve:{resolved.tick}:")]
    posts = by_channel(store.games.game(gid), store.games.info(gid), await store.outbox.pending_deliveries(gid), own)
    return resolved, await store.outbox.stage_posts(gid, f"resolve:{resolved.tick}:d", posts, claim=True)


async def test_the_resolve_returns_what_it_committed(store: Store):
    gid = await new_game(store)
    await store.games.apply(gid, Command.submit(0, "day", [1]))
    base = store.transactions.copy()
    resolved = await store.turns.resolve(gid)
    assert store.transactions - base == {"resolve.mark": 1, "resolve": 1, "total": 2}
    assert resolved.tick == 0 and resolved.seq == store.games.info(gid).version
    assert resolved.events == (await store.games.events(gid))[-len(resolved.events):]
    assert {d.key for d in resolved.deliveries} <= {d.key for d in await store.outbox.pending_deliveries(gid)}


async def test_the_delivery_is_staged_and_claimed_after_the_resolve(store: Store):
    gid = await new_game(store)
    await store.games.apply(gid, Command.submit(0, "day", [1]))
    base = store.transactions.copy()
    resolved, parts = await resolve_and_stage(store, gid)
    assert store.transactions - base == {"resolve.mark": 1, "resolve": 1, "stage": 1, "total": 3}
    assert resolved.deliveries and parts
    # every row of the resolve is in a staged batch: none is left for a flush to stage
    assert not await store.outbox.pending_deliveries(gid)
    pending = await store.outbox.pending_parts(gid)
    assert [p.key for p in pending] == [p.key for p in parts]
    assert all(p.held and p.attempts == 1 for p in pending)  # claimed by this store, not tried
    assert pending[-1].content == f"phase {store.games.game(gid).state.tick}, version {store.games.info(gid).version}"
    # the same batch staged again (the bot's keyed post after the resolve): nothing is written
    base = store.transactions.copy()
    again = await store.outbox.stage(gid, pending[-1].batch_id, "public", 99, [{"content": "other", "nonce": "x"}])
    assert [p.content for p in again] == [pending[-1].content] and again[0].held
    assert store.transactions == base
    # all sent: one transaction marks them and delivers every row
    assert await store.outbox.mark_parts_sent([(p, 5000 + i) for i, p in enumerate(pending)]) == len(pending)
    assert store.transactions - base == {"part.sent": 1, "total": 1}
    assert not await store.outbox.pending_parts(gid)
    rows = await store.db.read("SELECT COUNT(*) FROM outbox WHERE game_id = ? AND delivered_at IS NULL", (gid,))
    assert rows[0][0] == 0
    assert await store.outbox.mark_parts_sent([(pending[0], 1)]) == 0  # already sent: not again


async def test_a_claim_at_staging_is_looked_for_after_a_restart(db):
    s = Store(db)
    await s.open(now=game_script.BASE)
    gid = await new_game(s)
    await resolve_and_stage(s, gid)
    staged = await s.outbox.pending_parts(gid)
    assert staged and all(p.held for p in staged)
    await s.close()  # the process died after the commit, before (or while) sending
    s = Store(db)
    await s.open(now=game_script.BASE)
    try:
        left = await s.outbox.pending_parts(gid)
        # claimed by the dead process: the next one looks for each before sending it
        assert [p.key for p in left] == [p.key for p in staged]
        assert all(not p.held and p.attempts == 1 for p in left)
        if s.backend.exclusive:  # nobody else can hold this database: the dead one's claims are released
            assert await s.outbox.claim_part(left[0])
        else:  # shared (PostgreSQL without shards): another live process may hold them until they expire
            assert not await s.outbox.claim_part(left[0])
    finally:
        await s.close()


async def test_a_resolve_killed_before_its_commit_stages_nothing(db):
    s = Store(db)
    await s.open(now=game_script.BASE)
    gid = await new_game(s)

    def fault(point: str) -> None:
        if point == "resolve.before_commit":
            raise Killed(point)

    s.fault = fault
    with pytest.raises(Killed):
        await resolve_and_stage(s, gid)
    assert not await s.outbox.pending_parts(gid) and not s.state.held
    await s.close()
    s = Store(db)
    report = await s.open(now=game_script.BASE)
    try:
        assert [d.reason for d in report.due] == ["interrupted"]
        _redo, parts = await resolve_and_stage(s, gid, expect_tick=0)
        assert parts and [p.key for p in await s.outbox.pending_parts(gid)] == [p.key for p in parts]
        assert not await s.outbox.pending_deliveries(gid)
    finally:
        await s.close()


async def test_a_crash_between_the_resolve_and_its_staging_leaves_the_rows_for_the_flush(db):
    s = Store(db)
    await s.open(now=game_script.BASE)
    gid = await new_game(s)

    def fault(point: str) -> None:
        if point == "stage.before_commit":
            raise Killed(point)

    s.fault = fault
    with pytest.raises(Killed):
        await resolve_and_stage(s, gid)
    resolved_rows = {d.key for d in await s.outbox.pending_deliveries(gid)}
    assert resolved_rows and not await s.outbox.pending_parts(gid)
    await s.close()
    s = Store(db)
    report = await s.open(now=game_script.BASE)
    try:
        # the resolve is committed (no redo); its rows wait, unstaged, for the next flush
        assert report.due == [] and s.games.game(gid).state.tick == 1
        assert {d.key for d in report.pending} == resolved_rows
    finally:
        await s.close()


async def test_a_forced_resolves_own_line_joins_its_channel(store: Store):
    gid = await new_game(store)
    await store.games.apply(gid, Command.submit(0, "day", [1]))  # the GM's trace of it goes to the GM channel
    line = Post("gm", 7, ({"content": "GM: resolve now"},))
    _resolved, parts = await resolve_and_stage(store, gid, user_id=game_script.GM, posts=[line])
    gm = [p for p in parts if p.channel_key == "gm"]
    assert gm and gm[0].content.startswith("GM: resolve now\n")
    # the line staged with the mark was carried by the GM batch: it is not sent on its own
    assert all("/resolve:" not in p.batch_id for p in await store.outbox.pending_parts(gid))


async def test_a_claim_at_staging_is_used_only_while_it_lasts(db):
    now = [game_script.BASE]
    s = Store(db, clock=lambda: now[0])
    await s.open(now=game_script.BASE)
    try:
        gid = await new_game(s)
        await resolve_and_stage(s, gid)
        assert all(p.held for p in await s.outbox.pending_parts(gid))
        # not sent for a while (a channel blocked by a failure): close to its expiry the claim
        # is taken again before the send, as any other part's (never sent past its claim)
        now[0] = game_script.BASE + timedelta(seconds=CLAIM_SECONDS - CLAIM_MARGIN)
        left = await s.outbox.pending_parts(gid)
        assert left and not any(p.held for p in left) and all(p.attempts == 1 for p in left)
        assert await s.outbox.claim_part(left[0])  # still this store's own claim: renewed
    finally:
        await s.close()


async def test_a_claim_at_staging_that_expired_untried_needs_no_search(db):
    """Past its claim a part staged and never tried is claimed again; where no other process
    sends this database's parts (SQLite) nothing of it can be in its channel (``untried``)."""
    now = [game_script.BASE]
    s = Store(db, clock=lambda: now[0])
    await s.open(now=game_script.BASE)
    try:
        gid = await new_game(s)
        await resolve_and_stage(s, gid)
        now[0] = game_script.BASE + timedelta(seconds=CLAIM_SECONDS + 60)
        left = await s.outbox.pending_parts(gid)
        alone = s.backend.exclusive or s.shards is not None
        assert left and all(p.untried == alone and not p.held for p in left)
        assert await s.outbox.claim_part(left[0])
        again = await s.outbox.pending_parts(gid)
        assert not again[0].untried  # tried from its claim on: a retry looks for it first
        assert all(p.untried == alone for p in again[1:])
    finally:
        await s.close()


async def test_parts_untried_are_held_again_in_one_transaction(db):
    now = [game_script.BASE]
    s = Store(db, clock=lambda: now[0])
    await s.open(now=game_script.BASE)
    try:
        gid = await new_game(s)
        await resolve_and_stage(s, gid)
        now[0] = game_script.BASE + timedelta(seconds=CLAIM_SECONDS + 60)
        left = await s.outbox.pending_parts(gid)
        if not (s.backend.exclusive or s.shards is not None):
            assert await s.outbox.hold_again(left) == []  # another process may send them: each is claimed on its own
            return
        before = s.transactions["part.claim"]
        again = await s.outbox.hold_again(left)
        assert s.transactions["part.claim"] == before + 1
        assert [p.key for p in again] == [p.key for p in left] and all(p.held and not p.untried for p in again)
        assert all(p.held for p in await s.outbox.pending_parts(gid))
    finally:
        await s.close()


async def test_a_flush_reads_its_parts_and_rows_together(store: Store, monkeypatch):
    """``Outbox.pending``: what ``pending_parts`` and ``pending_deliveries`` read, of one game or
    of all, the parts marked held as each would mark them; on SQLite in one trip to its thread."""
    g1, g2 = await new_game(store), await new_game(store, "g2")
    await store.turns.resolve(g1)  # rows left for a flush
    await store.outbox.stage_posts(g2, "note", [Post("gm", 5, ({"content": "a note"},))], claim=True)  # a held part
    for gid in (g1, g2, None):
        parts, rows = await store.outbox.pending(gid)
        assert parts == await store.outbox.pending_parts(gid)
        assert [d.key for d in rows] == [d.key for d in await store.outbox.pending_deliveries(gid)]
    parts, rows = await store.outbox.pending(None)
    assert {p.game_id for p in parts} == {g2} and all(p.held for p in parts)
    assert rows and {d.game_id for d in rows} == {g1}
    if store.db.location.endswith(".sqlite3"):
        import aiosqlite

        trips = []
        real = aiosqlite.Connection._execute

        async def counted(self, fn, *args, **kwargs):
            trips.append(fn.__name__)
            return await real(self, fn, *args, **kwargs)

        monkeypatch.setattr(aiosqlite.Connection, "_execute", counted)
        await store.outbox.pending(g1)
        assert trips == ["_fetch_each"]
