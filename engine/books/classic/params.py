"""The parameters of what the classic mafia registers: engine/registry_params.py."""

from __future__ import annotations

from ...registry_params import MAJORITY, PEACE, VOTE_COMMON, P, Params, declare, teams_param

declare("impl", {
    "classic_kill": Params({"team": P(bool, False, "the team's kill: one a night for the whole team"),
                            "unprotectable": P(bool, False, "no protection stops it (a hitman's kill)")}, "kills unless protected"),
    "classic_check": Params({"guilty": teams_param(["mafia"], "the teams the check calls guilty"),
                             "appears_innocent": P(list[str], [], "roles that look innocent", "role")},
                            "learns whether the target is guilty"),
})

declare("vote", {
    "plurality_lynch": Params({**VOTE_COMMON, **PEACE, "majority": MAJORITY},
                               "the classic lynch: the most votes (or a majority), no one on a tie"),
})

declare("victory", {
    "parity": Params({"town": P(str, "town", "the town's team", "team"), "threats": teams_param(["mafia"], "the teams that win at parity"),
                      "share": P(float, 0.5, "the share of the living a threat must reach")},
                     "the town wins when no threat is left; a threat when it is at least the share of the living"),
})
