"""Seed 003 (stats mafia): attacks by initiative − defense, checks by initiative − stealth."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ...registry import impl
from ...resolve.effects import kill
from ...state import Intent, Player, Status

if TYPE_CHECKING:
    from ...resolve.context import Ctx


@impl("contest_attack")
def contest_attack(ctx: Ctx, intent: Intent, eff: Any, people: list[Player]) -> None:
    """≥ kill_at: dies; 1..kill_at−1: hospital for that many days from the next day; ≤0: nothing."""
    g = ctx.game
    actor = g.player(intent.pid)
    kill_at = int(eff.params.get("kill_at", 4))
    hospital = eff.params.get("status", "hospital")
    for t in people:
        if not g.alive(t) or any(not f.can_be_targeted for f in g.status_flags(t)):
            ctx.note(intent, f"unreachable:{t.pid}")
            continue
        diff = g.true_stat(actor, eff.params.get("attack", "initiative")) - g.true_stat(t, eff.params.get("defense", "defense"))
        if diff >= kill_at:
            kill(ctx, t, intent.ability)
        elif diff >= 1:
            # the stay begins the next day (nothing changes tonight: the night is simultaneous)
            # and adds to what is left of a stay already owed
            start = ctx.tick + 1
            while g.clock.info(start).kind != "day":
                start += 1
            s = t.statuses.get(hospital)
            if s is not None and s.until is None:
                continue  # in hospital for good already
            until = max(s.until, start) if s is not None else start
            until += g.clock.cycles(diff)
            days = (until - start) // g.clock.per_cycle
            t.statuses[hospital] = Status(id=hospital, since=min(s.since, start) if s else start, until=until, data={"days": days})
        else:
            ctx.note(intent, f"no_effect:{t.pid}")


@impl("hospital_death")
def hospital_death(ctx: Ctx, intent: Intent | None, sd: Any, people: list[Player]) -> None:
    """In the morning, whoever still owes the hospital at least ``days`` days dies."""
    g = ctx.game
    limit = int(sd.params.get("days", 5))
    morning = ctx.tick + 1
    for p in g.living():
        s = p.statuses.get(sd.params.get("status", "hospital"))
        if s is None:
            continue
        owed = -(-(s.until - morning) // g.clock.per_cycle) if s.until is not None else s.data.get("days", 0)
        if owed >= limit:
            kill(ctx, p, "hospital")


@impl("contest_check")
def contest_check(ctx: Ctx, intent: Intent, eff: Any, people: list[Player]) -> None:
    """Read the book's table by initiative − stealth; each row maps the secret role to an answer."""
    g = ctx.game
    actor = g.player(intent.pid)
    for t in people:
        diff = g.true_stat(actor, eff.params.get("attack", "initiative")) - g.true_stat(t, eff.params.get("stealth", "stealth"))
        answer: str | None = None
        for row in eff.params["table"]:
            if row.get("min", -99) <= diff <= row.get("max", 99):
                if row.get("answer") == "role":
                    answer = t.character
                else:
                    answer = row.get("answers", {}).get(t.character)
                break
        if answer is None:
            ctx.emit("check.failed", "players", [intent.pid], target=t.pid)
        else:
            ctx.emit("check.character", "players", [intent.pid], target=t.pid, value=answer)
