"""What the store hands back, and how it writes a game: the records (:class:`GameInfo`,
:class:`Delivery`, :class:`Part`, :class:`Post`, …), timestamps, JSON and snapshot encoding,
and the rows of events, outbox and history.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

try:
    import orjson
except ImportError:  # a dependency (pyproject); json does the same, slower
    orjson = None  # type: ignore[assignment]

from engine import Game, Ruleset
from engine.state import Event

from .errors import StorageError

DEFAULT_DB = "altmafia.sqlite3"
TS_FORMAT = "%Y-%m-%dT%H:%M:%S.%fZ"

GAME_COLUMNS = (
    "game_id, guild_id, ruleset, ruleset_fingerprint, seed, players, settings, gm_user_ids, meta, "
    "status, tick, version, deadline_tick, deadline_at, resolving_tick, created_at, updated_at, meta_version, resolving_user"
)

#: how long a GM's deadline change is recognised when it comes again (a retry after a lost
#: reply is a new interaction with the same command and arguments): see docs/storage.md
REPEAT_WINDOW = timedelta(minutes=10)


#: how long a claim on a message part holds before another process may take it over
CLAIM_SECONDS = 120
#: a part claimed at staging is sent without claiming it again only this long before its claim expires
CLAIM_MARGIN = 30
#: how many times a command meets a game written by another process before it fails
STALE_RETRIES = 20


def default_db_path() -> Path:
    """``ALTMAFIA_DB`` (the caller loads ``.env``), else ``./altmafia.sqlite3``."""
    return Path(os.environ.get("ALTMAFIA_DB") or f"./{DEFAULT_DB}")


def to_ts(dt: datetime) -> str:
    """A UTC timestamp as fixed-width text (sorts as it compares)."""
    if dt.tzinfo is None:
        raise ValueError("a deadline must be a timezone-aware datetime")
    return dt.astimezone(UTC).strftime(TS_FORMAT)


def utc(dt: datetime | None) -> datetime | None:
    """An aware datetime in UTC (a naive one is refused: whose midnight would it be?)."""
    if dt is None:
        return None
    to_ts(dt)
    return dt.astimezone(UTC)


def from_ts(text: str | None) -> datetime | None:
    return None if text is None else datetime.strptime(text, TS_FORMAT).replace(tzinfo=UTC)


def dumps(data: Any) -> str:
    return json.dumps(data, ensure_ascii=False, separators=(",", ":"))


def encode_snapshot(data: dict[str, Any]) -> str:
    """A game's snapshot as stored: with orjson the same text as :func:`dumps` (UTF-8, no
    spaces; a float may read ``1e16`` where json writes ``1e+16``: both read either) in a
    fifth of the time (measured on a day-7 snapshot: 0.12 → 0.02 ms); json where orjson is missing
    or refuses the data (a key that is not a string, an integer beyond 64 bits)."""
    if orjson is not None:
        try:
            return orjson.dumps(data).decode("utf-8")
        except TypeError:
            pass
    return dumps(data)


def encode_game(game: Game) -> str:
    """``encode_snapshot(game.to_dict())`` without the copy of the state: orjson writes the
    engine's dataclasses itself (``Game.to_encodable``, the same text); the full path where
    orjson is missing or refuses the data."""
    if orjson is not None:
        try:
            return orjson.dumps(game.to_encodable()).decode("utf-8")
        except TypeError:
            pass
    return encode_snapshot(game.to_dict())


def decode_snapshot(text: str) -> Any:
    """A stored snapshot read back (orjson when installed: 2× json's speed, the same data)."""
    return orjson.loads(text) if orjson is not None else json.loads(text)


def fingerprint(rules: Ruleset) -> str:
    return hashlib.sha256(rules.model_dump_json().encode("utf-8")).hexdigest()[:16]


# ---- what the store hands back ----------------------------------------------------------
@dataclass(frozen=True)
class GameInfo:
    """A game's row: its settings and where it stands (not the engine state)."""

    game_id: str
    guild_id: int | None
    ruleset: str
    ruleset_fingerprint: str
    seed: int
    players: list[dict[str, Any]]
    settings: dict[str, Any]
    gm_user_ids: list[int]
    meta: dict[str, Any]
    status: str  # "running" or "over"
    tick: int
    version: int  # number of journal entries; the row's version for compare-and-set
    deadline_tick: int | None
    deadline_at: datetime | None
    resolving_tick: int | None
    created_at: str
    updated_at: str
    meta_version: int = 0  # bumped by every meta update (v4)
    resolving_user: int | None = None  # the GM who forced the resolve of resolving_tick (v5)

    @property
    def deadline(self) -> datetime | None:
        """The deadline of the current tick (a deadline of an earlier tick is spent)."""
        return self.deadline_at if self.deadline_tick == self.tick else None


@dataclass(frozen=True)
class Delivery:
    """One message to deliver: an event for one destination, with its idempotency key."""

    key: str
    game_id: str
    tick: int
    event_idx: int
    dest: str  # "public", "player", "faction", "gm"
    dest_id: str | None  # the pid (as text) or the faction id
    event: Event
    attempts: int = 0  # > 0: a send may have happened: check the destination before resending
    last_error: str | None = None

    @property
    def player(self) -> int | None:
        return int(self.dest_id) if self.dest == "player" and self.dest_id is not None else None

    @property
    def faction(self) -> str | None:
        return self.dest_id if self.dest == "faction" else None

    @property
    def nonce(self) -> str:
        """25 characters derived from the key, for Discord's ``nonce`` + ``enforce_nonce``."""
        return hashlib.sha256(self.key.encode("utf-8")).hexdigest()[:25]


@dataclass(frozen=True)
class Part:
    """One Discord message of a staged batch: its final text, stored before the first send."""

    batch_id: str
    part_idx: int
    game_id: str
    channel_key: str
    channel_id: int | None
    content: str
    nonce: str
    mention: int | None = None
    view: str | None = None  # a spec the bot rebuilds its buttons from (on the last part)
    files: list[dict[str, str]] | None = None  # [{"name", "data" (base64)}] (on the first part)
    attempts: int = 0  # > 0: the send may have happened: look for it before resending
    last_attempt_at: str | None = None
    message_id: int | None = None
    #: claimed by this store when it was staged (a resolve's batches) and not tried yet: send it
    #: without claiming it again or looking for it first (``attempts`` counts that claim)
    held: bool = False
    #: claimed by this store when it was staged and never tried, its claim since expired (a long
    #: deadline's deliveries), in a database no other process sends from: no message of it can
    #: exist, so it is claimed again and sent without being looked for in its channel first
    untried: bool = False

    @property
    def key(self) -> str:
        return f"{self.batch_id}#{self.part_idx}"


@dataclass(frozen=True)
class ChannelIntent:
    """A channel about to be created (v6): its id once Discord answered the create
    (``channel_made``), else its marker: the guild, the type, the name and the parent (a game's
    category carries the game's unique id in its name)."""

    owner_id: str  # the lobby id (= the game id) or the game id
    channel_key: str
    guild_id: int
    kind: int  # Discord's channel type (0 text, 4 category)
    name: str
    parent_id: int | None
    channel_id: int | None = None
    settled_at: str | None = None


@dataclass(frozen=True)
class Upload:
    """A ruleset a server's GM uploaded (``Store.rulesets.upload_ruleset``): the current one of its id in
    that server. ``fingerprint`` is the hash of the rules as the engine reads them
    (:func:`fingerprint`), the one a game started with them keeps."""

    guild_id: int
    ruleset_id: str
    fingerprint: str
    names: dict[str, str]  # {"ru": …, "en": …}
    file_name: str
    uploader: int
    uploaded_at: str


@dataclass(frozen=True)
class Post:
    """A message of the bot itself, rendered by the caller, to stage in the transaction of the
    command it belongs to (``Store.games.apply(…, posts=…)``): nothing can commit the command and
    lose its message. ``parts``: the part specs of :meth:`Store.outbox.stage` (``content`` and
    optional ``mention``, ``view``, ``files``; the nonce is derived from the batch id)."""

    channel_key: str
    channel_id: int | None
    parts: tuple[dict[str, Any], ...]
    #: the outbox rows this message delivers (a resolve's batch of a channel): claimed with it
    keys: tuple[str, ...] = ()
    #: the whole batch id (``<first key>><channel>``, ``<game>/panel:3:2>player:2``) instead of
    #: ``<game>/<key>:<n>><channel>``: the id the bot would stage it under later, so it is staged once
    batch: str | None = None
    #: unsent parts whose text this message carries (a resolve's GM line joining the GM batch):
    #: marked sent, without a message id, in the same transaction
    absorb: tuple[Part, ...] = ()


@dataclass(frozen=True)
class Applied:
    game_id: str
    seq: int  # the journal entry
    tick: int
    result: Any  # what the engine returned (an intent, a PM…), as JSON-compatible data
    events: list[Event]
    deliveries: list[Delivery]
    duplicate: bool = False  # the request id was already in the journal: nothing applied now


@dataclass(frozen=True)
class Resolved:
    game_id: str
    seq: int
    tick: int  # the tick that was resolved
    events: list[Event]
    deliveries: list[Delivery]
    over: bool
    winner: list[int] | None


@dataclass(frozen=True)
class DeadlineChange:
    """What :meth:`Store.turns.change_deadline` did: the game as it is now, whether anything was
    written, and for a repeat of a recent change (``duplicate``) when that one was made."""

    info: GameInfo
    changed: bool
    duplicate: bool = False
    first_at: datetime | None = None  # a repeat: when the change it repeats was committed


@dataclass(frozen=True)
class Undone:
    """What :meth:`Store.turns.undo_resolve` did: the game now, the undo's journal entry, the resolve
    it took back and the tick open again, and where that resolve's messages had been posted."""

    info: GameInfo
    seq: int
    resolve_seq: int
    tick: int
    posted: list[dict[str, Any]]
    duplicate: bool = False


@dataclass(frozen=True)
class Due:
    """A game to resolve now: its resolve was cut short, or its deadline has passed."""

    game_id: str
    tick: int
    reason: str  # "interrupted" or "overdue"
    deadline: datetime | None
    user_id: int | None = None  # "interrupted": the GM who had forced it (v5)


@dataclass
class StartReport:
    location: str
    created: bool  # the database did not exist (or was empty) and was created now
    schema_from: int
    schema_to: int
    games: list[GameInfo]
    due: list[Due]
    pending: list[Delivery]
    ruleset_changed: list[str] = field(default_factory=list)  # games whose ruleset file changed

    @property
    def uncertain(self) -> list[Delivery]:
        return [d for d in self.pending if d.attempts]

    def summary(self) -> str:
        made = "created" if self.created else f"schema v{self.schema_to}"
        if self.schema_from and self.schema_from != self.schema_to:
            made += f" (migrated from v{self.schema_from})"
        running = sum(1 for g in self.games if g.status == "running")
        return (
            f"{self.location}: {made}; {running} running game(s), {len(self.due)} to resolve now, "
            f"{len(self.pending)} pending deliveries ({len(self.uncertain)} possibly sent)"
        )


class _Live:
    """A game the store keeps: its row, its rules, its committed snapshot as stored (``text``)
    and the engine's game read from it. The game is read on first use (``game``), not when the
    store opens: a start with thousands of games reads their rows only, and a command waits
    for its own game alone (``docs/storage.md``, "Opening")."""

    __slots__ = ("info", "rules", "_game", "text", "ev_count", "hist_count", "counted", "lock", "location")

    def __init__(self, info: GameInfo, rules: Ruleset, text: str, game: Game | None = None, *, ev_count: int = 0,
                 hist_count: int = 0, counted: bool = True, location: str = "") -> None:
        self.info = info
        self.rules = rules
        self._game = game
        self.text = text  # the committed snapshot, as stored (without the event log and the history)
        self.ev_count = ev_count  # rows in the events table: the index of the next event (the log is not in memory)
        self.hist_count = hist_count  # rows in the history table
        #: ``ev_count`` and ``hist_count`` are known: False for a game read at a start, until
        #: its first write counts them (``Games._count_logs``)
        self.counted = counted
        self.lock = asyncio.Lock()
        self.location = location

    @property
    def loaded(self) -> bool:
        """The engine's game has been read from the snapshot."""
        return self._game is not None

    @property
    def game(self) -> Game:
        """The game as committed, read from ``text`` the first time it is asked for."""
        if self._game is None:
            self._game = _read_game(self)
        return self._game

    @game.setter
    def game(self, game: Game) -> None:
        self._game = game


def _read_game(live: _Live) -> Game:
    """The engine's game from a kept game's stored snapshot; a snapshot that cannot be read
    raises :class:`StorageError` saying so (nothing is changed: the database is as it was)."""
    info = live.info
    try:
        return _lean(Game.from_dict(live.rules, decode_snapshot(live.text)))
    except Exception as exc:
        raise StorageError(
            f"{live.location}: game {info.game_id!r} (ruleset {info.ruleset!r}) cannot be "
            f"loaded: {type(exc).__name__}: {exc}. Its commands fail rather than lose it; if the "
            "ruleset file changed, restore it; if not, the game's saved state is damaged: "
            "restore the database from a backup."
        ) from exc


#: an SQL condition on ``games``: the game is kept in memory — it runs, or it has messages not
#: yet delivered, or it is finished and its end was not yet shown (the bot's reveal)
KEPT = ("(status = 'running' "
        "OR game_id IN (SELECT game_id FROM outbox WHERE delivered_at IS NULL) "
        "OR game_id IN (SELECT game_id FROM outbox_parts WHERE sent_at IS NULL) "
        """OR (status = 'over' AND meta NOT LIKE '%"revealed":true%'))""")


def _int(value: Any) -> int | None:
    try:
        return int(value)
    except (TypeError, ValueError):
        return None


INSERT_COMMAND = ("INSERT INTO commands (game_id, seq, tick, kind, args, result, user_id, request_id, created_at) "
                  "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)")
INSERT_EVENT = "INSERT INTO events (game_id, idx, seq, tick, msg_key, audience, ids, args) VALUES (?, ?, ?, ?, ?, ?, ?, ?)"
INSERT_OUTBOX = ("INSERT INTO outbox (delivery_key, game_id, tick, event_idx, dest_ord, dest_kind, dest_id, created_at) "
                 "VALUES (?, ?, ?, ?, ?, ?, ?, ?)")
INSERT_HISTORY = "INSERT INTO history (game_id, idx, seq, tick, record) VALUES (?, ?, ?, ?, ?)"
INSERT_GM_ACTION = "INSERT INTO gm_actions (game_id, seq, tick, user_id, action, args, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)"


def _event_rows(game_id: str, seq: int, first: int, events: list[Event], stamp: str) -> tuple[list[Any], list[Any], list[Delivery]]:
    """The ``events`` rows (from index ``first``), one ``outbox`` row per destination of each,
    and the deliveries: a command's (one batch) and a resolve's (``writes.write_events``)."""
    rows, outbox, deliveries = [], [], []
    for n, ev in enumerate(events):
        idx = first + n
        rows.append((game_id, idx, seq, ev.tick, ev.key, ev.audience, dumps(ev.ids), dumps(ev.args)))
        for order, (kind, ident) in enumerate(destinations(ev)):
            key = delivery_key(game_id, ev.tick, idx, kind, ident)
            outbox.append((key, game_id, ev.tick, idx, order, kind, ident, stamp))
            deliveries.append(Delivery(key=key, game_id=game_id, tick=ev.tick, event_idx=idx, dest=kind, dest_id=ident, event=ev))
    return rows, outbox, deliveries


def _history_rows(game_id: str, seq: int, first: int, records: list[dict[str, Any]]) -> list[Any]:
    return [(game_id, first + n, seq, h["tick"], dumps(h)) for n, h in enumerate(records)]


@dataclass(frozen=True)
class _Run:
    game: Game  # the copy after the action, without its log (as the store keeps games in memory)
    result: Any  # what the action returned
    text: str  # the new snapshot (without the log)
    events: list[Event]  # the new events
    history: list[dict[str, Any]]  # the new history records


def _run_on_copy(live: _Live, action: Callable[[Game], Any], events: list[Event], history: list[dict[str, Any]]) -> _Run:
    """Run ``action`` on a private copy of the committed game (its snapshot ``live.text``)
    holding the part of the log given (what a resolve's rules may read; none for a command)."""
    game = Game.from_dict(live.rules, json.loads(live.text))
    st = game.state
    st.events, st.history = events, history
    first, hfirst = len(events), len(history)
    result = action(game)
    new_events, new_history = st.events[first:], st.history[hfirst:]
    st.events, st.history = [], []
    text = dumps(game.to_dict())
    _lean(game)
    return _Run(game, result, text, new_events, new_history)


def _lean(game: Game) -> Game:
    """A game kept in memory holds no copy of its generator's state in ``state.rng_state``
    (25 KiB of Python ints): the generator itself has it, and ``Game.to_dict``/``Game.copy``
    copy it back (``World.sync_rng``)."""
    game.state.rng_state = None
    return game


def _snapshot(game: Game) -> str:
    """``Game.to_dict()`` as stored: without the event log and the history (in their tables)."""
    st = game.state
    events, history = st.events, st.history
    st.events, st.history = [], []
    try:
        return dumps(game.to_dict())
    finally:
        st.events, st.history = events, history


async def _uncancellable(coro: Any) -> Any:
    """Run ``coro`` to its end even if the caller is cancelled meanwhile.

    A command's transaction and the swap of the in-memory game happen together or not at
    all: a caller cancelled (a timeout, a closing interaction) between the COMMIT and the swap
    would otherwise leave memory behind the database.
    """
    task = asyncio.ensure_future(coro)
    task.add_done_callback(lambda t: t.cancelled() or t.exception())
    return await asyncio.shield(task)


def destinations(ev: Event) -> list[tuple[str, str | None]]:
    """Where an event goes: the public channel, each player, a faction, or the GM.

    An audience the store does not know goes to the GM, so that nothing is silently dropped.
    """
    if ev.audience == "public":
        return [("public", None)]
    if ev.audience == "players":
        return [("player", str(pid)) for pid in dict.fromkeys(ev.ids)]
    if ev.audience == "faction":
        return [("faction", str(fid)) for fid in dict.fromkeys(ev.ids)]
    return [("gm", None)]


def delivery_key(game_id: str, tick: int, idx: int, kind: str, ident: str | None) -> str:
    """Unique per game, tick, event index and destination: ``g1/4/37/player:2``."""
    dest = kind if ident is None else f"{kind}:{ident}"
    return f"{game_id}/{tick}/{idx}/{dest}"
