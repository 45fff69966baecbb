"""The whole state of one game, as plain data that round-trips through a JSON-compatible dict.

Nothing here knows the rules; :mod:`engine.game` reads and changes this state. The seeded
random generator's state is part of it, so a stored game replays exactly.
"""

from __future__ import annotations

import random
from dataclasses import MISSING, dataclass, field, fields, is_dataclass
from typing import Any, Literal, TypeVar, get_args

from .errors import GameError
from .registry import BOOK_MEMORY

T = TypeVar("T")

# What an effect's own status is (``Status.kind``); "" for a status of the ruleset's list
# (``Ruleset.statuses``, looked up by id). The readers ask the kind, never the id.
StatusKind = Literal["", "blocked", "protected", "rerouted", "obliged", "reflect", "swapped", "timed", "trap", "guarded"]
# snapshots from before ``Status.kind``: the kind read from the id's prefix
_KIND_OF_PREFIX = {"blocked:": "blocked", "protected:": "protected", "rerouted:": "rerouted", "obliged:": "obliged",
                   "reflect:": "reflect", "swapped:": "swapped", "timed:": "timed", "friday_trap:": "trap",
                   "guarded:": "guarded"}


@dataclass
class Status:
    id: str
    since: int  # tick at whose resolve it was applied (-1: from the start), or a later first tick in force
    until: int | None = None  # first tick at which it is no longer in force (None: lasting)
    data: dict[str, Any] = field(default_factory=dict)
    kind: StatusKind = ""

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Status:
        """A stored status; one stored before ``kind`` existed gets it from its id's prefix."""
        if "kind" not in d:
            kind = next((k for prefix, k in _KIND_OF_PREFIX.items() if d["id"].startswith(prefix)), "")
            d = {**d, "kind": kind}
        return cls(**d)


@dataclass
class Modifier:
    """A hidden or timed bonus to a stat (faction bonus aside, which is computed)."""

    stat: str
    amount: int
    source: str
    until: int | None = None
    # "all": counts everywhere; "thresholds": only for slot thresholds
    scope: str = "all"


@dataclass
class Player:
    pid: int  # the seat
    name: str
    role: str
    character: str | None = None
    user_id: int | None = None
    stats: dict[str, int] = field(default_factory=dict)
    statuses: dict[str, Status] = field(default_factory=dict)
    modifiers: list[Modifier] = field(default_factory=list)
    # ability key -> first tick it may be used again
    ready_at: dict[str, int] = field(default_factory=dict)
    # ability key -> times used this game
    uses: dict[str, int] = field(default_factory=dict)
    # turn key ("day 3", "night 3") -> lanes spent in that turn
    spent: dict[str, list[str]] = field(default_factory=dict)
    forbidden: list[str] = field(default_factory=list)  # abilities taken away for the game
    # abilities of others granted for a while: {key, until, replace}
    grants: list[dict[str, Any]] = field(default_factory=list)
    pm_sent: dict[str, int] = field(default_factory=dict)  # day number -> PMs sent
    anon_sent: dict[str, int] = field(default_factory=dict)

    def has(self, status: str) -> bool:
        return status in self.statuses


@dataclass
class Faction:
    fid: str
    leader: int
    members: dict[int, int] = field(default_factory=dict)  # pid -> tick joined
    name: str | None = None


# how an ability is used (``Intent.via``): one's own (None), the leader action, the extra action;
# any other ``via`` is the key of a borrowing ability it is performed through
VIAS = (None, "leader", "extra")


@dataclass
class Intent:
    seq: int
    pid: int
    ability: str  # "role:<role id>:<ability id>" or "character:<id>:<ability id>"
    targets: list[int]
    option: str | None
    tick: int
    lane: str = "action"
    via: str | None = None  # None, "leader" or "extra" (see Game.check_available)
    by: int | None = None  # a teammate who gave this action for its actor (FactionRules.orders)


@dataclass
class Vote:
    vote: str
    pid: int
    choice: int | str | None  # a pid, or a named option such as "peace"
    changes: int = 0


# Who reads an event: everyone (``public``), the players in ``ids`` (``players``), the
# faction ``ids[0]`` (``faction``), or the GM alone (``gm``).
Audience = Literal["public", "players", "faction", "gm"]
AUDIENCES: tuple[str, ...] = get_args(Audience)  # the closed set, from the type itself


class AudienceError(GameError, ValueError):
    """An event whose audience is not of :data:`AUDIENCES`: a misuse of the engine when emitted
    (:meth:`engine.world.World.emit`), a bad value when built or restored."""


_NO_IDS: Any = object()  # Event's ``ids`` not given: a new empty list


@dataclass(init=False)
class Event:
    tick: int
    key: str
    args: dict[str, Any]
    audience: Audience
    ids: list[Any] = field(default_factory=list)

    def __init__(self, tick: int, key: str, args: dict[str, Any], audience: Audience, ids: list[Any] = _NO_IDS) -> None:
        # the dataclass's own __init__ and __post_init__ in one (an event is built for every line
        # of a resolve): every event, emitted, restored or built by a step, has a reader from the
        # closed set (the one check of it: World.emit leaves it to this)
        if audience not in AUDIENCES:
            raise AudienceError(f"event {key!r}: audience {audience!r} is not one of {', '.join(AUDIENCES)}")
        self.tick = tick
        self.key = key
        self.args = args
        self.audience = audience
        self.ids = [] if ids is _NO_IDS else ids


@dataclass
class FactionOp:
    seq: int
    op: str  # invite, accept, decline, leave, kick, overthrow
    pid: int
    target: int | None
    fid: str | None
    tick: int


@dataclass
class Anon:
    seq: int
    pid: int
    text: str
    tick: int


@dataclass
class Pm:
    seq: int
    sender: int
    recipient: int
    text: str
    tick: int


# ---- the core's memory between ticks ---------------------------------------------------------
@dataclass
class EndNow:
    """A turn ended early by an action («Спровоцировать бунт»): the intent that asked it, its
    actor, the tick it was asked in and the last tick of that turn."""

    seq: int
    by: int
    tick: int
    last: int


@dataclass
class Able:
    """Who could act in at least one period of ``turn`` (recorded as each period resolves)."""

    turn: str
    pids: list[int] = field(default_factory=list)


@dataclass
class WaitingPm:
    """A PM to a player secretly cut off, kept until they are back."""

    sender: int
    recipient: int
    text: str


@dataclass
class PublishedAnon:
    """A published anonymous post: its number for the game (``n``), author, the tick it was
    written and published in, and the queued post's ``seq``."""

    n: int
    pid: int
    tick: int
    published: int
    seq: int = -1  # -1: a post of a snapshot from before posts kept it


def _typed(cls: type, value: Any) -> Any:
    return value if isinstance(value, cls) else cls(**value)


@dataclass
class CoreMemory:
    """What the shared core remembers between ticks, each in a typed place. A snapshot keeps
    each field under the ``memo`` key of its name (the keys of the free ``memo`` dict it
    replaces, so old snapshots load); a field at its default is left out."""

    end_now: EndNow | None = None
    able: Able | None = None
    bonus_choice: dict[str, str] = field(default_factory=dict)  # str(pid) -> the stat picked (seed 000's Стратег)
    pm_waiting: list[WaitingPm] = field(default_factory=list)
    anons: list[PublishedAnon] = field(default_factory=list)
    faction_freeze_until: int = -1  # no faction change before this tick («Стратегический триумф»)
    lesser_winners: list[int] | None = None  # seed 001: the faction's members who win less
    # who already won a victory of their own while the game went on (passive ``wins_if_lynched``)
    side_winners: list[int] = field(default_factory=list)

    KEYS = ("end_now", "able", "bonus_choice", "pm_waiting", "anons", "faction_freeze_until", "lesser_winners", "side_winners")

    def to_memo(self) -> dict[str, Any]:
        blank = CoreMemory()
        return {k: _plain(getattr(self, k)) for k in self.KEYS if getattr(self, k) != getattr(blank, k)}

    @classmethod
    def from_memo(cls, memo: dict[str, Any]) -> tuple[CoreMemory, dict[str, Any]]:
        """The core's places read from a snapshot's ``memo``, and the rest (the books')."""
        core = cls()
        rest = {k: v for k, v in memo.items() if k not in cls.KEYS}
        if memo.get("end_now"):
            core.end_now = _typed(EndNow, memo["end_now"])
        if memo.get("able"):
            core.able = _typed(Able, memo["able"])
        core.bonus_choice = {str(k): str(v) for k, v in (memo.get("bonus_choice") or {}).items()}
        core.pm_waiting = [_typed(WaitingPm, w) for w in memo.get("pm_waiting") or []]
        core.anons = [_typed(PublishedAnon, a) for a in memo.get("anons") or []]
        core.faction_freeze_until = int(memo.get("faction_freeze_until", -1))
        if memo.get("lesser_winners") is not None:
            core.lesser_winners = [int(x) for x in memo["lesser_winners"]]
        core.side_winners = [int(x) for x in memo.get("side_winners") or []]
        return core, rest


def _default(f: Any) -> Any:
    return f.default_factory() if f.default_factory is not MISSING else f.default


def place_to_memo(place: Any) -> dict[str, Any]:
    """A book's typed memory as its snapshot dict: each field at its name, those at their
    default left out."""
    return {f.name: _plain(getattr(place, f.name)) for f in fields(place) if getattr(place, f.name) != _default(f)}


def place_from_memo(cls: type[T], data: dict[str, Any]) -> tuple[T, dict[str, Any]]:
    """A book's typed memory read from its snapshot dict, and the keys it does not know (an
    older build's): those stay as they were, in ``GameState.memo[key]``, and are saved again
    with the place, so a snapshot loses nothing and always loads."""
    known = {f.name for f in fields(cls)}  # type: ignore[arg-type]
    return cls(**{k: v for k, v in data.items() if k in known}), {k: v for k, v in data.items() if k not in known}


@dataclass
class GameState:
    ruleset: str
    seed: int
    rng_state: Any
    tick: int = 0
    end_day: int = 7  # the last day played: the game ends after its night (scenario key ``end_day``)
    over: bool = False
    winner: list[int] | None = None
    players: list[Player] = field(default_factory=list)
    factions: dict[str, Faction] = field(default_factory=dict)
    intents: list[Intent] = field(default_factory=list)
    votes: list[Vote] = field(default_factory=list)
    faction_ops: list[FactionOp] = field(default_factory=list)
    anons: list[Anon] = field(default_factory=list)
    pms: list[Pm] = field(default_factory=list)
    events: list[Event] = field(default_factory=list)
    gm_tasks: list[dict[str, Any]] = field(default_factory=list)
    settings: dict[str, Any] = field(default_factory=dict)
    seq: int = 0
    next_faction: int = 1
    # per-resolve memory the rules read later (who acted on whom, by tick)
    history: list[dict[str, Any]] = field(default_factory=list)
    # the core's memory kept between ticks, typed (a riot's early end, who could act, …)
    core: CoreMemory = field(default_factory=CoreMemory)
    # what no typed place knows of an older build's snapshot, kept as it was and saved again
    # (the engine reads none of it: ``tests/engine/test_typed_memory.py``)
    memo: dict[str, Any] = field(default_factory=dict)
    # the books' typed memory (``engine.registry.BOOK_MEMORY``), by key: ``place(cls)``; the
    # snapshot's ``memo`` holds the core's places, these and the free ``memo`` side by side
    books: dict[str, Any] = field(default_factory=dict)
    # private news kept for a player while a status with ``messages: hold`` holds (str(pid) ->
    # [{key, args}], oldest first); delivered by the ``messages`` step once it is over
    held: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    # who the GM declared idle for the current tick (``Game.declare_idle``: «ничего не делаю»);
    # emptied when the tick advances
    idle: list[int] = field(default_factory=list)

    def place(self, cls: type[T]) -> T:
        """A book's typed memory (a dataclass registered with ``@book_memory``), made empty the
        first time it is asked for."""
        key = cls.KEY  # type: ignore[attr-defined]
        got = self.books.get(key)
        if got is None:
            got = self.books[key] = cls()
        return got

    def peek(self, cls: type[T]) -> T:
        """A book's typed memory for reading only: an empty one, not stored, when it has none
        (a read leaves the state as it was)."""
        got = self.books.get(cls.KEY)  # type: ignore[attr-defined]
        return got if got is not None else cls()

    # ---- serialisation -------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        d = {f.name: _plain(getattr(self, f.name)) for f in fields(self) if f.name not in ("rng_state", "core", "books")}
        d["rng_state"] = _rng_to_json(self.rng_state)
        d["memo"] = self._memo_out(d["memo"])
        for p in d["players"]:
            p["statuses"] = list(p["statuses"].values())
        for f in d["factions"].values():
            f["members"] = [[k, v] for k, v in f["members"].items()]
        return d

    def to_encodable(self) -> dict[str, Any]:
        """:meth:`to_dict`'s layout without its copy of the leaves, for an encoder that writes
        dataclasses, tuples and dicts itself (orjson): encoded, the same text as :meth:`to_dict`
        encoded (``tests/storage/test_snapshot_encode.py``), in a fraction of the time. Only the
        parts whose layout differs from their dataclass are rebuilt: each player (``statuses``
        as a list), each faction (``members`` as pairs), ``memo`` (the typed places merged),
        ``rng_state``. The values are the live ones: encode it at once, never keep it."""
        names = _STATE_NAMES.get(type(self))
        if names is None:
            names = _STATE_NAMES[type(self)] = tuple(f.name for f in fields(self) if f.name not in ("rng_state", "core", "books"))
        d = {n: getattr(self, n) for n in names}
        pnames = _fields_of(Player)
        players = []
        for p in self.players:
            row = {n: getattr(p, n) for n in pnames}
            row["statuses"] = list(p.statuses.values())
            players.append(row)
        d["players"] = players
        fnames = _fields_of(Faction)
        factions = {}
        for fid, f in self.factions.items():
            row = {n: getattr(f, n) for n in fnames}
            row["members"] = [[k, v] for k, v in f.members.items()]
            factions[fid] = row
        d["factions"] = factions
        d["rng_state"] = self.rng_state  # (version, internal, gauss): tuples are written as lists
        d["memo"] = self._memo_out(_plain(self.memo))
        return d

    def _memo_out(self, memo: dict[str, Any]) -> dict[str, Any]:
        """The snapshot's ``memo``: the free one, the books' places and the core's, merged."""
        books: dict[str, Any] = {}
        for k, v in self.books.items():
            if hasattr(v, "claims"):  # a place laid out over several ``memo`` keys of its own
                books.update(v.to_memo())
            else:
                books[k] = {**memo.get(k, {}), **place_to_memo(v)}
        return {**memo, **books, **self.core.to_memo()}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> GameState:
        d = dict(d)
        core, memo = CoreMemory.from_memo(d.pop("memo", {}) or {})
        books = {}
        for k in sorted(memo):
            if k in BOOK_MEMORY and not hasattr(BOOK_MEMORY[k], "claims") and isinstance(memo[k], dict):
                books[k], rest = place_from_memo(BOOK_MEMORY[k], memo.pop(k))
                if rest:
                    memo[k] = rest
        for key, spread in BOOK_MEMORY.items():  # the places laid out over several keys (seed 000's prison)
            if hasattr(spread, "claims"):
                mine = {k: memo.pop(k) for k in sorted(memo) if spread.claims(k, memo[k])}
                if mine:
                    books[key] = spread.from_memo(mine)
        players = []
        for p in d.pop("players"):
            p = dict(p)
            p["statuses"] = {s["id"]: Status.from_dict(s) for s in p["statuses"]}
            p["modifiers"] = [Modifier(**m) for m in p["modifiers"]]
            players.append(Player(**p))
        factions = {}
        for fid, f in d.pop("factions").items():
            f = dict(f)
            f["members"] = {int(k): v for k, v in f["members"]}
            factions[fid] = Faction(**f)
        return cls(
            players=players,
            factions=factions,
            rng_state=_rng_from_json(d.pop("rng_state")),
            intents=[Intent(**i) for i in d.pop("intents")],
            votes=[Vote(**v) for v in d.pop("votes")],
            faction_ops=[FactionOp(**o) for o in d.pop("faction_ops")],
            anons=[Anon(**a) for a in d.pop("anons")],
            pms=[Pm(**m) for m in d.pop("pms")],
            events=[Event(**e) for e in d.pop("events")],
            core=core,
            memo=memo,
            books=books,
            **d,
        )


_FIELDS: dict[type, tuple[str, ...]] = {}
_STATE_NAMES: dict[type, tuple[str, ...]] = {}


def _fields_of(cls: type) -> tuple[str, ...]:
    names = _FIELDS.get(cls)
    if names is None:
        names = _FIELDS[cls] = tuple(f.name for f in fields(cls))
    return names


def _plain(o: Any) -> Any:
    """A JSON-compatible copy (like ``dataclasses.asdict``, without its deep copies of leaves)."""
    if o is None or isinstance(o, (str, int, float, bool)):
        return o
    if isinstance(o, dict):
        return {k: _plain(v) for k, v in o.items()}
    if isinstance(o, (list, tuple)):
        return [_plain(v) for v in o]
    if is_dataclass(o):
        names = _FIELDS.get(type(o))
        if names is None:
            names = _FIELDS[type(o)] = tuple(f.name for f in fields(o))
        return {n: _plain(getattr(o, n)) for n in names}
    raise TypeError(f"cannot store {type(o).__name__} in the game state")


def new_rng_state(seed: int) -> Any:
    return random.Random(seed).getstate()


def _rng_to_json(state: Any) -> list[Any]:
    version, internal, gauss = state
    return [version, list(internal), gauss]


def _rng_from_json(data: Any) -> Any:
    if isinstance(data, tuple):
        return data
    version, internal, gauss = data
    return (version, tuple(internal), gauss)
