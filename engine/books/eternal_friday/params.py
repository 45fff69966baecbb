"""The parameters of what Eternal Friday (seed 002) registers: engine/registry_params.py."""

from __future__ import annotations

from typing import Literal

from ...registry_params import LYNCH, P, Params, declare, stat_param

declare("impl", {
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
})

declare("vote", {
    "friday_lynch": Params(LYNCH, "Eternal Friday's lynch: the core's, its tie damage through the book's HP"),
})

declare("check", {
    "friday_not_characters": Params({"characters": P(list[str], [], "characters that may not be the target", "character")}, "whom the target may not be"),
    "friday_not_roles": Params({"roles": P(list[str], [], "roles that may not be the target", "role")}, "whom the target may not be"),
    "friday_rest": Params({"at_least": P(int, 2, "the fewest"), "ability": P(str, "option", "the ability rested")}, "a rest"),
    "friday_shot_count": Params({"stat": stat_param(None, "the stat of saved shots"), "dead_of_team": P(str | None, None, "more shots for each dead of this team", "team"),
                                 "base": P(int, 1, "the shots without saves")}, "how many shots"),
})

declare("passive", {
    "counterattack": Params({"damage": P(int, doc="damage to each attacker"), "not_in": P(str, "coma", "not while in this status", "status")}, "hits back each attacker for {damage} per attack (not while {not_in})"),
    "damage_factor": Params({"factor": P(float, doc="the share of damage taken"), "status": P(str, "hospital", "while in this status", "status")}, "takes {factor} of the damage while {status}"),
    "heal_factor": Params({"factor": P(float, doc="healing works this many times as well")}, "healing works {factor} times as well (the hospital's aside)"),
    "heal_per_death": Params({"amount": P(int, doc="HP recovered per player who died that night")}, "each morning recovers {amount} per player who died that night"),
    "health_display": Params({"words": P(list[str], ["healthy", "hospital"], "the two health words (statuses)", "status"),
                              "enter_below": P(int, 30, "shows the second word below this HP"),
                              "leave_above": P(int, 49, "shows the first again above this HP"),
                              "warn_below": P(int | None, None, "warns the player below this HP")}, "own health words ({words}): hospital below {enter_below}, out above {leave_above}"),
    "hp_report": Params(doc="learns own HP every morning"),
    "inherits": Params({"from": P(str, doc="the character whose death passes it on", ref="character"),
                        "grant": P(str | None, None, "the ability gained", "ability"),
                        "auto": P(str | None, None, "an ability used automatically every night from then on"),
                        "status": P(str | None, None, "a marker status put on"),
                        "stat": stat_param(None, "a stat taken over from the dead")}, "when {from} dies, takes {grant} / {status} / {stat}"),
    "last_stand": Params({"status": P(str, doc="the status of the last day or night", ref="status"), "hp": P(int, 100, "the HP it counts as")}, "killed, lives one more day or night with {status}"),
})
