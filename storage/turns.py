"""The turns room: resolve a tick, move its deadline, take a resolve back (undo).
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Callable
from dataclasses import replace
from datetime import datetime, timedelta
from typing import Any

from engine import Game, PlayerSpec

from . import writes
from .backend import Backend, Step
from .commands import effective, replay_entries
from .errors import StorageError, UndoRefused
from .games import Games
from .meta import Meta
from .outbox import Outbox
from .records import (
    INSERT_COMMAND,
    INSERT_EVENT,
    INSERT_GM_ACTION,
    INSERT_HISTORY,
    INSERT_OUTBOX,
    REPEAT_WINDOW,
    DeadlineChange,
    GameInfo,
    Post,
    Resolved,
    Undone,
    _event_rows,
    _history_rows,
    _lean,
    _Live,
    _run_on_copy,
    _snapshot,
    _uncancellable,
    dumps,
    from_ts,
    to_ts,
    utc,
)
from .state import StoreState

log = logging.getLogger(__name__)


async def _staged_since(db: Backend, game_id: str, batches: list[str], mark: str, first: int) -> list[str]:
    """The batches of a game staged since a resolve began (what an undo takes back with the
    resolve's own batches ``batches``): its mark's line (batch ids starting with ``mark``), the
    new phase's panels and announcement, anything posted in the phase it opened. A batch holding
    outbox rows of events before the resolve (index below ``first``) stays as it is."""
    low = await db.fetchall(db.sql("SELECT MIN(batch_ord) FROM outbox_parts WHERE game_id = ? AND batch_id >= ? AND batch_id < ? "
                                   "AND batch_id NOT LIKE '%~u%'"),
                            (game_id, mark, mark[:-1] + chr(ord(mark[-1]) + 1)))
    start = low[0][0]
    for b in batches:
        row = await db.fetchall(db.sql("SELECT MIN(batch_ord) FROM outbox_parts WHERE batch_id = ?"), (b,))
        if row[0][0] is not None and (start is None or row[0][0] < start):
            start = row[0][0]
    if start is None:
        return []
    rows = await db.fetchall(db.sql(
        "SELECT DISTINCT batch_id FROM outbox_parts WHERE game_id = ? AND batch_ord >= ? AND batch_id NOT IN "
        "(SELECT batch_id FROM outbox WHERE game_id = ? AND event_idx < ? AND batch_id IS NOT NULL)"),
        (game_id, start, game_id, first))
    return sorted({r[0] for r in rows} - set(batches))




class Turns:
    """Resolving, deadlines and undo of a loaded game."""

    def __init__(self, state: StoreState, games: Games, outbox: Outbox, meta: Meta) -> None:
        self.state = state
        self.db = state.db
        #: the loaded games; the outbox a resolve's posts are staged in; the meta an undo or a deadline changes
        self.games = games
        self.outbox = outbox
        self.meta = meta

    async def resolve(
        self,
        game_id: str,
        *,
        expect_tick: int | None = None,
        next_deadline: datetime | None = None,
        user_id: int | None = None,
        posts: Any = (),
    ) -> Resolved | None:
        """Resolve the current tick; None when there is nothing to do. Returns what it
        committed: the resolve's journal position, its events and their outbox rows; the game
        after it is :meth:`game` and :meth:`info` once this returns.

        Two transactions: the mark (the resolve has begun: a crash after it is redone at start
        from the same stored state and random generator, so with the identical result), then
        the resolve (the new snapshot, its events and outbox rows, the next deadline). The
        caller renders and stages its messages afterwards, from what was committed.

        ``expect_tick``: resolve only if the game is still at that tick (a deadline timer and a
        GM's forced resolve cannot both resolve it). ``next_deadline``: the deadline of the
        next tick, committed with the resolve. ``user_id``: the GM who forced it (audited).
        ``posts``: the bot's messages of this resolve (the GM's log line of a forced or early
        end), staged with the mark as batches ``<game>/resolve:<tick>:<n>>…``, so the redo of a
        forced resolve keeps the GM's line.
        """
        return await _uncancellable(self._resolve(game_id, expect_tick, utc(next_deadline), user_id, posts))

    async def _resolve(self, game_id: str, expect_tick: int | None, next_deadline: datetime | None, user_id: int | None,
                       posts: Any = ()) -> Resolved | None:
        live = self.games.live(game_id)
        async with live.lock:
            return await self.games.retry_stale(
                live, lambda: self._resolve_locked(live, game_id, expect_tick, next_deadline, user_id, posts))

    async def _resolve_locked(self, live: _Live, game_id: str, expect_tick: int | None, next_deadline: datetime | None,
                              user_id: int | None, posts: Any = ()) -> Resolved | None:
        await self.games.count_logs(live)
        if live.game.state.over:
            return None
        tick = live.game.state.tick
        if expect_tick is not None and expect_tick != tick:
            return None
        if live.info.resolving_tick == tick and user_id is None:
            user_id = live.info.resolving_user  # a forced resolve cut short is redone as forced, by its GM
        if live.info.resolving_tick != tick:
            await self._mark_resolving(live, game_id, tick, user_id, list(posts))
        events, history = await self.games.recall(live)
        run = await asyncio.to_thread(_run_on_copy, live, Game.resolve, events, history)
        game, text, events = run.game, run.text, run.events
        over = game.state.over
        seq = live.info.version + 1
        stamp = self.db.stamp()
        info = replace(
            writes.next_info(live.info, game, seq, stamp),
            resolving_tick=None,
            resolving_user=None,
            deadline_tick=game.state.tick if next_deadline and not over else None,
            deadline_at=next_deadline if next_deadline and not over else None,
        )
        result = {"events": len(events), "over": over, "winner": game.state.winner,
                  # the deadline the resolved phase had: a GM's undo gives it back
                  "deadline_was": to_ts(live.info.deadline) if live.info.deadline else None}
        args = {"tick": tick}
        # one batch (PostgreSQL: one round trip; SQLite: one trip to its thread)
        db = self.db.backend
        ev_rows, outbox, deliveries = _event_rows(game_id, seq, live.ev_count, events, stamp)
        sql, params = writes.game_update(live.info, info, text)
        steps = [
            Step(db.sql(sql), params, expect="one"),  # first: a stale copy writes nothing
            Step(db.sql(INSERT_COMMAND), (game_id, seq, tick, "resolve", dumps(args), dumps(result), user_id, None, stamp)),
            Step(db.sql(INSERT_EVENT), ev_rows, many=True),
            Step(db.sql(INSERT_OUTBOX), outbox, many=True),
            Step(db.sql(INSERT_HISTORY), _history_rows(game_id, seq, live.hist_count, run.history), many=True),
        ]
        if user_id is not None:
            steps.append(Step(db.sql(INSERT_GM_ACTION), (game_id, seq, tick, user_id, "resolve", dumps(args), stamp)))
        if await self.db.batch("resolve", steps, "resolve.before_commit") is not None:
            raise writes.stale(self.db.location, live.info)
        self.db.point("resolve.after_commit")
        live.game, live.text, live.info = game, text, info
        live.ev_count, live.hist_count = live.ev_count + len(events), live.hist_count + len(run.history)
        return Resolved(game_id, seq, tick, list(events), deliveries, over, game.state.winner)

    async def _mark_resolving(self, live: _Live, game_id: str, tick: int, user_id: int | None, posts: list[Post]) -> None:
        """The resolve of ``tick`` has begun (``resolving_tick``), with the bot's own lines of it:
        a resolve marked is always done (redone at start if cut short), and its redo could not
        render the GM's line as it was."""
        marked = replace(live.info, resolving_tick=tick, resolving_user=user_id)
        if posts:
            async with self.db.tx("resolve.mark") as db:
                await writes.update_game(db, live.info, marked, None, bump=False)
                await self.outbox.write_posts(db, game_id, f"resolve:{tick}", posts, self.db.stamp())
        else:  # the row alone: one batch
            sql, params = writes.game_update(live.info, marked, None, bump=False)
            if await self.db.batch("resolve.mark", [Step(self.db.backend.sql(sql), params, expect="one")]) is not None:
                raise writes.stale(self.db.location, live.info)
        live.info = marked
        self.db.point("resolve.marked")

    async def set_deadline(self, game_id: str, at: datetime | None, *, user_id: int | None = None) -> bool:
        """Set (or clear, with None) the deadline of the current tick; False if unchanged."""
        return await _uncancellable(self._set_deadline(game_id, utc(at), user_id))

    async def _set_deadline(self, game_id: str, at: datetime | None, user_id: int | None) -> bool:
        live = self.games.live(game_id)
        async with live.lock:
            return await self.games.retry_stale(live, lambda: self._set_deadline_locked(live, game_id, at, user_id))

    async def _set_deadline_locked(self, live: _Live, game_id: str, at: datetime | None, user_id: int | None) -> bool:
        info = live.info
        if (info.deadline_tick == info.tick and info.deadline_at == at) or (at is None and info.deadline is None):
            return False
        seq = info.version + 1
        stamp = self.db.stamp()
        new = replace(info, version=seq, deadline_tick=info.tick if at else None, deadline_at=at, updated_at=stamp)
        args = {"tick": info.tick, "at": to_ts(at) if at else None}
        async with self.db.tx("deadline") as db:
            await writes.update_game(db, info, new, None)  # first: a stale copy writes nothing
            await db.execute(
                db.sql(
                    "INSERT INTO commands (game_id, seq, tick, kind, args, result, user_id, request_id, created_at) "
                    "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)"
                ),
                (game_id, seq, info.tick, "deadline", dumps(args), None, user_id, None, stamp),
            )
            if user_id is not None:
                await writes.gm_action(db, game_id, seq, info.tick, user_id, "deadline", args, stamp)
            self.db.point("deadline.before_commit")
        live.info = new
        return True

    # ---- taking a resolve back (``/gm undo``) ------------------------------------------------
    async def undo_target(self, game_id: str) -> dict[str, Any]:
        """The resolve a GM's undo would take back now (its journal entry), or
        :class:`UndoRefused` with the reason's message key."""
        live = self.games.live(game_id)
        return _undo_target(live.info, await self.games.journal(game_id))

    async def undo_resolve(self, game_id: str, *, user_id: int | None = None,
                           meta_fn: Callable[[dict[str, Any], list[dict[str, Any]]], Any] | None = None,
                           key: str | None = None) -> Undone:
        """Take back the last resolve while nothing has happened since (only deadline moves):
        the game becomes exactly what it was before it (rebuilt from the journal), the resolved
        tick is open again with the deadline it had (if still ahead), and the resolve's events
        leave the event log. Their outbox rows and staged parts are renamed out of the way
        (``…~u<seq>``; unsent ones are marked sent, so they never go out), so the redone resolve
        delivers afresh. One transaction, journaled (``undo``) and audited as a GM action.

        ``meta_fn(meta, posted)`` may change the meta in the same transaction (``posted``: the
        messages the resolve had put in Discord: channel key, channel id, message id). ``key``:
        a repeat with the same key (a second click) finds it done and returns that undo.
        """
        return await _uncancellable(self._undo(game_id, user_id, meta_fn, key))

    async def _undo(self, game_id: str, user_id: int | None, meta_fn: Any, key: str | None) -> Undone:
        live = self.games.live(game_id)
        async with live.lock:
            journal = await self.games.journal(game_id)
            if key is not None:
                done = [e for e in journal if e["kind"] == "undo" and e["request_id"] == key]
                if done:
                    e = done[0]
                    return Undone(live.info, e["seq"], e["args"]["resolve_seq"], e["args"]["tick"], e["result"]["posted"],
                                  duplicate=True)
            target = _undo_target(live.info, journal)
            before = [e for e in effective(journal) if e["seq"] < target["seq"]]
            info = live.info

            def rebuild() -> tuple[Game, str]:
                g = Game.new(live.rules, info.seed, [PlayerSpec(**p) for p in info.players], info.settings)
                replay_entries(g, before)
                return g, _snapshot(g)  # stored without the log (its tables keep it)

            game, text = await asyncio.to_thread(rebuild)
            if game.state.tick != target["tick"]:
                raise StorageError(f"{self.db.location}: game {game_id!r}: the journal does not rebuild tick {target['tick']}")
            first, hfirst = len(game.state.events), len(game.state.history)
            stamp = self.db.stamp()
            seq = info.version + 1
            mark = f"~u{seq}"
            was = from_ts((target["result"] or {}).get("deadline_was"))
            back = was if was is not None and was > self.state.clock() else None
            new = replace(info, tick=game.state.tick, status="running", version=seq, updated_at=stamp, resolving_tick=None,
                          resolving_user=None, deadline_tick=game.state.tick if back else None, deadline_at=back)
            async with self.db.tx("undo") as db:
                rows = await db.fetchall(db.sql("SELECT DISTINCT batch_id FROM outbox WHERE game_id = ? AND event_idx >= ? "
                                                "AND batch_id IS NOT NULL"), (game_id, first))
                batches = [r[0] for r in rows]
                since = await _staged_since(db, game_id, batches, f"{game_id}/resolve:{target['tick']}:", first)
                posted: list[dict[str, Any]] = []
                for b in batches:
                    parts = await db.fetchall(db.sql("SELECT channel_key, channel_id, message_id FROM outbox_parts WHERE batch_id = ? "
                                                     "AND message_id IS NOT NULL ORDER BY part_idx"), (b,))
                    if parts:
                        posted.append({"channel": parts[0][0], "channel_id": parts[0][1], "message_id": parts[0][2]})
                for b in [*batches, *since]:
                    await db.execute(db.sql("UPDATE outbox_parts SET batch_id = batch_id || ?, sent_at = COALESCE(sent_at, ?), "
                                            "last_error = COALESCE(last_error, 'undone') WHERE batch_id = ?"), (mark, stamp, b))
                await db.execute(db.sql("UPDATE outbox SET delivery_key = delivery_key || ?, batch_id = batch_id || ?, "
                                        "delivered_at = COALESCE(delivered_at, ?) WHERE game_id = ? AND event_idx >= ?"),
                                 (mark, mark, stamp, game_id, first))
                gone = await db.execute(db.sql("DELETE FROM events WHERE game_id = ? AND idx >= ?"), (game_id, first))
                await db.execute(db.sql("DELETE FROM history WHERE game_id = ? AND idx >= ?"), (game_id, hfirst))
                args = {"resolve_seq": target["seq"], "tick": target["tick"]}
                result = {"events": gone, "deadline": to_ts(back) if back else None, "posted": posted}
                await db.execute(
                    db.sql("INSERT INTO commands (game_id, seq, tick, kind, args, result, user_id, request_id, created_at) "
                           "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)"),
                    (game_id, seq, target["tick"], "undo", dumps(args), dumps(result), user_id, key, stamp),
                )
                await writes.gm_action(db, game_id, seq, target["tick"], user_id, "undo", args, stamp)
                await writes.update_game(db, info, new, text)
                meta = None
                if meta_fn is not None:
                    meta = await self.meta.meta_write(db, game_id, info.meta, info.meta_version,
                                                  lambda m: meta_fn(m, posted), stamp)
                self.db.point("undo.before_commit")
            if meta is not None:
                new = replace(new, meta=meta, meta_version=info.meta_version + 1)
            live.game, live.text, live.info = _lean(Game.from_dict(live.rules, json.loads(text))), text, new
            live.ev_count, live.hist_count, live.counted = first, hfirst, True
            return Undone(new, seq, target["seq"], target["tick"], posted)

    async def change_deadline(
        self,
        game_id: str,
        fn: Callable[[GameInfo], tuple[datetime | None, Callable[[dict[str, Any]], Any] | None]],
        *,
        user_id: int | None = None,
        key: str | None = None,
        window: timedelta = REPEAT_WINDOW,
        posts: Any = (),
    ) -> DeadlineChange:
        """A GM's change of the current tick's deadline (and of meta with it), in one transaction
        under the game's lock, computed from the game as it is now.

        ``fn(info)`` returns the new deadline (None: none) and a meta change for
        :meth:`update_meta` (or None); what it raises propagates and nothing is written.
        ``key`` (without ``#``) names the change for recognising a repeat: if a deadline change
        with the same key was committed in the last ``window``, nothing is done and the result
        says ``duplicate`` (a retry after a lost reply is a new interaction: its key, not its
        id, shows it is the same command). The journal row's ``request_id`` is ``key#seq``.
        ``posts``: a function of the game's new :class:`GameInfo` returning the :class:`Post`s
        of the change (the public notice, the GM's log line), staged in the same transaction.
        """
        return await _uncancellable(self._change_deadline(game_id, fn, user_id, key, window, posts))

    async def _change_deadline(self, game_id: str, fn: Any, user_id: int | None, key: str | None, window: timedelta,
                               posts: Any = ()) -> DeadlineChange:
        live = self.games.live(game_id)
        async with live.lock:
            info = live.info
            if key is not None:
                since = to_ts(self.state.clock() - window)
                rows = await self.db.read(
                    "SELECT created_at FROM commands WHERE game_id = ? AND kind = 'deadline' AND request_id >= ? "
                    "AND request_id < ? AND tick = ? AND created_at >= ? ORDER BY seq DESC LIMIT 1",
                    (game_id, key + "#", key + "$", info.tick, since),
                )
                if rows:
                    return DeadlineChange(info, changed=False, duplicate=True, first_at=from_ts(rows[0][0]))
            at, meta_fn = fn(info)
            at = utc(at)
            moves = not ((info.deadline_tick == info.tick and info.deadline_at == at) or (at is None and info.deadline is None))
            if not moves and meta_fn is None:
                return DeadlineChange(info, changed=False)
            stamp = self.db.stamp()
            seq = info.version + 1
            new = replace(info, version=seq, deadline_tick=info.tick if at else None, deadline_at=at, updated_at=stamp) if moves else info
            args = {"tick": info.tick, "at": to_ts(at) if at else None}
            async with self.db.tx("deadline") as db:
                meta = None
                if meta_fn is not None:
                    meta = await self.meta.meta_write(db, game_id, info.meta, info.meta_version, meta_fn, stamp)
                if moves:
                    await db.execute(
                        db.sql(
                            "INSERT INTO commands (game_id, seq, tick, kind, args, result, user_id, request_id, created_at) "
                            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)"
                        ),
                        (game_id, seq, info.tick, "deadline", dumps(args), None, user_id, f"{key}#{seq}" if key else None, stamp),
                    )
                    if user_id is not None:
                        await writes.gm_action(db, game_id, seq, info.tick, user_id, "deadline", args, stamp)
                    await writes.update_game(db, info, new, None)
                if posts and (moves or meta is not None):
                    after = replace(new, meta=meta, meta_version=info.meta_version + 1) if meta is not None else new
                    await self.outbox.write_posts(db, game_id, f"deadline:{seq}:{info.meta_version + 1}",
                                            list(posts(after) if callable(posts) else posts), stamp)
                self.db.point("deadline.before_commit")
            if meta is not None:
                new = replace(new, meta=meta, meta_version=info.meta_version + 1, updated_at=stamp)
            live.info = new
            return DeadlineChange(new, changed=moves or meta is not None)


def _undo_target(info: GameInfo, journal: list[dict[str, Any]]) -> dict[str, Any]:
    """The last resolve still in force, if nothing but deadline moves came after it."""
    if info.status != "running":
        raise UndoRefused("err.undo_over")
    if info.resolving_tick == info.tick:
        raise UndoRefused("err.undo_resolving")
    lived = effective(journal)
    last = next((i for i in range(len(lived) - 1, -1, -1) if lived[i]["kind"] == "resolve"), None)
    if last is None:
        raise UndoRefused("err.undo_nothing")
    if any(e["kind"] != "deadline" for e in lived[last + 1:]):
        raise UndoRefused("err.undo_moved_on")
    return lived[last]
