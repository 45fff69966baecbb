"""Discord never re-sends an interaction: a user who retries after a lost reply sends a new
one. A retried identical submission or PM is recognised and answered with what is recorded;
it is not applied twice. ``/action me`` shows what was recorded."""

from __future__ import annotations

from altmafia.text.i18n import Renderer, text

from ..helpers import gather, start


async def test_a_retried_submission_and_pm_land_once_and_say_what_is_recorded(env):
    t = await start(await gather(env, 5, spectators=0))
    g = t.game
    la = next(la for la in g.legal_actions(0) if la.ability.targets == 1 and not la.ability.options and not la.via and not la.ability.number)
    target = str(la.targets[0])
    first = await t.member(0).slash(t.hidden(0), "action submit", ability=la.key, target=target)
    assert first.response.content.startswith("✅"), first.response.content
    seq = t.store.games.info(t.game_id).version
    again = await t.member(0).slash(t.hidden(0), "action submit", ability=la.key, target=target)  # the reply was lost: a retry
    r = Renderer(t.game, "en")  # SimCord's interactions carry en-US
    head = text("en", "action.already", ability=r.ability(la.key), targets=r.player(la.targets[0]), option="")
    assert again.response.content.startswith(head), again.response.content
    assert t.store.games.info(t.game_id).version == seq  # nothing applied the second time
    assert len([i for i in t.game.pending(0) if i.ability == la.key]) == 1
    me = await t.member(0).slash(t.hidden(0), "action me")
    assert r.player(la.targets[0]) in me.response.content and me.response.ephemeral

    await t.member(1).slash(t.hidden(1), "pm send", to="3", message="встреча в полночь")
    retry = await t.member(1).slash(t.hidden(1), "pm send", to="3", message="встреча в полночь")
    assert retry.response.ephemeral
    pms = [m for m in t.game.state.pms if m.text == "встреча в полночь"]
    assert len(pms) == 1
    assert text("en", "pm.already_sent", to=r.player(pms[0].recipient)) in retry.response.content, retry.response.content
    received = [m for m in t.hidden(pms[0].recipient).history() if "встреча в полночь" in m.content]
    copies = [m for m in t.hidden(1).history() if "встреча в полночь" in m.content]
    assert len(received) == 1 and len(copies) == 1
    # a different text is a new PM, not a retry
    other = await t.member(1).slash(t.hidden(1), "pm send", to="3", message="встреча в полдень")
    assert not other.response.content.startswith("⛔"), other.response.content
