"""The parameters every registered behaviour takes: its name, type, default and meaning.

A ruleset names behaviour by id (``op``, ``impl``, a step's ``kind``, a vote's ``kind``, the
victory's ``kind``, a check's ``kind``) and passes it ``params``. The table here declares them,
so that the loader refuses a key the behaviour never reads (``friday_shield`` with
``factor: 0`` would protect as before), a value of the wrong type and a name that is not in the
ruleset (a team, stat, status, role or slot), and so that ``altmafia rules --reference`` lists
them. A behaviour registered without an entry here fails the test
``tests/engine/test_registry_params.py``; its module keeps reading ``params`` as before (the
defaults below are the ones it applies).

``Param.ref`` names what a value (each item of a list, each key and each value of a mapping)
must be the id of: ``stat``, ``status``, ``team``, ``role``, ``character``, ``slot``, ``step``,
``block_scope`` (a slot, ``character`` or ``role``), ``ability`` (a key ``role:<id>:<ability>`` or ``character:<id>:<ability>``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

REQUIRED: Any = type("Required", (), {"__repr__": lambda self: "required"})()

# the facts ``op: reveal`` can tell (engine.resolve.effects.op_reveal)
REVEAL_FACTS = ("character", "role", "stats", "in_faction", "hp")


@dataclass(frozen=True)
class Param:
    type: Any
    default: Any = REQUIRED
    doc: str = ""
    ref: str | None = None


@dataclass(frozen=True)
class Params:
    """The declared ``params`` of one behaviour. ``extra``: any other key is a name of
    ``extra.ref`` with a value of ``extra.type`` (``friday_regen``: a status → the amount).
    ``effect_fields``: the fields of the effect itself an op reads (``stat``, ``delta`` …),
    those it needs in ``needs``; ``min_targets``: the fewest targets it does anything with."""

    fields: dict[str, Param] = field(default_factory=dict)
    doc: str = ""
    extra: Param | None = None
    effect_fields: tuple[str, ...] = ()
    needs: tuple[str, ...] = ()
    min_targets: int = 0


def P(type_: Any, default: Any = REQUIRED, doc: str = "", ref: str | None = None) -> Param:
    return Param(type_, default, doc, ref)


def _stat(default: Any = REQUIRED, doc: str = "the stat") -> Param:
    return P(str | None if default is None else str, default, doc, "stat")


def _status(default: Any = REQUIRED, doc: str = "the status") -> Param:
    return P(str | None if default is None else str, default, doc, "status")


def _teams(default: Any = (), doc: str = "teams") -> Param:
    return P(list[str], list(default), doc, "team")


NONE = Params()
# the key a step of ``kind: impl`` names its implementation by
STEP_IMPL = {"impl": P(str, doc="the registered implementation the step runs")}

# ---- ops (the ``op`` of an effect) ------------------------------------------------------------
EFFECT_PARAMS: dict[str, Params] = {
    "stat": Params(doc="changes a stat by delta (or amount)", effect_fields=("stat", "delta", "amount", "labels"), needs=("stat",)),
    "modifier": Params({"scope": P(Literal["all", "thresholds"], "all", "what the bonus counts for: everything, or the thresholds only")},
                       doc="a timed bonus to a stat, apart from its base value", effect_fields=("stat", "delta", "until", "cycles"), needs=("stat",)),
    "block": Params({"slots": P(list[str], [], "the slots blocked, or character / role for all of that kind (empty: every action)", "block_scope")},
                    doc="the target's actions do nothing", effect_fields=("until", "cycles", "labels")),
    "protect": Params({"factor": P(float, 0.0, "the share of damage still taken (0: none)"),
                       "while": _status(None, "the protection holds only while the target has this status"),
                       "except_own_faction": P(bool, False, "does not stop actions of the target's own faction")},
                      doc="stops the actions whose labels it lists (labels; none: every action)", effect_fields=("labels", "until", "cycles")),
    "redirect": Params(doc="two targets: the first one's later actions this turn go to the second", effect_fields=("labels",), min_targets=2),
    "swap": Params(doc="two targets: whatever is aimed at one goes to the other", effect_fields=("until", "cycles", "labels"), min_targets=2),
    "borrow": Params({"slots": P(list[str], [], "the slots of another member's actions it may perform", "slot"),
                      "any_phase": P(bool, False, "the borrowed action may be of another phase")},
                     doc="performs another member's action (used through via)"),
    "end_phase": Params(doc="ends the day or the night the moment it is announced"),
    "poison": Params(doc="poisons: death after cycles (default: the setting poison_cycles) unless cured", effect_fields=("cycles", "labels")),
    "cure": Params(doc="takes a status off (default: the poison)", effect_fields=("status",)),
    "heal": Params(doc="adds amount to the HP stat", effect_fields=("stat", "amount")),
    "damage": Params(doc="takes amount off the HP stat, less a protection's factor", effect_fields=("stat", "amount", "labels")),
    "status": Params(doc="puts a status on", effect_fields=("status", "until", "cycles", "labels"), needs=("status",)),
    "kill": Params(doc="kills", effect_fields=("labels",)),
    "reveal": Params({"tell_target": P(bool, False, "the target learns that it was checked")},
                     doc=f"tells the actor a fact of each target (fact: {', '.join(REVEAL_FACTS)})", effect_fields=("fact", "labels")),
    "game_length": Params(doc="moves the last day of the game by delta", effect_fields=("delta",), needs=("delta",)),
    "message": Params(doc="sends the target the text", effect_fields=("text",), needs=("text",)),
    "gm_task": Params(doc="a task for the GM, who decides what happens"),
    "impl": Params(doc="a registered implementation (impl) with its own params", effect_fields=("impl",), needs=("impl",)),
}

# ---- implementations (``op: impl`` and ``kind: impl`` steps) ----------------------------------
_slots = P(list[str], [], "slots", "slot")
IMPL_PARAMS: dict[str, Params] = {
    # Godfather's Legacy and the Board of Directors
    "agent_network": Params({"stat": _stat("tv", "the stat the agents read")}, "learns who has the most of a stat"),
    "baptism": Params({"status": _status("absent", "the status of being away")}, "sends the target away from the game"),
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
    "faction_share": Params({"of": _stat("vo", "the stat shared"), "percent": P(int, 50, "the share, in percent")},
                            "gives the faction a share of a stat"),
    "faction_watch": Params(doc="watches a faction's moves"),
    "forbid_action": Params(doc="takes the chosen action (the option names its slot) away for the game"),
    "freeze_factions": Params(doc="no one joins or leaves a faction for a while"),
    "gather_gossip": Params({"slots": P(list[str], ["character_day", "character_night"], "the slots the gossip is about", "slot")},
                            "learns the actions of these slots"),
    "grant_abilities": Params({"source": P(Literal["character", "role"], "character", "whose abilities are granted"),
                               "cycles": P(int | None, None, "for how many cycles (none: the game)"),
                               "slots": _slots, "replace": P(Literal["role"] | None, None, "role: the granted ones replace the actor's role abilities")},
                              "grants the actor the target's abilities"),
    "guess_author": Params(doc="guesses the author of an anonymous post"),
    "info_features": Params({}, "the day's end: PM taps and the Tactician's feature"),
    "masquerade": Params({"cycles": P(int, 1, "how many cycles")}, "shows another face to checks"),
    "open_letters": Params({"count": P(int, 3, "how many letters")}, "reads letters"),
    "prayers": Params({"status": _status("no_vote_strength", "the status put"), "stats": P(list[str], ["vo", "tv"], "the stats", "stat")},
                      "prayers (docs/rules/godfather.md)"),
    "prison_days": Params({"status": _status("prison"), "stat": _stat("vs"), "delta": P(int, -1, "the change for a day in prison")},
                          "a day in prison costs a stat"),
    "prison_jail": Params(doc="puts the target in prison at once"),
    "prison_release": Params(doc="lets the target out of prison at once"),
    "prison_sentence": Params({"stat": _stat(None, "the stat read (default: the prison vote's)"),
                               "prison_below": P(int | None, None, "prison when the stat is below this"),
                               "execution_below": P(int | None, None, "execution when the stat is below this")},
                              "jails (or executes) the target at the end of the day"),
    "prison_swap": Params({"stat": _stat("vo")}, "swaps places with a prisoner"),
    "punish_actors": Params(doc="punishes those who acted on the faction"),
    "reflect_for_faction": Params({"stats": P(list[str], ["vo", "tv"], "the stats watched", "stat"), "divisor": P(int, 2, "the share reflected (1/divisor)")},
                                  "hits back who lowers a faction member's stats"),
    "reroute_faction": Params(doc="reroutes every action aimed at the faction to random outsiders"),
    "swap_stat_changes": Params(doc="the two targets' net changes of a stat (the effect's stat) of the past cycle change places"),
    "take_faction_stat": Params(doc="takes a stat from the faction"),
    "timed_stat": Params(doc="a stat change for a while"),
    # classic
    "classic_kill": Params({"team": P(bool, False, "the team's kill: one a night for the whole team")}, "kills unless protected"),
    "classic_check": Params({"guilty": _teams(["mafia"], "the teams the check calls guilty"),
                             "appears_innocent": P(list[str], [], "roles that look innocent", "role")},
                            "learns whether the target is guilty"),
    # Eternal Friday
    "friday_attack": Params({"damage": P(int | None, None, "the damage"), "share_of_hp": P(int | None, None, "the damage is the target's HP divided by this"),
                             "damage_by_use": P(list[int] | None, None, "the damage of each use in turn"),
                             "nagan": P(bool, False, "the boss's revolver (remembered for the report)")}, "an attack"),
    "friday_auto_meditation": Params({}, "the automatic meditation"),
    "friday_begin": Params({}, "the night's start"),
    "friday_contract": Params({"restore": P(int, 15, "HP restored")}, "the contract"),
    "friday_copy_role": Params({"permanent": P(bool, False, "for the rest of the game"), "raise": P(list[str], [], "stats raised", "stat")}, "copies a role"),
    "friday_cultist": Params({"max": P(int, 33, "the most"), "share": P(int, 3, "the share")}, "the cultist"),
    "friday_day_damage": Params({"damage": P(int, doc="the damage")}, "a day's damage"),
    "friday_day_heal": Params({"amount": P(int, doc="HP healed"), "hospital_amount": P(int, doc="HP healed in hospital")}, "a day's healing"),
    "friday_diagnostics": Params(doc="learns the target's health"),
    "friday_dossier": Params({"peaceful": P(list[str], [], "characters shown as peaceful", "character")}, "the dossier"),
    "friday_dying_revenge": Params({}, "the dying sensei's revenge"),
    "friday_extra_votes": Params({"damage": P(int, doc="the damage")}, "extra votes"),
    "friday_fog": Params(doc="the fog"),
    "friday_guess_kill": Params(doc="kills on a right guess"),
    "friday_heal": Params({"amount": P(int, doc="HP healed")}, "heals"),
    "friday_health": Params({"start": P(bool, False, "at the start of the game")}, "the health words"),
    "friday_hunt": Params(doc="the hunt"),
    "friday_maniac_knife": Params({"damage": P(int, doc="the damage"), "hospital_damage": P(int, doc="the damage from hospital"),
                                   "notice": P(str | None, None, "the character who notices", "character")}, "the maniac's knife"),
    "friday_mask": Params(doc="the mask"),
    "friday_meditation": Params(doc="the meditation"),
    "friday_message": Params(doc="the boss's message"),
    "friday_morning": Params({"saves": P(str | None, None, "the stat of saved shots", "stat")}, "the morning"),
    "friday_note": Params(doc="a choice another step reads"),
    "friday_observe": Params({"abilities": P(list[str], doc="the abilities watched", ref="ability")}, "observes abilities"),
    "friday_psycho_knife": Params({"self_share": P(float, doc="the share of the psycho's own HP"), "hunted_share": P(float, doc="the share of the hunted one's HP"),
                                   "notice": P(str | None, None, "the character who notices", "character")}, "the psycho's knife"),
    "friday_regen": Params({}, "the night's recovery in a status", extra=P(int, doc="HP recovered a night in this status", ref="status")),
    "friday_rest": Params({"ability": P(str, doc="the ability rested", ref="ability")}, "rests an ability"),
    "friday_revenge": Params({"damage": P(int, 45, "the damage")}, "revenge"),
    "friday_settings": Params({}, "the book's settings at the start"),
    "friday_shadow": Params(doc="shadows the target"),
    "friday_shield": Params({"to": P(Literal["self"] | None, None, "self: shields the actor instead of the target")},
                            "a quarter of each attack tonight is stopped; shields do not add up"),
    "friday_shots": Params({"damage": P(int, doc="the damage of a shot"), "unreducible_over": P(int | None, None, "more shots than this cannot be reduced"),
                            "saves": P(str | None, None, "the stat of saved shots", "stat")}, "shots"),
    "friday_squeeze": Params({"amount": P(int, doc="the amount")}, "squeezes"),
    "friday_surveillance": Params(doc="surveillance"),
    "friday_trap": Params({"damage": P(int, doc="the damage")}, "a trap"),
    "friday_trap_trigger": Params({}, "the traps go off"),
    "friday_wiretap": Params(doc="the wiretap"),
    # Stats mafia
    "sm_attack": Params(doc="an attack by the difference of initiative and defense"),
    "sm_bank_save": Params(doc="saves into the bank"),
    "sm_bank_spend": Params(doc="spends from the bank"),
    "sm_bloodbath": Params(doc="the bloodbath"),
    "sm_check": Params({"initiative": P(int | None, None, "the initiative of the check")}, "a check"),
    "sm_cook": Params(doc="cooks"),
    "sm_disguise": Params({"default": P(str | None, None, "the secret role (character) shown until changed", "character")}, "a disguise"),
    "sm_escape": Params(doc="an escape"),
    "sm_guard": Params({"stat": _stat("defense"), "delta": P(int, 4, "the change"),
                        "in_status": P(dict[str, int], {}, "another change in these statuses", "status")}, "guards"),
    "sm_indict": Params({"votes": P(int, 3, "the votes")}, "indicts"),
    "sm_investigate": Params({"active": P(int, 2, "shown for an active player"), "idle": P(int, 0, "shown for an idle one")}, "investigates"),
    "sm_loot": Params(doc="gains every ability of the dead target's open role"),
    "sm_notice": Params({"key": P(str, doc="the message key")}, "a notice"),
    "sm_poison": Params({"days": P(int, 1, "days until death")}, "poisons"),
    "sm_punish": Params({"teams": _teams(["law"], "the teams punished")}, "punishes"),
    "sm_sabotage": Params({"delta": P(int, -2, "the change"), "mild": P(int, -1, "the change for mild roles"),
                           "mild_roles": P(list[str], [], "the secret roles (characters) hit mildly", "character")}, "sabotage"),
    "sm_shotgun": Params({"spare_teams": _teams(["mafia"], "the teams spared")}, "the shotgun"),
    "sm_treat": Params(doc="treats"),
}

# ---- built-in steps (a step's ``kind``) -------------------------------------------------------
STEP_PARAMS: dict[str, Params] = {
    "actions": Params({"order": P(Literal["seat", "ops", "random", ""] | None, None, "the order of the step's actions"),
                       "ops": P(list[str], [], "with order: ops, the ops in their order")}, "runs the submitted actions of this step"),
    "bands": Params(doc="puts the statuses of the stats' bands"),
    "factions": Params(doc="the night's faction moves: invitations, leaving, overthrows"),
    "impl": Params(STEP_IMPL, "a registered implementation (its own params beside impl)"),
    "messages": Params(doc="delivers the resolve's private news"),
    "poison_death": Params(doc="the poisoned whose time is up die"),
    "prison_thresholds": Params({"stat": _stat("vo"), "jail_at": P(int | None, None, "prison at this value or below"),
                                 "release_at": P(int | None, None, "release at this value or above"),
                                 "every_tick": P(bool, False, "checked after every period, not only at the day's end")},
                                "jails and releases by a stat's thresholds"),
    "regen": Params({"stat": _stat(doc="the stat recovered"), "amount": P(int, doc="recovered each time"),
                     "status": _status(None, "only in this status")}, "recovery"),
    "sm_hospital_death": Params(doc="hospital deaths"),
    "sm_journalist": Params({"night_slots": P(list[str], ["night", "night_role"], "the night slots", "slot")}, "the journalist"),
    "sm_mail": Params(doc="the mail"),
    "sm_reprieve": Params(doc="reprieves"),
    "sm_start": Params({"flag": P(dict[str, str] | None, None, "a status put when a character dies ({status, character})")}, "the start"),
    "sm_upkeep": Params({"flag": P(dict[str, str] | None, None, "a status put when a character dies ({status, character})")}, "the upkeep"),
    "team_factions": Params({"teams": _teams([], "the teams made factions"), "event": P(str, "faction.team", "the message key of the news")},
                            "makes each team a faction at the start"),
    "vote": Params(doc="counts the vote of this step"),
}

# ---- vote kinds ------------------------------------------------------------------------------
VOTE_COMMON = {
    "withdraw": P(bool, False, "a ballot may be withdrawn"),
    "changes": P(int | None, None, "how many times a ballot may be changed a day"),
    "changes_per_game": P(int | None, None, "how many times a ballot may be changed a game"),
}
_peace = {"peace": P(bool, False, "offers «for peace»"), "tie_damage": P(int, 0, "damage to each tied player")}
_prison_vote = {
    "stat": _stat("vo", "the stat that lists the candidates"), "strength_stat": _stat("tv", "the stat of the vote's strength"),
    "strength_step": P(int | None, 5, "each this many of the strength stat is one more vote (none: every ballot weighs 1)"),
    "penalty": P(dict[str, int], {}, "stat changes for not voting", "stat"), "against_all": P(bool, False, "offers «against all»"),
    "dead_ballots": P(bool, False, "the dead vote"), "count_reads": P(Literal["true", "public"] | None, None, "true: the true stats decide"),
    "tie_stats": P(list[str], [], "stats that break a tie", "stat"),
    "deprived_status": _status("no_vote_strength", "the status of a ballot without strength"),
    "taken_status": _status("vote_taken", "the status of a strength taken by another"),
}
VOTE_PARAMS: dict[str, Params] = {
    "lynch": Params({**VOTE_COMMON, **_peace}, "the day's lynch: the most votes"),
    "plurality_lynch": Params({**VOTE_COMMON, **_peace}, "the classic lynch: the most votes, no one on a tie"),
    "friday_lynch": Params({**VOTE_COMMON, **_peace, "tie_damage": P(int, 50, "damage to each tied player")}, "Eternal Friday's lynch"),
    "prison": Params({**VOTE_COMMON, **_prison_vote}, "the prison vote"),
    "amnesty": Params({**VOTE_COMMON, "stat": _stat("vs"), "weight_stat": _stat("tv", "the stat of a ballot's weight"),
                       "status": _status("prison", "the prisoners"), "dead_ballots": P(bool, False, "the dead vote")}, "amnesty or execution"),
    "stats_prison": Params(dict(VOTE_COMMON), "the day's vote into prison"),
}

# ---- victories -------------------------------------------------------------------------------
VICTORY_PARAMS: dict[str, Params] = {
    "none": Params(doc="no one wins: the GM decides"),
    "highest_stat": Params({"stat": _stat("vo", "the stat compared"), "tie_stat": _stat("tv", "the stat that breaks a tie"),
                            "no_win_status": P(list[str], [], "no one with these statuses wins", "status"),
                            "members_win": P(Literal["lesser"] | None, None, "lesser: a winning faction's members win a lesser victory")},
                           "the most of a stat at the end"),
    "last_team": Params({"team_from": P(Literal["character", "role"], "character", "where a player's team is read"),
                         "ignore_teams": _teams([], "teams that do not count"), "solo_teams": _teams([], "each member of these wins alone")},
                        "the last team standing"),
    "parity": Params({"town": P(str, "town", "the town's team", "team"), "threats": _teams(["mafia"], "the teams that win at parity"),
                      "share": P(float, 0.5, "the share of the living a threat must reach")},
                     "the town wins when no threat is left; a threat when it is at least the share of the living"),
    "stats_mafia": Params({"teams": P(dict[str, list[str]], {"mafia": ["law", "maniac"], "law": ["mafia", "maniac"]},
                                      "each team and the teams it must outlive", "team")}, "Stats mafia's victories"),
}

# ---- submission checks -----------------------------------------------------------------------
CHECK_PARAMS: dict[str, Params] = {
    "friday_not_characters": Params({"characters": P(list[str], [], "characters that may not be the target", "character")}, "whom the target may not be"),
    "friday_not_roles": Params({"roles": P(list[str], [], "roles that may not be the target", "role")}, "whom the target may not be"),
    "friday_rest": Params({"at_least": P(int, 2, "the fewest"), "ability": P(str, "option", "the ability rested")}, "a rest"),
    "friday_shot_count": Params({"stat": _stat(None, "the stat of saved shots"), "dead_of_team": P(str | None, None, "more shots for each dead of this team", "team"),
                                 "base": P(int, 1, "the shots without saves")}, "how many shots"),
}

TABLES: dict[str, dict[str, Params]] = {
    "effect": EFFECT_PARAMS, "impl": IMPL_PARAMS, "step": STEP_PARAMS, "vote": VOTE_PARAMS,
    "victory": VICTORY_PARAMS, "check": CHECK_PARAMS,
}
