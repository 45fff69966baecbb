"""The parameters of what Stats mafia (seed 003) registers: engine/registry_params.py."""

from __future__ import annotations

from ...registry_params import (
    VOTE_COMMON,
    P,
    Params,
    declare,
    stat_param,
    status_param,
    teams_param,
)

declare("impl", {
    "sm_attack": Params(doc="an attack by the difference of initiative and defense"),
    "sm_bank_save": Params(doc="saves into the bank"),
    "sm_bank_spend": Params(doc="spends from the bank"),
    "sm_bloodbath": Params(doc="the bloodbath"),
    "sm_check": Params({"initiative": P(int | None, None, "the initiative of the check")}, "a check"),
    "sm_cook": Params(doc="cooks"),
    "sm_disguise": Params({"default": P(str | None, None, "the secret role (character) shown until changed", "character")}, "a disguise"),
    "sm_escape": Params(doc="an escape"),
    "sm_guard": Params({"stat": stat_param("defense"), "delta": P(int, 4, "the change"),
                        "in_status": P(dict[str, int], {}, "another change in these statuses", "status")}, "guards"),
    "sm_indict": Params({"votes": P(int, 3, "the votes")}, "indicts"),
    "sm_investigate": Params({"active": P(int, 2, "shown for an active player"), "idle": P(int, 0, "shown for an idle one")}, "investigates"),
    "sm_loot": Params(doc="gains every ability of the dead target's open role"),
    "sm_notice": Params({"key": P(str, doc="the message key")}, "a notice"),
    "sm_poison": Params({"days": P(int, 1, "days until death")}, "poisons"),
    "sm_punish": Params({"teams": teams_param(["law"], "the teams punished")}, "punishes"),
    "sm_sabotage": Params({"delta": P(int, -2, "the change"), "mild": P(int, -1, "the change for mild roles"),
                           "mild_roles": P(list[str], [], "the secret roles (characters) hit mildly", "character")}, "sabotage"),
    "sm_shotgun": Params({"spare_teams": teams_param(["mafia"], "the teams spared")}, "the shotgun"),
    "sm_treat": Params(doc="treats"),
})

declare("step", {
    "sm_hospital_death": Params(doc="hospital deaths"),
    "sm_journalist": Params({"night_slots": P(list[str], ["night", "night_role"], "the night slots", "slot")}, "the journalist"),
    "sm_mail": Params(doc="the mail"),
    "sm_reprieve": Params(doc="reprieves"),
    "sm_start": Params({"flag": P(dict[str, str] | None, None, "a status put when a character dies ({status, character})")}, "the start"),
    "sm_upkeep": Params({"flag": P(dict[str, str] | None, None, "a status put when a character dies ({status, character})")}, "the upkeep"),
})

declare("vote", {
    "stats_prison": Params(dict(VOTE_COMMON), "the day's vote into prison"),
})

declare("victory", {
    "stats_mafia": Params({"teams": P(dict[str, list[str]], {"mafia": ["law", "maniac"], "law": ["mafia", "maniac"]},
                                      "each team and the teams it must outlive", "team")}, "Stats mafia's victories"),
})

declare("passive", {
    "random_bonus": Params({"amount": P(int, 1, "the bonus"), "stats": P(list[str], [], "the stats drawn from (none: the book's)", "stat")}, "a bonus to a stat drawn at the start, unknown even to its holder ({amount})"),
    "reprieve": Params({"status": status_param(None, "the status the player goes to (the book's prison: for the card)")}, "instead of dying at night, goes to {status} at the end of the next day"),
    "stat_per_status": Params({"stat": stat_param(), "status": status_param(doc="the status counted"), "amount": P(int, 1, "per player")}, "{amount} {stat} for each player {status}"),
    "team_contacts": Params({"team": P(str, doc="the team whose members learn one another", ref="team")}, "at the start the members of team {team} learn one another"),
    "vote_cap_against": Params({"max": P(int, 1, "the most a ballot against this player weighs")}, "every ballot against this player weighs at most {max}"),
    "vote_discount": Params({"stat": stat_param("initiative", "the stat taken off the votes against this player")}, "votes against this player are reduced by their {stat}"),
    "vote_reprieve": Params({"uses": P(int, 1, "verdicts cancelled a game")}, "the vote's verdict against this player is cancelled ({uses} per game)"),
})
