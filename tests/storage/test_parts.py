"""Message parts (v5): a batch is rendered once into parts stored with its claim; each part is
marked on its own; the outbox rows are delivered with the last part; a forced resolve cut
short is redone as forced, by the same GM."""

from __future__ import annotations

import pytest

from storage import Command, Store

from . import game_script
from .conftest import new_game


class Killed(Exception):
    pass


async def test_parts_are_stored_once_and_marked_one_by_one(store: Store):
    gid = await new_game(store)
    await store.games.apply(gid, Command.gm("message", pid=0, text="Мастер на связи", user_id=game_script.GM))
    gm_rows = [d.key for d in await store.outbox.pending_deliveries(gid)]
    assert gm_rows
    parts = [{"content": f"part {i}", "nonce": f"n{i}"} for i in range(3)]
    staged = await store.outbox.stage(gid, "b1", "gm", 42, parts, gm_rows)
    assert [p.content for p in staged] == ["part 0", "part 1", "part 2"]
    # staged rows leave the plain pending list: their parts carry them
    assert not {d.key for d in await store.outbox.pending_deliveries(gid)} & set(gm_rows)
    # staged again (a race, a retry): the stored text comes back, nothing is rendered anew
    again = await store.outbox.stage(gid, "b1", "gm", 42, [{"content": "different", "nonce": "x"}], gm_rows)
    assert [p.content for p in again] == ["part 0", "part 1", "part 2"]
    assert await store.outbox.claim_part(staged[0])
    assert await store.outbox.mark_part_sent(staged[0], 1001)
    assert [p.part_idx for p in await store.outbox.pending_parts(gid)] == [1, 2]
    # part 1 fails (an HTTP 500): it stays pending, part 0 stays sent
    assert await store.outbox.claim_part(staged[1])
    assert await store.outbox.mark_part_failed(staged[1], "500")
    left = await store.outbox.pending_parts(gid)
    assert [(p.part_idx, p.attempts) for p in left] == [(1, 1), (2, 0)]
    assert not await store.outbox.mark_part_sent(staged[0], 1001)  # already sent: not again
    # the rows are delivered only with the last part
    rows = await store.db.read("SELECT delivered_at FROM outbox WHERE batch_id = ?", ("b1",))
    assert rows and all(r[0] is None for r in rows)
    await store.outbox.mark_part_sent(left[0], 1002)
    await store.outbox.mark_part_sent(left[1], 1003)
    rows = await store.db.read("SELECT delivered_at FROM outbox WHERE batch_id = ?", ("b1",))
    assert rows and all(r[0] is not None for r in rows)
    assert [p.message_id for p in await store.outbox.parts("b1")] == [1001, 1002, 1003]
    assert await store.outbox.pending_parts(gid) == []


async def test_staged_parts_survive_a_restart(db):
    async with Store(db) as s:
        await s.outbox.stage("-", "bot-1", "gm", 7, [{"content": "a", "nonce": "n0", "files": [{"name": "f.txt", "data": "eA=="}],
                                                "view": "cleanup:ru"}, {"content": "b", "nonce": "n1"}])
        first = (await s.outbox.pending_parts())[0]
        await s.outbox.claim_part(first)
    async with Store(db) as s:
        left = await s.outbox.pending_parts()
        assert [(p.content, p.attempts, p.files, p.view) for p in left] == [
            ("a", 1, [{"name": "f.txt", "data": "eA=="}], "cleanup:ru"), ("b", 0, None, None)]


async def test_a_forced_resolve_cut_short_is_redone_as_forced(db):
    s = Store(db)
    await s.open(now=game_script.BASE)
    gid = await new_game(s)

    def fault(point: str) -> None:
        if point == "resolve.before_commit":
            raise Killed(point)

    s.fault = fault
    with pytest.raises(Killed):
        await s.turns.resolve(gid, expect_tick=0, user_id=game_script.GM)
    await s.close()
    s = Store(db)
    report = await s.open(now=game_script.BASE)
    try:
        assert [(d.reason, d.user_id) for d in report.due] == [("interrupted", game_script.GM)]
        await s.turns.resolve(gid, expect_tick=0)  # the start's redo names no GM: the mark does
        journal = await s.games.journal(gid)
        assert journal[-1]["kind"] == "resolve" and journal[-1]["user_id"] == game_script.GM
        assert [(a["action"], a["user_id"]) for a in await s.games.gm_actions(gid)] == [("resolve", game_script.GM)]
        assert s.games.info(gid).resolving_tick is None and s.games.info(gid).resolving_user is None
    finally:
        await s.close()


async def test_the_parts_never_tried_are_claimed_in_one_transaction(store: Store):
    """``claim_parts``: a flush that sends its channels side by side claims its untried parts
    at once; a part tried before is left to the claim of its own (it is looked for first)."""
    gid = await new_game(store)
    await store.games.apply(gid, Command.gm("message", pid=0, text="Мастер на связи", user_id=game_script.GM))
    rows = [d.key for d in await store.outbox.pending_deliveries(gid)]
    staged = await store.outbox.stage(gid, "b2", "gm", 42, [{"content": f"part {i}", "nonce": f"m{i}"} for i in range(3)], rows)
    assert await store.outbox.claim_part(staged[0]) and await store.outbox.mark_part_failed(staged[0], "500")
    left = await store.outbox.pending_parts(gid)
    before = store.transactions["part.claim"]
    got = await store.outbox.claim_parts(left)
    assert store.transactions["part.claim"] == before + 1
    assert [(p.part_idx, p.held, p.attempts) for p in got] == [(1, True, 1), (2, True, 1)]
    # committed as tried: a start after a crash looks for each in its channel before sending it
    assert [(p.part_idx, p.attempts) for p in await store.outbox.pending_parts(gid)] == [(0, 1), (1, 1), (2, 1)]
    assert await store.outbox.claim_parts(got) == []  # held already: nothing to claim again
