"""The schema of a ruleset: everything a rule book states, as validated data.

A ruleset file in ``config/rulesets/`` is loaded by :mod:`config.loader` and checked here
with pydantic. Simple behaviour is a parameterised effect (``op``); a unique ability names a
registered implementation (``op: impl``), and an ability the book leaves undefined is a GM
task (``op: gm_task``).
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import Annotated, Any, Literal
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    field_validator,
    model_validator,
)

from . import registry
from .errors import GameError
from .registry_params import PASSIVE_PARAMS
from .settings import GameSettings


@dataclass(frozen=True)
class Problem:
    """One thing wrong in a ruleset: where (``roles.don.abilities.hit.slot``), a message key of
    the loader's table (``config/messages/<lang>.variants.yaml``: ``problem.<key>``) with its
    ``args``, and the English ``text``. ``name`` and ``known``: an unknown name and the names
    it may be (the loader adds «did you mean» and the known values)."""

    where: str
    key: str
    text: str
    args: dict[str, Any] = field(default_factory=dict)
    name: str | None = None
    known: tuple[str, ...] = ()


class RulesetProblems(ValueError):
    """The problems a validator found, one line each (``where: text``) and as :class:`Problem`."""

    def __init__(self, problems: list[Problem]) -> None:
        self.problems = problems
        super().__init__("\n".join(f"{p.where}: {p.text}" if p.where else p.text for p in problems))


def refuse(key: str, template: str, *, name: Any = None, known: Any = (), **args: Any) -> RulesetProblems:
    """One problem of the entry being validated (the loader puts its path in front)."""
    return RulesetProblems([Problem("", key, template.format(**args), {k: str(v) for k, v in args.items()}, None if name is None else str(name),
                                    tuple(sorted(str(k) for k in known)))])


PhaseKind = Literal["day", "night"]

# Bounds of the numbers a ruleset may hold. Each is far above anything a rule book uses and low
# enough that a typo cannot make a table that cannot be dealt, a game that never ends, a loop
# that never finishes or a number that does not fit a database column (SQLite: 64 bits).
STAT_LIMIT = 1_000_000  # stat values, changes and thresholds (the books: two digits, HP 100)
MAX_DAYS = 366  # a game of a year at most (the books: 9 to 60 days)
MAX_CYCLES = MAX_DAYS  # cooldowns and durations in cycles: never longer than the longest game
MAX_PERIODS = 24  # periods in one cycle (the books: 2 to 5)
MAX_TABLE = 200  # the bot opens a channel per player and a Discord server holds 500 channels
MAX_QUOTA = 10_000  # private messages or anonymous posts a player may send a day (the books: 1 to 30)
MAX_USES = 1_000  # uses of an ability in one game (the books: 1 or 2)
MAX_ACTIONS = 16  # actions in one turn (the books: 1)


def _shown(v: int) -> str:
    text = str(v)
    return text if len(text) <= 15 else f"{text[:6]}… (a number of {len(text)} digits)"


def bounded(lo: int, hi: int, code: str, why: str) -> AfterValidator:
    """An integer in ``lo..hi``; the error says the range and why it is there (``code``: the
    loader's text of the reason, ``problem.out_of_range.<code>``)."""

    def check(v: int) -> int:
        if not lo <= v <= hi:
            raise refuse(f"out_of_range.{code}", "{value} is out of range: use {lo} to {hi} (" + why + ")", value=_shown(v), lo=lo, hi=hi)
        return v

    return AfterValidator(check)


StatValue = Annotated[int, bounded(-STAT_LIMIT, STAT_LIMIT, "stat", "a stat value or change; the books use two digits")]
Cycles = Annotated[int, bounded(0, MAX_CYCLES, "cycles", f"cycles; a game lasts at most {MAX_DAYS} days")]
Days = Annotated[int, bounded(1, MAX_DAYS, "days", "days of a game, at most a year")]
TableSize = Annotated[int, bounded(1, MAX_TABLE, "table", "players; the bot opens a channel per player and a Discord server holds 500 channels")]
Quota = Annotated[int, bounded(0, MAX_QUOTA, "quota", "messages a player may send a day")]
Uses = Annotated[int, bounded(0, MAX_USES, "uses", "uses in one game")]

_HHMM = re.compile(r"^([01][0-9]|2[0-3]):[0-5][0-9]$")


def _clock_time(v: str) -> str:
    if not _HHMM.match(v):
        raise refuse("not_a_time", "{value!r} is not a time of day: write HH:MM from 00:00 to 23:59", value=v)
    return v


ClockTime = Annotated[str, AfterValidator(_clock_time)]


def _min_max(lo: int | None, hi: int | None, what: str) -> None:
    if lo is not None and hi is not None and lo > hi:
        raise refuse("min_over_max", "{what}: min {lo} is greater than max {hi}", what=what, lo=lo, hi=hi)


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=False)


class Names(Strict):
    ru: str
    en: str


class Band(Strict):
    """A stat range that puts a public status on its owner (seed 002's health words)."""

    min: StatValue | None = None
    max: StatValue | None = None
    status: str

    @model_validator(mode="after")
    def _order(self) -> Band:
        _min_max(self.min, self.max, "a band")
        return self


class StatDef(Strict):
    id: str
    abbr: Names
    names: Names
    visibility: Literal["public", "secret", "hidden"] = "public"
    min: StatValue | None = None
    max: StatValue | None = None
    default: StatValue = 0
    # when bounds are applied: after every resolution step (seed 000: the net change of one
    # step is clamped) or only once the whole resolve is over (seed 002: HP may dip below 0)
    clamp: Literal["step", "resolve"] = "step"
    bands: list[Band] = []
    # what the stat means, in the book's words (the role card)
    text: Names | None = None

    @model_validator(mode="after")
    def _order(self) -> StatDef:
        _min_max(self.min, self.max, f"stat {self.id}")
        if self.min is not None and self.default < self.min or self.max is not None and self.default > self.max:
            raise refuse("default_outside", "stat {id}: the default {default} is outside min..max ({lo}..{hi})",
                         id=self.id, default=self.default, lo=self.min, hi=self.max)
        return self


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
    stat_modifiers: dict[str, StatValue] = {}
    # statuses this one ends when it is put on (seed 003: the dead leave hospital and prison)
    clears: list[str] = []
    # statuses this one says more about, told as one fact when both come or go together: put
    # on together, only this one is announced («в Тюрьме до конца игры», not also «в Тюрьме»);
    # taken off together, only the covered one («больше нет статуса «в Тюрьме»», once)
    covers: list[str] = []
    # the holder's private news of a resolve (and the GM's messages): ``hold`` keeps them and
    # delivers them, oldest first, once no such status holds (seed 002's coma); ``drop``
    # discards them (seed 002: «персонажам, которые умерли в эту ночь ... ничего не сообщается»).
    # Read by the built-in step ``messages`` and by ``Game.gm_message``.
    messages: Literal["deliver", "hold", "drop"] = "deliver"
    # while in force, a check of alignment (``engine.resolve.appearance.seen_team``: the classic check) sees the
    # holder as of this team (a framer's «подставить»: ``mafia``; a cover: ``town``)
    appears_as: str | None = None
    # what the shared core asks this status for (``Ruleset.status_of_kind``), so that the core
    # names no status id: ``poison`` the poison that ``op: poison`` puts, the ``poison_death``
    # step reads and a death or ``op: cure`` takes off; ``prison`` no faction moves from it;
    # ``no_pm`` no private messages (seed 000's «лишён приватов»)
    kind: Literal["poison", "prison", "no_pm"] | None = None


class Period(Strict):
    id: str
    kind: PhaseKind
    start: ClockTime  # "HH:MM" local time
    end: ClockTime
    # the period's name on the role card's calendar (None: the kind's name, «День» / «Ночь»)
    names: Names | None = None


class Calendar(Strict):
    timezone: str = "Europe/Moscow"
    # one cycle (a game day and night) in order; the first period starts a new day number
    periods: list[Period]
    days: Days = 7  # the game ends after this many cycles unless moved
    min_days: Days = 1
    max_days: Days = 60

    @field_validator("timezone")
    @classmethod
    def _zone(cls, v: str) -> str:
        try:
            ZoneInfo(v)
        except (ZoneInfoNotFoundError, ValueError):
            raise refuse("unknown_zone", "{value!r} is not a known time zone (for example Europe/Moscow)", value=v) from None
        return v

    @field_validator("periods")
    @classmethod
    def _some_periods(cls, v: list[Period]) -> list[Period]:
        if not v:
            raise refuse("no_periods", "a calendar needs at least one period (a day or a night)")
        if len(v) > MAX_PERIODS:
            raise refuse("too_many_periods", "{n} periods in one cycle: at most {most}", n=len(v), most=MAX_PERIODS)
        return v

    @model_validator(mode="after")
    def _order(self) -> Calendar:
        if self.min_days > self.max_days:
            raise refuse("min_days_over_max", "min_days {lo} is greater than max_days {hi}", lo=self.min_days, hi=self.max_days)
        if not self.min_days <= self.days <= self.max_days:
            raise refuse("days_outside", "days {days} must lie within min_days..max_days ({lo}..{hi})",
                         days=self.days, lo=self.min_days, hi=self.max_days)
        ids = [p.id for p in self.periods]
        if len(ids) != len(set(ids)):
            raise refuse("period_ids", "period ids must be unique")
        return self

    @property
    def ticks_per_cycle(self) -> int:
        return len(self.periods)


class Requirement(Strict):
    """One availability condition of a slot or an ability."""

    in_faction: bool | None = None
    stat: str | None = None
    at_least: StatValue | None = None
    below: StatValue | None = None
    not_status: list[str] = []
    status: list[str] = []


class SlotDef(Strict):
    id: str
    names: Names
    phase: Literal["day", "night", "any"]
    self_target: bool = False
    counts_as_action: bool = True
    cooldown_cycles: Cycles = 0
    requires: list[Requirement] = []
    # a role slot is read from the role; a character slot from the character
    source: Literal["role", "character"] = "role"


class Selector(Strict):
    """Filter over players for effects that hit many (``to: all``)."""

    stat: str | None = None
    lt: StatValue | None = None
    gt: StatValue | None = None
    ge: StatValue | None = None
    le: StatValue | None = None
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
    delta: StatValue | None = None
    amount: StatValue | None = None
    status: str | None = None
    fact: str | None = None
    until: Until | None = None
    cycles: Cycles | None = None
    labels: list[str] = []
    impl: str | None = None
    params: dict[str, Any] = {}
    text: Names | None = None


class NumberArg(Strict):
    """A number the player names when using the ability (e.g. which anonymous post)."""

    min: StatValue = 1
    max: StatValue | None = None  # None: no upper bound
    step: Annotated[int, bounded(1, STAT_LIMIT, "number_step", "the step between the numbers one may name")] = 1

    @model_validator(mode="after")
    def _order(self) -> NumberArg:
        _min_max(self.min, self.max, "number")
        return self


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
    cooldown_cycles: Cycles | None = None  # None: the slot decides
    uses_per_game: Uses | None = None
    counts_as_action: bool | None = None
    unblockable: bool = False
    labels: list[str] = []
    target_where: Selector | None = None
    requires: list[Requirement] = []
    effects: list[Effect] = []
    options: dict[str, list[Effect]] = {}
    number: NumberArg | None = None  # the option is a number in this range instead
    description: Names | None = None
    # what the ability does, in the book's words (Russian) and their translation (the role
    # card, /help, GM tasks: altmafia.text.cards.ability_text)
    text: Names | None = None
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
            raise refuse("effects_and_options", "an ability has either effects or options, not both")
        if not self.effects and not self.options:
            raise refuse("no_effects", "an ability needs effects or options (use op: gm_task if undefined)")
        if self.number and self.options:
            raise refuse("number_and_options", "an ability takes a number or named options, not both")
        if isinstance(self.max_targets, int) and self.max_targets < self.targets:
            raise refuse("max_targets_low", "max_targets {most} is fewer than targets {targets}", most=self.max_targets, targets=self.targets)
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
# a misspelt feature fails at load instead of silently doing nothing: the kinds of
# ``engine.registry_params.PASSIVE_PARAMS`` (each with its meaning and declared params).
class _PassiveKinds(Mapping[str, str]):
    """Every passive kind and its meaning: a view of ``PASSIVE_PARAMS`` (the books declare
    theirs as they load, after this module)."""

    def __getitem__(self, kind: str) -> str:
        if kind.endswith("<status>"):
            raise KeyError(kind)
        return PASSIVE_PARAMS[kind].doc

    def __iter__(self) -> Iterator[str]:
        return (k for k in PASSIVE_PARAMS if not k.endswith("<status>"))

    def __len__(self) -> int:
        return sum(1 for _ in self)


PASSIVE_KINDS: Mapping[str, str] = _PassiveKinds()
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
            raise refuse("unknown_passive", "unknown passive kind {value!r}", name=v,
                         known=[*PASSIVE_KINDS, "acts_in_<status>", "wins_in_<status>"], value=v)
        return v


class RoleDef(Strict):
    id: str
    name: Names
    stats: dict[str, StatValue] = {}
    team: str | None = None
    abilities: list[AbilityDef] = []
    passives: list[Passive] = []
    # how many of this character a dealt deck holds (seed 003: two Криминалист, three Мирный житель)
    copies: TableSize = 1
    # the role's or character's summary and passive features in the book's words (the role card)
    text: Names | None = None


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
    stats: dict[str, StatValue] = {}


class Quotas(Strict):
    pm_per_day: Quota | None = None
    anon_per_day: Quota | None = None


class FactionRules(Strict):
    enabled: bool = False
    min_size: TableSize = 2
    max_size: TableSize = 3
    invites_per_night: Annotated[int, bounded(0, MAX_TABLE, "invites", "invitations a night; no more than players at a table")] = 1
    leave_after_cycles: Cycles = 2
    bonus_stat: str | None = None
    bonus_step: Annotated[int, bounded(1, STAT_LIMIT, "bonus_step", "members for each step of the bonus")] = 5
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
    overthrow_win: dict[str, StatValue] = {}
    overthrow_lose: dict[str, StatValue] = {}
    overthrow_fail: dict[str, StatValue] = {}
    # members may submit one another's actions, for now or for a later phase (seed 002: «Якудза
    # и Мафия могут давать тайные действия своих отсутствующих игроков»): ``Game.submit(by=)``
    orders: bool = False

    @model_validator(mode="after")
    def _order(self) -> FactionRules:
        if self.min_size > self.max_size:
            raise refuse("min_size_over_max", "min_size {lo} is greater than max_size {hi}", lo=self.min_size, hi=self.max_size)
        return self


class VictoryDef(Strict):
    kind: str  # registered: "highest_stat", "last_team", "none"
    params: dict[str, Any] = {}
    # the win condition in the book's words, for everyone (the role card; a team's own: TeamDef)
    text: Names | None = None


class TeamDef(Strict):
    """A team that roles and characters name (``RoleDef.team``): its name and win condition."""

    id: str
    names: Names
    # the team's win condition in the book's words (the role card of each member)
    text: Names | None = None


class Deck(Strict):
    """The roles dealt at tables of up to ``upto`` seats: each id ``count`` times, and one card
    for each list of ``one_of``, drawn from it by the game's generator («one of these»); the
    other seats get the table's ``fill`` (the classic ruleset: a deal per table size)."""

    upto: int = Field(ge=1)
    cards: dict[str, int] = {}
    one_of: list[list[str]] = []

    @property
    def size(self) -> int:
        """How many cards the deck deals before the fill."""
        return sum(self.cards.values()) + len(self.one_of)


class Table(Strict):
    default: TableSize = 13
    min: TableSize = 1
    max: TableSize = 64
    distinct_roles: bool = True  # one player per public role
    # the character dealt to the seats beyond the deck (seed 002: «6-8 мирных жителей»)
    fill: str | None = None
    # a deal per table size (roles, repeated as counted): the first deck whose ``upto`` fits
    decks: list[Deck] = []

    def deck(self, seats: int) -> Deck | None:
        return next((d for d in sorted(self.decks, key=lambda d: d.upto) if seats <= d.upto), None)

    @model_validator(mode="after")
    def _order(self) -> Table:
        if not self.min <= self.default <= self.max:
            raise refuse("table_default_outside", "default {default} must lie within min..max ({lo}..{hi})",
                         default=self.default, lo=self.min, hi=self.max)
        return self

    # the smallest practice table: a game with the setting ``practice_table: true`` may have
    # from ``practice_min`` to ``min - 1`` seats (seed 002: «нужно минимум 18 игроков», so a
    # smaller table is the GM's explicit choice); None: no practice table
    practice_min: int | None = Field(None, ge=1)

    @model_validator(mode="after")
    def _practice_below_min(self) -> Table:
        if self.practice_min is not None and self.practice_min > self.min:
            raise refuse("practice_min_high", "table.practice_min ({practice}) must not exceed table.min ({lo})", practice=self.practice_min, lo=self.min)
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
    teams: list[TeamDef] = []
    votes: list[VoteDef] = []
    inactivity: PenaltyDef = PenaltyDef()
    quotas: Quotas = Quotas()
    factions: FactionRules = FactionRules()
    # required: a ruleset without one would end every game with no winner (say kind: none on purpose)
    victory: VictoryDef
    actions_per_turn: Annotated[int, bounded(0, MAX_ACTIONS, "actions", "actions in one turn; the books allow one")] = 1
    # which stat value thresholds read: "true" (with hidden bonuses) or "base"
    thresholds_read: Literal["true", "base"] = "true"
    # a registered mail policy (engine.registry.MAIL) that takes over PMs and anonymous posts
    # (seed 003: anonymous letters delivered at the next phase); None: PMs are relayed at once
    mail: str | None = None
    # what the public tally of a counted vote shows: ``shown`` the weighted totals, ``hidden``
    # the ballots only (how many each choice got, as the thread shows them) with the weighted
    # totals in the GM trace, ``auto`` hidden when a weight can derive from something secret (a
    # secret stat, a secret character's vote bonus, a secret status): engine/votes.py
    public_vote_weights: Literal["auto", "shown", "hidden"] = "auto"
    # the game settings (engine/settings.py: every key, its type, default and meaning)
    settings: dict[str, Annotated[Any, Field()]] = {}

    @cached_property
    def game_settings(self) -> GameSettings:
        """The ruleset's own settings, typed (a game's merged ones: ``World.settings``)."""
        return GameSettings.model_validate(self.settings)

    @field_validator("settings")
    @classmethod
    def _known_settings(cls, v: dict[str, Any]) -> dict[str, Any]:
        """Every key is a setting of ``GameSettings`` with a value of its type (one problem
        each, keyed for the loader's texts); ``early_end`` names a registered early end."""
        problems: list[Problem] = []
        try:
            GameSettings.model_validate(v)
        except ValidationError as exc:
            for err in exc.errors():
                key = ".".join(str(x) for x in err["loc"])
                if err["type"] == "extra_forbidden":
                    problems.append(Problem(key, "unknown_setting", "unknown setting", {}, key, tuple(sorted(GameSettings.model_fields))))
                else:
                    ctx = {k: str(x) for k, x in (err.get("ctx") or {}).items() if k != "error"}
                    problems.append(Problem(key, f"pydantic.{err['type']}", err["msg"], ctx))
        name = v.get("early_end")
        if name is not None and registry.EARLY_ENDS and name not in registry.EARLY_ENDS:
            problems.append(Problem("early_end", "unknown_early_end", f"unknown early end {name!r}", {"what": "early end", "name": str(name)},
                                    str(name), tuple(sorted(registry.EARLY_ENDS))))
        if problems:
            raise RulesetProblems(problems)
        return v

    @field_validator("stats")
    @classmethod
    def _unique_stats(cls, v: list[StatDef]) -> list[StatDef]:
        ids = [s.id for s in v]
        if len(ids) != len(set(ids)):
            raise refuse("stat_ids", "stat ids must be unique")
        return v

    @model_validator(mode="after")
    def _cross_check(self) -> Ruleset:
        """Every id a ruleset refers to exists, every named behaviour is registered and takes the
        parameters it is given, and the calendar and the steps fit each other
        (:mod:`engine.ruleset_check`, registered in ``registry.RULESET_CHECKS``): one
        :class:`Problem` each."""
        problems = [p for check in registry.RULESET_CHECKS for p in check(self)]
        if problems:
            raise RulesetProblems(problems)
        return self

    def _resolves(self, group: str, key: Any, names: str) -> Any:
        try:
            return self._find(group, str(key), names)
        except KeyError:
            return None

    # lookups -------------------------------------------------------------------------
    # by id or by a name (ru/en): the first entry that has it, from an index built on first use
    @cached_property
    def lookup_index(self) -> dict[str, tuple[list[Any], int, dict[str, Any]]]:
        return {}

    def model_copy(self, *, update: dict[str, Any] | None = None, deep: bool = False) -> Ruleset:
        """A copy (with ``update``) that builds its own lookup caches: the copy's roles may differ."""
        new = super().model_copy(update=update, deep=deep)
        for name in ("lookup_index", "ability_cache", "step_cache", "status_by_id", "gone_status_ids", "derived_cache",
                     "slot_by_id", "off_limits_status_ids", "secret_off_limits_status_ids", "stat_modifier_status_ids"):
            new.__dict__.pop(name, None)
        return new

    @cached_property
    def derived_cache(self) -> dict[tuple[Any, ...], Any]:
        """Facts derived from the ruleset alone, per role and character (``World.sources``,
        ``abilities``, ``passives``), filled as they are asked."""
        return {}

    @cached_property
    def slot_by_id(self) -> dict[str, SlotDef]:
        return {x.id: x for x in self.slots}

    @cached_property
    def status_by_id(self) -> dict[str, StatusDef]:
        return {x.id: x for x in self.statuses}

    @cached_property
    def gone_status_ids(self) -> frozenset[str]:
        """The statuses that take a player out: dead or out of play."""
        return frozenset(x.id for x in self.statuses if x.dead or x.out_of_play)

    @cached_property
    def off_limits_status_ids(self) -> frozenset[str]:
        """The public statuses whose holder nobody may act on (``can_be_targeted: false``)."""
        return frozenset(x.id for x in self.statuses if x.public and not x.can_be_targeted)

    @cached_property
    def secret_off_limits_status_ids(self) -> frozenset[str]:
        """The secret statuses whose holder nobody may act on (``World.secret_unreachable``)."""
        return frozenset(x.id for x in self.statuses if not x.public and not x.can_be_targeted)

    @cached_property
    def stat_modifier_status_ids(self) -> frozenset[str]:
        """The statuses that move their holder's stats while in force (``stat_modifiers``)."""
        return frozenset(x.id for x in self.statuses if x.stat_modifiers)

    @cached_property
    def ability_cache(self) -> dict[str, Any]:
        """Ability key -> AbilityDef, filled by ``World.ability_def`` as keys are asked."""
        return {}

    @cached_property
    def step_cache(self) -> dict[tuple[str, str | None], str]:
        """(ability key, option) -> the resolution step it runs in, filled by ``Ctx.step_of``."""
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

    def status_of_kind(self, kind: str) -> str | None:
        """The id of the ruleset's status of ``kind`` (``StatusDef.kind``), or None."""
        return next((s.id for s in self.statuses if s.kind == kind), None)

    def death_status(self) -> StatusDef:
        """The ruleset's first status with ``dead: true``: the one a death puts by default."""
        found = next((s for s in self.statuses if s.dead), None)
        if found is None:
            raise GameError(f"{self.id} has no status with dead: true")
        return found

    def slot(self, key: str) -> SlotDef:
        return self._find("slots", key, "names")

    def role(self, key: str) -> RoleDef:
        return self._find("roles", key, "name")

    def character(self, key: str) -> RoleDef:
        return self._find("characters", key, "name")

    def team(self, key: str) -> TeamDef | None:
        """The team ``key`` as the ruleset describes it, or None when it has no entry."""
        return next((t for t in self.teams if t.id == key), None)


DEFAULT_STEP_BY_OP = {
    "block": "blocks",
    "redirect": "redirects",
    "protect": "protections",
    "guard": "protections",
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
