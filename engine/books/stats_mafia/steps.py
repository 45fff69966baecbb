"""The stats mafia's built-in steps: hospital deaths, reprieves, upkeep, mail delivery."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ...registry import step
from ...state import Modifier, Status
from .core import HOSPITAL, die, free, jail, memo

if TYPE_CHECKING:
    from ...resolve.context import Ctx


# ---- built-in steps ------------------------------------------------------------------------
@step("sm_hospital_death")
def hospital_death(ctx: Ctx, sd: Any) -> None:
    """«Если наутро оказывается, что персонаж должен пробыть в Госпитале не мене 5 суток, он
    умирает»: the сутки still owed from the morning on."""
    g = ctx.game
    limit = g.settings.hospital_death_days
    morning = ctx.tick + 1
    for p in g.living():
        s = p.statuses.get(HOSPITAL)
        if s is None or s.until is None:
            continue
        owed = -(-(s.until - morning) // g.clock.per_cycle)
        if owed >= limit:
            die(ctx, p, "hospital")


@step("sm_reprieve")
def reprieve_step(ctx: Ctx, sd: Any) -> None:
    """«... вместо этого в конце следующего дня попадает в Тюрьму до конца игры»."""
    g = ctx.game
    due = memo(g).reprieve
    for pid, tick in sorted(due.items()):
        p = g.player(int(pid))
        if tick == ctx.tick:
            del due[pid]
            if g.alive(p):
                jail(ctx, p, True, "reprieve")
                ctx.emit("sm.reprieve_jailed", "public", player=p.pid)


@step("sm_upkeep")
def upkeep(ctx: Ctx, sd: Any) -> None:
    """After every resolve: the bonuses that count players in a status («Скользкий ублюдок»),
    the flag that lets the Boss aim his shotgun, the patients told their term."""
    g = ctx.game
    nxt = ctx.tick + 1
    for p in g.state.players:
        for x in g.passives(p, "stat_per_status"):
            n = sum(1 for q in g.state.players if g.active(q, x["status"], nxt)) * int(x.get("amount", 1))
            mod = next((m for m in p.modifiers if m.source == "stat_per_status" and m.stat == x["stat"]), None)
            if mod is None:
                p.modifiers.append(Modifier(stat=x["stat"], amount=n, source="stat_per_status"))
            else:
                mod.amount = n
    flag = sd.params.get("flag")
    if flag:
        down = not any(q.character == flag["character"] and free(g, q, nxt) for q in g.state.players)
        for p in g.living():
            if not any(flag["status"] in r.status for _, ab in g.abilities(p) for r in ab.requires):
                continue
            if down and flag["status"] not in p.statuses:
                p.statuses[flag["status"]] = Status(id=flag["status"], since=nxt)
            elif not down:
                p.statuses.pop(flag["status"], None)
    for pid in sorted(ctx.scratch.get("sm_hospital", set())):
        p = g.player(pid)
        s = p.statuses.get(HOSPITAL)
        if s is not None and s.until is not None and g.alive(p):
            ctx.emit("sm.hospital_term", "players", [pid], phase=g.clock.info(s.until).label)


@step("sm_mail")
def deliver_mail(ctx: Ctx, sd: Any) -> None:
    """Letters of this phase reach their readers «в начале следующей фазы», with its report."""
    g = ctx.game
    box = memo(g).mail
    for m in [x for x in box if x["tick"] <= ctx.tick]:
        # an anonymous letter carries no author, not even in the event's data; a note is signed
        author = {"sender": m["from"]} if m["signed"] else {}
        if m["to"] is None:
            ctx.emit("sm.note_town" if author else "sm.mail_town", "public", text=m["text"], **author)
            ctx.emit("sm.gm_mail_town", "gm", sender=m["from"], text=m["text"])
            continue
        r = g.player(m["to"])
        if not free(g, r, ctx.tick + 1):
            ctx.emit("sm.gm_mail_lost", "gm", sender=m["from"], target=r.pid)
            continue
        ctx.emit("sm.note" if author else "sm.mail", "players", [r.pid], text=m["text"], **author)
        ctx.emit("sm.gm_mail", "gm", sender=m["from"], target=r.pid, text=m["text"])
    memo(g).mail = [x for x in box if x["tick"] > ctx.tick]
    for key in memo(g).PER_PHASE:  # per-phase records, now read
        record = getattr(memo(g), key)
        for t in [t for t in record if int(t) <= ctx.tick]:
            del record[t]
