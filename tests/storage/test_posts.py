"""The bot's own messages that belong to a command (a PM's copy, a GM's log line, a deadline
notice) are staged in the command's own transaction: a crash can commit neither or both."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from engine import ActionError
from storage import Command, Post, Store, part_nonce

from . import game_script
from .conftest import new_game


class Killed(Exception):
    pass


def kill_at(point: str):
    def fault(name: str) -> None:
        if name == point:
            raise Killed(name)
    return fault


def copy(text: str) -> Post:
    return Post("player:0", 10, ({"content": text, "mention": 0},))


async def test_a_post_commits_with_its_command_or_not_at_all(db):
    async with Store(db) as s:
        gid = await new_game(s)
        s.fault = kill_at("apply.before_commit")
        with pytest.raises(Killed):
            await s.games.apply(gid, Command.send_pm(0, 1, "привет", request_id="r1"), posts=[copy("копия: привет")])
        assert await s.outbox.pending_parts(gid) == []  # rolled back with the command
        assert not await s.games.journal(gid)
        s.fault = kill_at("apply.after_commit")  # committed; the process dies before any send
        with pytest.raises(Killed):
            await s.games.apply(gid, Command.send_pm(0, 1, "привет", request_id="r2"), posts=[copy("копия: привет")])
    async with Store(db) as s:
        [entry] = await s.games.journal(gid)
        [part] = await s.outbox.pending_parts(gid)
        assert (part.content, part.channel_key, part.channel_id) == ("копия: привет", "player:0", 10)
        assert part.batch_id == f"{gid}/cmd:{entry['seq']}:0>player:0"
        assert part.nonce == part_nonce(part.batch_id, 0)
        # the retry of the same interaction is recognised: neither the PM nor its copy again
        again = await s.games.apply(gid, Command.send_pm(0, 1, "привет", request_id="r2"), posts=[copy("копия: привет")])
        assert again.duplicate and len(await s.outbox.pending_parts(gid)) == 1


async def test_posts_may_depend_on_the_result_and_a_refusal_stages_nothing(store: Store):
    gid = await new_game(store)
    results = []

    def posts(game, result):
        results.append(result)
        return [Post("player:0", 10, ({"content": f"copy to {game.player(result['recipient']).name}"},))]

    await store.games.apply(gid, Command.send_pm(0, 1, "привет"), posts=posts)
    name = store.games.game(gid).player(1).name
    assert [p.content for p in await store.outbox.pending_parts(gid)] == [f"copy to {name}"]
    assert results and results[0]["text"] == "привет"
    with pytest.raises(ActionError):
        await store.games.apply(gid, Command.send_pm(0, 0, "to myself"), posts=[copy("never")])
    assert [p.content for p in await store.outbox.pending_parts(gid)] == [f"copy to {name}"]


async def test_a_deadline_change_and_a_meta_change_stage_their_notices(store: Store):
    gid = await new_game(store)
    at = datetime(2030, 1, 1, tzinfo=UTC)
    await store.turns.set_deadline(gid, at)
    change = await store.turns.change_deadline(
        gid, lambda info: (info.deadline + timedelta(minutes=30), None), user_id=game_script.GM, key="move:1:+30",
        posts=lambda info: [Post("public", 3, ({"content": f"moved to {info.deadline:%H:%M}"},))])
    assert change.changed
    again = await store.turns.change_deadline(
        gid, lambda info: (info.deadline + timedelta(minutes=30), None), user_id=game_script.GM, key="move:1:+30",
        posts=lambda info: [Post("public", 3, ({"content": "twice"},))])
    assert again.duplicate
    assert [p.content for p in await store.outbox.pending_parts(gid)] == ["moved to 00:30"]
    line = Post("gm", 4, ({"content": "declared"},))
    await store.meta.update_meta(gid, lambda m: m.update(declared={"0": [1]}), posts=[line], key="ia:77")
    await store.meta.update_meta(gid, lambda m: m.update(declared={"0": [1]}), posts=[line], key="ia:78")  # no change: no line
    assert [p.content for p in await store.outbox.pending_parts(gid)] == ["moved to 00:30", "declared"]
    # a bot action that is no command: staged once under its key
    await store.outbox.stage_posts(gid, "ia:79", [line, copy("c")])
    await store.outbox.stage_posts(gid, "ia:79", [line, copy("c")])
    assert [p.batch_id for p in await store.outbox.pending_parts(gid)][2:] == [f"{gid}/ia:79:0>gm", f"{gid}/ia:79:1>player:0"]
