"""A message longer than Discord's limit goes out part by part: an HTTP 500 after part 1, or a
restart between parts, never loses the later parts and never sends part 1 twice; the retry
sends the text stored at the first attempt."""

from __future__ import annotations

import contextlib

from .helpers import gather, start
from .test_restart import restart

LINES = [f"строка {i:03d}: " + "ж" * 60 for i in range(80)]  # about 5,900 characters: 4 parts


def fail_sends(env) -> dict:
    fault = {"method": "POST", "path": "/channels/*/messages", "status": 500, "code": 0,
             "message": "Internal Server Error (injected by test)", "times": None}
    env.backend.faults.append(fault)
    return fault


def lines_in(channel) -> list[str]:
    return [line for m in channel.history() for line in m.content.split("\n") if line.startswith("строка")]


async def test_an_http_500_after_part_one_loses_no_part(env, settings):
    t = await start(await gather(env, 4, spectators=0))
    gm = t.channel("gm")
    deliverer = env.bot.deliverer
    hooked = []

    def after_send(key: str) -> None:
        if not hooked:
            hooked.append(fail_sends(env))  # every later send fails until the outage ends

    deliverer.fault = after_send
    sent = await deliverer.post(t.game_id, "gm", "\n".join(LINES), once="long")
    assert sent == 1
    deliverer.fault = None
    left = await t.store.outbox.pending_parts(t.game_id)
    assert [p.part_idx for p in left] == [1, 2, 3] and left[0].attempts == 1
    env.backend.faults.remove(hooked[0])
    assert await deliverer.flush(t.game_id) == 3
    got = lines_in(gm)
    assert got == LINES  # every line once, in order
    assert not await t.store.outbox.pending_parts(t.game_id)


async def test_a_restart_between_parts_sends_the_rest_once(env, settings):
    t = await start(await gather(env, 4, spectators=0))
    gm = t.channel("gm")
    deliverer = env.bot.deliverer
    calls = []

    def crash_after_part_two(key: str) -> None:
        calls.append(key)
        if len(calls) == 2:  # part 2 is in the channel; the process dies before it is marked
            raise RuntimeError("killed")

    deliverer.fault = crash_after_part_two
    with contextlib.suppress(RuntimeError):
        await deliverer.post(t.game_id, "gm", "\n".join(LINES), once="long")
    stored = [p.content for p in await t.store.outbox.parts(f"{t.game_id}/long>gm")]
    assert len(stored) == 4
    await restart(env, settings)
    assert lines_in(gm) == LINES  # part 2 found in the channel, parts 3 and 4 sent, none twice
    assert [p.content for p in await env.bot.store.outbox.parts(f"{t.game_id}/long>gm")] == stored
    assert all(p.message_id for p in await env.bot.store.outbox.parts(f"{t.game_id}/long>gm"))
    # the same bot message asked for again (a restart redoing a step) is not posted again
    assert await env.bot.deliverer.post(t.game_id, "gm", "\n".join(LINES), once="long") == 0
    assert lines_in(gm) == LINES
