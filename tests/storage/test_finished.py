"""Finished games leave memory: once over, its end shown (``meta.revealed``) and
every message delivered, a game is released from the store's map (``release_finished``) and
stays readable from the database."""

from __future__ import annotations

from datetime import timedelta

from storage import Store

from .conftest import new_game


async def play_out(store: Store, gid: str) -> None:
    """Resolve until the game is over (nobody acts: the book's end day comes)."""
    for _ in range(40):
        if store.games.game(gid).state.over:
            return
        await store.turns.resolve(gid)
    raise AssertionError("the game did not end")


async def deliver_all(store: Store, gid: str) -> None:
    for d in await store.outbox.pending_deliveries(gid):
        assert await store.outbox.claim(d.key) and await store.outbox.mark_delivered(d.key)


async def test_a_finished_game_leaves_memory_and_stays_readable(store: Store):
    gid = await new_game(store, settings={"days": 1}, meta={"channels": {"public": 4242}})
    await new_game(store, "g2")  # a running game: never released
    await play_out(store, gid)
    winner = store.games.game(gid).state.winner
    whole = await store.games.snapshot(gid)
    # over, but its messages are not delivered and its end not shown: kept
    assert await store.games.release_finished() == [] and store.games.has(gid)
    await deliver_all(store, gid)
    assert await store.games.release_finished() == [] and store.games.has(gid)  # not revealed yet
    await store.meta.update_meta(gid, lambda m: m.update(revealed=True))
    # the caller may keep it a while after its last write
    assert await store.games.release_finished(older_than=timedelta(minutes=10)) == []
    base = store.transactions.copy()
    assert await store.games.release_finished() == [gid]
    assert store.transactions == base  # reads only
    assert not store.games.has(gid) and store.games.has("g2") and [i.game_id for i in store.games.games()] == ["g2"]
    # still in the database, read on demand
    info = await store.games.find(gid)
    assert info is not None and info.status == "over" and info.meta["revealed"] is True
    assert await store.games.snapshot(gid) == whole
    assert (await store.games.rebuild(gid, whole=True)).to_dict() == whole
    game = await store.games.load(gid)
    assert game is not None and game.state.winner == winner and not store.games.has(gid)
    assert [e["kind"] for e in await store.games.journal(gid)].count("resolve") >= 3
    assert await store.games.events(gid)
    assert store.meta.game_of_channel(4242) == gid
    await store.meta.update_meta(gid, lambda m: m.update(archived=True))  # the GM's cleanup choice
    assert (await store.games.find(gid)).meta["archived"] is True and not store.games.has(gid)
    assert await store.games.load("no such game") is None


async def test_a_released_game_is_not_loaded_again_at_start(db):
    s = Store(db)
    await s.open()
    gid = await new_game(s, settings={"days": 1})
    await play_out(s, gid)
    await deliver_all(s, gid)
    await s.meta.update_meta(gid, lambda m: m.update(revealed=True))
    assert await s.games.release_finished() == [gid]
    await s.close()
    s = Store(db)
    await s.open()
    try:  # the same as after the release: a start loads only what is not done with
        assert not s.games.has(gid) and (await s.games.find(gid)).status == "over"
    finally:
        await s.close()
