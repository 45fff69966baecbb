"""A ballot's public line is an engine event (``vote.cast``): journaled with the command,
delivered to the vote channel by the outbox, and sent exactly once even when the bot dies
between sending it and marking it sent; the voter is answered ephemerally only."""

from __future__ import annotations

from .conftest import LOCALES
from .helpers import force_resolve, gather, start
from .test_restart import restart


def ballot_lines(channel, voter: str) -> list[str]:
    return [line for m in channel.history() for line in m.content.split("\n") if f"Голос: {voter} →" in line]


async def test_a_ballot_line_is_posted_once_after_a_restart_mid_delivery(env, settings):
    t = await start(await gather(env, 5, spectators=0))
    for m in t.players:
        LOCALES[m.id] = "ru"
    gm = t.channel("gm")
    await t.gm.slash(gm, "gm setstat", player="2", stat="vo", value=-3)
    await force_resolve(t)  # the prison list opens after a period
    assert t.game.open_votes()
    votes = t.channel("votes")
    voter = t.game.player(0).name
    calls = []

    def crash_after_the_send(key: str) -> None:
        calls.append(key)
        raise RuntimeError("killed")  # the line is in the channel; the process dies before it is marked

    env.bot.deliverer.fault = crash_after_the_send
    r = await t.member(0).slash(t.hidden(0), "vote cast", candidate="2")
    env.bot.deliverer.fault = None
    assert r.response.ephemeral and r.response.content.startswith("🗳"), r.response.content  # the voter's own answer
    assert calls, "the ballot line went through the outbox"
    crashed = env.errors  # the "crash" reached the command's handler (acknowledged here)
    assert len(crashed) == 1 and "killed" in repr(crashed[0]), crashed
    # the ballot is journaled with the command, its event in the event log
    events = await env.bot.store.games.events(t.game_id)
    cast = [e for e in events if e.key == "vote.cast"]
    assert len(cast) == 1 and cast[0].args["voter"] == 0 and cast[0].args["target"] == 2 and cast[0].audience == "public"
    assert len(ballot_lines(votes, voter)) == 1
    await restart(env, settings)
    await env.bot.deliverer.flush(t.game_id)
    assert len(ballot_lines(votes, voter)) == 1, [m.content for m in votes.history()]  # found in the channel, not sent again
    assert not await env.bot.store.outbox.pending_parts(t.game_id)
    assert not [d for d in await env.bot.store.outbox.pending_deliveries(t.game_id) if d.event.key == "vote.cast"]
    # the next ballot goes out once too, with the live count of ballots
    await t.member(1).slash(t.hidden(1), "vote cast", candidate="2")
    name = t.game.player(2).name
    lines = ballot_lines(votes, t.game.player(1).name)
    assert len(lines) == 1 and f"{name} — 2 голоса" in lines[0], lines
    assert len(ballot_lines(votes, voter)) == 1


async def test_the_vote_choices_are_the_engines(env, settings):
    """The autocomplete offers what ``Game.vote_choices`` lists; a name it does not list is refused."""
    t = await start(await gather(env, 5, spectators=0))
    for m in t.players:
        LOCALES[m.id] = "ru"
    await t.gm.slash(t.channel("gm"), "gm setstat", player="2", stat="vo", value=-3)
    await force_resolve(t)
    offered = await t.member(0).autocomplete(t.hidden(0), "vote cast", "candidate", "")
    assert [c["value"] for c in offered] == [str(c) for c in t.game.vote_choices(0)] == ["2"]
    before = len(t.channel("votes").history())
    r = await t.member(0).slash(t.hidden(0), "vote cast", candidate="3")  # not on the list
    assert r.response.ephemeral and r.response.content.startswith("⛔"), r.response.content
    assert len(t.channel("votes").history()) == before
