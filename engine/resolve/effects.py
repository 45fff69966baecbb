"""Parameterised primitives: the ``op`` of an effect in a ruleset.

Each takes the resolve context, the intent being applied, the effect's parameters and the
players it reaches. Every primitive asks the target's protections first, so protection and
blocking are generic (labels), never special cases.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

from ..errors import GameError
from ..factions import remove_member
from ..registry import IMPLS, effect
from ..state import Intent, Modifier, Player, Status
from .appearance import seen_team
from .guards import GUARD_AGAINST, intercept
from .notices import LEDGER
from .targeting import reroute

if TYPE_CHECKING:
    from .context import Ctx


def _stopped(ctx: Ctx, intent: Intent, target: Player, labels: list[str], amount: int | None = None) -> bool:
    prot = ctx.protection(target, labels, intent.pid, amount)
    if prot is None:
        return False
    ctx.note(intent, f"protected:{target.pid}")
    if ctx.outcome.get(intent.seq) != "blocked":
        ctx.outcome[intent.seq] = "partly_protected" if len(intent.targets) > 1 else "protected"
    return True


def _since(ctx: Ctx, eff: Any) -> int:
    """The first tick an effect's status is in force from: the resolve's own tick (in force from
    the next), or, with ``params.from: night`` («в ближайшую ночь»), the first night after it."""
    if eff.params.get("from") != "night":
        return ctx.tick
    t = ctx.tick + 1
    while ctx.game.clock.info(t).kind != "night":
        t += 1
    return t


def _until(ctx: Ctx, eff: Any, default: str = "tick") -> int | None:
    until = eff.until or default
    if until == "tick":
        return ctx.tick + 1  # (Clock.end_of's answer for "tick", the commonest)
    return ctx.game.clock.end_of(ctx.tick, until, eff.cycles)


def change_stat(ctx: Ctx, intent: Intent | None, target: Player, stat: str, delta: int, labels: list[str] = ()) -> bool:
    """Change a stat unless a protection stops it; True when applied."""
    sid = ctx.rules.stat(stat).id
    sign = "negative" if delta < 0 else "positive"
    labels = [*labels, "stat", sign, f"stat:{sid}", f"{sign}:{sid}"]
    if intent is not None and target.statuses:
        hit = intercept(ctx, intent.pid, target, labels, strike_kill)
        if hit is None:
            return False
        target = hit
    if intent is not None and _stopped(ctx, intent, target, labels, abs(delta)):
        return False
    target.stats[sid] = target.stats.get(sid, 0) + delta
    ctx.scratch.setdefault("stat_changes", []).append(
        {"actor": intent.pid if intent else None, "target": target.pid, "stat": sid, "delta": delta}
    )
    if delta < 0 and intent is not None:
        reflect(ctx, intent, target, sid, delta)
    return True


def reflect(ctx: Ctx, intent: Intent, target: Player, sid: str, delta: int) -> None:
    """A status ``reflect:*`` on ``target`` (Божья кара) hits back whoever lowered its stat:
    ``data``: ``stats`` it watches, ``divisor`` (the share, rounded down), ``by`` (its giver).
    A blow that comes back is not reflected again; protections of the actor stop it."""
    g = ctx.game
    actor = g.player(intent.pid)
    if actor.pid == target.pid:
        return
    for rid, s in sorted(target.statuses.items()):
        if s.kind != "reflect" or not g.active(target, rid, ctx.tick) or sid not in s.data.get("stats", []):
            continue
        back = abs(delta) // int(s.data.get("divisor", 2))
        labels = ["stat", "negative", f"stat:{sid}", f"negative:{sid}"]
        if back and ctx.protection(actor, labels, s.data.get("by"), back) is None:
            actor.stats[sid] = actor.stats.get(sid, 0) - back
            ctx.scratch.setdefault("stat_changes", []).append({"actor": s.data.get("by"), "target": actor.pid, "stat": sid, "delta": -back})
            # told to the actor as another's doing, not as their own action's (notices.LEDGER:
            # the action's own credit of this change is cancelled)
            ctx.scratch.setdefault(LEDGER, []).extend([(actor.pid, sid, -back, "action", s.data.get("by")),
                                                       (actor.pid, sid, back, intent.ability, intent.pid)])
            ctx.emit("gm.reflected", "gm", player=actor.pid, target=target.pid, stat=sid, delta=-back, ability=s.data.get("ability", ""))


@effect("stat")
def op_stat(ctx: Ctx, intent: Intent, eff: Any, people: list[Player]) -> None:
    delta = eff.delta if eff.delta is not None else eff.amount
    for t in people:
        change_stat(ctx, intent, t, eff.stat, delta, eff.labels)


@effect("modifier")
def op_modifier(ctx: Ctx, intent: Intent, eff: Any, people: list[Player]) -> None:
    """A timed bonus that is not part of the base stat (``+5 ТВ на сутки``)."""
    for t in people:
        sid = ctx.rules.stat(eff.stat).id
        t.modifiers.append(Modifier(stat=sid, amount=eff.delta or 0, source=intent.ability, until=_until(ctx, eff, "cycle"), scope=eff.params.get("scope", "all")))


@effect("block")
def op_block(ctx: Ctx, intent: Intent, eff: Any, people: list[Player]) -> None:
    for t in people:
        if _stopped(ctx, intent, t, ["block", *eff.labels]):
            continue
        put_block(ctx, intent, t, _until(ctx, eff), list(eff.params.get("slots", [])))


def put_block(ctx: Ctx, intent: Intent, t: Player, until: int | None, slots: list[str] = ()) -> None:
    """Block ``t`` from this tick («начиная с одновременных») to ``until``, in ``slots`` (empty:
    every action). Its actions of this tick that have not resolved yet are blocked; a
    protection (or a rerouting) it already gave this tick is withdrawn; what already took effect
    earlier in the resolve stays; the blocking action itself, when its actor blocks themself
    («всем»), is not touched."""
    sid = f"blocked:{intent.seq}:{t.pid}"
    t.statuses[sid] = Status(id=sid, since=ctx.tick, until=until, data={"by": intent.pid, "slots": list(slots)}, kind="blocked")
    ran = ctx.ran
    whole = _blocks_all_now(slots, until, ctx.tick)
    ability_def = ctx.game.ability_def
    for other in ctx.intents_of(t.pid):
        if other.seq == intent.seq:
            continue
        if ctx.outcome.get(other.seq) in (None, "applied") and (
                (not ability_def(other.ability).unblockable and other.via != "leader") if whole else ctx.is_blocked(other)):
            if other.seq in ran and not _withdraw(ctx, other):
                ctx.note(other, "blocked_too_late")
                continue
            ctx.outcome[other.seq] = "blocked"


def _blocks_all_now(slots: list[str], until: int | None, tick: int) -> bool:
    """Whether a block just put (since ``tick``) covers every action and is in force at
    ``tick``: then it covers each of the target's actions by itself (``Ctx.is_blocked`` would
    find it), and only an unblockable one, or the leader's action, escapes it."""
    return not slots and (until is None or until > tick)


def _withdraw(ctx: Ctx, intent: Intent) -> bool:
    """Take back the statuses (protections, reroutings) an action gave this tick; True if any."""
    found = False
    for p in ctx.game.state.players:
        for sid in list(p.statuses):
            if p.statuses[sid].data.get("seq") == intent.seq:
                del p.statuses[sid]
                found = True
    return found


@effect("protect")
def op_protect(ctx: Ctx, intent: Intent, eff: Any, people: list[Player]) -> None:
    for t in people:
        sid = f"protected:{intent.seq}:{t.pid}"
        data = {"by": intent.pid, "seq": intent.seq, "against": list(eff.labels or ["*"]), **eff.params}
        t.statuses[sid] = Status(id=sid, since=ctx.tick, until=_until(ctx, eff), data=data, kind="protected")
    ctx.outcome.setdefault(intent.seq, "applied")


@effect("guard")
def op_guard(ctx: Ctx, intent: Intent, eff: Any, people: list[Player]) -> None:
    """A bodyguard: until the effect ends, the attacks on each target whose labels the
    ability's ``labels`` list (none: ``kill``, ``attack``) meet the guard first
    (:func:`engine.resolve.guards.intercept`); ``params.mode`` says how."""
    for t in people:
        sid = f"guarded:{intent.seq}:{t.pid}"
        data = {"by": intent.pid, "seq": intent.seq, "against": list(eff.labels or GUARD_AGAINST), "mode": eff.params.get("mode", "take")}
        t.statuses[sid] = Status(id=sid, since=ctx.tick, until=_until(ctx, eff), data=data, kind="guarded")
    ctx.outcome.setdefault(intent.seq, "applied")


def strike_kill(ctx: Ctx, attacker: Player, guard: int) -> None:
    """The core's way a guard strikes an attacker down (:func:`engine.resolve.guards.intercept`):
    killed, unless a protection against ``kill`` holds."""
    if ctx.protection(attacker, ["kill", "negative", "guard"], guard) is not None:
        ctx.emit("gm.saved", "gm", player=attacker.pid, actor=guard)
        return
    kill(ctx, attacker, "guard")


@effect("redirect")
def op_redirect(ctx: Ctx, intent: Intent, eff: Any, people: list[Player]) -> None:
    """Targets [whose action, new target] («Устроить слежку»): the actions of that player in
    this tick that have not resolved yet (every later step) go to the new target instead,
    the whole action to it once. Blocks and protections have settled before (the book puts
    blocks first) and stay where they went. The victim's protection against ``redirect`` or
    ``negative`` stops it (a redirect is a hostile act on the one whose action it moves)."""
    if len(intent.targets) < 2:
        return
    g = ctx.game
    ctx.outcome.setdefault(intent.seq, "applied")
    victims = reroute(ctx, intent, [g.player(intent.targets[0])])
    new = intent.targets[1]
    if not victims:
        return
    if _stopped(ctx, intent, victims[0], ["redirect", "negative", *eff.labels]):
        ctx.outcome[intent.seq] = "protected"  # the second target is a destination, not reached
        return
    victim = victims[0].pid
    order = [s.id for s in ctx.rules.steps[g.clock.info(ctx.tick).kind]]
    here = order.index(ctx.step_of(intent)) if ctx.step_of(intent) in order else -1
    for other in ctx.intents_of(victim):
        if other.seq == intent.seq or not other.targets or ctx.outcome.get(other.seq) == "blocked":
            continue
        step = ctx.step_of(other)
        if step not in order or order.index(step) <= here:
            ctx.note(intent, f"settled:{other.ability}")
            continue
        if other.targets != [new]:
            ctx.note(other, "redirected")
            ctx.note(intent, f"redirected:{other.ability}")
            ctx.emit("gm.redirected", "gm", actor=other.pid, ability=other.ability, targets=list(other.targets), target=new, by=intent.pid)
            other.targets = [new]


@effect("borrow")
def op_borrow(ctx: Ctx, intent: Intent, eff: Any, people: list[Player]) -> None:
    """An ability that performs another member's action («Ремонт каюты капитана») is used
    through ``via`` (:meth:`engine.game.Game.borrow_keys`); on its own it does nothing."""
    ctx.note(intent, "nothing_borrowed")


@effect("end_phase")
def op_end_phase(ctx: Ctx, intent: Intent, eff: Any, people: list[Player]) -> None:
    """«Спровоцировать бунт»: the turn ended when the action was announced
    (:meth:`engine.game.Game.submit`); at the resolve the public learns that it ended early,
    never by whom. A block already in force at the announcement took its force away."""
    cut = ctx.game.state.core.end_now
    if not cut or cut.tick != ctx.tick:
        ctx.outcome[intent.seq] = "blocked"
        ctx.note(intent, "blocked_when_announced")
        return
    if not ctx.scratch.get("ended_early"):
        ctx.scratch["ended_early"] = True
        ctx.emit("phase.ended_early", "public", phase=ctx.game.clock.info(ctx.tick).turn)


def poison_status(g: Any) -> str:
    """The ruleset's poison status (``kind: poison``)."""
    sid = g.rules.status_of_kind("poison")
    if sid is None:
        raise GameError(f"{g.rules.id}: op poison needs a status with kind: poison")
    return sid


@effect("poison")
def op_poison(ctx: Ctx, intent: Intent, eff: Any, people: list[Player]) -> None:
    cycles = eff.cycles or ctx.game.settings.poison_cycles
    for t in people:
        t = intercept(ctx, intent.pid, t, ["poison", "negative", *eff.labels], strike_kill)
        if t is None or _stopped(ctx, intent, t, ["poison", "negative", *eff.labels]):
            continue
        dies = ctx.tick + ctx.game.clock.cycles(cycles)
        poison = poison_status(ctx.game)
        old = t.statuses.get(poison)
        if old is None:
            t.statuses[poison] = Status(id=poison, since=ctx.tick, data={"dies_at": dies, "by": intent.pid})


@effect("cure")
def op_cure(ctx: Ctx, intent: Intent, eff: Any, people: list[Player]) -> None:
    for t in people:
        for sid in [eff.status or poison_status(ctx.game)]:
            t.statuses.pop(sid, None)


@effect("heal")
def op_heal(ctx: Ctx, intent: Intent, eff: Any, people: list[Player]) -> None:
    stat = eff.stat or ctx.game.settings.hp_stat or "hp"
    for t in people:
        change_stat(ctx, None, t, stat, eff.amount or 0)


@effect("damage")
def op_damage(ctx: Ctx, intent: Intent, eff: Any, people: list[Player]) -> None:
    stat = eff.stat or ctx.game.settings.hp_stat or "hp"
    for t in people:
        deal_damage(ctx, intent, t, eff.amount or 0, stat, eff.labels)


def deal_damage(ctx: Ctx, intent: Intent | None, t: Player, amount: int, stat: str | None = None, labels: list[str] = ()) -> int:
    stat = stat or ctx.game.settings.hp_stat or "hp"
    if intent is not None:
        hit = intercept(ctx, intent.pid, t, ["damage", *labels], strike_kill)
        if hit is None:
            return 0
        t = hit
    factor = 1.0
    prot = ctx.protection(t, ["damage", *labels], intent.pid if intent else None)
    if prot is not None:
        factor = float(prot.get("factor", 0.0))
        if intent is not None:
            ctx.note(intent, f"protected:{t.pid}")
    dealt = math.ceil(amount * factor)
    t.stats[stat] = t.stats.get(stat, 0) - dealt
    return dealt


@effect("status")
def op_status(ctx: Ctx, intent: Intent, eff: Any, people: list[Player]) -> None:
    for t in people:
        if _stopped(ctx, intent, t, ["status", f"status:{eff.status}", *eff.labels]):
            continue
        t.statuses[eff.status] = Status(id=eff.status, since=_since(ctx, eff), until=_until(ctx, eff, "game"), data={"by": intent.pid})
        for sid in ctx.rules.status(eff.status).clears:
            t.statuses.pop(sid, None)


@effect("kill")
def op_kill(ctx: Ctx, intent: Intent, eff: Any, people: list[Player]) -> None:
    for t in people:
        t = intercept(ctx, intent.pid, t, ["kill", "negative", *eff.labels], strike_kill)
        if t is None or _stopped(ctx, intent, t, ["kill", "negative", *eff.labels]):
            continue
        kill(ctx, t, intent.ability)


def _death_status(rules: Any) -> Any:
    """The ruleset's default death status (looked up once per ruleset)."""
    found = rules.derived_cache.get(("death_status",))
    if found is None:
        found = rules.derived_cache[("death_status",)] = rules.death_status()
    return found


def _poison_status(rules: Any) -> str | None:
    """The ruleset's poison status id, or None (looked up once per ruleset)."""
    cache = rules.derived_cache
    if ("poison_status",) not in cache:
        cache[("poison_status",)] = rules.status_of_kind("poison")
    return cache[("poison_status",)]


def kill(ctx: Ctx, t: Player, cause: str, status: str | None = None) -> None:
    """``t`` is out of the game with the dead status ``status`` (default: the ruleset's first;
    an execution may put its own, «казнён»). Setting ``death_reveals`` lists the facts everyone
    learns of the dead (seed 001: ``character``, ``in_faction`` — not which faction; ``role``)."""
    g = ctx.game
    ddef = g.rules.status(status) if status else _death_status(g.rules)
    dead = ddef.id
    factions = g.factions_of(t.pid)  # a new list: the removals below do not touch it
    reveal = {"character": t.character, "role": t.role, "in_faction": bool(factions)}
    t.statuses[dead] = Status(id=dead, since=ctx.tick, data={"cause": cause})
    poison = _poison_status(g.rules)
    if poison:
        t.statuses.pop(poison, None)
    for sid in ddef.clears:
        t.statuses.pop(sid, None)
    settings = g.settings
    hp = settings.hp_stat
    if hp:
        t.stats[hp] = min(0, t.stats.get(hp, 0))
    for f in factions:
        remove_member(g, f, t.pid, reason="death")
    g.emit("gm.death", "gm", player=t.pid, cause=cause)
    for fact in settings.death_reveals or []:
        if reveal[fact] is not None:  # a player dealt no character has none to reveal
            g.emit(f"death.{fact}", "public", player=t.pid, value=reveal[fact])
    if cause.startswith("vote:"):
        lynched(ctx, t)


def lynched(ctx: Ctx, t: Player) -> None:
    """``t`` was put to death by a vote (a lynch, an execution): a passive ``wins_if_lynched``
    makes them a winner now, announced, and the game goes on (``CoreMemory.side_winners``,
    added to the winners at the end). Every book's vote death comes here: the core's ``kill``
    with a cause ``vote:<id>``, Eternal Friday's hanging."""
    g = ctx.game
    core = g.state.core
    if t.pid in core.side_winners or not g.passives(t, "wins_if_lynched"):
        return
    core.side_winners.append(t.pid)
    g.emit("game.side_winner", "public", player=t.pid)


@effect("reveal")
def op_reveal(ctx: Ctx, intent: Intent, eff: Any, people: list[Player]) -> None:
    """A check: tell the actor a fact about each target."""
    g = ctx.game
    for t in people:
        if _stopped(ctx, intent, t, ["check", *eff.labels]):
            continue
        fact = eff.fact or "character"
        if fact == "character":
            value: Any = t.character
        elif fact == "role":
            value = t.role
        elif fact == "stats":
            value = {s.id: g.true_stat(t, s.id) for s in g.rules.stats if s.visibility != "hidden"}
        elif fact == "in_faction":
            value = bool(g.factions_of(t.pid))
        elif fact == "hp":
            value = t.stats.get(g.settings.hp_stat or "hp")
        elif fact == "team":  # the team the check sees: a frame's or a miller's appears_as
            ctx.emit("check.team", "players", [intent.pid], target=t.pid, team=seen_team(g, t))
            value = None
        else:
            value = None
        if fact != "team":
            ctx.emit(f"check.{fact}", "players", [intent.pid], target=t.pid, value=value)
        if eff.params.get("tell_target"):
            ctx.emit("check.revealed_to_you", "players", [t.pid], fact=fact)


@effect("game_length")
def op_game_length(ctx: Ctx, intent: Intent, eff: Any, people: list[Player]) -> None:
    g = ctx.game
    cal = g.rules.calendar
    new = max(cal.min_days, min(cal.max_days, g.state.end_day + (eff.delta or 0)))
    if g.clock.cycles(new) <= ctx.tick:
        new = g.clock.info(ctx.tick).day  # cannot end in the past: ends after this cycle
    old, g.state.end_day = g.state.end_day, new
    ctx.emit("gm.end_day", "gm", old=old, new=new, by=intent.pid)
    ctx.emit("private.end_day_changed", "players", [intent.pid], delta=eff.delta or 0)


@effect("message")
def op_message(ctx: Ctx, intent: Intent, eff: Any, people: list[Player]) -> None:
    for t in people:
        ctx.emit("private.text", "players", [t.pid], text=eff.text.model_dump() if eff.text else {})


@effect("gm_task")
def op_gm_task(ctx: Ctx, intent: Intent, eff: Any, people: list[Player]) -> None:
    """An ability the book gives no defined effect: the GM decides, the bot records it."""
    g = ctx.game
    task = {
        "tick": ctx.tick, "actor": intent.pid, "ability": intent.ability,
        "targets": list(intent.targets), "option": intent.option, "settled": False,
    }
    g.state.gm_tasks.append(task)
    ctx.outcome[intent.seq] = "gm_task"
    ctx.emit("gm.task", "gm", index=len(g.state.gm_tasks) - 1, actor=intent.pid, ability=intent.ability, targets=list(intent.targets))


@effect("impl")
def op_impl(ctx: Ctx, intent: Intent, eff: Any, people: list[Player]) -> None:
    IMPLS[eff.impl](ctx, intent, eff, people)
