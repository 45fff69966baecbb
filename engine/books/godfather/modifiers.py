"""Seed 000 (Godfather's Legacy): abilities that change other actions or the ways to act.

Blocks, protections and redirects are primitives (:mod:`engine.resolve.effects`); what is here:
«Пожар на маяке» (rerouting), «Шантаж» (an obligation on the next action), «Кабальный
договор» (an action taken for the game), «Быстрое обучение», «Изучить методы командования»
and «Искусное подражание» (abilities granted), «Отправить на крещение индейцев» (absence).
Decisions: docs/rules/godfather.md.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ...registry import impl
from ...resolve.effects import _stopped, _until, put_block
from ...resolve.targeting import reroute
from ...state import Intent, Player, Status

if TYPE_CHECKING:
    from ...resolve.context import Ctx
    from ...world import World


def own_key(g: World, p: Player, slot: str) -> str | None:
    """``p``'s own ability (role or character, not granted) of ``slot``."""
    return next((k for k, ab in g.abilities(p, granted=False) if ab.slot == slot), None)


def bound_turn(ctx: Ctx, p: Player, phase: str) -> tuple[int, int]:
    """The first tick and the end of ``p``'s next action of ``phase`` ("day", "night", "any"):
    the rest of the current turn when ``p`` has not acted in it yet, else a later turn."""
    c = ctx.game.clock
    now = c.info(ctx.tick).turn
    acted = "action" in p.spent.get(now, []) or any(i.pid == p.pid and i.lane == "action" for i in ctx.intents)
    t = ctx.tick + 1
    if acted:
        while c.info(t).turn == now:
            t += 1
    while phase != "any" and c.info(t).kind != phase:
        t += 1
    end = t
    while c.info(end).turn == c.info(t).turn:
        end += 1
    return t, end


@impl("reroute_faction")
def reroute_faction(ctx: Ctx, intent: Intent, eff: Any, people: list[Player]) -> None:
    """«Пожар на маяке»: this period, whatever is aimed at a member of the actor's faction
    (even by a fellow member) goes to a random player outside it (:func:`engine.resolve.targeting.reroute`)."""
    g = ctx.game
    members = sorted({m for f in g.factions_of(intent.pid) for m in f.members})
    until = _until(ctx, eff, "tick")
    for m in members:
        sid = f"rerouted:{intent.seq}:{m}"
        g.player(m).statuses[sid] = Status(id=sid, since=ctx.tick, until=until, data={"by": intent.pid, "seq": intent.seq, "exclude": members}, kind="rerouted")
    ctx.outcome.setdefault(intent.seq, "applied")


@impl("blackmail")
def blackmail(ctx: Ctx, intent: Intent, eff: Any, people: list[Player]) -> None:
    """«Шантаж»: targets [victim, X]; option a slot («его ход») or ``target``.

    A slot: the victim's next action must be their own move of that slot, aimed at X when it
    takes a target; made for them at the end of that turn if they do not make it. ``target``:
    the victim chooses the move, but it must be aimed at X. The victim is told, not by whom.
    """
    g = ctx.game
    victims = reroute(ctx, intent, [g.player(intent.targets[0])])
    if not victims:
        return
    if _stopped(ctx, intent, victims[0], ["blackmail", "negative", *eff.labels]):
        ctx.outcome[intent.seq] = "protected"  # X is not acted upon
        return
    v, x = victims[0], intent.targets[1]
    mode = intent.option or "target"
    key, phase = None, "any"
    if mode != "target":
        key = own_key(g, v, mode)
        if key is None:
            ctx.note(intent, f"no_move:{mode}")
            return
        phase = g.rules.slot(mode).phase
    start, end = bound_turn(ctx, v, phase)
    sid = f"obliged:{intent.seq}"
    v.statuses[sid] = Status(id=sid, since=start, until=end, data={"by": intent.pid, "key": key, "target": x, "force": key is not None}, kind="obliged")
    turn = g.clock.info(start).turn
    if key:
        ctx.emit("blackmail.forced_move", "players", [v.pid], ability=key, target=x, turn=turn)
        ctx.emit("gm.blackmail", "gm", player=v.pid, ability=key, target=x, turn=turn)
    else:
        ctx.emit("blackmail.forced_target", "players", [v.pid], target=x, turn=turn)
        ctx.emit("gm.blackmail_target", "gm", player=v.pid, target=x, turn=turn)


@impl("forbid_action")
def forbid_action(ctx: Ctx, intent: Intent, eff: Any, people: list[Player]) -> None:
    """«Кабальный договор»: the target's own action of the chosen slot is taken for the game."""
    g = ctx.game
    for v in people:
        if _stopped(ctx, intent, v, ["forbid", "negative", *eff.labels]):
            continue
        key = own_key(g, v, intent.option or "")
        if key is None:
            ctx.note(intent, f"no_move:{intent.option}")
            continue
        if key not in v.forbidden:
            v.forbidden.append(key)
        ctx.emit("bondage.forbidden", "players", [v.pid], ability=key)


@impl("grant_abilities")
def grant_abilities(ctx: Ctx, intent: Intent, eff: Any, people: list[Player]) -> None:
    """The actor gains abilities of the target's ``source`` (``role`` or ``character``),
    optionally only of some ``slots``; from the next tick, for ``cycles`` (none: the game);
    ``replace: role`` takes the actor's own role abilities away meanwhile."""
    g = ctx.game
    actor = g.player(intent.pid)
    src_kind = eff.params.get("source", "character")
    slots = set(eff.params.get("slots", []))
    cycles = eff.params.get("cycles")
    since = ctx.tick + 1
    until = g.clock.lasts_until(ctx.tick, int(cycles)) if cycles else None
    for t in people:
        ref = t.role if src_kind == "role" else t.character
        src = (g.rules.role(ref) if src_kind == "role" else g.rules.character(ref)) if ref else None
        keys = [f"{src_kind}:{src.id}:{ab.id}" for ab in src.abilities if not slots or ab.slot in slots] if src else []
        if not keys:
            ctx.emit("grant.nothing", "players", [actor.pid], target=t.pid)
            continue
        for k in keys:
            actor.grants.append({"key": k, "since": since, "until": until, "replace": eff.params.get("replace"), "by": intent.ability})
            if until is None:
                ctx.emit("grant.gained", "players", [actor.pid], ability=k)
            else:
                ctx.emit("grant.gained_for_a_while", "players", [actor.pid], ability=k, ready=g.clock.info(until).label)
        if eff.params.get("replace") == "role":
            ctx.emit("grant.own_role_away", "players", [actor.pid], ready=g.clock.info(until).label if until else "")


@impl("baptism")
def baptism(ctx: Ctx, intent: Intent, eff: Any, people: list[Player]) -> None:
    """«Отправить на крещение индейцев» (a block, «блокировка»): the targets are away from now
    («начиная с одновременных», as every block) for a cycle: they cannot act, vote, write or
    be written to, and nothing reaches them (a protection against everything, while away)."""
    g = ctx.game
    status = eff.params.get("status", "absent")
    until = _until(ctx, eff, "cycle")
    for t in people:
        if g.active(t, "prison"):
            ctx.note(intent, f"in_prison:{t.pid}")
            continue
        if _stopped(ctx, intent, t, ["block", "negative", *eff.labels]):
            continue
        put_block(ctx, intent, t, until)
        t.statuses[status] = Status(id=status, since=ctx.tick, until=until, data={"by": intent.pid})
        sid = f"protected:away:{intent.seq}:{t.pid}"
        t.statuses[sid] = Status(id=sid, since=ctx.tick, until=until, data={"by": intent.pid, "against": ["*"], "away": True}, kind="protected")
