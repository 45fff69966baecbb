"""Read what a finished scripted game left behind, to compare two runs of it."""

from __future__ import annotations

import collections
import json
import sqlite3
from dataclasses import dataclass
from pathlib import Path
from typing import Any


@dataclass
class Outcome:
    state: dict[str, Any]  # Game.to_dict() of the final state
    status: str
    journal: list[tuple[Any, ...]]  # commands without their wall-clock time
    events: list[tuple[Any, ...]]
    outbox: list[tuple[Any, ...]]  # key, destination, delivered or not
    gm_actions: list[tuple[Any, ...]]
    deliveries: list[list[Any]]  # the delivery log: [key, dest, dest_id, rendered text]

    @classmethod
    def read(cls, db: Path, log: Path, game_id: str) -> Outcome:
        con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
        try:
            state, status = con.execute("SELECT state, status FROM games WHERE game_id = ?", (game_id,)).fetchone()
            journal = con.execute(
                "SELECT seq, tick, kind, args, result, user_id, request_id FROM commands WHERE game_id = ? ORDER BY seq", (game_id,)
            ).fetchall()
            events = con.execute(
                "SELECT idx, seq, tick, msg_key, audience, ids, args FROM events WHERE game_id = ? ORDER BY idx", (game_id,)
            ).fetchall()
            outbox = con.execute(
                "SELECT delivery_key, dest_kind, dest_id, delivered_at IS NOT NULL FROM outbox WHERE game_id = ? "
                "ORDER BY event_idx, dest_ord",
                (game_id,),
            ).fetchall()
            gm = con.execute("SELECT seq, tick, user_id, action, args FROM gm_actions WHERE game_id = ? ORDER BY seq", (game_id,)).fetchall()
        finally:
            con.close()
        lines = [json.loads(x) for x in log.read_text(encoding="utf-8").splitlines() if x] if log.exists() else []
        return cls(json.loads(state), status, journal, events, outbox, gm, lines)


def assert_same(got: Outcome, ref: Outcome, name: str) -> None:
    keys = [line[0] for line in got.deliveries]
    dupes = [k for k, n in collections.Counter(keys).items() if n > 1]
    assert not dupes, f"{name}: delivered twice: {dupes[:5]}"
    lost = {line[0] for line in ref.deliveries} - set(keys)
    assert not lost, f"{name}: never delivered: {sorted(lost)[:5]}"
    assert got.deliveries == ref.deliveries, f"{name}: the delivery log differs"
    assert got.journal == ref.journal, f"{name}: the command journal differs"
    assert got.events == ref.events, f"{name}: the event log differs"
    assert got.outbox == ref.outbox, f"{name}: the outbox differs"
    assert got.gm_actions == ref.gm_actions, f"{name}: the GM actions differ"
    assert got.state == ref.state, f"{name}: the final game state differs"
