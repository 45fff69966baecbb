"""The outbox room: outbox rows and their claims, channel intents, staged message parts.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import replace
from datetime import datetime, timedelta
from typing import Any

from engine.state import Event

from .backend import Backend
from .records import (
    CLAIM_MARGIN,
    CLAIM_SECONDS,
    ChannelIntent,
    Delivery,
    Part,
    Post,
    dumps,
    to_ts,
)
from .state import StoreState


def part_nonce(batch_id: str, idx: int, generation: int = 0) -> str:
    """The 25-character nonce of a batch's part (Discord's ``nonce``). ``generation``: how many
    batches of the same id an undo took back before (``<id>~u<seq>``): Discord answers a nonce it
    saw in the last minutes with the old message and posts nothing, so the redone resolve's
    batches, staged again under the same ids, get nonces of their own."""
    tail = f"~g{generation}" if generation else ""
    return hashlib.sha256(f"{batch_id}#{idx}{tail}".encode()).hexdigest()[:25]


async def _attempted(db: Backend, keys: Any, specs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Parts that may have been sent already (``uncertain``: their outbox rows were claimed by
    an older build) get the time of the rows' first claim as their attempt's
    (``attempted_at``): a message older than it is no evidence of their send."""
    if not keys or not any(p.get("uncertain") for p in specs):
        return list(specs)
    marks = ", ".join("?" for _ in keys)
    rows = await db.fetchall(db.sql(f"SELECT MIN(last_attempt_at) FROM outbox WHERE attempts > 0 AND delivery_key IN ({marks})"),
                             tuple(keys))
    at = rows[0][0]
    return [{**p, "attempted_at": at} if p.get("uncertain") else p for p in specs]


async def _generation(db: Backend, batch_id: str) -> int:
    """How many batches staged under ``batch_id`` before were renamed by an undo (``…~u<seq>``,
    renamed again by a later undo: ``…~u<seq>~u<seq2>``): 0 for a batch id used the first time.
    Read from the table, so a restart derives the same nonces for the same batch."""
    rows = await db.fetchall(db.sql("SELECT COUNT(DISTINCT batch_id) FROM outbox_parts WHERE batch_id > ? AND batch_id < ?"),
                             (f"{batch_id}~u", f"{batch_id}~v"))
    return rows[0][0] or 0



INTENT_COLS = "owner_id, channel_key, guild_id, kind, name, parent_id, channel_id, settled_at"


def _intent(r: tuple[Any, ...]) -> ChannelIntent:
    return ChannelIntent(owner_id=r[0], channel_key=r[1], guild_id=r[2], kind=r[3], name=r[4], parent_id=r[5],
                         channel_id=r[6], settled_at=r[7])


PARTS_COLS = "batch_id, part_idx, game_id, channel_key, channel_id, content, nonce, mention, view, files, attempts, last_attempt_at, message_id"


def _deliveries(rows: list[tuple[Any, ...]]) -> list[Delivery]:
    return [
        Delivery(
            key=r[0], game_id=r[1], tick=r[2], event_idx=r[3], dest=r[4], dest_id=r[5], attempts=r[6], last_error=r[7],
            event=Event(tick=r[8], key=r[9], args=json.loads(r[10]), audience=r[11], ids=json.loads(r[12])),
        )
        for r in rows
    ]


def _part(r: tuple[Any, ...]) -> Part:
    return Part(batch_id=r[0], part_idx=r[1], game_id=r[2], channel_key=r[3], channel_id=r[4], content=r[5], nonce=r[6],
                mention=r[7], view=r[8], files=json.loads(r[9]) if r[9] else None, attempts=r[10], last_attempt_at=r[11],
                message_id=r[12])




class Outbox:
    """The outbox: rows derived from events, channel intents, message parts and their claims."""

    def __init__(self, state: StoreState) -> None:
        self.state = state
        self.db = state.db

    # ---- the outbox -----------------------------------------------------------------------
    async def pending_deliveries(self, game_id: str | None = None, limit: int | None = None) -> list[Delivery]:
        """Undelivered messages in order (per game: event order, then destination order)."""
        return _deliveries(await self.db.read(*self._deliveries_query(game_id, limit)))

    def _deliveries_query(self, game_id: str | None, limit: int | None = None) -> tuple[str, list[Any]]:
        sql = (
            "SELECT o.delivery_key, o.game_id, o.tick, o.event_idx, o.dest_kind, o.dest_id, o.attempts, o.last_error, "
            "e.tick, e.msg_key, e.args, e.audience, e.ids "
            "FROM outbox o JOIN events e ON e.game_id = o.game_id AND e.idx = o.event_idx "
            "WHERE o.delivered_at IS NULL AND o.batch_id IS NULL"  # a staged row is sent by its parts
        )
        if self.state.shards is not None:
            sql += f" AND o.game_id IN (SELECT game_id FROM games WHERE {self.state.mine()})"
        params: list[Any] = []
        if game_id is not None:
            sql += " AND o.game_id = ?"
            params.append(game_id)
        sql += " ORDER BY o.game_id, o.event_idx, o.dest_ord"
        if limit is not None:
            sql += " LIMIT ?"
            params.append(int(limit))
        return sql, params

    async def pending(self, game_id: str | None = None) -> tuple[list[Part], list[Delivery]]:
        """:meth:`pending_parts` and :meth:`pending_deliveries` of one game (or all), read
        in one trip to the database (a flush reads both before each delivery)."""
        parts, rows = await self.db.reads([self._parts_query(game_id), self._deliveries_query(game_id)])
        return self._mark_held([_part(r) for r in parts]), _deliveries(rows)

    async def claim(self, key: str) -> bool:
        """Record that a send of ``key`` starts now (commit it before sending); False if done."""
        return await self._outbox_update("claim", "attempts = attempts + 1, last_attempt_at = ?", (self.db.stamp(),), key)

    async def mark_delivered(self, key: str) -> bool:
        """Record ``key`` as delivered; False if it was already (or is unknown)."""
        return await self._outbox_update("delivered", "delivered_at = ?", (self.db.stamp(),), key)

    async def claim_many(self, keys: list[str]) -> int:
        """:meth:`claim` for several messages sent as one (a batch), in one transaction."""
        return await self._outbox_update_many("claim", "attempts = attempts + 1, last_attempt_at = ?", (self.db.stamp(),), keys)

    async def mark_delivered_many(self, keys: list[str]) -> int:
        """:meth:`mark_delivered` for a batch, in one transaction; how many were pending."""
        return await self._outbox_update_many("delivered", "delivered_at = ?", (self.db.stamp(),), keys)

    async def _outbox_update_many(self, label: str, assignments: str, params: tuple[Any, ...], keys: list[str]) -> int:
        n = 0
        async with self.db.tx(label) as db:
            for key in keys:
                n += await db.execute(
                    db.sql(f"UPDATE outbox SET {assignments} WHERE delivery_key = ? AND delivered_at IS NULL"), (*params, key)
                )
            self.db.point(f"{label}.before_commit")
        return n

    async def mark_failed(self, key: str, error: str) -> bool:
        """Record why a send failed; the delivery stays pending."""
        return await self._outbox_update("failed", "last_error = ?", (error[:1000],), key)

    # ---- channel creation intents (v6) ------------------------------------------------------
    async def intend_channel(self, owner_id: str, channel_key: str, *, guild_id: int, kind: int, name: str,
                             parent_id: int | None) -> ChannelIntent | None:
        """Record, before the REST call, that a channel is about to be created; one transaction.
        Returns the intent already recorded for that key when there is one (a creation that
        may have happened: look for its channel first), else None (recorded now)."""
        async with self.db.tx("intent") as db:
            rows = await db.fetchall(db.sql(f"SELECT {INTENT_COLS} FROM channel_intents WHERE owner_id = ? AND channel_key = ?"),
                                     (owner_id, channel_key))
            if rows:
                # an intent of an attempt before keeps its id only while it is open (that attempt's
                # channel, made and not saved); a settled one's channel is another attempt's
                was = _intent(rows[0])
                cid = was.channel_id if was.settled_at is None else None
                await db.execute(db.sql("UPDATE channel_intents SET name = ?, parent_id = ?, channel_id = ?, settled_at = NULL "
                                        "WHERE owner_id = ? AND channel_key = ?"), (name, parent_id, cid, owner_id, channel_key))
                return replace(was, name=name, parent_id=parent_id, channel_id=cid, settled_at=None)
            await db.execute(
                db.sql("INSERT INTO channel_intents (owner_id, channel_key, guild_id, kind, name, parent_id, created_at) "
                       "VALUES (?, ?, ?, ?, ?, ?, ?)"),
                (owner_id, channel_key, guild_id, kind, name, parent_id, self.db.stamp()),
            )
            self.db.point("intent.before_commit")
        return None

    async def channel_made(self, owner_id: str, channel_key: str, channel_id: int) -> None:
        """The channel of an open intent exists (Discord answered the create): its id, recorded
        at once, is what crash recovery matches first (the intent stays open until its owner
        saved the id)."""
        async with self.db.tx("intent.made") as db:
            await db.execute(db.sql("UPDATE channel_intents SET channel_id = ? WHERE owner_id = ? AND channel_key = ? "
                                    "AND settled_at IS NULL"), (channel_id, owner_id, channel_key))

    async def settle_channel(self, owner_id: str, channel_key: str, channel_id: int | None) -> bool:
        """The intent is done: its channel's id is saved by its owner (or it was dropped)."""
        async with self.db.tx("intent.settled") as db:
            n = await db.execute(
                db.sql("UPDATE channel_intents SET channel_id = ?, settled_at = ? WHERE owner_id = ? AND channel_key = ?"),
                (channel_id, self.db.stamp(), owner_id, channel_key),
            )
        return n == 1

    async def channel_intents(self, owner_id: str | None = None, *, open_only: bool = True) -> list[ChannelIntent]:
        """Intents (of one owner, or all), the unsettled ones only unless ``open_only=False``."""
        sql = f"SELECT {INTENT_COLS} FROM channel_intents WHERE 1 = 1"
        params: list[Any] = []
        if open_only:
            sql += " AND settled_at IS NULL"
        if owner_id is not None:
            sql += " AND owner_id = ?"
            params.append(owner_id)
        return [_intent(r) for r in await self.db.read(sql + " ORDER BY created_at, owner_id, channel_key", params)]

    # ---- message parts (v5): render once, store, send and mark each part on its own ---------
    async def stage(self, game_id: str, batch_id: str, channel_key: str, channel_id: int | None,
                    parts: list[dict[str, Any]], keys: Sequence[str] = (), *, absorb: Sequence[Part] = ()) -> list[Part]:
        """Store a batch rendered into its final parts, claiming its outbox rows ``keys`` in the
        same transaction; each part: ``content``, ``nonce``, optional ``mention``, ``view``,
        ``files``, ``uncertain`` (it may have been sent already). A batch already staged is not staged again: its stored parts are returned
        (so a retry never renders anew). Outbox rows staged elsewhere or delivered are skipped.
        ``absorb``: unsent parts whose text the new batch carries (a resolve's own line joining
        its channel's batch): marked sent, without a message id, in the same transaction."""
        rows = await self.db.read(f"SELECT {PARTS_COLS} FROM outbox_parts WHERE batch_id = ? ORDER BY part_idx", (batch_id,))
        if rows:  # staged before (a keyed post repeated, a resolve's batch): nothing to write
            return self._mark_held(list(map(_part, rows)))
        async with self.db.tx("stage") as db:
            rows = await db.fetchall(db.sql(f"SELECT {PARTS_COLS} FROM outbox_parts WHERE batch_id = ? ORDER BY part_idx"),
                                     (batch_id,))
            if rows:
                return [_part(r) for r in rows]
            top = await db.fetchall(db.sql("SELECT MAX(batch_ord) FROM outbox_parts"), ())
            order = (top[0][0] or 0) + 1
            stamp = self.db.stamp()
            parts = await _attempted(db, keys, parts)
            for key in keys:
                await db.execute(
                    db.sql("UPDATE outbox SET batch_id = ?, attempts = attempts + 1, last_attempt_at = ? "
                           "WHERE delivery_key = ? AND delivered_at IS NULL AND batch_id IS NULL"),
                    (batch_id, stamp, key),
                )
            out = await self._insert_parts(db, game_id, batch_id, order, channel_key, channel_id, parts, stamp)
            for p in absorb:
                await db.execute(db.sql("UPDATE outbox_parts SET sent_at = ?, last_error = ? WHERE batch_id = ? AND part_idx = ? "
                                        "AND sent_at IS NULL"), (stamp, f"sent within {batch_id}"[:1000], p.batch_id, p.part_idx))
            self.db.point("stage.before_commit")
        self.db.point("stage.after_commit")
        return out

    async def stage_posts(self, game_id: str, key: str, posts: list[Post], *, claim: bool = False) -> list[Part]:
        """Stage several bot messages together in one transaction, as batches
        ``<game>/<key>:<n>>…`` (``key``: the idempotency key of what they belong to, e.g.
        ``ia:<interaction id>``, ``resolve:<tick>:d``); a key already staged stages nothing
        again. ``claim``: the parts are claimed by this store in the same transaction
        (``Part.held``: the next flush sends them with no claim of its own)."""
        async with self.db.tx("stage") as db:
            out = await self.write_posts(db, game_id, key, posts, self.db.stamp(), claim=claim)
            self.db.point("stage.before_commit")
        if claim:
            self.hold(out)
        self.db.point("stage.after_commit")
        return out

    def hold(self, parts: list[Part]) -> None:
        """Remember the parts this store claimed as it staged them, until shortly before the
        claim expires (:meth:`_mark_held`)."""
        until = self.state.clock() + timedelta(seconds=CLAIM_SECONDS - CLAIM_MARGIN)
        self._hold_until([(p.batch_id, p.part_idx) for p in parts], until)

    def _hold_until(self, keys: list[tuple[str, int]], until: datetime) -> None:
        """Hold ``keys`` until ``until``, each moved to the end: ``_held`` stays in the order
        its holds expire (all last the same time), so the expired are found at its front."""
        for k in keys:
            self.state.held.pop(k, None)
            self.state.held[k] = until

    def claim_window(self) -> tuple[str, str]:
        """A claim taken now: (now, until), as stored."""
        return self.db.stamp(), to_ts(self.state.clock() + timedelta(seconds=CLAIM_SECONDS))

    async def write_posts(self, db: Backend, game_id: str, key: str, posts: list[Post], stamp: str, *,
                          claim: bool | tuple[str, str] = False) -> list[Part]:
        """Stage ``posts`` inside a transaction (the command's own): batch ``<game>/<key>:<n>>…``
        (or the post's own ``batch`` id); a post's ``keys`` (outbox rows) are staged with it.
        ``claim``: the parts are claimed by this store at once (it sends them next); a
        :meth:`claim_window` taken before the transaction, for a body run in the database's
        thread (the clock is read on the event loop's)."""
        out: list[Part] = []
        claimed = claim if isinstance(claim, tuple) else self.claim_window() if claim else None
        for n, post in enumerate(posts):
            batch_id = post.batch or f"{game_id}/{key}:{n}>{post.channel_key}"
            rows = await db.fetchall(db.sql("SELECT COUNT(*) FROM outbox_parts WHERE batch_id = ?"), (batch_id,))
            if rows[0][0]:
                continue
            top = await db.fetchall(db.sql("SELECT MAX(batch_ord) FROM outbox_parts"), ())
            specs = [{**p, "nonce": p.get("nonce") or part_nonce(batch_id, i)} for i, p in enumerate(post.parts)]
            if post.channel_id is None:
                specs = [{"content": "", "nonce": part_nonce(batch_id, 0)}]
            specs = await _attempted(db, post.keys, specs)
            for k in post.keys:
                await db.execute(
                    db.sql("UPDATE outbox SET batch_id = ?, attempts = attempts + 1, last_attempt_at = ? "
                           "WHERE delivery_key = ? AND delivered_at IS NULL AND batch_id IS NULL"),
                    (batch_id, stamp, k),
                )
            out += await self._insert_parts(db, game_id, batch_id, (top[0][0] or 0) + 1, post.channel_key, post.channel_id,
                                            specs, stamp, claimed)
            for p in post.absorb:
                await db.execute(db.sql("UPDATE outbox_parts SET sent_at = ?, last_error = ? WHERE batch_id = ? AND part_idx = ? "
                                        "AND sent_at IS NULL"), (stamp, f"sent within {batch_id}"[:1000], p.batch_id, p.part_idx))
        return out

    async def _insert_parts(self, db: Backend, game_id: str, batch_id: str, order: int, channel_key: str,
                            channel_id: int | None, parts: list[dict[str, Any]], stamp: str,
                            claimed: tuple[str, str] | None = None) -> list[Part]:
        """``claimed``: (now, until) — the parts are claimed by this store as they are stored."""
        out = []
        generation = await _generation(db, batch_id)
        for i, p in enumerate(parts):
            if generation:
                p = {**p, "nonce": part_nonce(batch_id, i, generation)}
            files = p.get("files") or None
            attempts = 1 if p.get("uncertain") or claimed else 0  # claimed by an older build: look before sending
            # the attempt a message of this part is searched from: an older build's claim of its
            # rows when it may have been sent already, else this store's claim (none: not tried)
            attempted = (p.get("uncertain") and p.get("attempted_at")) or (claimed[0] if claimed else None)
            await db.execute(
                db.sql("INSERT INTO outbox_parts (batch_id, part_idx, batch_ord, game_id, channel_key, channel_id, content, "
                       "nonce, mention, view, files, created_at, attempts, last_attempt_at, claim_owner, claim_until) "
                       "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"),
                (batch_id, i, order, game_id, channel_key, channel_id, p["content"], p["nonce"], p.get("mention"),
                 p.get("view"), dumps(files) if files else None, stamp, attempts,
                 attempted, self.state.owner if claimed else None, claimed[1] if claimed else None),
            )
            out.append(Part(batch_id, i, game_id, channel_key, channel_id, p["content"], p["nonce"], p.get("mention"),
                            p.get("view"), files, attempts, attempted,
                            held=claimed is not None and not p.get("uncertain")))
        return out

    def _my_parts(self) -> str:
        """An SQL condition on ``outbox_parts``: the part is this store's to send."""
        if self.state.shards is None:
            return "1 = 1"
        # the bot's posts of no game ("-") go with shard 0
        return (f"(game_id IN (SELECT game_id FROM games WHERE {self.state.mine()}) OR "
                f"(game_id NOT IN (SELECT game_id FROM games) AND {int(0 in self.state.shards[1])} = 1))")

    async def release_dead_claims(self) -> None:
        """At start, the claims of this store's unsent parts held by another owner were made by
        a process that is gone when no other can be running: the database is this process's
        alone (SQLite's lock) or the parts are of the shards it holds the locks of. They are
        released (the parts keep their ``attempts``: each is looked for in its channel before it
        is sent), instead of waiting for the claims to expire. Shared otherwise: they expire."""
        if not self.db.backend.exclusive and self.state.shards is None:
            return
        where = f"sent_at IS NULL AND claim_owner IS NOT NULL AND claim_owner <> ? AND {self._my_parts()}"
        if not (await self.db.read(f"SELECT COUNT(*) FROM outbox_parts WHERE {where}", (self.state.owner,)))[0][0]:
            return
        async with self.db.tx("part.release") as db:
            await db.execute(db.sql(f"UPDATE outbox_parts SET claim_owner = NULL, claim_until = NULL WHERE {where}"), (self.state.owner,))

    async def pending_parts(self, game_id: str | None = None) -> list[Part]:
        """Parts not yet sent, in the order they were staged."""
        return self._mark_held([_part(r) for r in await self.db.read(*self._parts_query(game_id))])

    def _parts_query(self, game_id: str | None) -> tuple[str, list[Any]]:
        sql = f"SELECT {PARTS_COLS} FROM outbox_parts WHERE sent_at IS NULL"
        if self.state.shards is not None:
            sql += f" AND {self._my_parts()}"
        params: list[Any] = []
        if game_id is not None:
            sql += " AND game_id = ?"
            params.append(game_id)
        return sql + " ORDER BY batch_ord, part_idx", params

    def _mark_held(self, parts: list[Part]) -> list[Part]:
        """``held`` on the parts whose claim this store took at staging and still holds."""
        if not self.state.held and not self.state.untried:
            return parts
        now = self.state.clock()
        alone = self.db.backend.exclusive or self.state.shards is not None  # no other process sends these parts
        expired = []
        for k, until in self.state.held.items():  # in the order they expire: the expired come first
            if until > now:
                break
            expired.append(k)
        for k in expired:
            del self.state.held[k]  # the claim is about to expire: claim it again before sending
            if alone:
                self.state.untried.add(k)
        return [replace(p, held=True) if (p.batch_id, p.part_idx) in self.state.held
                else replace(p, untried=True) if (p.batch_id, p.part_idx) in self.state.untried else p for p in parts]

    async def parts(self, batch_id: str) -> list[Part]:
        """Every part of a batch, sent or not (tests, diagnostics)."""
        rows = await self.db.read(f"SELECT {PARTS_COLS} FROM outbox_parts WHERE batch_id = ? ORDER BY part_idx", (batch_id,))
        return [_part(r) for r in rows]

    async def held_messages(self, channel_id: int | None, message_ids: list[int]) -> set[int]:
        """Which of these Discord messages of a channel are recorded as some part's message: a
        message accounted for is no evidence that another part went out."""
        if channel_id is None or not message_ids:
            return set()
        marks = ", ".join("?" for _ in message_ids)
        rows = await self.db.read(f"SELECT message_id FROM outbox_parts WHERE channel_id = ? AND message_id IN ({marks})",
                                (channel_id, *message_ids))
        return {int(r[0]) for r in rows}

    async def claim_part(self, part: Part) -> bool:
        """A send of this part starts now (committed before the send): True when this store
        holds the part's claim for the next ``CLAIM_SECONDS``; False when it was sent, or
        another process holds a claim that has not expired (send nothing then)."""
        self.state.held.pop((part.batch_id, part.part_idx), None)
        self.state.untried.discard((part.batch_id, part.part_idx))  # tried from now on
        now = self.state.clock()
        stamp, until = to_ts(now), to_ts(now + timedelta(seconds=CLAIM_SECONDS))
        async with self.db.tx("part.claim") as db:
            n = await db.execute(
                db.sql("UPDATE outbox_parts SET attempts = attempts + 1, last_attempt_at = ?, claim_owner = ?, claim_until = ? "
                       "WHERE batch_id = ? AND part_idx = ? AND sent_at IS NULL "
                       "AND (claim_owner IS NULL OR claim_owner = ? OR claim_until < ?)"),
                (stamp, self.state.owner, until, part.batch_id, part.part_idx, self.state.owner, stamp),
            )
            self.db.point("part.claim.before_commit")
        return n == 1

    async def hold_again(self, parts: list[Part]) -> list[Part]:
        """Claim again, in one transaction, the ``untried`` ones of these parts (claimed by this
        store at staging, the claim expired before they were tried): those it gets are held as
        at staging (``Part.held``: sent without a claim of their own) and returned so; a part
        sent meanwhile, or whose claim another process holds, is left out. One transaction for
        a flush's parts instead of one a part."""
        want = [p for p in parts if p.untried and (p.batch_id, p.part_idx) in self.state.untried]
        return await self._claim_held(want)

    async def claim_parts(self, parts: list[Part]) -> list[Part]:
        """Claim, in one transaction, the parts never tried (no attempt, not held): those it
        gets are held (``Part.held``: sent without a claim of their own) and returned so. A
        crash after it leaves them tried: the next start looks for each in its channel before
        sending it, as after a claim of one part. One transaction for the parts of a flush that
        sends its channels side by side (a start's first posts), instead of one a part between
        its sends."""
        return await self._claim_held([p for p in parts if not p.attempts and not p.held and not p.untried])

    async def _claim_held(self, want: list[Part]) -> list[Part]:
        if not want:
            return []
        now = self.state.clock()
        stamp, until = to_ts(now), to_ts(now + timedelta(seconds=CLAIM_SECONDS))
        got: list[Part] = []
        async with self.db.tx("part.claim") as db:
            for p in want:
                n = await db.execute(
                    db.sql("UPDATE outbox_parts SET attempts = attempts + 1, last_attempt_at = ?, claim_owner = ?, "
                           "claim_until = ? WHERE batch_id = ? AND part_idx = ? AND sent_at IS NULL "
                           "AND (claim_owner IS NULL OR claim_owner = ? OR claim_until < ?)"),
                    (stamp, self.state.owner, until, p.batch_id, p.part_idx, self.state.owner, stamp),
                )
                if n == 1:
                    got.append(replace(p, held=True, untried=False, attempts=p.attempts + 1, last_attempt_at=stamp))
        held_until = now + timedelta(seconds=CLAIM_SECONDS - CLAIM_MARGIN)
        for p in want:
            self.state.untried.discard((p.batch_id, p.part_idx))
        self._hold_until([(p.batch_id, p.part_idx) for p in got], held_until)
        return got

    async def mark_part_failed(self, part: Part, error: str) -> bool:
        self.state.held.pop((part.batch_id, part.part_idx), None)  # tried: the next try looks for it first
        self.state.untried.discard((part.batch_id, part.part_idx))
        return await self._part_update("part.failed", "last_error = ?", (error[:1000],), part)

    async def mark_part_sent(self, part: Part, message_id: int | None) -> bool:
        """The part is in its channel (``message_id``: the message, if known); when it was the
        batch's last unsent part, its outbox rows are delivered in the same transaction."""
        return await self.mark_parts_sent([(part, message_id)]) == 1

    async def mark_parts_sent(self, sent: list[tuple[Part, int | None]], *,
                              within: Callable[[Backend, str], Awaitable[None]] | None = None) -> int:
        """:meth:`mark_part_sent` for every part of a flush, in one transaction (a crash before
        it leaves them claimed and unsent: the next start looks for each in its channel before
        sending it). Returns how many were still unsent.

        ``within(db, stamp)``: another room's write committed in the same transaction, after the
        marks (a game's meta change: :meth:`storage.meta.Meta.mark_parts_sent`)."""
        if not sent:
            return 0
        return await self._mark_parts_sent(sent, within)

    async def _mark_parts_sent(self, sent: list[tuple[Part, int | None]],
                               within: Callable[[Backend, str], Awaitable[None]] | None) -> int:
        stamp = self.db.stamp()

        async def body(db: Backend) -> int:
            n = 0
            batches: dict[str, None] = {}
            for part, message_id in sent:
                n += await db.execute(
                    db.sql("UPDATE outbox_parts SET sent_at = ?, message_id = ? WHERE batch_id = ? AND part_idx = ? AND sent_at IS NULL"),
                    (stamp, message_id, part.batch_id, part.part_idx),
                )
                batches[part.batch_id] = None
            for batch_id in batches:
                left = await db.fetchall(db.sql("SELECT COUNT(*) FROM outbox_parts WHERE batch_id = ? AND sent_at IS NULL"),
                                         (batch_id,))
                if not left[0][0]:
                    await db.execute(db.sql("UPDATE outbox SET delivered_at = ? WHERE batch_id = ? AND delivered_at IS NULL"),
                                     (stamp, batch_id))
            if within is not None:  # the caller's meta change, as update_meta writes it (compare-and-set)
                await within(db, stamp)
            return n

        n = await self.db.run("part.sent", body, "part.sent.before_commit")  # one trip: the lock held for its work only
        for p, _ in sent:
            self.state.held.pop((p.batch_id, p.part_idx), None)
        return n

    async def _part_update(self, label: str, assignments: str, params: tuple[Any, ...], part: Part) -> bool:
        async with self.db.tx(label) as db:
            n = await db.execute(
                db.sql(f"UPDATE outbox_parts SET {assignments} WHERE batch_id = ? AND part_idx = ? AND sent_at IS NULL"),
                (*params, part.batch_id, part.part_idx),
            )
            self.db.point(f"{label}.before_commit")
        return n == 1

    async def _outbox_update(self, label: str, assignments: str, params: tuple[Any, ...], key: str) -> bool:
        async with self.db.tx(label) as db:
            n = await db.execute(
                db.sql(f"UPDATE outbox SET {assignments} WHERE delivery_key = ? AND delivered_at IS NULL"), (*params, key)
            )
            self.db.point(f"{label}.before_commit")
        return n == 1
