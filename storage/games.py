"""The games room: open and recover, load, read, create, apply commands; the game rows.
"""

from __future__ import annotations

import asyncio
import json
import logging
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import asdict
from datetime import datetime, timedelta
from typing import Any

from config.loader import RulesetFileError
from engine import ActionError, Game, PlayerSpec, Ruleset
from engine.state import Event

from . import upgrade, writes
from .backend import Backend, Step
from .commands import Command, effective, jsonable, replay_entries
from .errors import ShardInUse, StaleGame, StorageError
from .outbox import Outbox
from .records import (
    GAME_COLUMNS,
    INSERT_COMMAND,
    INSERT_EVENT,
    INSERT_GM_ACTION,
    INSERT_HISTORY,
    INSERT_OUTBOX,
    KEPT,
    STALE_RETRIES,
    Applied,
    Delivery,
    Due,
    GameInfo,
    Part,
    StartReport,
    _event_rows,
    _history_rows,
    _lean,
    _Live,
    _snapshot,
    _uncancellable,
    decode_snapshot,
    dumps,
    encode_game,
    fingerprint,
    to_ts,
    utc,
)
from .rulesets import Rulesets
from .schema import migrate
from .state import StoreState

log = logging.getLogger(__name__)


class _Repeated(Exception):
    """A command's request found applied already, inside its transaction: rolled back."""

    def __init__(self, row: tuple[Any, ...]) -> None:
        super().__init__("applied before")
        self.row = row


class Games:
    """Games in memory and in the database: opening, reading, creating, applying a command."""

    def __init__(self, state: StoreState, rulesets: Rulesets, outbox: Outbox, load_ruleset: Callable[[str], Ruleset]) -> None:
        self.state = state
        self.db = state.db
        #: the uploaded rulesets a game began with; the outbox its commands stage their posts in
        self.rulesets = rulesets
        self.outbox = outbox
        #: a shipped ruleset by its id (``config.loader.load_ruleset``)
        self.load_ruleset = load_ruleset
        self.report: StartReport | None = None
        #: games reloaded because another process had written them (``_reload``)
        self.reloads = 0
        #: what a command on a game waits for before it runs (:meth:`apply`): the bot's recovery
        #: of that game after a start (``Scheduler.settled``); None: nothing
        self.before_command: Callable[[str], Awaitable[object]] | None = None
        #: the database's integrity check, when ``open`` left it for after the start (a large file)
        self._checking: asyncio.Future[None] | None = None

    # ---- opening and recovery ---------------------------------------------------------
    async def open(self, now: datetime | None = None) -> StartReport:
        """Open, migrate, load every running game; report what must happen first.

        The caller resolves every game in ``report.due`` at once (``resolve(game_id,
        expect_tick=due.tick)``) and delivers ``report.pending`` before taking new commands.
        """
        created = not await self.db.backend.connect()
        try:
            await self._own_shards()
            start, to = await migrate(self.db.backend, on_transaction=self.db.count, hook=self.db.point)
            if start < 4 <= to:
                await upgrade.backfill_channels(self.db)
            await upgrade.split_logs(self.db)
            changed = await self._load_games()
            self.state.channels = {int(r[0]): r[1] for r in await self.db.read("SELECT channel_id, game_id FROM game_channels")}
            await self.outbox.release_dead_claims()
            pending = await self.outbox.pending_deliveries()
        except BaseException:
            await self.db.backend.close()
            raise
        self.report = StartReport(
            location=self.db.location,
            created=created,
            schema_from=start,
            schema_to=to,
            games=[g.info for g in self.state.games.values()],
            due=self.due(now),
            pending=pending,
            ruleset_changed=changed,
        )
        if self.db.backend.check_later:  # a large file: its integrity check runs while the store serves
            self._checking = asyncio.ensure_future(self._check_later())
        return self.report

    async def _check_later(self) -> None:
        """The check of the database :meth:`open` left for after the start (a large SQLite file,
        ``SqliteBackend.check``); damaged, it is logged, and the backend refuses every statement
        since with the same message."""
        try:
            await self.db.backend.check()
        except StorageError as exc:
            log.critical("%s", exc)

    def acquire(self) -> None:
        """Take the database for this process now (``open`` does it too): a second bot
        process on the same database gets :class:`storage.errors.DatabaseInUse` before it does
        anything else (the CLI calls this before connecting to Discord)."""
        self.db.backend.acquire()

    async def close(self) -> None:
        if self._checking is not None:
            self._checking.cancel()
        async with self.db.lock:
            await self.db.backend.close()
        self.state.games.clear()
        self.state.channels.clear()
        self.state.held.clear()
        self.state.untried.clear()

    async def _own_shards(self) -> None:
        """Take this process's shards for its life: a second owner of a shard refuses to start."""
        if self.state.shards is None:
            return
        count, ids = self.state.shards
        for i in ids:
            if not await self.db.backend.try_lock_key(count * 1000 + i):
                raise ShardInUse(self.db.location, i, count)

    async def _load_games(self) -> list[str]:
        """Load every game this store keeps; the ids of those whose ruleset changed since they
        began. One read for all the games' rows: a start with thousands of games makes no round
        trip per game, and counts no log (each game counts its own on its first write,
        :meth:`count_logs`)."""
        rows = await self.db.read(f"SELECT {GAME_COLUMNS}, state FROM games WHERE {self.state.mine()} AND {KEPT} ORDER BY game_id")
        stored = await self._rows_rules(rows)
        prints: dict[int, str] = {}  # the fingerprint of each ruleset object, computed once
        changed = []
        for row in rows:
            live = self._live_from_row(row, stored)
            gid = live.info.game_id
            if id(live.rules) not in prints:
                prints[id(live.rules)] = fingerprint(live.rules)
            if prints[id(live.rules)] != live.info.ruleset_fingerprint:
                changed.append(gid)
            self.state.games[gid] = live
        return changed

    async def count_logs(self, live: _Live) -> None:
        """How long a kept game's log is (the index of its next event and history record), read
        with its lock held before its first write after a start: one read of two index ranges,
        instead of counting every game's log at the start."""
        if not live.counted:
            gid = live.info.game_id
            rows = await self.db.read("SELECT (SELECT COUNT(*) FROM events WHERE game_id = ?), "
                                      "(SELECT COUNT(*) FROM history WHERE game_id = ?)", (gid, gid))
            live.ev_count, live.hist_count, live.counted = rows[0][0], rows[0][1], True

    async def _rows_rules(self, rows: list[tuple[Any, ...]]) -> dict[str, Ruleset]:
        """The uploaded rulesets the games of these rows began with, by fingerprint."""
        return await self.rulesets.stored_rulesets(row[3] for row in rows)  # GAME_COLUMNS: ruleset_fingerprint

    def _live_from_row(self, row: tuple[Any, ...], stored: dict[str, Ruleset]) -> _Live:
        """A kept game from its row (``GAME_COLUMNS`` then ``state``): with the uploaded
        ruleset it began with (``stored``, by fingerprint: the exact rules, whatever was
        uploaded since), else the shipped ruleset of its id. Its snapshot is read into the
        engine's game on first use (``_Live.game``)."""
        info = writes.game_info(row[:-1], self.db.location)
        try:
            rules = stored.get(info.ruleset_fingerprint) or self.load_ruleset(info.ruleset)
        except RulesetFileError as exc:
            # the database is fine: the ruleset file went missing or became invalid
            raise StorageError(
                f"{self.db.location}: game {info.game_id!r} cannot be loaded because its ruleset "
                f"{info.ruleset!r} cannot: {exc}. The bot stops rather than lose the game; the "
                "database is not damaged: put the ruleset file back or fix it."
            ) from exc
        return _Live(info=info, rules=rules, text=row[-1], counted=False, location=self.db.location)

    async def _load_live(self, row: tuple[Any, ...], stored: dict[str, Ruleset] | None = None) -> _Live:
        """A loaded game: its snapshot, and how long its log is (the log stays in its tables)."""
        live = self._live_from_row(row, await self._rows_rules([row]) if stored is None else stored)
        await self.count_logs(live)
        return live

    async def recall(self, live: _Live) -> tuple[list[Event], list[dict[str, Any]]]:
        """The part of the log a resolve may read (``Game.recall_from()`` on), from the tables:
        the events from the first of that tick on, the history records likewise."""
        gid, recall = live.info.game_id, live.game.recall_from()
        rows = await self.db.read(  # one read for both tables: one round trip
            "SELECT 0, idx, tick, msg_key, args, audience, ids FROM events WHERE game_id = ? AND idx >= "
            "(SELECT MIN(idx) FROM events WHERE game_id = ? AND tick >= ?) "
            "UNION ALL SELECT 1, idx, NULL, NULL, record, NULL, NULL FROM history WHERE game_id = ? AND idx >= "
            "(SELECT MIN(idx) FROM history WHERE game_id = ? AND tick >= ?) ORDER BY 1, 2", (gid, gid, recall, gid, gid, recall)
        )
        events = [Event(tick=r[2], key=r[3], args=json.loads(r[4]), audience=r[5], ids=json.loads(r[6])) for r in rows if r[0] == 0]
        return events, [json.loads(r[4]) for r in rows if r[0] == 1]

    async def retry_stale(self, live: _Live, step: Callable[[], Any]) -> Any:
        """Run ``step`` (a command, a resolve, a deadline on ``live``, its lock held); when the
        game turns out to have been written by another process meanwhile (nothing was written
        then), reload it and run ``step`` again on the stored game rather than failing this and
        every later command. Gives up after ``STALE_RETRIES`` conflicts in a row."""
        for _ in range(STALE_RETRIES):
            try:
                return await step()
            except StaleGame:
                await self._reload(live)
        return await step()

    async def _reload(self, live: _Live) -> None:
        """Read a game again after someone else wrote it (its version moved on under us): the
        in-memory copy was stale. Called with ``live.lock`` held; keeps that lock object."""
        gid = live.info.game_id
        rows = await self.db.read(f"SELECT {GAME_COLUMNS}, state FROM games WHERE game_id = ?", (gid,))
        if not rows:
            raise StorageError(f"{self.db.location}: game {gid!r} is gone from the database.")
        fresh = await self._load_live(rows[0])
        log.warning("%s: game %r was written by another process (version %s → %s); reloaded",
                    self.db.location, gid, live.info.version, fresh.info.version)
        live.info, live.rules, live.game, live.text = fresh.info, fresh.rules, fresh.game, fresh.text
        live.ev_count, live.hist_count, live.counted = fresh.ev_count, fresh.hist_count, True
        self.reloads += 1

    def due(self, now: datetime | None = None) -> list[Due]:
        """Games to resolve now: an unfinished resolve, or a deadline at or before ``now``."""
        now = now or self.state.clock()
        out = []
        for gid in sorted(self.state.games):
            info = self.state.games[gid].info
            if info.status != "running":
                continue
            if info.resolving_tick == info.tick:
                out.append(Due(gid, info.tick, "interrupted", info.deadline, info.resolving_user))
            elif info.deadline is not None and info.deadline <= now:
                out.append(Due(gid, info.tick, "overdue", info.deadline))
        return out

    async def release_finished(self, now: datetime | None = None, *, older_than: timedelta = timedelta(0)) -> list[str]:
        """Drop from memory every finished game that is done with: over, its end shown (the
        bot's reveal, ``meta.revealed``) and every message of it delivered — the games a start
        would not load (``KEPT``) —, last written at least ``older_than`` before ``now``. It
        stays in the database: :meth:`find`, :meth:`snapshot`, :meth:`journal`,
        :meth:`events`, :meth:`game_of_channel`, :meth:`update_meta` and :meth:`load` read it
        on demand. Returns the ids released. Reads only: no transaction."""
        limit = to_ts((now or self.state.clock()) - older_than)
        done = [gid for gid, live in self.state.games.items() if live.info.status == "over" and live.info.updated_at <= limit]
        out = []
        for gid in done:
            live = self.state.games[gid]
            if live.lock.locked():
                continue  # something is being written: the next sweep
            if await self.db.read(f"SELECT 1 FROM games WHERE game_id = ? AND {KEPT}", (gid,)):
                continue
            if self.state.games.get(gid) is live and not live.lock.locked():
                del self.state.games[gid]
                for k in [k for k in self.state.held if k[0].startswith(f"{gid}/")]:
                    del self.state.held[k]
                out.append(gid)
        return out

    async def load(self, game_id: str) -> Game | None:
        """The game as last committed, loaded or not (a finished game released from memory is
        read from the database, without its log, and not kept); None if there is none."""
        if game_id in self.state.games:
            return self.state.games[game_id].game
        rows = await self.db.read(f"SELECT {GAME_COLUMNS}, state FROM games WHERE game_id = ?", (game_id,))
        return self._live_from_row(rows[0], await self._rows_rules(rows)).game if rows else None

    # ---- reading ----------------------------------------------------------------------
    def has(self, game_id: str) -> bool:
        return game_id in self.state.games

    def game(self, game_id: str) -> Game:
        """The game as last committed. Read it (legal actions, rendering); never change it."""
        return self.live(game_id).game

    def info(self, game_id: str) -> GameInfo:
        return self.live(game_id).info

    async def preview(self, game_id: str) -> Game:
        """A private copy of the game holding the part of its log a resolve may read: a dry
        run of the resolve (the GM's preview) goes exactly as the real one would."""
        live = self.live(game_id)
        game = Game.from_dict(live.rules, json.loads(live.text))
        game.state.events, game.state.history = await self.recall(live)
        return game

    async def event(self, game_id: str, idx: int) -> Event | None:
        """The event of index ``idx`` (``Delivery.event_idx``), None if there is none."""
        rows = await self.db.read("SELECT tick, msg_key, args, audience, ids FROM events WHERE game_id = ? AND idx = ?", (game_id, idx))
        return Event(tick=rows[0][0], key=rows[0][1], args=json.loads(rows[0][2]), audience=rows[0][3], ids=json.loads(rows[0][4])) if rows else None

    def games(self) -> list[GameInfo]:
        return [g.info for g in self.state.games.values()]

    async def find(self, game_id: str) -> GameInfo | None:
        """A game's row, loaded or not (finished games are not kept in memory)."""
        if game_id in self.state.games:
            return self.state.games[game_id].info
        rows = await self.db.read(f"SELECT {GAME_COLUMNS} FROM games WHERE game_id = ?", (game_id,))
        return writes.game_info(rows[0], self.db.location) if rows else None

    def deadline(self, game_id: str) -> datetime | None:
        return self.live(game_id).info.deadline

    async def journal(self, game_id: str) -> list[dict[str, Any]]:
        """The command journal in order: seq, tick, kind, args, result, user_id, request_id."""
        rows = await self.db.read(
            "SELECT seq, tick, kind, args, result, user_id, request_id, created_at FROM commands WHERE game_id = ? ORDER BY seq",
            (game_id,),
        )
        return [
            {"seq": r[0], "tick": r[1], "kind": r[2], "args": json.loads(r[3]), "result": json.loads(r[4]) if r[4] is not None else None,
             "user_id": r[5], "request_id": r[6], "created_at": r[7]}
            for r in rows
        ]

    async def events(self, game_id: str, since: int = 0) -> list[Event]:
        rows = await self.db.read(
            "SELECT tick, msg_key, args, audience, ids FROM events WHERE game_id = ? AND idx >= ? ORDER BY idx", (game_id, since)
        )
        return [Event(tick=r[0], key=r[1], args=json.loads(r[2]), audience=r[3], ids=json.loads(r[4])) for r in rows]

    async def gm_actions(self, game_id: str) -> list[dict[str, Any]]:
        rows = await self.db.read(
            "SELECT seq, tick, user_id, action, args, created_at FROM gm_actions WHERE game_id = ? ORDER BY seq", (game_id,)
        )
        return [{"seq": r[0], "tick": r[1], "user_id": r[2], "action": r[3], "args": json.loads(r[4]), "created_at": r[5]} for r in rows]

    async def snapshot(self, game_id: str) -> dict[str, Any]:
        """The game as stored, whole: its snapshot with the event log and the history put back
        from their tables (``Game.to_dict()`` of the game with its whole log)."""
        rows = await self.db.read("SELECT state, ruleset_fingerprint FROM games WHERE game_id = ?", (game_id,))
        if not rows:
            raise StorageError(f"{self.db.location}: no game {game_id!r}")
        data = json.loads(rows[0][0])
        rules = await self.rulesets.stored_ruleset(rows[0][1]) or self.load_ruleset(data["ruleset"])
        data["events"] = [
            {"tick": r[0], "key": r[1], "args": json.loads(r[2]), "audience": r[3], "ids": json.loads(r[4])}
            for r in await self.db.read("SELECT tick, msg_key, args, audience, ids FROM events WHERE game_id = ? ORDER BY idx", (game_id,))
        ]
        data["history"] = [json.loads(r[0]) for r in await self.db.read("SELECT record FROM history WHERE game_id = ? ORDER BY idx", (game_id,))]
        return Game.from_dict(rules, data).to_dict()

    async def rebuild(self, game_id: str, *, whole: bool = False) -> Game:
        """The game rebuilt from its creation settings by replaying the journal: without its
        log, as the store holds it in memory (it compares equal with :meth:`game`); ``whole``:
        with all of it (it compares equal with :meth:`snapshot`). A finished game released
        from memory is read from the database for it."""
        live = self.state.games.get(game_id)
        if live is None:
            rows = await self.db.read(f"SELECT {GAME_COLUMNS}, state FROM games WHERE game_id = ?", (game_id,))
            if not rows:
                raise KeyError(f"no game {game_id!r}")
            live = self._live_from_row(rows[0], await self._rows_rules(rows))
        info = live.info
        game = Game.new(live.rules, info.seed, [PlayerSpec(**p) for p in info.players], info.settings)
        game = replay_entries(game, effective(await self.journal(game_id)))
        if not whole:
            game.state.events, game.state.history = [], []
        return game

    # ---- creating -----------------------------------------------------------------------
    async def create_game(
        self,
        ruleset: str | Ruleset,
        seed: int,
        players: list[PlayerSpec],
        *,
        game_id: str | None = None,
        guild_id: int | None = None,
        gm_user_ids: list[int] | tuple[int, ...] = (),
        settings: dict[str, Any] | None = None,
        meta: dict[str, Any] | None = None,
        deadline: datetime | None = None,
    ) -> GameInfo:
        """Create and commit a new game (``engine.GameError`` for a bad setup: nothing written).
        ``ruleset``: a shipped ruleset's id, or a ruleset itself (a server's upload): that one
        is kept with the game (by its fingerprint), so the game plays it to its end."""
        deadline = utc(deadline)
        rules = ruleset if isinstance(ruleset, Ruleset) else self.load_ruleset(ruleset)
        game = Game.new(rules, seed, list(players), settings)
        return await _uncancellable(
            self._create(rules, game, seed, list(players), game_id or uuid.uuid4().hex, guild_id, gm_user_ids, settings, meta, deadline,
                         keep=isinstance(ruleset, Ruleset))
        )

    async def _create(self, rules: Ruleset, game: Game, seed: int, players: list[PlayerSpec], game_id: str, guild_id: int | None,
                      gm_user_ids: Any, settings: dict[str, Any] | None, meta: dict[str, Any] | None,
                      deadline: datetime | None, keep: bool = False) -> GameInfo:
        if game_id in self.state.games or await self.db.read("SELECT 1 FROM games WHERE game_id = ?", (game_id,)):
            raise StorageError(f"{self.db.location}: a game {game_id!r} exists already")
        stamp = self.db.stamp()
        info = GameInfo(
            game_id=game_id, guild_id=guild_id, ruleset=rules.id, ruleset_fingerprint=fingerprint(rules), seed=seed,
            players=[asdict(p) for p in players], settings=dict(settings or {}), gm_user_ids=list(gm_user_ids),
            meta=dict(meta or {}), status="running", tick=game.state.tick, version=0,
            deadline_tick=game.state.tick if deadline else None, deadline_at=deadline, resolving_tick=None,
            created_at=stamp, updated_at=stamp,
        )
        text = _snapshot(game)
        events, history = list(game.state.events), list(game.state.history)
        async with self.db.tx("create") as db:
            await db.execute(
                db.sql(f"INSERT INTO games ({GAME_COLUMNS}, state, log_apart) VALUES ({', '.join('?' * 20)}, 1)"),
                (
                    info.game_id, info.guild_id, info.ruleset, info.ruleset_fingerprint, info.seed, dumps(info.players),
                    dumps(info.settings), dumps(info.gm_user_ids), dumps(info.meta), info.status, info.tick, info.version,
                    info.deadline_tick, to_ts(deadline) if deadline else None, None, stamp, stamp, 0, None, text,
                ),
            )
            if keep:
                await self.rulesets.keep_rules(db, rules)
            added = await writes.write_channels(db, game_id, {}, info.meta)
            await writes.write_events(db, game_id, 0, 0, events, stamp)
            await writes.write_history(db, game_id, 0, 0, history)
            self.db.point("create.before_commit")
        self.state.channels.update(added)
        # the live game is read back from the stored text, exactly as after a restart
        self.state.games[game_id] = _Live(info=info, rules=rules, game=_lean(Game.from_dict(rules, json.loads(text))), text=text,
                                     ev_count=len(events), hist_count=len(history), location=self.db.location)
        return info

    # ---- commands -----------------------------------------------------------------------
    async def apply(self, game_id: str, command: Command, *, posts: Any = (), deliver: Any = None) -> Applied:
        """Validate ``command`` through the engine and commit it; return only once committed.

        ``posts``: the bot's own messages that belong to the command (:class:`Post`s, or a
        function of the game after the command and the engine's result returning them: a PM's copy to its sender, the
        GM's log line), staged in the same transaction as batches ``<game>/cmd:<seq>:<n>>…``.

        ``deliver``: a function of the game after the command, its new :class:`GameInfo` and
        the command's :class:`Delivery` rows returning them rendered (:class:`Post`s with
        their rows' ``keys``, e.g. a PM for its recipient): staged with the rows in the same
        transaction, and then every part of the command, ``posts`` included, is claimed by this
        store as it is staged (``Part.held``), so the next flush sends them with no
        transaction but its marks.

        Raises :class:`engine.ActionError` when the engine refuses (nothing is written), and
        :class:`StorageError` when the database cannot take it (nothing changes either).
        """
        if self.before_command is not None:  # the bot's recovery of this game after a start
            await self.before_command(game_id)
        if not posts and deliver is None and self.db.backend.batch_outlives_cancel():
            # one batch, whose outcome a cancelled caller still gets: the command's
            # transaction and the swap of the game in memory happen together without a task
            return await self._apply(game_id, command, posts)
        return await _uncancellable(self._apply(game_id, command, posts, deliver))

    async def _apply(self, game_id: str, command: Command, posts: Any = (), deliver: Any = None) -> Applied:
        live = self.live(game_id)
        async with live.lock:
            return await self.retry_stale(live, lambda: self._apply_locked(live, game_id, command, posts, deliver))

    async def _apply_locked(self, live: _Live, game_id: str, command: Command, posts: Any = (), deliver: Any = None) -> Applied:
        await self.count_logs(live)
        # the engine runs on the live game itself (no copy: a command is short and never reads
        # the log); a refusal, a failed or refused transaction and anything raised give the
        # live game back exactly as committed, from its committed snapshot (``_restore``)
        game = live.game
        st = game.state
        try:
            result = jsonable(command.run(game))
        except BaseException as exc:
            self._restore(live)
            if isinstance(exc, ActionError) and command.request_id is not None:
                # a retry of a command already applied may be refused by the game as it is now
                dup = await self._duplicate(game_id, command.request_id)
                if dup is not None:
                    return dup
            raise
        try:
            events, history = st.events, st.history
            st.events, st.history = [], []
            text = encode_game(game)
            _lean(game)
            tick = st.tick
            seq = live.info.version + 1
            stamp = self.db.stamp()
            info = writes.next_info(live.info, game, seq, stamp)
            bot_posts = list(posts(game, result) if callable(posts) else posts)
            if bot_posts or deliver is not None:  # staging posts reads the outbox: the transaction of many statements
                applied = await self._apply_tx(live, game_id, command, result, tick, seq, stamp, info, text, events, history,
                                               bot_posts, deliver)
            else:
                applied = await self._apply_batch(live, game_id, command, result, tick, seq, stamp, info, text, events, history)
        except BaseException:
            self._restore(live)
            raise
        if applied.duplicate:
            self._restore(live)
            return applied
        self.db.point("apply.after_commit")
        live.text, live.info = text, info
        live.ev_count, live.hist_count = live.ev_count + len(events), live.hist_count + len(history)
        return applied

    def _restore(self, live: _Live) -> None:
        """The live game as committed again (after a command ran on it and was not committed)."""
        live.game = _lean(Game.from_dict(live.rules, decode_snapshot(live.text)))

    async def _duplicate(self, game_id: str, request_id: str) -> Applied | None:
        row = await self.db.read("SELECT seq, tick, result FROM commands WHERE game_id = ? AND request_id = ?", (game_id, request_id))
        if not row:
            return None
        seq, tick, result = row[0]
        return Applied(game_id, seq, tick, json.loads(result) if result else None, [], [], duplicate=True)

    def _command_rows(self, live: _Live, game_id: str, command: Command, result: Any, tick: int, seq: int, stamp: str,
                      events: list[Event], history: list[dict[str, Any]]) -> tuple[tuple[Any, ...], list[Any], list[Any], list[Delivery], list[Any]]:
        command_row = (game_id, seq, tick, command.kind, dumps(command.args), dumps(result), command.user_id, command.request_id, stamp)
        ev_rows, outbox, deliveries = _event_rows(game_id, seq, live.ev_count, events, stamp)
        hist_rows = _history_rows(game_id, seq, live.hist_count, history)
        return command_row, ev_rows, outbox, deliveries, hist_rows

    async def _apply_batch(self, live: _Live, game_id: str, command: Command, result: Any, tick: int, seq: int, stamp: str,
                           info: GameInfo, text: str, events: list[Event], history: list[dict[str, Any]]) -> Applied:
        """An accepted command without posts: its whole transaction as one :meth:`Backend.batch`
        (SQLite: one trip to the database's thread instead of one per statement)."""
        db = self.db.backend
        command_row, ev_rows, outbox, deliveries, hist_rows = self._command_rows(live, game_id, command, result, tick, seq,
                                                                                 stamp, events, history)
        steps = []
        if command.request_id is not None:
            steps.append(Step(db.sql("SELECT seq, tick, result FROM commands WHERE game_id = ? AND request_id = ?"),
                              (game_id, command.request_id), expect="absent"))
        sql, params = writes.game_update(live.info, info, text)
        steps.append(Step(db.sql(sql), params, expect="one"))  # first write: a stale copy writes nothing
        steps += [
            Step(db.sql(INSERT_COMMAND), command_row),
            Step(db.sql(INSERT_EVENT), ev_rows, many=True),
            Step(db.sql(INSERT_OUTBOX), outbox, many=True),
            Step(db.sql(INSERT_HISTORY), hist_rows, many=True),
        ]
        if command.is_gm:
            steps.append(Step(db.sql(INSERT_GM_ACTION), (game_id, seq, tick, command.user_id, command.kind, dumps(command.args), stamp)))
        stopped = await self.db.batch("apply", steps, "apply.before_commit")
        if stopped is not None:
            if steps[stopped.index].expect == "absent":  # this request was applied before
                dup_seq, dup_tick, dup = stopped.rows[0]
                return Applied(game_id, dup_seq, dup_tick, json.loads(dup) if dup else None, [], [], duplicate=True)
            raise writes.stale(self.db.location, live.info)
        return Applied(game_id, seq, tick, result, list(events), deliveries)

    async def _apply_tx(self, live: _Live, game_id: str, command: Command, result: Any, tick: int, seq: int, stamp: str,
                        info: GameInfo, text: str, events: list[Event], history: list[dict[str, Any]], bot_posts: list[Any],
                        deliver: Any = None) -> Applied:
        """An accepted command with the bot's posts: one transaction of many statements (staging
        reads the outbox), in one trip where the backend can (:meth:`Database.run`)."""
        command_row, ev_rows, outbox, deliveries, hist_rows = self._command_rows(live, game_id, command, result, tick, seq,
                                                                                 stamp, events, history)
        if deliver is not None:  # the command's own rows, rendered from the game as it commits it
            bot_posts = bot_posts + list(deliver(live.game, info, deliveries))
        claim = self.outbox.claim_window() if deliver is not None else False  # read here: the body runs in the database's thread

        async def body(db: Backend) -> list[Part]:
            if command.request_id is not None:
                rows = await db.fetchall(db.sql("SELECT seq, tick, result FROM commands WHERE game_id = ? AND request_id = ?"),
                                         (game_id, command.request_id))
                if rows:  # this request was applied before: nothing is written
                    raise _Repeated(rows[0])
            await writes.update_game(db, live.info, info, text)  # first write: a stale copy writes nothing
            await db.execute(db.sql(INSERT_COMMAND), command_row)
            await db.executemany(db.sql(INSERT_EVENT), ev_rows)
            await db.executemany(db.sql(INSERT_OUTBOX), outbox)
            await db.executemany(db.sql(INSERT_HISTORY), hist_rows)
            if command.is_gm:
                await writes.gm_action(db, game_id, seq, tick, command.user_id, command.kind, command.args, stamp)
            return await self.outbox.write_posts(db, game_id, f"cmd:{seq}", bot_posts, stamp, claim=claim)

        try:
            staged = await self.db.run("apply", body, "apply.before_commit")
        except _Repeated as found:
            dup_seq, dup_tick, dup = found.row
            return Applied(game_id, dup_seq, dup_tick, json.loads(dup) if dup else None, [], [], duplicate=True)
        if deliver is not None:
            self.outbox.hold(staged)
        return Applied(game_id, seq, tick, result, list(events), deliveries)

    # ---- internals --------------------------------------------------------------------------
    def live(self, game_id: str) -> _Live:
        try:
            return self.state.games[game_id]
        except KeyError:
            raise KeyError(f"no loaded game {game_id!r}") from None


