"""When a stats mafia phase may end early: the book's hooks of :class:`engine.registry.EarlyEnd`.

«День может быть закончен раньше, если голосование завершено»: by day the phase waits for
every free living player who has not voted (nor used an ability instead of the vote).
«Ночь может закончиться раньше, если все, кто могли дать заявки, их дали»: by night for every
free living player who may act and has submitted nothing. «Если вы ничего не делаете в эту
ночь, напишите Мастеру» is :meth:`engine.game.Game.declare_idle`; «Слоупоки не задерживают
ночь»: a Слоупок (status ``slowpoke``) holds up no night. Whom a phase waits for is answered by
:mod:`engine.phase_end` with these hooks.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...registry import EarlyEnd, early_end
from .core import in_prison
from .vote import _instead_of_vote

if TYPE_CHECKING:
    from ...state import Player
    from ...world import World


@early_end("stats_mafia_full")  # the name rulesets use (``settings.early_end``)
class StatsMafiaEarlyEnd(EarlyEnd):
    @staticmethod
    def holds_up(g: World, p: Player) -> bool:
        if in_prison(g, p):
            return False
        slow = g.settings.slowpoke_status
        return g.info.kind == "day" or not (slow and g.active(p, slow))

    @staticmethod
    def excused_vote(g: World, p: Player) -> bool:
        return _instead_of_vote(g, p.pid, g.state.tick) is not None


__all__ = ["StatsMafiaEarlyEnd"]
