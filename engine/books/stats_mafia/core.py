"""The stats mafia's shared reading of the table: memory, settings, stats, prison, hospital and death."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ...registry import book_memory
from ...resolve.effects import kill
from ...state import Player, Status

if TYPE_CHECKING:
    from ...resolve.context import Ctx
    from ...world import World


STATS = ("initiative", "defense", "stealth")
PRISON, LIFE, HOSPITAL = "prison", "life_sentence", "hospital"


@book_memory("stats_mafia")
@dataclass
class StatsMafiaMemory:
    """What the stats mafia remembers between resolves (the snapshot's ``memo["stats_mafia"]``).
    Per-phase records are keyed by the tick (as a string), players by the seat (as a string)."""

    disguise: dict[str, str] = field(default_factory=dict)  # the Maniac's «Двойная жизнь»: the role checks see
    investigations: list[dict[str, Any]] = field(default_factory=list)  # the Журналист's checks of the next night
    reprieve: dict[str, int] = field(default_factory=dict)  # «Незавершенное дело»: the tick of the jailing
    bank: dict[str, int] = field(default_factory=dict)  # «Компромат»: votes in the bank
    bank_spend: dict[str, dict[str, int]] = field(default_factory=dict)  # banked votes spent, by tick
    vote_extra: dict[str, dict[str, int]] = field(default_factory=dict)  # «Обвинительный приговор»: votes against, by tick
    vote_void: dict[str, list[int]] = field(default_factory=dict)  # voters whose vote does not count, by tick
    sent: dict[str, dict[str, dict[str, int]]] = field(default_factory=dict)  # letters and notes sent, by tick and kind
    mail: list[dict[str, Any]] = field(default_factory=list)  # letters waiting for the next phase
    vote_reprieves: dict[str, int] = field(default_factory=dict)  # «Взятка»: reprieves from the vote used
    half_winners: list[int] = field(default_factory=list)  # the half victories at the end

    PER_PHASE = ("sent", "vote_extra", "vote_void", "bank_spend")


def memo(g: World) -> StatsMafiaMemory:
    return g.state.place(StatsMafiaMemory)


# ---- reading the table --------------------------------------------------------------------
def stat(g: World, p: Player, sid: str) -> int:
    """A stat as contests read it: with every bonus, the hidden ones («Google-fu») too."""
    return g.true_stat(p, sid, "contest")


def parts(g: World, p: Player, sid: str, tick: int) -> list[int]:
    """The pieces a contest value is made of: the base, each timed or lasting bonus, each status."""
    out = [p.stats.get(sid, 0)]
    out += [m.amount for m in p.modifiers if m.stat == sid and (m.until is None or m.until > tick) and m.scope in ("all", "contest")]
    out += [f.stat_modifiers.get(sid, 0) for f in g.status_flags(p)]
    return out


def team(g: World, role: str | None) -> str | None:
    return g.rules.character(role).team if role else None


def seen_role(g: World, p: Player, test: str = "check") -> str | None:
    """The secret role a test of ``p`` reads: the Maniac's disguise («Двойная жизнь») fools the
    checks, and with ``settings.disguise_scope: all`` every test of his role or team."""
    d = memo(g).disguise.get(str(p.pid))
    if d and (test == "check" or g.settings.disguise_scope == "all"):
        return d
    return p.character


def in_prison(g: World, p: Player, tick: int | None = None) -> bool:
    return g.active(p, PRISON, tick) is not None


def free(g: World, p: Player, tick: int | None = None) -> bool:
    return g.alive(p) and not in_prison(g, p, tick)


def may_escape(g: World, p: Player) -> bool:
    """A prisoner who can still leave by his own ability («Побег» not yet used)."""
    for key, ab in g.abilities(p):
        if any(e.impl == "sm_escape" for e in ab.effects) and p.uses.get(key, 0) < (ab.uses_per_game or 1):
            return True
    return False


def out_of_play(g: World, p: Player) -> bool:
    """Out for victory: dead, or (setting ``life_prisoners_out``) in Prison for the rest of the
    game with no way out of it."""
    if not g.alive(p):
        return True
    return g.settings.life_prisoners_out and g.active(p, LIFE) is not None and not may_escape(g, p)


# ---- hospital, death, prison ---------------------------------------------------------------
def next_day(g: World, tick: int) -> int:
    t = tick + 1
    while g.clock.info(t).kind != "day":
        t += 1
    return t


def hospitalize(ctx: Ctx, t: Player, days: int, start: int) -> None:
    """``days`` сутки of Hospital from the tick ``start``, added to what is left of a stay."""
    g = ctx.game
    s = t.statuses.get(HOSPITAL)
    until = max(s.until, start) if s is not None and s.until is not None else start
    until += g.clock.cycles(days)
    since = min(s.since, start) if s is not None else start
    t.statuses[HOSPITAL] = Status(id=HOSPITAL, since=since, until=until, data={})
    ctx.scratch.setdefault("sm_hospital", set()).add(t.pid)


def die(ctx: Ctx, t: Player, cause: str) -> None:
    """Death, unless a ``reprieve`` («Незавершенное дело») turns a night's death into Prison
    for the rest of the game at the end of the next day."""
    g = ctx.game
    if not g.alive(t):
        return
    if g.passives(t, "reprieve") and g.clock.info(ctx.tick).kind == "night":
        due = memo(g).reprieve
        if str(t.pid) not in due and g.active(t, LIFE) is None:
            due[str(t.pid)] = next_day(g, ctx.tick)
            ctx.emit("sm.reprieve", "players", [t.pid])
        ctx.emit("sm.gm_reprieve", "gm", player=t.pid, cause=cause)
        return
    kill(ctx, t, cause)


def jail(ctx: Ctx, p: Player, life: bool, cause: str) -> bool:
    """Prison from the next phase: for ``settings.prison_term_cycles`` сутки, or for the rest of
    the game (``life_sentence`` too). True when something changed."""
    g = ctx.game
    since = ctx.tick + 1
    old = p.statuses.get(PRISON)
    if old is not None and old.until is None:
        return False  # in for good already
    if life:
        p.statuses[PRISON] = Status(id=PRISON, since=old.since if old else since, until=None, data={"cause": cause})
        p.statuses[LIFE] = Status(id=LIFE, since=since, until=None, data={"cause": cause})
    else:
        until = since + g.clock.cycles(g.settings.prison_term_cycles)
        if old is not None and old.until is not None and old.until >= until:
            return False
        p.statuses[PRISON] = Status(id=PRISON, since=old.since if old else since, until=until, data={"cause": cause})
    # «Находящийся в Тюрьме Джокер может применить Ва-Банк на следующую фазу после попадания в Тюрьму»
    window = g.settings.jail_window_status
    if window and any(window in r.status for _, ab in g.abilities(p) for r in ab.requires):
        p.statuses[window] = Status(id=window, since=since, until=since + 1, data={})
    ctx.emit("sm.gm_jailed", "gm", player=p.pid, cause=cause)
    return True
