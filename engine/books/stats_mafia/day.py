"""The stats mafia's day abilities."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ...registry import impl
from ...state import Player
from .core import HOSPITAL, LIFE, PRISON, hospitalize, memo

if TYPE_CHECKING:
    from ...resolve.context import Ctx
    from ...state import Intent


# ---- day abilities -------------------------------------------------------------------------
@impl("sm_notice")
def notice(ctx: Ctx, intent: Intent, eff: Any, people: list[Player]) -> None:
    """A public ability announced in the report («публично»)."""
    for t in people:
        ctx.emit(eff.params["key"], "public", actor=intent.pid, target=t.pid)


@impl("sm_cook")
def cook(ctx: Ctx, intent: Intent, eff: Any, people: list[Player]) -> None:
    """«Карательная кулинария»: Hospital «на этот день и следующую ночь» — one сутки from this
    day, added to any stay."""
    for t in people:
        if ctx.game.alive(t):
            hospitalize(ctx, t, 1, ctx.tick)
            ctx.emit("sm.cooked", "public", actor=intent.pid, target=t.pid)


@impl("sm_treat")
def treat(ctx: Ctx, intent: Intent, eff: Any, people: list[Player]) -> None:
    """«Лечение - днём может уменьшить на 1 сутки срок нахождения цели в Госпитале»."""
    g = ctx.game
    for t in people:
        s = t.statuses.get(HOSPITAL)
        if s is None or s.until is None:
            ctx.note(intent, f"not_in_hospital:{t.pid}")
            continue
        s.until -= g.clock.cycles(1)
        if s.until <= max(ctx.tick + 1, s.since):
            del t.statuses[HOSPITAL]
        else:
            ctx.scratch.setdefault("sm_hospital", set()).add(t.pid)
        ctx.emit("sm.treated", "players", [intent.pid], target=t.pid)


@impl("sm_indict")
def indict(ctx: Ctx, intent: Intent, eff: Any, people: list[Player]) -> None:
    """«Обвинительный приговор»: 3 more votes against the target today; the target's own vote
    does not count today."""
    m = memo(ctx.game)
    n = int(eff.params.get("votes", 3))
    for t in people:
        extra = m.vote_extra.setdefault(str(ctx.tick), {})
        extra[str(t.pid)] = extra.get(str(t.pid), 0) + n
        m.vote_void.setdefault(str(ctx.tick), []).append(t.pid)
        ctx.emit("sm.indicted", "public", actor=intent.pid, target=t.pid, count=n)


@impl("sm_bank_save")
def bank_save(ctx: Ctx, intent: Intent, eff: Any, people: list[Player]) -> None:
    """«Компромат - вместо голосования может сохранить голос "в копилку"»."""
    bank = memo(ctx.game).bank
    bank[str(intent.pid)] = bank.get(str(intent.pid), 0) + 1
    ctx.emit("sm.bank_saved", "players", [intent.pid], count=bank[str(intent.pid)])


@impl("sm_bank_spend")
def bank_spend(ctx: Ctx, intent: Intent, eff: Any, people: list[Player]) -> None:
    """«Голоса из "копилки" могут быть использованы в любой день вместе с обычным»: added to
    today's ballot when it is counted (step ``vote``)."""
    spend = memo(ctx.game).bank_spend.setdefault(str(ctx.tick), {})
    spend[str(intent.pid)] = int(intent.option or 0)


@impl("sm_escape")
def escape(ctx: Ctx, intent: Intent, eff: Any, people: list[Player]) -> None:
    """«Побег - Находящийся в Тюрьме Маньяк один раз за игру может в любой момент публично
    сбежать (не может действовать в эту фазу)»: out with this phase's results."""
    g = ctx.game
    p = g.player(intent.pid)
    for sid in (PRISON, LIFE):
        p.statuses.pop(sid, None)
    ctx.emit("sm.escaped", "public", player=p.pid)
