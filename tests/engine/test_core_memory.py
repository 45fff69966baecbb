"""The core's memory between ticks lives in typed places (``GameState.core``), and a snapshot
keeps it under the ``memo`` keys of the free dict it replaced: old snapshots load."""

from __future__ import annotations

import contextlib
import json

from config import load_ruleset
from engine import DEAL, ActionError, Game, PlayerSpec
from engine.books.eternal_friday.core import FridayMemory
from engine.books.godfather.prison import PrisonMemory
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
    "prison": {"1": {"list": [], "strength": {}, "opened": True}},  # seed 000's prison memory, typed too
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
    assert st.memo == {}  # every key has its typed place
    assert st.place(PrisonMemory).days["prison"]["1"].opened
    assert st.place(FridayMemory).marks == {"1": 2}  # a book's typed memory


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


# ---- a book's typed memory ---------------------------------------------------------------------
def stats_snapshot(memo: dict) -> dict:
    g = Game.new(load_ruleset("stats_mafia"), 3, [PlayerSpec(f"P{i}", DEAL) for i in range(10)])
    d = json.loads(json.dumps(g.to_dict()))
    d["memo"] = json.loads(json.dumps(memo))
    return d


OLD_STATS_MEMO = {"stats_mafia": {
    "disguise": {"4": "civilian"},
    "bank": {"2": 1},
    "bank_spend": {"3": {"2": 1}},
    "mail": [{"seq": 9, "from": 1, "to": None, "text": "привет", "tick": 3, "signed": False}],
    "vote_reprieves": {"5": 1},
}}


def test_a_books_old_memory_loads_into_its_typed_place():
    from engine.books.stats_mafia.core import StatsMafiaMemory

    st = GameState.from_dict(stats_snapshot(OLD_STATS_MEMO))
    m = st.place(StatsMafiaMemory)
    assert m.disguise == {"4": "civilian"} and m.bank == {"2": 1} and m.bank_spend == {"3": {"2": 1}}
    assert m.mail[0]["text"] == "привет" and m.vote_reprieves == {"5": 1} and m.half_winners == []
    assert "stats_mafia" not in st.memo  # typed, not in the free dict
    assert json.loads(json.dumps(st.to_dict()))["memo"] == OLD_STATS_MEMO


def test_a_key_of_an_older_build_is_kept_as_it_was():
    from engine.books.stats_mafia.core import StatsMafiaMemory

    old = {"stats_mafia": {"bank": {"2": 1}, "retired_key": {"1": [3]}}}
    st = GameState.from_dict(stats_snapshot(old))
    assert st.place(StatsMafiaMemory).bank == {"2": 1}
    assert st.memo == {"stats_mafia": {"retired_key": {"1": [3]}}}
    st.place(StatsMafiaMemory).bank["3"] = 2
    assert st.to_dict()["memo"] == {"stats_mafia": {"bank": {"2": 1, "3": 2}, "retired_key": {"1": [3]}}}


def test_a_played_stats_game_round_trips_its_memory():
    import random

    rnd = random.Random(4)
    kept: set[str] = set()
    g = Game.new(load_ruleset("stats_mafia"), 4, [PlayerSpec(f"P{i}", DEAL, DEAL) for i in range(15)])
    for _ in range(24):
        if g.state.over:
            break
        for p in g.living():
            acts = g.legal_actions(p.pid)
            if acts:
                a = rnd.choice(acts)
                with contextlib.suppress(ActionError):  # a refusal: this test is about the memory
                    g.send_pm(p.pid, rnd.randrange(15), "письмо")
                with contextlib.suppress(ActionError):
                    g.submit(p.pid, a.key, rnd.sample(a.targets, min(a.ability.targets, len(a.targets))), a.any_option(rnd), via=a.via)
        g.resolve()
        d = json.loads(json.dumps(g.to_dict()))
        assert Game.from_dict(g.rules, d).to_dict() == d
        kept |= set(d["memo"].get("stats_mafia", {}))
    assert kept, "the game remembered nothing: the round trip proved nothing"
