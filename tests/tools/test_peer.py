"""The bench's peer comparison (altmafia/tools/peer.py) compares like with like: the same
vanilla night resolves to the same deaths in ours (classic, the peer's order of actions) and in
calder/mafia. Skipped where the peer (the optional `bench` extra) is not installed."""

from __future__ import annotations

import pytest

from altmafia.tools import peer

pytestmark = pytest.mark.skipif(not peer.peer_available(), reason="the peer engine is not installed: pip install -e '.[bench]'")


@pytest.mark.parametrize("n", [8, 16, 32])
def test_the_same_night_kills_the_same_players_in_both_engines(n):
    differ = []
    for seed in range(60):
        mine, theirs = peer.deaths(peer.plan(n, seed), seed)
        if mine != theirs:
            differ.append((seed, mine, theirs))
    assert not differ, differ


def test_the_table_and_plan():
    assert peer.table(8) == ["mafioso", "doctor", "cop", "roleblocker"] + ["villager"] * 4
    night = peer.plan(16, 3)
    assert len(night.roles) == 16 and sum(r == "mafioso" for r in night.roles) == 2
    assert sum(night.roles[a] == "mafioso" for a, _ in night.targets) == 1  # one kill for the team
    assert all(a != t for a, t in night.targets)
