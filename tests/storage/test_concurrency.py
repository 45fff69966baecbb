"""Many players acting at once on one game: every accepted command lands, in one order."""

from __future__ import annotations

import asyncio

from engine import ActionError
from storage import Command, Store

from .conftest import new_game, sql


async def test_many_players_at_once_all_land(store, db):
    await new_game(store)
    await new_game(store, "g2")  # a second game busy at the same time
    cmds = []
    for seat in range(8):
        if seat % 2 == 0:
            cmds.append(("g1", Command.submit(seat, "day", [(seat + 1) % 8], user_id=1001 + seat)))
        for k in range(1, 6):
            cmds.append(("g1", Command.send_pm(seat, (seat + k) % 8, f"{seat}→{k}")))
        cmds.append(("g2", Command.send_pm(seat, (seat + 1) % 8, "другая игра")))
    cmds.append(("g1", Command.post_anon(3, "кто-то лжёт")))
    cmds.append(("g1", Command.gm("message", pid=0, text="Мастер на связи", user_id=9000)))
    results = await asyncio.gather(*(store.games.apply(gid, c) for gid, c in cmds))
    g1 = [r for r in results if r.game_id == "g1"]
    assert len(g1) == 4 + 40 + 2 and all(not r.duplicate for r in results)
    assert sorted(r.seq for r in g1) == list(range(1, len(g1) + 1))  # one after the other
    game = store.games.game("g1")
    assert len(game.state.pms) == 40 and len(game.state.anons) == 1
    assert sorted(i.pid for i in game.state.intents) == [0, 2, 4, 6]
    assert all(p.pm_sent == {"1": 5} for p in game.state.players)
    assert len(store.games.game("g2").state.pms) == 8
    # the database holds exactly what memory holds, and the journal replays to it
    # (the snapshot row without its log, which lives in the events and history tables: v8)
    stored = await store.games.snapshot("g1")
    journal = (await sql(db, "SELECT COUNT(*) FROM commands WHERE game_id = 'g1'"))[0][0]
    outbox = (await sql(db, "SELECT COUNT(*) FROM outbox WHERE game_id = 'g1'"))[0][0]
    assert stored == (await store.games.rebuild("g1", whole=True)).to_dict() and journal == len(g1)
    # a private message per PM, the GM's message to one player, the queued anonymous post shown
    # to the GM (who may refuse it before it is published: seed 000 «ведущий может отказать»)
    assert outbox == 40 + 1 + 1
    assert (await store.games.rebuild("g1")).to_dict() == game.to_dict()


async def test_a_quota_holds_under_a_burst(store):
    """25 PMs from one player at once, 20 a day allowed: exactly 20 land, 5 are refused."""
    await new_game(store)
    results = await asyncio.gather(
        *(store.games.apply("g1", Command.send_pm(0, 1 + n % 7, f"письмо {n}")) for n in range(25)), return_exceptions=True
    )
    refused = [r for r in results if isinstance(r, ActionError)]
    assert len(refused) == 5 and {r.key for r in refused} == {"pm_quota"}
    assert len(store.games.game("g1").state.pms) == 20
    assert len(await store.games.journal("g1")) == 20


async def test_commands_racing_a_resolve_land_before_or_after_it(db):
    async with Store(db) as store:
        await new_game(store)
        jobs = [store.games.apply("g1", Command.send_pm(s, (s + 1) % 8, "до или после")) for s in range(8)]
        jobs.insert(4, store.turns.resolve("g1", expect_tick=0))
        jobs.append(store.turns.resolve("g1", expect_tick=0))  # a second timer for the same tick
        results = await asyncio.gather(*jobs)
        resolves = [r for r in results if r is None or not hasattr(r, "duplicate")]
        assert sum(r is not None for r in resolves) == 1
        assert len(store.games.game("g1").state.pms) == 8 and store.games.game("g1").state.tick == 1
        kinds = [e["kind"] for e in await store.games.journal("g1")]
        assert kinds.count("resolve") == 1 and kinds.count("send_pm") == 8
        assert (await store.games.rebuild("g1")).to_dict() == store.games.game("g1").to_dict()
