"""The parameters of what the Board of Directors (seed 001) registers: engine/registry_params.py."""

from __future__ import annotations

from ...registry_params import VOTE_COMMON, P, Params, declare, stat_param, status_param

declare("impl", {
    "prison_days": Params({"status": status_param("prison"), "stat": stat_param("vs"), "delta": P(int, -1, "the change for a day in prison")},
                          "a day in prison costs a stat"),
})

declare("vote", {
    "amnesty": Params({**VOTE_COMMON, "stat": stat_param("vs"), "weight_stat": stat_param("tv", "the stat of a ballot's weight"),
                       "status": status_param("prison", "the prisoners"), "dead_ballots": P(bool, False, "the dead vote")}, "amnesty or execution"),
})
