"""The panel's cancel button for a move in a lane of its own: the lane's id holds colons
(``lane:<name>``), the separator of a component's custom id, so the button carries it encoded
and the press takes back exactly that move."""

from __future__ import annotations

from .helpers import force_resolve, start
from .test_panel import cid, ids, panel
from .test_stats_mafia_game import gather_stats


async def test_a_move_in_its_own_lane_is_cancelled_from_the_panel(env):
    t = await start(await gather_stats(env, 15))
    for _ in range(6):  # the first phases until a seat holds a lane ability with a target
        found = [(p.pid, la) for p in t.game.living() for la in t.game.legal_actions(p.pid)
                 if la.lane and la.lane.startswith("lane:") and la.targets and not la.ability.options
                 and la.ability.number is None and not la.via]
        if found:
            break
        await force_resolve(t)
    assert found, "no lane ability offered in the first phases"
    pid, la = found[0]
    m = t.member(pid)
    msg = panel(t, pid)
    await m.select(msg, [la.key], custom_id=cid(msg, "amx:ab"))
    msg = panel(t, pid)
    await m.select(msg, [str(la.targets[0])], custom_id=cid(msg, "amx:t0"))
    msg = panel(t, pid)
    r = await m.click(msg, custom_id=cid(msg, "amy:go"))
    assert r.ephemeral and r.response.content.startswith("✅"), r.response
    msg = panel(t, pid)
    button = cid(msg, "amy:cx")
    assert ":" not in button.split(":", 2)[1].removeprefix("cx."), button  # the lane encoded
    r = await m.click(msg, custom_id=button)
    assert r.ephemeral and not [i for i in t.game.pending(pid) if i.lane == la.lane], r.response.content
    assert (await t.store.games.journal(t.game_id))[-1]["kind"] == "cancel"
    assert not [i for i in ids(panel(t, pid)) if i.startswith("amy:cx")]
