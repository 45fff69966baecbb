"""Eternal Friday's single-character night abilities: meditation, masks, messages, contracts, the hunt, fog, guessing."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ...registry import impl
from ...state import Status
from .core import AUTO_MED, FOG, HP, HP_MAX, NAGAN, _each, memo, next_night, scratch, team_of

if TYPE_CHECKING:
    from ...resolve.context import Ctx
    from ...state import Intent, Player


def meditate(ctx: Ctx, sensei: int) -> None:
    """Each non-yakuza player (by the true role: it «игнорирует маскировку») who uses a targeted
    night ability on the sensei tonight gets a mark, one for each use; «Убийство» gives none."""
    g = ctx.game
    s = scratch(ctx)
    if sensei in s["meditated"]:
        return
    s["meditated"].add(sensei)
    marks = memo(g).marks
    for i in ctx.intents:
        if i.pid == sensei or sensei not in i.targets or team_of(g, g.player(i.pid)) == "yakuza":
            continue
        if "no_mark" in g.ability_def(i.ability).labels:
            continue
        marks[str(i.pid)] = marks.get(str(i.pid), 0) + 1
    ctx.emit("friday.gm_meditation", "gm", player=sensei)


@impl("friday_meditation")
def friday_meditation(ctx: Ctx, intent: Intent, eff: Any, people: list[Player]) -> None:
    meditate(ctx, intent.pid)


@impl("friday_auto_meditation")
def friday_auto_meditation(ctx: Ctx, intent: Intent | None, sd: Any, people: list[Player]) -> None:
    """After the ninja's death the sensei meditates every night unless he says otherwise; it
    works from hospital, not from a coma."""
    g = ctx.game
    off = {i.pid for i in ctx.intents if "toggle" in g.ability_def(i.ability).labels}
    for p in g.living():
        if g.active(p, AUTO_MED) and p.pid not in off and not g.active(p, "coma"):
            meditate(ctx, p.pid)
            scratch(ctx)["auto_used"].add("character:sensei:meditation")


@impl("friday_mask")
def friday_mask(ctx: Ctx, intent: Intent, eff: Any, people: list[Player]) -> None:
    """«Маскировка действует вечно. Можно замаскировать одну цель дважды, при этом первая
    маскировка спадает.»"""
    masks = memo(ctx.game).masks
    for tid in _each(intent):
        masks[str(tid)] = intent.option


@impl("friday_message")
def friday_message(ctx: Ctx, intent: Intent, eff: Any, people: list[Player]) -> None:
    """«наутро персонаж обнаруживает у себя наган и явную роль жертвы. На следующую ночь (и только
    на неё) этот наган добавляется к его действиям на выбор»."""
    g = ctx.game
    holder, victim = intent.targets[0], intent.targets[1]
    nxt = next_night(g, ctx.tick)
    p = g.player(holder)
    p.statuses[NAGAN] = Status(id=NAGAN, since=nxt, until=nxt + 1)
    p.grants.append({"key": "character:boss:nagan", "since": nxt, "until": nxt + 1})
    memo(g).nagans.append({"holder": holder, "victim": victim, "boss": intent.pid, "night": nxt})
    ctx.emit("friday.nagan_found", "players", [holder], value=g.player(victim).role)


@impl("friday_contract")
def friday_contract(ctx: Ctx, intent: Intent, eff: Any, people: list[Player]) -> None:
    """«на следующий день публично объявляется, что цель заказана. Следующей ночью цель получает
    удвоенный урон от всех источников, а каждый наносящий урон цели восстанавливает себе 15 хп»."""
    g = ctx.game
    nxt = next_night(g, ctx.tick)
    for tid in _each(intent):
        g.player(tid).statuses["contracted"] = Status(id="contracted", since=ctx.tick, until=nxt + 1,
                                                      data={"night": nxt, "heal": int(eff.params.get("restore", 15))})


@impl("friday_hunt")
def friday_hunt(ctx: Ctx, intent: Intent, eff: Any, people: list[Player]) -> None:
    """«следующим днём публично объявляется, что на цель началась охота ... Охота действует вечно»."""
    g = ctx.game
    for tid in _each(intent):
        t = g.player(tid)
        if "hunted" not in t.statuses:
            t.statuses["hunted"] = Status(id="hunted", since=ctx.tick)


@impl("friday_fog")
def friday_fog(ctx: Ctx, intent: Intent, eff: Any, people: list[Player]) -> None:
    """False HP (1 … the target's maximum) for the words of the next day and night; diagnostics
    reads them this night and the next («диагностика также возвращает фальшивые хп»)."""
    g = ctx.game
    for tid in _each(intent):
        t = g.player(tid)
        fake = max(1, min(int(intent.option or 1), t.stats.get(HP_MAX, 100)))
        nxt = next_night(g, ctx.tick)
        t.statuses[FOG] = Status(id=FOG, since=ctx.tick, until=nxt + 1,
                                 data={"fake": fake, "ticks": [ctx.tick, ctx.tick + 1], "diagnostics": [ctx.tick, nxt], "by": intent.pid})


@impl("friday_guess_kill")
def friday_guess_kill(ctx: Ctx, intent: Intent, eff: Any, people: list[Player]) -> None:
    """«называет тайную роль цели. Если угадывает, цель теряет все свои хп и не получает никакого
    лечения»: the true role, not an attack, not reducible."""
    g = ctx.game
    for tid in _each(intent):
        t = g.player(tid)
        if t.character == intent.option:
            t.stats[HP] = min(t.stats.get(HP, 0), 0)
            scratch(ctx)["no_heal"].add(tid)
            ctx.emit("friday.gm_guessed", "gm", player=tid, value=t.character)
        else:
            ctx.note(intent, f"wrong_guess:{tid}")
