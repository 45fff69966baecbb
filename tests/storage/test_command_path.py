"""The command path of the store: a command runs on the live game and its
transaction is one batch; whatever is not committed leaves the game in memory as stored."""

from __future__ import annotations

import contextlib
import json
import random

import pytest

from engine import ActionError
from storage import Command, StorageError, Store
from storage.store import decode_snapshot, dumps, encode_snapshot

from .conftest import new_game


async def stored_state(store: Store, gid: str) -> dict:
    rows = await store.db.read("SELECT state FROM games WHERE game_id = ?", (gid,))
    return json.loads(rows[0][0])


def same_as_stored(store: Store, gid: str, stored: dict) -> bool:
    return json.loads(dumps(store.games.game(gid).to_dict())) == stored


async def test_a_retried_command_the_game_now_refuses_is_recognised(store):
    """The engine runs before the journal is read: a retry of a cancel (nothing left to cancel
    now) is still answered as the duplicate it is, not refused."""
    gid = await new_game(store)
    await store.games.apply(gid, Command.submit(0, "day", [1], request_id="s1"))
    first = await store.games.apply(gid, Command.cancel(0, request_id="c1"))
    again = await store.games.apply(gid, Command.cancel(0, request_id="c1"))
    assert again.duplicate and again.seq == first.seq and again.result == first.result
    assert [e["kind"] for e in await store.games.journal(gid)] == ["submit", "cancel"]
    assert same_as_stored(store, gid, await stored_state(store, gid))


async def test_a_retried_accepted_command_writes_nothing_and_memory_stays(store):
    gid = await new_game(store)
    await store.games.apply(gid, Command.submit(0, "day", [1], request_id="s1"))
    await store.games.apply(gid, Command.submit(0, "day", [2], request_id="s2"))
    again = await store.games.apply(gid, Command.submit(0, "day", [1], request_id="s1"))  # the engine would accept it
    assert again.duplicate
    assert [i.targets for i in store.games.game(gid).pending(0)] == [[2]]
    assert store.games.info(gid).version == 2
    assert same_as_stored(store, gid, await stored_state(store, gid))


async def test_a_refusal_and_a_failed_commit_leave_memory_as_stored(store, monkeypatch):
    gid = await new_game(store)
    await store.games.apply(gid, Command.submit(0, "day", [1]))
    with pytest.raises(ActionError):
        await store.games.apply(gid, Command.submit(0, "day", [0]))
    assert same_as_stored(store, gid, await stored_state(store, gid))

    async def broken_commit() -> None:
        import sqlite3

        raise sqlite3.OperationalError("disk I/O error")

    if store.backend.paramstyle == "qmark":
        monkeypatch.setattr(store.backend, "commit", broken_commit)
        with pytest.raises(StorageError):
            await store.games.apply(gid, Command.submit(0, "day", [2]))
        monkeypatch.undo()
        assert [i.targets for i in store.games.game(gid).pending(0)] == [[1]]
        assert same_as_stored(store, gid, await stored_state(store, gid))
    await store.games.apply(gid, Command.submit(0, "day", [2]))
    assert [i.targets for i in store.games.game(gid).pending(0)] == [[2]]
    assert same_as_stored(store, gid, await stored_state(store, gid))


async def test_one_transaction_per_accepted_command_none_per_refused(store):
    gid = await new_game(store)
    before = store.transactions.copy()
    await store.games.apply(gid, Command.submit(0, "day", [1]))
    with pytest.raises(ActionError):
        await store.games.apply(gid, Command.submit(0, "day", [0]))
    assert dict(store.transactions - before) == {"apply": 1, "total": 1}


async def test_the_snapshot_text_is_the_same_with_orjson_as_with_json(store):
    """orjson writes the very text json wrote (the store reads either), over a whole game."""
    gid = await new_game(store)
    rnd = random.Random(3)
    while not store.games.game(gid).state.over and store.games.game(gid).state.tick < 12:
        g = store.games.game(gid)
        for p in g.living():
            las = [la for la in g.legal_actions(p.pid) if not la.ability.options and la.ability.number is None]
            if las:
                la = rnd.choice(las)
                args = {"pid": p.pid, "ability": la.key, "targets": rnd.sample(la.targets, la.ability.targets)}
                if la.via:
                    args["via"] = la.via
                with contextlib.suppress(ActionError):
                    await store.games.apply(gid, Command("submit", args))
        data = store.games.game(gid).to_dict()
        text = encode_snapshot(data)
        assert text == dumps(data)
        assert decode_snapshot(text) == json.loads(text)
        await store.turns.resolve(gid)
