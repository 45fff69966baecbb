"""A restart in the middle of a phase loses nothing: sign-ups, actions, PMs, anonymous posts,
the deadline; a deadline that passed while the bot was down resolves at once."""

from __future__ import annotations

import gc
from datetime import timedelta

from altmafia.bot.bot import create_bot

from .helpers import force_resolve, gather, start


async def restart(env, settings, *, down_for: float = 0.0):
    """Stop the bot as a crash would (its database connection simply goes), optionally let
    time pass while it is down, then start a new bot on the same database file."""
    old = env.bot
    old.scheduler.stop()
    await old.store.close()
    if down_for:
        await env.advance_time(down_for)
    await env.restart_bot(create_bot(settings))
    return env.bot


async def test_restart_mid_phase_loses_nothing(env, settings):
    t = await start(await gather(env, 6, spectators=1))
    # a second game still gathering players
    other = t.guild.create_text_channel("второй-набор")
    await t.others[0].slash(other, "lobby create")
    await t.spectators[0].slash(other, "lobby join")

    g = t.game
    la = next(la for la in g.legal_actions(0) if la.ability.targets == 1 and not la.ability.options and not la.via)
    r = await t.member(0).slash(t.hidden(0), "action submit", ability=la.key, target=str(la.targets[0]))
    assert r.response and r.response.content.startswith("✅"), r.response.content
    await t.member(1).slash(t.hidden(1), "pm send", to="2", message="встретимся ночью")
    await t.member(3).slash(t.hidden(3), "anon post", message="ветер меняется")
    deadline = t.info.deadline
    before = t.store.games.game(t.game_id).state.intents

    bot = await restart(env, settings)
    t2 = t  # the table reads through env.bot, now the new bot
    assert t2.store is bot.store
    assert t2.info.deadline == deadline
    assert [i.ability for i in t2.game.state.intents] == [i.ability for i in before]
    assert [a.text for a in t2.game.state.anons] == ["ветер меняется"]
    # the PM was delivered once, before the restart, and not again
    pm_lines = [m for m in t2.hidden(2).history() if "встретимся ночью" in m.content]
    assert len(pm_lines) == 1
    # the lobby kept its sign-up
    r = await t.others[0].slash(other, "lobby players")
    assert "Зритель0" in r.response.content, r.response.content
    # the pending action is still there and resolves
    r = await t.member(0).slash(t.hidden(0), "action me")
    assert "→" in r.response.content
    await force_resolve(t2)
    assert t2.info.tick == 1
    assert any("ветер меняется" in m.content for m in t2.channel("public").history())
    assert len([m for m in t2.hidden(2).history() if "встретимся ночью" in m.content]) == 1


async def test_deadline_passed_while_down_resolves_at_once(env, settings):
    t = await start(await gather(env, 4, spectators=0))
    deadline = t.info.deadline
    assert deadline is not None
    down = (deadline - env.now()).total_seconds() + 3600
    bot = await restart(env, settings, down_for=down)
    # resolved during the new bot's start, before any command
    assert bot.store.games.info(t.game_id).tick == 1
    assert bot.store.games.info(t.game_id).deadline > env.now()
    assert any("день 1.1" in m.content for m in t.channel("public").history())
    # and the next deadline is the end of the next period, not a cascade of missed ones
    assert bot.store.games.info(t.game_id).deadline - env.now() < timedelta(hours=24)


async def test_a_message_sent_just_before_a_crash_is_not_sent_again(env, settings):
    t = await start(await gather(env, 4, spectators=0))
    await env.advance_time(2)  # the scheduler's look after the start (poked) is over: no flush of its own below
    store = t.store

    def crash(key):  # the send went out; the process dies before it is marked
        if ">player:1#" in key:  # the GM's log line, staged with the command, goes first
            raise RuntimeError("killed")

    # the deliverer's hook between a part's send and its mark (the marks of a flush are one
    # transaction at its end: a part sent before the one that died is marked, as before)
    env.bot.deliverer.fault = crash
    await t.gm.slash(t.channel("gm"), "gm tell", player="1", message="тайное слово: маяк")
    assert any("killed" in str(e) for e in env.errors)  # the command failed after the send
    env.bot.deliverer.fault = None
    pending = await store.outbox.pending_parts(t.game_id)
    # the part that went out is claimed (it may have been sent); parts staged after it were not tried
    told = [p for p in pending if p.channel_key == "player:1"]
    assert len(told) == 1 and told[0].attempts == 1, pending
    assert all(p.attempts == 0 for p in pending if p is not told[0])
    await restart(env, settings)
    assert not await t.store.outbox.pending_parts(t.game_id) and not await t.store.outbox.pending_deliveries(t.game_id)
    sent = [m for m in t.hidden(1).history() if "тайное слово: маяк" in m.content]
    assert len(sent) == 1, [m.content for m in sent]


async def test_a_crash_before_the_reveal_does_not_lose_it(env, settings):
    """The game ends, then the bot dies before the reveal is staged (``end_posts``, rendered by
    ``stage_end`` after the resolve's commit): the finished game is kept at hand and the next
    start shows the reveal."""
    t = await start(await gather(env, 4, spectators=0, days=1))

    async def crash(*_args) -> None:
        raise RuntimeError("the process died here")

    env.bot.end_posts = crash  # where the end begins (bot.finish → stage_end, its one path)
    for _ in range(3):
        if t.store.games.info(t.game_id).status == "over":
            break
        try:
            await force_resolve(t)
        except Exception:
            break
    assert t.store.games.info(t.game_id).status == "over"
    public = t.channel("public")
    assert not any("Кто был кем" in m.content for m in public.history())
    await restart(env, settings)
    assert len([m for m in public.history() if "Кто был кем" in m.content]) == 1
    await restart(env, settings)  # shown once: the next start has nothing more to show
    assert len([m for m in public.history() if "Кто был кем" in m.content]) == 1


async def test_what_a_start_reads_is_kept_from_the_collector_until_the_bot_closes(env, settings):
    """The games' rows ``Store.open`` reads live as long as the process: read with the collector
    paused, then frozen (``gc.freeze``: no collection goes over them again), and given back to
    it when the bot closes."""
    t = await start(await gather(env, 4, spectators=0))
    bot = await restart(env, settings)
    assert gc.isenabled() and gc.get_freeze_count() > 0
    assert bot.store.games.info(t.game_id).tick == 0  # the game served as ever
    r = await t.member(0).slash(t.hidden(0), "action me")  # a seat's own card, as after any start
    me = t.game.player(0)
    assert not r.response.content.startswith("⛔") and me.name in r.response.content, r.response.content
    await bot.close()
    assert gc.get_freeze_count() == 0 and gc.isenabled()
