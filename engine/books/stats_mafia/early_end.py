"""When a stats mafia phase may end early: whom it still waits for."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...registry import early_end
from .core import in_prison
from .vote import _instead_of_vote

if TYPE_CHECKING:
    from ...game import Game


# ---- when a phase may end early ------------------------------------------------------------
@early_end("stats_mafia_full")  # the name rulesets use (``settings.early_end``)
def waiting_for(g: Game, declared: set[int] | frozenset[int] = frozenset()) -> list[int]:
    """Who the current phase still waits for. «День может быть закончен раньше, если голосование
    завершено»: at day, every free living player who has not voted (nor used an ability instead
    of the vote). «Ночь может закончиться раньше, если все, кто могли дать заявки, их дали»: at
    night, every free living player who may act, has submitted nothing and has not ``declared``
    that they do nothing; a Слоупок (status ``slowpoke``) holds up nobody."""
    tick = g.state.tick
    out = []
    for p in g.living():
        if p.pid in declared or in_prison(g, p):
            continue
        if g.info.kind == "day":
            if not any(v.pid == p.pid for v in g.state.votes) and not _instead_of_vote(g, p.pid, tick):
                out.append(p.pid)
        elif (
            not g.active(p, g.settings.slowpoke_status)
            and not any(i.pid == p.pid for i in g.state.intents) and g.legal_actions(p.pid)
        ):
            out.append(p.pid)
    return out


__all__ = ["waiting_for"]
