"""The action command answers in one REST call when its work is short, and defers first when
it is not (Discord drops an interaction not answered within 3 s): ``interact.answering``."""

from __future__ import annotations

import asyncio
import sqlite3
import threading
from typing import Any

from altmafia.bot.interact import ANSWER_WITHIN

from .helpers import gather, start

CALLBACK_MESSAGE, CALLBACK_DEFERRED = 4, 5  # interaction response types


def callbacks(calls):
    return [c for c in calls if c.method == "POST" and c.path.endswith("/callback")]


def followups(calls):
    return [c for c in calls if c.method == "POST" and c.path.startswith("/webhooks/")]


def target_move(t):
    """A seat, its ability taking one target, and two targets it may choose."""
    for p in t.game.living():
        for la in t.game.legal_actions(p.pid):
            if la.ability.targets == 1 and len(la.targets) >= 2 and not la.ability.options and la.ability.number is None:
                return p.pid, (la.via + "|" if la.via else "") + la.key, la.targets[:2]
    raise AssertionError("no ability with two targets at the start of the tests' game")


async def test_a_quick_action_is_answered_by_its_first_response_alone(env):
    t = await start(await gather(env, 13, spectators=0))
    pid, ability, (a, b) = target_move(t)
    for target in (a, b, a):  # accepted, replaced, replaced again
        n0 = len(env.http_requests)
        r = await t.member(pid).slash(t.hidden(pid), "action submit", ability=ability, target=str(target))
        calls = env.http_requests[n0:]
        assert r.response is not None and r.response.ephemeral and not r.response.content.startswith("⛔"), r
        assert t.game.player(target).name in r.response.content
        assert [c.json["type"] for c in callbacks(calls)] == [CALLBACK_MESSAGE], calls
        assert not followups(calls)
    [mine] = t.game.pending(pid)
    assert mine.targets == [a]


async def slash_past_the_deadline(env, t, actor, channel, name: str, options: dict[str, Any], seconds: float) -> Any:
    """``actor.slash`` whose work is under way while the clock moves on ``seconds``: the
    interaction is dispatched (built as ``helpers.burst`` builds it); once the bot waits on
    the database, SimCord's virtual clock is moved (the bot's timers fire as in real time),
    then the bot settles. SimCord allows one operation at a time: this is one."""
    from simcord import actors as simcord_actors
    from simcord import interactions as simcord_interactions
    from simcord.enums import AppCommandType, InteractionType
    from simcord.results import InteractionResult

    env._begin_operation("slash")
    try:
        actor._check(channel, "view_channel")
        parts = name.split()
        root = simcord_actors._resolve_visible_command(actor, channel.id, parts[0], AppCommandType.CHAT_INPUT)
        leaf, nesting = simcord_interactions.walk_to_subcommand(root, parts[1:])
        leaf_options, resolved = simcord_interactions.build_options(actor, name, leaf, options, channel_id=channel.id)
        data: dict[str, Any] = {"id": root["id"], "name": root["name"], "type": root.get("type", AppCommandType.CHAT_INPUT),
                                "options": simcord_interactions.nest_options(root, nesting, leaf_options)}
        if root.get("guild_id"):
            data["guild_id"] = root["guild_id"]
        record, payload = simcord_interactions.base_payload(
            env.backend, type=InteractionType.APPLICATION_COMMAND, channel_id=channel.id, guild_id=actor.guild.id,
            user_id=actor.id, data=data,
        )
        env._notify_dispatch_observers(record)
        env.backend.emit("INTERACTION_CREATE", payload)
        for _ in range(500):  # the command reaches the database and waits there
            await asyncio.sleep(0.005)
            if t.store.db.lock.locked():
                break
        else:
            raise AssertionError("the command never reached the database")
        env._move_clock(env._virtual_time + seconds)
        await env._settle_internal(dispatch="INTERACTION_CREATE")
        return InteractionResult(env, record)
    finally:
        env._end_operation()


async def test_a_slow_action_defers_first_and_its_reply_follows(env):
    """The database is slow (another connection holds its write lock for longer than
    ``ANSWER_WITHIN``): the interaction is deferred, and once the write lands the reply
    follows up: exactly one first response, then the answer, and the action is committed."""
    t = await start(await gather(env, 13, spectators=0))
    pid, ability, (a, b) = target_move(t)
    m, ch = t.member(pid), t.hidden(pid)
    await m.slash(ch, "action submit", ability=ability, target=str(b))  # the player is known (their language)
    other = sqlite3.connect(t.store.backend.path, check_same_thread=False, isolation_level=None)
    other.execute("BEGIN IMMEDIATE")  # the write lock: the bot's transaction waits (busy_timeout)
    release = threading.Timer(0.5, lambda: other.execute("ROLLBACK"))
    release.start()
    n0 = len(env.http_requests)
    try:
        r = await slash_past_the_deadline(env, t, m, ch, "action submit", {"ability": ability, "target": str(a)}, ANSWER_WITHIN + 0.5)
    finally:
        release.join()
        other.close()
    calls = env.http_requests[n0:]
    assert [c.json["type"] for c in callbacks(calls)] == [CALLBACK_DEFERRED], calls
    assert len(followups(calls)) == 1, calls
    assert r.response is not None and t.game.player(a).name in r.response.content, r
    assert [i.targets for i in t.game.pending(pid)] == [[a]]
