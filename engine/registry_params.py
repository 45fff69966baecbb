"""The parameters every registered behaviour takes: its name, type, default and meaning.

A ruleset names behaviour by id (``op``, ``impl``, a step's ``kind``, a vote's ``kind``, the
victory's ``kind``, a check's ``kind``) and passes it ``params``. The table here declares them,
so that the loader refuses a key the behaviour never reads (``friday_shield`` with
``factor: 0`` would protect as before), a value of the wrong type and a name that is not in the
ruleset (a team, stat, status, role or slot), and so that ``altmafia rules --reference`` lists
them. A behaviour registered without an entry here fails the test
``tests/engine/test_registry_params.py``; its module keeps reading ``params`` as before (the
defaults below are the ones it applies). The shared core's are here; each book declares its own
in ``engine/books/<book>/params.py`` (:func:`declare`), as it registers them.

``Param.ref`` names what a value (each item of a list, each key and each value of a mapping)
must be the id of: ``stat``, ``status``, ``team``, ``role``, ``character``, ``slot``, ``step``,
``block_scope`` (a slot, ``character`` or ``role``), ``ability`` (a key ``role:<id>:<ability>`` or ``character:<id>:<ability>``),
``ability_impl`` (an implementation some ability of the ruleset uses).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

REQUIRED: Any = type("Required", (), {"__repr__": lambda self: "required"})()

# the facts ``op: reveal`` can tell (engine.resolve.effects.op_reveal)
REVEAL_FACTS = ("character", "role", "stats", "in_faction", "hp", "team")


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


def stat_param(default: Any = REQUIRED, doc: str = "the stat") -> Param:
    return P(str | None if default is None else str, default, doc, "stat")


def status_param(default: Any = REQUIRED, doc: str = "the status") -> Param:
    return P(str | None if default is None else str, default, doc, "status")


def teams_param(default: Any = (), doc: str = "teams") -> Param:
    return P(list[str], list(default), doc, "team")


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
                       "while": status_param(None, "the protection holds only while the target has this status"),
                       "except_own_faction": P(bool, False, "does not stop actions of the target's own faction")},
                      doc="stops the actions whose labels it lists (labels; none: every action)", effect_fields=("labels", "until", "cycles")),
    "redirect": Params(doc="two targets: the first one's later actions this turn go to the second", effect_fields=("labels",), min_targets=2),
    "guard": Params({"mode": P(Literal["take", "strike", "both"], "take",
                               "take: the guard is hit in the target's place; strike: the guard strikes the attacker down "
                               "and the target is spared; both: hit in its place and strikes the attacker down")},
                    doc="a bodyguard: the attacks on the target whose labels it lists (labels; none: kill, attack) meet the guard first",
                    effect_fields=("labels", "until", "cycles")),
    "swap": Params(doc="two targets: whatever is aimed at one goes to the other", effect_fields=("until", "cycles", "labels"), min_targets=2),
    "borrow": Params({"slots": P(list[str], [], "the slots of another member's actions it may perform", "slot"),
                      "any_phase": P(bool, False, "the borrowed action may be of another phase")},
                     doc="performs another member's action (used through via)"),
    "end_phase": Params(doc="ends the day or the night the moment it is announced"),
    "poison": Params(doc="poisons: death after cycles (default: the setting poison_cycles) unless cured", effect_fields=("cycles", "labels")),
    "cure": Params(doc="takes a status off (default: the poison)", effect_fields=("status",)),
    "heal": Params(doc="adds amount to the HP stat", effect_fields=("stat", "amount")),
    "damage": Params(doc="takes amount off the HP stat, less a protection's factor", effect_fields=("stat", "amount", "labels")),
    "status": Params({"from": P(Literal["night"] | None, None, "night: in force only from the first night after the resolve («в ближайшую ночь»)")},
                     doc="puts a status on", effect_fields=("status", "until", "cycles", "labels"), needs=("status",)),
    "kill": Params(doc="kills", effect_fields=("labels",)),
    "reveal": Params({"tell_target": P(bool, False, "the target learns that it was checked")},
                     doc=f"tells the actor a fact of each target (fact: {', '.join(REVEAL_FACTS)})", effect_fields=("fact", "labels")),
    "game_length": Params(doc="moves the last day of the game by delta", effect_fields=("delta",), needs=("delta",)),
    "message": Params(doc="sends the target the text", effect_fields=("text",), needs=("text",)),
    "gm_task": Params(doc="a task for the GM, who decides what happens"),
    "impl": Params(doc="a registered implementation (impl) with its own params", effect_fields=("impl",), needs=("impl",)),
}

# ---- implementations (``op: impl`` and ``kind: impl`` steps) ----------------------------------
IMPL_PARAMS: dict[str, Params] = {}  # the books' (engine/books/<book>/params.py)

# ---- built-in steps (a step's ``kind``) -------------------------------------------------------
STEP_PARAMS: dict[str, Params] = {
    "actions": Params({"order": P(Literal["seat", "ops", "random", ""] | None, None, "the order of the step's actions"),
                       "ops": P(list[str], [], "with order: ops, the ops in their order")}, "runs the submitted actions of this step"),
    "bands": Params(doc="puts the statuses of the stats' bands"),
    "factions": Params(doc="the night's faction moves: invitations, leaving, overthrows"),
    "impl": Params(STEP_IMPL, "a registered implementation (its own params beside impl)"),
    "messages": Params(doc="delivers the resolve's private news"),
    "poison_death": Params(doc="the poisoned whose time is up die"),
    "regen": Params({"stat": stat_param(doc="the stat recovered"), "amount": P(int, doc="recovered each time"),
                     "status": status_param(None, "only in this status")}, "recovery"),
    "team_factions": Params({"teams": teams_param([], "the teams made factions"), "event": P(str, "faction.team", "the message key of the news")},
                            "makes each team a faction at the start"),
    "vote": Params(doc="counts the vote of this step"),
}

# ---- vote kinds ------------------------------------------------------------------------------
VOTE_COMMON = {
    "withdraw": P(bool, False, "a ballot may be withdrawn"),
    "changes": P(int | None, None, "how many times a ballot may be changed a day"),
    "changes_per_game": P(int | None, None, "how many times a ballot may be changed a game"),
}
PEACE = {"peace": P(bool, False, "offers «for peace»"), "tie_damage": P(int, 0, "damage to each tied player")}
#: a lynch that hangs only with more than half of the votes: ``cast`` (of the weighted votes cast),
#: ``living`` (of the weighted votes of every living player who may vote), ``none`` (the most votes)
MAJORITY = P(Literal["none", "cast", "living"], "none",
             "none: the most votes hang; cast / living: only more than half of the votes cast / of the living voters' votes")
LYNCH = {
    **VOTE_COMMON, **PEACE,
    "majority": MAJORITY,
    "unreducible": P(bool, False, "no protection reduces the tie's damage"),
    "hang": P(Literal["kill", "hp"], "kill", "kill: the hanged dies at once; hp: loses all HP, the ruleset's HP rule decides"),
    "plain_against": P(str | None, None, "a ballot against a player protected against this label weighs 1, takes no extra votes"),
    "extra_votes": P(str | None, None, "the impl of an ability whose number adds votes to its user's ballot", "ability_impl"),
}
VOTE_PARAMS: dict[str, Params] = {
    "lynch": Params(LYNCH, "the day's lynch: the most votes"),
}

# ---- victories -------------------------------------------------------------------------------
VICTORY_PARAMS: dict[str, Params] = {
    "none": Params(doc="no one wins: the GM decides"),
    "highest_stat": Params({"stat": stat_param("vo", "the stat compared"), "tie_stat": stat_param("tv", "the stat that breaks a tie"),
                            "no_win_status": P(list[str], [], "no one with these statuses wins", "status"),
                            "members_win": P(Literal["lesser"] | None, None, "lesser: a winning faction's members win a lesser victory")},
                           "the most of a stat at the end"),
    "last_team": Params({"team_from": P(Literal["character", "role"], "character", "where a player's team is read"),
                         "ignore_teams": teams_param([], "teams that do not count"), "solo_teams": teams_param([], "each member of these wins alone")},
                        "the last team standing"),
}

# ---- submission checks -----------------------------------------------------------------------
CHECK_PARAMS: dict[str, Params] = {
}

# ---- passive kinds (a role's or character's ``passives[].kind``) -------------------------------
# Every kind with its meaning and its params: the core's here, the books' in their params.py
# (``declare("passive", …)``); a ruleset names no other kind (engine.ruleset.PASSIVE_KINDS). ``acts_in_<status>`` / ``wins_in_<status>``
# stand for every status and take no params.
PASSIVE_PARAMS: dict[str, Params] = {
    # ---- read by the core --------------------------------------------------------------------
    "anon_quota": Params({"extra": P(int, 0, "more anonymous posts a day")}, "more anonymous posts a day ({extra})"),
    "appears_as": Params({"team": P(str, doc="the team a check of alignment sees", ref="team")}, "a check of alignment sees team {team} (the miller: mafia)"),
    "extra_action": Params({"slots": P(list[str], [], "the slots of the extra action", "slot")}, "one more ordinary action alongside the turn's ({slots})"),
    "faction_max": Params({"size": P(int, doc="the most members of a faction this player leads")}, "a faction led by this player may have {size} members"),
    "faction_rules": Params({
        "leave_wait": P(int | None, None, "cycles before leaving a faction (none: the ruleset's)"),
        "kick_wait": P(int | None, None, "cycles before kicking a member (none: the ruleset's)"),
        "own_kick_wait": P(int | None, None, "cycles before kicking a member one invited (none: the ruleset's)"),
        "led_wait": P(int | None, None, "cycles a faction led by this player waits (none: the ruleset's)"),
        "protected_for": P(int | None, None, "cycles this player may not be kicked after joining"),
        "unlimited_kicks": P(bool, False, "may kick any number of members"),
        "tell_attempts": P(bool, False, "learns the attempts made on the faction"),
        "leave_bonus": P(dict[str, int], {}, "stat changes for each own leaving", "stat"),
        "kick_bonus": P(dict[str, int], {}, "stat changes for each member kicked from own faction", "stat"),
    }, "own waits, kicks and bonuses in factions"),
    "hidden_bonus": Params({"amount": P(int, doc="the bonus"), "stat": stat_param(None, "the stat (none: a pick of choices)"),
                            "choices": P(list[str], [], "the stats the player picks from", "stat"),
                            "scope": P(str, "all", "what the bonus counts for (a modifier's scope)")}, "a hidden bonus to a stat ({stat} or a choice of {choices}, {amount})"),
    "invites_per_night": Params({"count": P(int, doc="invitations a night")}, "{count} invitations a night"),
    "leave_and_join": Params(doc="may leave a faction and join another in one night"),
    "overthrow_by": Params({"stat": stat_param(doc="a stat compared besides the ruleset's")}, "may compare {stat} when overthrowing a leader"),
    "pm_quota": Params({"extra": P(int, 0, "more private messages a day")}, "more PMs a day ({extra})"),
    "protection": Params({"against": P(list[str], [], "the labels it stops (*: every one)"),
                          "over": P(int | None, None, "only changes bigger than this"),
                          "except_own_faction": P(bool, False, "does not stop the own faction's actions"),
                          "while": status_param(None, "holds only while the player has this status"),
                          "factor": P(float, 0.0, "the share of damage still taken")}, "a lasting protection ({against})"),
    "regen": Params({"amount": P(int, doc="recovered each time"), "status": status_param(None, "in this status")}, "own recovery in a status"),
    "two_factions": Params(doc="may be in two factions"),
    "untargetable": Params({"slots": P(list[str], [], "others' abilities of these slots cannot target the player", "slot"),
                            "labels": P(list[str], [], "nor others' abilities with these labels")}, "cannot be the target of others' abilities of {slots} or labelled {labels}"),
    "victory": Params({"factions": P(list[int], [], "how many factions the player may be in to win (highest_stat)"),
                       "as_member": P(bool, False, "wins with the faction without leading it (highest_stat)"),
                       "last_alive": P(bool, False, "wins as the last one alive, out of prison (stats mafia)"),
                       "half_at_end": P(bool, False, "a half victory alive at the end, out of prison (stats mafia)")}, "own victory conditions"),
    "vote_weight": Params({"weight": P(float, doc="the ballot counts this many times what the vote counts it"),
                           "against_self": P(float, 0.0, "a lynch: taken off the votes against oneself"),
                           "not_in": status_param(None, "a lynch: against_self not while in this status (none: the coma)")},
                          "a ballot counts {weight} times what the vote counts it; a lynch: takes {against_self} off the votes against oneself"),
    "vote_bonus": Params({"amount": P(int, 1, "the invisible bonus to the ballot")}, "invisible vote strength bonus"),
    "wins_if_lynched": Params(doc="wins the moment a vote puts them to death (a lynch, an execution); the game goes on"),
    "acts_in_<status>": Params(doc="acts while in the status: faction moves from it, and it does not count as unable to act"),
    "wins_in_<status>": Params(doc="may win while in the status (a victory's no_win_status does not bar this player)"),
}


def declare(table: str, entries: dict[str, Params]) -> None:
    """A book declares the parameters of what it registers (``engine/books/<book>/params.py``)."""
    twice = set(entries) & set(TABLES[table])
    if twice:
        raise ValueError(f"{table} {sorted(twice)} declared twice")
    TABLES[table].update(entries)


TABLES: dict[str, dict[str, Params]] = {
    "effect": EFFECT_PARAMS, "impl": IMPL_PARAMS, "step": STEP_PARAMS, "vote": VOTE_PARAMS,
    "victory": VICTORY_PARAMS, "check": CHECK_PARAMS, "passive": PASSIVE_PARAMS,
}
