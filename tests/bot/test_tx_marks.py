"""``Store.meta.mark_parts_sent(meta=…)``: the marks of a flush and a meta change (the channel
sync's record) in one transaction, the meta changed exactly as ``update_meta`` changes it —
the fresh meta read in the transaction, ``meta_version`` + 1, a function that raises writing
nothing, marks included."""

from __future__ import annotations

import sqlite3

import pytest

from storage import Command, Store
from tests.storage import game_script


@pytest.fixture
async def store(tmp_path):
    s = Store(tmp_path / "marks.sqlite3")
    await s.open()
    try:
        yield s
    finally:
        await s.close()


async def staged_game(store: Store) -> tuple[str, list]:
    """A game with one GM message staged as two claimed parts, and access recorded for a player."""
    gid = "g1"
    await store.games.create_game("godfather", 7, list(game_script.PLAYERS), game_id=gid, gm_user_ids=[game_script.GM],
                            meta={"channels": {"gm": 42, "public": 43}, "access": {"public": {"101": "rw"}}})
    await store.games.apply(gid, Command.gm("message", pid=0, text="Мастер на связи", user_id=game_script.GM))
    rows = [d.key for d in await store.outbox.pending_deliveries(gid)]
    parts = await store.outbox.stage(gid, "b1", "gm", 42, [{"content": "a", "nonce": "n0"}, {"content": "b", "nonce": "n1"}], rows)
    for p in parts:
        assert await store.outbox.claim_part(p)
    return gid, parts


def dead_reads(m: dict) -> None:
    m["access"]["public"]["101"] = "ro"


async def stored(store: Store, gid: str) -> tuple[str, int]:
    rows = await store.db.read("SELECT meta, meta_version FROM games WHERE game_id = ?", (gid,))
    return rows[0][0], rows[0][1]


async def test_the_marks_and_the_record_in_one_transaction(store):
    gid, parts = await staged_game(store)
    version = store.games.info(gid).meta_version
    before = store.transactions.copy()
    n = await store.meta.mark_parts_sent([(parts[0], 1001), (parts[1], 1002)], meta=(gid, dead_reads))
    assert n == 2
    assert store.transactions - before == {"part.sent": 1, "total": 1}
    assert await store.outbox.pending_parts(gid) == []
    delivered = await store.db.read("SELECT delivered_at FROM outbox WHERE batch_id = ?", ("b1",))
    assert delivered and all(r[0] is not None for r in delivered)
    info = store.games.info(gid)
    assert info.meta["access"]["public"] == {"101": "ro"} and info.meta_version == version + 1
    text, v = await stored(store, gid)
    assert '"101":"ro"' in text.replace(" ", "") and v == version + 1


async def test_the_change_is_made_on_the_meta_as_committed(store, tmp_path):
    """Another writer's change committed meanwhile is kept: the function runs on the fresh row."""
    gid, parts = await staged_game(store)
    version = store.games.info(gid).meta_version
    con = sqlite3.connect(tmp_path / "marks.sqlite3")
    con.execute("UPDATE games SET meta = json_set(meta, '$.paused', json('{\"tick\": 0}')), meta_version = meta_version + 1")
    con.commit()
    con.close()
    await store.meta.mark_parts_sent([(parts[0], 1001)], meta=(gid, dead_reads))
    info = store.games.info(gid)
    assert info.meta["paused"] == {"tick": 0} and info.meta["access"]["public"]["101"] == "ro"
    assert info.meta_version == version + 2 == (await stored(store, gid))[1]


async def test_a_change_that_raises_marks_nothing(store):
    gid, parts = await staged_game(store)
    before, info = store.transactions.copy(), store.games.info(gid)

    def broken(m: dict) -> None:
        m["access"]["public"]["101"] = 1 / 0

    with pytest.raises(ZeroDivisionError):
        await store.meta.mark_parts_sent([(parts[0], 1001), (parts[1], 1002)], meta=(gid, broken))
    assert store.transactions == before
    assert [p.part_idx for p in await store.outbox.pending_parts(gid)] == [0, 1], "rolled back with the meta"
    assert store.games.info(gid) == info and (await stored(store, gid))[1] == info.meta_version


async def test_nothing_to_mark_commits_the_change_alone_and_no_change_writes_no_meta(store):
    gid, parts = await staged_game(store)
    version = store.games.info(gid).meta_version
    before = store.transactions.copy()
    assert await store.meta.mark_parts_sent([], meta=(gid, dead_reads)) == 0
    assert store.transactions - before == {"meta": 1, "total": 1}
    assert store.games.info(gid).meta["access"]["public"]["101"] == "ro" and store.games.info(gid).meta_version == version + 1
    # the same change again (already recorded): the parts are marked, the meta is not rewritten
    before = store.transactions.copy()
    assert await store.meta.mark_parts_sent([(parts[0], 1001)], meta=(gid, dead_reads)) == 1
    assert store.transactions - before == {"part.sent": 1, "total": 1}
    assert store.games.info(gid).meta_version == version + 1 == (await stored(store, gid))[1]
