"""The schema of a ruleset: everything a rule book states, as validated data.

A ruleset file in ``config/rulesets/`` is loaded by :mod:`config.loader` and checked here
with pydantic. Simple behaviour is a parameterised effect (``op``); a unique ability names a
registered implementation (``op: impl``), and an ability the book leaves undefined is a GM
task (``op: gm_task``).
"""

from __future__ import annotations

from functools import cached_property
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

PhaseKind = Literal["day", "night"]


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=False)


class Names(Strict):
    ru: str
    en: str


class Band(Strict):
    """A stat range that puts a public status on its owner (seed 002's health words)."""

    min: int | None = None
    max: int | None = None
    status: str


class StatDef(Strict):
    id: str
    abbr: Names
    names: Names
    visibility: Literal["public", "secret", "hidden"] = "public"
    min: int | None = None
    max: int | None = None
    default: int = 0
    # when bounds are applied: after every resolution step (seed 000: the net change of one
    # step is clamped) or only once the whole resolve is over (seed 002: HP may dip below 0)
    clamp: Literal["step", "resolve"] = "step"
    bands: list[Band] = []


class StatusDef(Strict):
    id: str
    names: Names
    public: bool = True
    # slots a player with this status may not use ("*" = every slot)
    blocks_slots: list[str] = []
    can_vote: bool = True
    can_be_targeted: bool = True
    # may send and receive private messages and post anonymously (seed 000: away at a baptism)
    can_communicate: bool = True
    dead: bool = False
    # a player with this status is removed from play (for victory, votes and targets)
    out_of_play: bool = False
    # lasting stat changes while the status holds (seed 003: hospital −2 to every stat)
    stat_modifiers: dict[str, int] = {}
    # statuses this one ends when it is put on (seed 003: the dead leave hospital and prison)
    clears: list[str] = []
    # the holder's private news of a resolve (and the GM's messages): ``hold`` keeps them and
    # delivers them, oldest first, once no such status holds (seed 002's coma); ``drop``
    # discards them (seed 002: «персонажам, которые умерли в эту ночь ... ничего не сообщается»).
    # Read by the built-in step ``messages`` and by ``Game.gm_message``.
    messages: Literal["deliver", "hold", "drop"] = "deliver"


class Period(Strict):
    id: str
    kind: PhaseKind
    start: str  # "HH:MM" local time
    end: str


class Calendar(Strict):
    timezone: str = "Europe/Moscow"
    # one cycle (a game day and night) in order; the first period starts a new day number
    periods: list[Period]
    days: int = Field(7, ge=1)  # the game ends after this many cycles unless moved
    min_days: int = 1
    max_days: int = 60

    @property
    def ticks_per_cycle(self) -> int:
        return len(self.periods)


class Requirement(Strict):
    """One availability condition of a slot or an ability."""

    in_faction: bool | None = None
    stat: str | None = None
    at_least: int | None = None
    below: int | None = None
    not_status: list[str] = []
    status: list[str] = []


class SlotDef(Strict):
    id: str
    names: Names
    phase: Literal["day", "night", "any"]
    self_target: bool = False
    counts_as_action: bool = True
    cooldown_cycles: int = 0
    requires: list[Requirement] = []
    # a role slot is read from the role; a character slot from the character
    source: Literal["role", "character"] = "role"


class Selector(Strict):
    """Filter over players for effects that hit many (``to: all``)."""

    stat: str | None = None
    lt: int | None = None
    gt: int | None = None
    ge: int | None = None
    le: int | None = None
    status: str | None = None
    not_status: str | None = None
    # "same": shares a faction with the actor; "other": does not; "any_faction": is in one
    faction: Literal["same", "other", "any_faction", "none"] | None = None


Until = Literal["tick", "day", "cycle", "night", "game"]


class Effect(Strict):
    op: str
    to: Literal["target", "self", "all", "others", "own_faction", "target_faction"] = "target"
    where: Selector | None = None
    stat: str | None = None
    delta: int | None = None
    amount: int | None = None
    status: str | None = None
    fact: str | None = None
    until: Until | None = None
    cycles: int | None = None
    labels: list[str] = []
    impl: str | None = None
    params: dict[str, Any] = {}
    text: Names | None = None


class NumberArg(Strict):
    """A number the player names when using the ability (e.g. which anonymous post)."""

    min: int = 1
    max: int | None = None


class CheckDef(Strict):
    kind: str
    params: dict[str, Any] = {}


class AbilityDef(Strict):
    id: str
    name: Names
    slot: str
    targets: int = Field(1, ge=0, le=8)
    self_target: bool | None = None  # None: the slot decides
    step: str | None = None  # None: derived from the first effect's op
    cooldown_cycles: int | None = None  # None: the slot decides
    uses_per_game: int | None = None
    counts_as_action: bool | None = None
    unblockable: bool = False
    labels: list[str] = []
    target_where: Selector | None = None
    requires: list[Requirement] = []
    effects: list[Effect] = []
    options: dict[str, list[Effect]] = {}
    number: NumberArg | None = None  # the option is a number in this range instead
    description: Names | None = None
    # the rule book gives this ability no effect: it is a GM task on purpose, not a gap
    book_undefined: bool = False
    # abilities of one player sharing a lane exclude each other in a turn (seed 003: «если не
    # использует в неё ...»); None: the slot's rule (the turn's action, or a lane of its own)
    lane: str | None = None
    # once submitted it can be neither withdrawn nor replaced (seed 003: «в любой момент»)
    irrevocable: bool = False
    # never twice on the same target (``target``), or with the same option (``target_option``)
    once_per: Literal["target", "target_option"] | None = None
    # aimed at the dead instead of the living (seed 003: Мародёр)
    dead_targets: bool = False
    # takes ``targets`` up to ``max_targets`` targets (seed 002: the pistol's saved shots, the
    # shuriken); ``unlimited``: no cap of its own, the ability's checks say how many (seed 002:
    # «максимальное количество не ограничено»); ``repeat_targets``: one player may be named more
    # than once (each is a shot)
    max_targets: Annotated[int, Field(ge=1, le=64)] | Literal["unlimited"] | None = None
    repeat_targets: bool = False
    # registered submission checks (``engine.registry.CHECKS``) for what plain data cannot say:
    # whom a target may not be, how many targets, which option is open now
    checks: list[CheckDef] = []

    @model_validator(mode="after")
    def _effects_or_options(self) -> AbilityDef:
        if self.effects and self.options:
            raise ValueError("an ability has either effects or options, not both")
        if not self.effects and not self.options:
            raise ValueError("an ability needs effects or options (use op: gm_task if undefined)")
        if self.number and self.options:
            raise ValueError("an ability takes a number or named options, not both")
        return self

    def takes_targets(self, n: int) -> bool:
        """Whether ``n`` targets fit this ability: ``targets`` up to ``max_targets``."""
        if self.max_targets == "unlimited":
            return n >= self.targets
        return self.targets <= n <= (self.max_targets or self.targets)

    def all_effects(self, option: str | None) -> list[Effect]:
        if self.options:
            return self.options.get(option or "", [])
        return self.effects


# Every passive kind the engine reads (``Game.passives(player, kind)``), so that a ruleset with
# a misspelt feature fails at load instead of silently doing nothing.
PASSIVE_KINDS = {
    "anon_quota": "more anonymous posts a day ({extra})",
    "counterattack": "hits back each attacker for {damage} per attack (not while {not_in})",
    "damage_factor": "takes {factor} of the damage while {status}",
    "extra_action": "one more ordinary action alongside the turn's ({slots})",
    "faction_max": "a faction led by this player may have {size} members",
    "faction_rules": "own waits, kicks and bonuses in factions",
    "heal_factor": "healing works {factor} times as well (the hospital's aside)",
    "heal_per_death": "each morning recovers {amount} per player who died that night",
    "health_display": "own health words ({words}): hospital below {enter_below}, out above {leave_above}",
    "hidden_bonus": "a hidden bonus to a stat ({stat} or a choice of {choices}, {amount})",
    "hp_report": "learns own HP every morning",
    "inherits": "when {from} dies, takes {grant} / {status} / {stat}",
    "invites_per_night": "{count} invitations a night",
    "last_stand": "killed, lives one more day or night with {status}",
    "leave_and_join": "may leave a faction and join another in one night",
    "overthrow_by": "may compare {stat} when overthrowing a leader",
    "pm_leak": "publishes and learns PMs of the day",
    "pm_quota": "more PMs a day ({extra})",
    "protection": "a lasting protection ({against})",
    "random_bonus": "a bonus to a stat drawn at the start, unknown even to its holder ({amount})",
    "regen": "own recovery in a status",
    "reprieve": "instead of dying at night, goes to {status} at the end of the next day",
    "sealed_pms": "PMs cannot be read by abilities",
    "stat_per_status": "{amount} {stat} for each player {status}",
    "team_contacts": "at the start the members of team {team} learn one another",
    "two_factions": "may be in two factions",
    "undetectable": "actions cannot be detected",
    "untargetable": "cannot be the target of others' abilities of {slots} or labelled {labels}",
    "victory": "own victory conditions",
    "vote_bonus": "invisible vote strength bonus",
    "vote_cap_against": "every ballot against this player weighs at most {max}",
    "vote_discount": "votes against this player are reduced by their {stat}",
    "vote_reprieve": "the vote's verdict against this player is cancelled ({uses} per game)",
    "vote_weight": "a ballot weighs {weight}; takes {against_self} off the votes against oneself",
}
PASSIVE_PREFIXES = ("acts_in_", "wins_in_")


class Passive(Strict):
    """A feature that is not an action (a character's особенность)."""

    kind: str
    params: dict[str, Any] = {}
    text: Names | None = None

    @field_validator("kind")
    @classmethod
    def _known(cls, v: str) -> str:
        if v not in PASSIVE_KINDS and not v.startswith(PASSIVE_PREFIXES):
            raise ValueError(f"unknown passive kind {v!r}; known: {', '.join(sorted(PASSIVE_KINDS))}, acts_in_<status>, wins_in_<status>")
        return v


class RoleDef(Strict):
    id: str
    name: Names
    stats: dict[str, int] = {}
    team: str | None = None
    abilities: list[AbilityDef] = []
    passives: list[Passive] = []
    # how many of this character a dealt deck holds (seed 003: two Криминалист, three Мирный житель)
    copies: int = Field(1, ge=1)


class StepDef(Strict):
    id: str
    # "actions" runs the submitted actions of this step; anything else is a built-in step
    kind: str = "actions"
    params: dict[str, Any] = {}


class VoteDef(Strict):
    id: str
    names: Names
    kind: str  # registered vote implementation: "lynch", "prison"
    step: str  # the resolution step that counts it
    params: dict[str, Any] = {}


class PenaltyDef(Strict):
    mode: Literal["none", "penalty", "random_action"] = "none"
    stats: dict[str, int] = {}


class Quotas(Strict):
    pm_per_day: int | None = None
    anon_per_day: int | None = None


class FactionRules(Strict):
    enabled: bool = False
    min_size: int = 2
    max_size: int = 3
    invites_per_night: int = 1
    leave_after_cycles: int = 2
    bonus_stat: str | None = None
    bonus_step: int = 5
    bonus_negative: bool = False
    # who may invite: free players only, or leaders of a faction that has room too
    leader_invites: bool = True
    # a leader's invitations of a night are also limited by the room the faction has at
    # nightfall (seed 001: «если во фракции к началу ночи 4 человека ... не может, если 3 — одно»)
    invites_within_room: bool = False
    invite_requires: list[Requirement] = []
    # a new leader after the old one leaves: the most of these stats, in order, then random
    rank_stats: list[str] = []
    overthrow_stat: str | None = None
    overthrow_win: dict[str, int] = {}
    overthrow_lose: dict[str, int] = {}
    overthrow_fail: dict[str, int] = {}
    # members may submit one another's actions, for now or for a later phase (seed 002: «Якудза
    # и Мафия могут давать тайные действия своих отсутствующих игроков»): ``Game.submit(by=)``
    orders: bool = False


class VictoryDef(Strict):
    kind: str  # registered: "highest_stat", "last_team", "none"
    params: dict[str, Any] = {}


class Table(Strict):
    default: int = 13
    min: int = 1
    max: int = 64
    distinct_roles: bool = True  # one player per public role
    # the character dealt to the seats beyond the deck (seed 002: «6-8 мирных жителей»)
    fill: str | None = None
    # the smallest practice table: a game with the setting ``practice_table: true`` may have
    # from ``practice_min`` to ``min - 1`` seats (seed 002: «нужно минимум 18 игроков», so a
    # smaller table is the GM's explicit choice); None: no practice table
    practice_min: int | None = Field(None, ge=1)

    @model_validator(mode="after")
    def _practice_below_min(self) -> Table:
        if self.practice_min is not None and self.practice_min > self.min:
            raise ValueError(f"table.practice_min ({self.practice_min}) must not exceed table.min ({self.min})")
        return self

    def seats(self, practice: bool = False) -> tuple[int, int]:
        """The smallest and the largest table: the book's, or with ``practice`` the practice one."""
        return (self.practice_min if practice and self.practice_min is not None else self.min), self.max


class Ruleset(Strict):
    id: str
    names: Names
    book: str | None = None
    stats: list[StatDef]
    statuses: list[StatusDef] = []
    calendar: Calendar
    table: Table = Table()
    slots: list[SlotDef]
    # ``start``: built-in steps run once when the game is created (seed 003: Контакты)
    steps: dict[Literal["day", "night", "start"], list[StepDef]]
    roles: list[RoleDef]
    characters: list[RoleDef] = []
    votes: list[VoteDef] = []
    inactivity: PenaltyDef = PenaltyDef()
    quotas: Quotas = Quotas()
    factions: FactionRules = FactionRules()
    victory: VictoryDef = VictoryDef(kind="none")
    actions_per_turn: int = 1
    # which stat value thresholds read: "true" (with hidden bonuses) or "base"
    thresholds_read: Literal["true", "base"] = "true"
    # a registered mail policy (engine.registry.MAIL) that takes over PMs and anonymous posts
    # (seed 003: anonymous letters delivered at the next phase); None: PMs are relayed at once
    mail: str | None = None
    settings: dict[str, Annotated[Any, Field()]] = {}

    @field_validator("stats")
    @classmethod
    def _unique_stats(cls, v: list[StatDef]) -> list[StatDef]:
        ids = [s.id for s in v]
        if len(ids) != len(set(ids)):
            raise ValueError("stat ids must be unique")
        return v

    @model_validator(mode="after")
    def _cross_check(self) -> Ruleset:
        stat_ids = {s.id for s in self.stats}
        slot_ids = {s.id for s in self.slots}
        status_ids = {s.id for s in self.statuses}
        step_ids = {k: {s.id for s in v} for k, v in self.steps.items()}
        problems: list[str] = []
        for group in ("roles", "characters"):
            seen: set[str] = set()
            for r in getattr(self, group):
                if r.id in seen:
                    problems.append(f"{group}: duplicate id {r.id!r}")
                seen.add(r.id)
                for st in r.stats:
                    if st not in stat_ids:
                        problems.append(f"{group}.{r.id}.stats: unknown stat {st!r}")
                for ab in r.abilities:
                    where = f"{group}.{r.id}.abilities.{ab.id}"
                    if ab.slot not in slot_ids:
                        problems.append(f"{where}.slot: unknown slot {ab.slot!r}")
                        continue
                    slot = self.slot(ab.slot)
                    kinds = ["day", "night"] if slot.phase == "any" else [slot.phase]
                    steps = {ab.step} if ab.step else {default_step(ab, o) for o in ab.options or [None]}
                    for k in kinds:
                        for step in sorted(steps):
                            if step not in step_ids.get(k, set()):
                                problems.append(f"{where}.step: {step!r} is not a {k} step")
                    for opt, effs in [("", ab.effects), *ab.options.items()]:
                        for e in effs:
                            if e.stat and e.stat not in stat_ids:
                                problems.append(f"{where}{'.' + opt if opt else ''}: unknown stat {e.stat!r}")
                            if e.status and e.status not in status_ids:
                                problems.append(f"{where}: unknown status {e.status!r}")
        for s in self.statuses:
            for c in s.clears:
                if c not in status_ids:
                    problems.append(f"statuses.{s.id}.clears: unknown status {c!r}")
        for v in self.votes:
            if not any(v.step in s for s in step_ids.values()):
                problems.append(f"votes.{v.id}.step: unknown step {v.step!r}")
        if problems:
            raise ValueError("; ".join(problems))
        return self

    # lookups -------------------------------------------------------------------------
    # by id or by a name (ru/en): the first entry that has it, from an index built on first use
    @cached_property
    def lookup_index(self) -> dict[str, tuple[list[Any], int, dict[str, Any]]]:
        return {}

    def _find(self, group: str, key: str, names: str) -> Any:
        items = self.__dict__[group]
        built = self.lookup_index.get(group)
        if built is None or built[0] is not items or built[1] != len(items):
            idx: dict[str, Any] = {}
            for x in items:
                n = getattr(x, names)
                for k in (x.id, n.ru, n.en):
                    idx.setdefault(k, x)
            built = self.lookup_index[group] = (items, len(items), idx)
        try:
            return built[2][key]
        except (KeyError, TypeError):
            raise KeyError(key) from None

    def stat(self, key: str) -> StatDef:
        return self._find("stats", key, "abbr")

    def status(self, key: str) -> StatusDef:
        return self._find("statuses", key, "names")

    def slot(self, key: str) -> SlotDef:
        return self._find("slots", key, "names")

    def role(self, key: str) -> RoleDef:
        return self._find("roles", key, "name")

    def character(self, key: str) -> RoleDef:
        return self._find("characters", key, "name")


DEFAULT_STEP_BY_OP = {
    "block": "blocks",
    "redirect": "redirects",
    "protect": "protections",
    "stat": "effects",
    "reveal": "checks",
    "poison": "poisoning",
    "heal": "healing",
    "cure": "healing",
    "damage": "damage",
    "status": "effects",
    "gm_task": "effects",
    "game_length": "effects",
    "message": "effects",
    "kill": "effects",
}


def default_step(ab: AbilityDef, option: str | None = None) -> str:
    """The step of an ability's first effect; with options, of the chosen option's first."""
    effects = ab.effects or ab.options.get(option or "") or next(iter(ab.options.values()), [])
    if not effects:
        return "effects"
    return DEFAULT_STEP_BY_OP.get(effects[0].op, "effects")
