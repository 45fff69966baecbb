"""A bot message that belongs to a command (the sender's copy of a PM, the GM's log line, a
deadline notice) is staged in the command's own transaction: a crash right after the commit,
before anything was sent, loses neither; the next start sends each once."""

from __future__ import annotations

from altmafia.text.i18n import text

from ..helpers import gather, start
from ..test_restart import restart


class Killed(Exception):
    pass


def die_after(point: str):
    def fault(name: str) -> None:
        if name == point:
            raise Killed(name)
    return fault


async def test_a_pm_copy_and_a_gm_log_line_survive_a_crash_after_the_commit(env, settings):
    t = await start(await gather(env, 4, spectators=0))
    await env.advance_time(2)  # the scheduler's look after the start (poked) is over: no flush of its own below
    t.store.fault = die_after("apply.after_commit")
    await t.member(1).slash(t.hidden(1), "pm send", to="2", message="встретимся у маяка")
    assert [e for e in env.errors if "apply.after_commit" in str(e)]
    assert not [m for m in t.hidden(1).history() if "встретимся у маяка" in m.content]
    await restart(env, settings)  # the process is dead after the fault: a new one starts
    t.store.fault = die_after("apply.after_commit")
    await t.gm.slash(t.channel("gm"), "gm tell", player="3", message="тайное слово: чайка")
    assert [e for e in env.errors if "apply.after_commit" in str(e)]
    assert not [m for m in t.channel("gm").history() if "тайное слово: чайка" in m.content]
    await restart(env, settings)
    copies = [m for m in t.hidden(1).history() if "встретимся у маяка" in m.content]
    received = [m for m in t.hidden(2).history() if "встретимся у маяка" in m.content]
    told = [m for m in t.hidden(3).history() if "тайное слово: чайка" in m.content]
    logged = [m for m in t.channel("gm").history() if "тайное слово: чайка" in m.content]
    assert (len(copies), len(received), len(told), len(logged)) == (1, 1, 1, 1), (copies, received, told, logged)
    assert not await t.store.outbox.pending_parts(t.game_id) and not await t.store.outbox.pending_deliveries(t.game_id)


async def test_a_deadline_notice_survives_a_crash_after_the_commit(env, settings):
    t = await start(await gather(env, 4, spectators=0))
    t.store.fault = die_after("deadline.before_commit")  # rolled back: neither the move nor its notice
    await t.gm.slash(t.channel("gm"), "gm extend", minutes=30)
    before = t.store.games.info(t.game_id).deadline
    assert not await t.store.outbox.pending_parts(t.game_id)
    t.store.fault = None

    async def dead_flush(*a, **k):  # committed, then the process dies before any send
        raise Killed("flush")

    real = env.bot.deliverer.flush
    env.bot.deliverer.flush = dead_flush
    await t.gm.slash(t.channel("gm"), "gm extend", minutes=30)
    env.bot.deliverer.flush = real
    assert env.errors
    assert t.store.games.info(t.game_id).deadline != before
    await restart(env, settings)
    public = [m for m in t.channel("public").history() if m.author.bot]
    head = text("ru", "public.deadline_moved", deadline="\0").split("\0")[0]
    moved = [m for m in public if m.content.startswith(head)]
    logged = [m for m in t.channel("gm").history() if "+30" in m.content]
    assert len(moved) == 1 and len(logged) == 1, ([m.content for m in public], [m.content for m in logged])
