"""The parameters of what Godfather's Legacy (seed 000) registers: engine/registry_params.py."""

from __future__ import annotations

from typing import Literal

from ...registry_params import VOTE_COMMON, P, Params, declare, stat_param, status_param

PRISON_VOTE = {
    "stat": stat_param("vo", "the stat that lists the candidates"), "strength_stat": stat_param("tv", "the stat of the vote's strength"),
    "strength_step": P(int | None, 5, "each this many of the strength stat is one more vote (none: every ballot weighs 1)"),
    "penalty": P(dict[str, int], {}, "stat changes for not voting", "stat"), "against_all": P(bool, False, "offers «against all»"),
    "dead_ballots": P(bool, False, "the dead vote"), "count_reads": P(Literal["true", "public"] | None, None, "true: the true stats decide"),
    "tie_stats": P(list[str], [], "stats that break a tie", "stat"),
    "deprived_status": status_param("no_vote_strength", "the status of a ballot without strength"),
    "taken_status": status_param("vote_taken", "the status of a strength taken by another"),
}

declare("impl", {
    "agent_network": Params({"stat": stat_param("tv", "the stat the agents read")}, "learns who has the most of a stat"),
    "baptism": Params({"status": status_param("absent", "the status of being away")}, "sends the target away from the game"),
    "blackmail": Params(doc="blackmail (docs/rules/godfather.md)"),
    "bribe_courier": Params(doc="reads the target's private messages of the day"),
    "close_watch": Params(doc="learns whom the target acted on"),
    "compare_views": Params(doc="compares two players' stats"),
    "counter_strike": Params(doc="answers the actions aimed at the actor"),
    "debtor_secrets": Params(doc="learns the members of every faction"),
    "dissolve_faction": Params(doc="dissolves the target's faction"),
    "double_stat": Params(doc="doubles a stat change"),
    "eavesdrop": Params({"count": P(int, 5, "how many private messages")}, "reads private messages"),
    "end_day_query": Params(doc="learns the last day of the game"),
    "exclude_from_faction": Params(doc="expels the target from their faction"),
    "execution_shield": Params(doc="saves the target from execution"),
    "faction_share": Params({"of": stat_param("vo", "the stat shared"), "percent": P(int, 50, "the share, in percent")},
                            "gives the faction a share of a stat"),
    "faction_watch": Params(doc="watches a faction's moves"),
    "forbid_action": Params(doc="takes the chosen action (the option names its slot) away for the game"),
    "freeze_factions": Params(doc="no one joins or leaves a faction for a while"),
    "gather_gossip": Params({"slots": P(list[str], ["character_day", "character_night"], "the slots the gossip is about", "slot")},
                            "learns the actions of these slots"),
    "grant_abilities": Params({"source": P(Literal["character", "role"], "character", "whose abilities are granted"),
                               "cycles": P(int | None, None, "for how many cycles (none: the game)"),
                               "slots": P(list[str], [], "slots", "slot"), "replace": P(Literal["role"] | None, None, "role: the granted ones replace the actor's role abilities")},
                              "grants the actor the target's abilities"),
    "guess_author": Params(doc="guesses the author of an anonymous post"),
    "info_features": Params({}, "the day's end: PM taps and the Tactician's feature"),
    "masquerade": Params({"cycles": P(int, 1, "how many cycles")}, "shows another face to checks"),
    "open_letters": Params({"count": P(int, 3, "how many letters")}, "reads letters"),
    "prayers": Params({"status": status_param("no_vote_strength", "the status put"), "stats": P(list[str], ["vo", "tv"], "the stats", "stat")},
                      "prayers (docs/rules/godfather.md)"),
    "prison_jail": Params(doc="puts the target in prison at once"),
    "prison_release": Params(doc="lets the target out of prison at once"),
    "prison_sentence": Params({"stat": stat_param(None, "the stat read (default: the prison vote's)"),
                               "prison_below": P(int | None, None, "prison when the stat is below this"),
                               "execution_below": P(int | None, None, "execution when the stat is below this")},
                              "jails (or executes) the target at the end of the day"),
    "prison_swap": Params({"stat": stat_param("vo")}, "swaps places with a prisoner"),
    "punish_actors": Params(doc="punishes those who acted on the faction"),
    "reflect_for_faction": Params({"stats": P(list[str], ["vo", "tv"], "the stats watched", "stat"), "divisor": P(int, 2, "the share reflected (1/divisor)")},
                                  "hits back who lowers a faction member's stats"),
    "reroute_faction": Params(doc="reroutes every action aimed at the faction to random outsiders"),
    "swap_stat_changes": Params(doc="the two targets' net changes of a stat (the effect's stat) of the past cycle change places"),
    "take_faction_stat": Params(doc="takes a stat from the faction"),
    "timed_stat": Params(doc="a stat change for a while"),
})

declare("step", {
    "prison_thresholds": Params({"stat": stat_param("vo"), "jail_at": P(int | None, None, "prison at this value or below"),
                                 "release_at": P(int | None, None, "release at this value or above"),
                                 "every_tick": P(bool, False, "checked after every period, not only at the day's end")},
                                "jails and releases by a stat's thresholds"),
})

declare("vote", {
    "prison": Params({**VOTE_COMMON, **PRISON_VOTE}, "the prison vote"),
})

declare("passive", {
    "pm_leak": Params({"publish": P(int, 1, "private messages published a day"), "learn": P(int, 3, "private messages learnt a day")}, "publishes and learns PMs of the day"),
    "sealed_pms": Params(doc="PMs cannot be read by abilities"),
    "undetectable": Params(doc="actions cannot be detected"),
})
