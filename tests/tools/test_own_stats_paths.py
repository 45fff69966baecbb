"""The private notices work out the players' own stats again only for those whose part of the
state changed (``engine.resolve.notices._changed``: their base stats, modifiers, stat-moving
statuses, and with a faction bonus every member of a faction whose members' stats moved):
in the simulator's games of every shipped ruleset (factions formed, bonuses moving), each
such partial answer equals everyone's own stats worked out in full."""

from __future__ import annotations

import pytest

from altmafia.tools.simulate.table import Table, new_table
from config import load_ruleset
from engine.resolve import notices

SHIPPED = ["godfather", "council", "eternal_friday", "stats_mafia", "classic"]


@pytest.mark.parametrize("rid", SHIPPED)
def test_partial_own_stats_are_the_full_ones(rid, monkeypatch):
    rules = load_ruleset(rid, include_tests=True, files=True)
    real = notices._recompute
    partial = []

    def checked(game, old_fp, old_own, fp):
        own, pids = real(game, old_fp, old_own, fp)
        assert own == notices.own_stats(game)
        partial.append(pids is not None)
        return own, pids

    monkeypatch.setattr(notices, "_recompute", checked)
    for index in range(4):
        for policy in ("random", "greedy"):
            game, policies, rnd = new_table(rules, 3, index, None, policy)
            Table(game, policies, rnd).play(None)
    if rules.stats:
        assert any(partial)  # some change was worked out again for a few players only
    else:
        assert not partial  # without stats nothing is tracked
