"""The core's memory between ticks lives in typed places (``GameState.core``), and a snapshot
keeps it under the ``memo`` keys of the free dict it replaced: old snapshots load."""

from __future__ import annotations

import json

from config import load_ruleset
from engine import DEAL, Game, PlayerSpec
from engine.state import Able, CoreMemory, EndNow, GameState, PublishedAnon, WaitingPm

OLD_MEMO = {
    "end_now": {"seq": 2, "by": 0, "tick": 0, "last": 1},
    "able": {"turn": "day 1", "pids": [0, 2]},
    "bonus_choice": {"3": "vo"},
    "pm_waiting": [{"sender": 1, "recipient": 2, "text": "жду"}],
    "anons": [{"n": 1, "pid": 0, "tick": 0, "published": 0, "seq": 5}],
    "faction_freeze_until": 4,
    "lesser_winners": [],
    "friday": {"marks": {"1": 2}},  # a book's memory, kept as it is
    "prison": {"1": {"opened": True}},
}


def old_snapshot() -> dict:
    g = Game.new(load_ruleset("godfather"), 3, [PlayerSpec(f"P{i}", DEAL) for i in range(12)])
    d = json.loads(json.dumps(g.to_dict()))
    d["memo"] = json.loads(json.dumps(OLD_MEMO))
    return d


def test_an_old_snapshot_loads_into_typed_places():
    st = GameState.from_dict(old_snapshot())
    assert st.core.end_now == EndNow(seq=2, by=0, tick=0, last=1)
    assert st.core.able == Able(turn="day 1", pids=[0, 2])
    assert st.core.bonus_choice == {"3": "vo"}
    assert st.core.pm_waiting == [WaitingPm(sender=1, recipient=2, text="жду")]
    assert st.core.anons == [PublishedAnon(n=1, pid=0, tick=0, published=0, seq=5)]
    assert st.core.faction_freeze_until == 4 and st.core.lesser_winners == []
    assert st.memo == {"friday": {"marks": {"1": 2}}, "prison": {"1": {"opened": True}}}  # the books' own


def test_the_snapshot_keeps_the_old_keys():
    d = old_snapshot()
    assert json.loads(json.dumps(GameState.from_dict(d).to_dict()))["memo"] == OLD_MEMO


def test_a_post_from_before_posts_kept_their_seq_loads():
    d = old_snapshot()
    d["memo"] = {"anons": [{"n": 1, "pid": 0, "tick": 0, "published": 1}]}
    assert GameState.from_dict(d).core.anons == [PublishedAnon(n=1, pid=0, tick=0, published=1, seq=-1)]


def test_a_fresh_game_stores_no_core_keys():
    g = Game.new(load_ruleset("classic"), 1, [PlayerSpec(f"P{i}", DEAL) for i in range(6)])
    assert g.state.core == CoreMemory()
    assert not set(g.to_dict()["memo"]) & set(CoreMemory.KEYS)
