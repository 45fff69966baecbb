"""Godfather's Legacy (seed 000): abilities that jail, release, sentence, or touch the vote.

The prison itself (the vote, the ±6 thresholds, sentences carried out at the end of a day,
immunities) lives in :mod:`engine.books.godfather.prison`; these are the actions that use it. They run in the
ruleset's ``prison_actions`` step, after the period's ВО/ТВ effects, so a condition such as
«при ТВ меньше 10» reads the values those effects left (with hidden bonuses, like the
prison's own thresholds). Decisions: docs/rules/godfather.md.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ...registry import impl
from ...state import Intent, Player, Status
from .prison import day_end, jail, release, sentence, value

if TYPE_CHECKING:
    from ...resolve.context import Ctx

JAIL = ["negative", "prison"]
EXECUTION = ["negative", "kill", "execution"]


def _protected(ctx: Ctx, intent: Intent, t: Player, labels: list[str]) -> bool:
    if ctx.protection(t, labels, intent.pid) is None:
        return False
    ctx.note(intent, f"protected:{t.pid}")
    ctx.outcome[intent.seq] = "protected"
    return True


def _no_effect(ctx: Ctx, intent: Intent, why: str) -> None:
    """The action was not blocked but found nothing to do: its actor is told, the GM sees why."""
    ctx.note(intent, why)
    ctx.outcome[intent.seq] = "no_effect"
    ctx.emit("private.no_effect", "players", [intent.pid], ability=intent.ability)


def _put_status(p: Player, sid: str, since: int, until: int | None, data: dict[str, Any]) -> None:
    """Put a timed status, never shortening one already held."""
    old = p.statuses.get(sid)
    if old is not None and (old.until is None or (until is not None and old.until >= until)):
        return
    p.statuses[sid] = Status(id=sid, since=since, until=until, data=data)


@impl("prison_sentence")
def prison_sentence(ctx: Ctx, intent: Intent, eff: Any, people: list[Player]) -> None:
    """Prison (or execution) «по итогам дня»: the verdict now, carried out at the day's end.

    ``params``: none (always prison: «Заставить выплатить ссуду»), or ``stat`` with
    ``prison_below`` and ``execution_below`` («Отстаивать захват земли в суде»: ТВ < 10 / < 2,
    «Подкупить судью-ревизора»: ВО < 12 / < 0).
    """
    g = ctx.game
    prm = eff.params
    for t in people:
        verdict = "prison"
        if prm.get("stat"):
            # a court weighs the real standing, hidden bonuses included (its verdict is secret)
            v = g.true_stat(t, g.rules.stat(prm["stat"]).id, "prison")
            if prm.get("execution_below") is not None and v < int(prm["execution_below"]):
                verdict = "execution"
            elif prm.get("prison_below") is None or v >= int(prm["prison_below"]):
                ctx.note(intent, f"no_verdict:{t.pid}")
                continue
        if _protected(ctx, intent, t, EXECUTION if verdict == "execution" else JAIL):
            continue
        sentence(ctx, t, verdict, intent.ability, intent.pid)


@impl("prison_jail")
def prison_jail(ctx: Ctx, intent: Intent, eff: Any, people: list[Player]) -> None:
    """Jail at once («Устроить ловушку»)."""
    for t in people:
        if _protected(ctx, intent, t, JAIL):
            continue
        if not jail(ctx.game, t, intent.ability):
            _no_effect(ctx, intent, f"already_in_prison:{t.pid}")


@impl("prison_release")
def prison_release(ctx: Ctx, intent: Intent, eff: Any, people: list[Player]) -> None:
    """Release at once («Передать ключи от темницы», «Устроить побег», «Убеждение тюремщика»)."""
    for t in people:
        if not release(ctx.game, t, intent.ability):
            _no_effect(ctx, intent, f"not_in_prison:{t.pid}")


@impl("prison_swap")
def prison_swap(ctx: Ctx, intent: Intent, eff: Any, people: list[Player]) -> None:
    """«Сотрудничество с тюремщиком»: targets [a prisoner, a free player with negative ВО];
    the free one goes to prison in the prisoner's place, or nothing happens."""
    g = ctx.game
    if len(people) != 2:  # a target lost to a rerouting: no deal
        _no_effect(ctx, intent, "targets_lost")
        return
    inmate, free = people
    stat = g.rules.stat(eff.params.get("stat", "vo")).id
    if not g.active(inmate, "prison"):
        _no_effect(ctx, intent, f"not_in_prison:{inmate.pid}")
    elif g.active(free, "prison") or value(g, free, stat) >= 0:
        _no_effect(ctx, intent, f"not_free_and_negative:{free.pid}")
    elif not _protected(ctx, intent, free, JAIL) and jail(g, free, intent.ability):
        release(g, inmate, intent.ability)


@impl("prayers")
def prayers(ctx: Ctx, intent: Intent, eff: Any, people: list[Player]) -> None:
    """«Чтение молитв»: whoever lowered the target's ВО or ТВ this night (an applied change)
    votes without strength in the coming day."""
    g = ctx.game
    stats = {g.rules.stat(s).id for s in eff.params.get("stats", ["vo", "tv"])}
    status = eff.params.get("status", "no_vote_strength")
    until = day_end(g, ctx.tick) + 1
    for t in people:
        actors = sorted({
            c["actor"] for c in ctx.scratch.get("stat_changes", [])
            if c["target"] == t.pid and c["stat"] in stats and c["delta"] < 0 and c["actor"] is not None
        })
        hit = []
        for a in actors:
            q = g.player(a)
            if ctx.protection(q, ["negative", "status", f"status:{status}"], intent.pid) is not None:
                ctx.note(intent, f"protected:{a}")
                continue
            _put_status(q, status, ctx.tick, until, {"by": intent.pid})
            hit.append(a)
        ctx.emit("gm.prayers", "gm", player=t.pid, players=hit)


@impl("execution_shield")
def execution_shield(ctx: Ctx, intent: Intent, eff: Any, people: list[Player]) -> None:
    """«Подарить раба тюремщику», first option: no execution at the end of this day (used at
    night: of the coming day). A protection like any other: withdrawn if its giver is blocked."""
    until = day_end(ctx.game, ctx.tick) + 1
    for t in people:
        sid = f"protected:{intent.seq}:{t.pid}"
        t.statuses[sid] = Status(id=sid, since=ctx.tick, until=until, data={"by": intent.pid, "seq": intent.seq, "against": ["execution"]}, kind="protected")
    ctx.outcome.setdefault(intent.seq, "applied")
