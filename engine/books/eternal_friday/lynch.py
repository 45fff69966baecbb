"""Eternal Friday's day vote (vote kind ``friday_lynch``): the core's lynch
(:class:`engine.votes.Lynch`, with the book's parameters in the ruleset), whose tie damage goes
through the book's HP."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ...registry import VOTES
from ...votes import Lynch
from .core import hurt

if TYPE_CHECKING:
    from ...resolve.context import Ctx
    from ...state import Player


class FridayLynch(Lynch):
    """:class:`engine.votes.Lynch` (the count, the weights, the hanging, the ties), with the
    tie's damage dealt by the book's :func:`~engine.books.eternal_friday.core.hurt`: the GM's
    trace of it and the false HP of «Помутнение разума» («дневной урон действуют и на настоящие,
    и на фальшивые хп»)."""

    @staticmethod
    def wound(ctx: Ctx, vdef: Any, p: Player, amount: int) -> None:
        hurt(ctx, p, amount, labels=["vote"], ability="vote", unreducible=bool(vdef.params.get("unreducible")))


VOTES["friday_lynch"] = FridayLynch
