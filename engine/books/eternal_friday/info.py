"""Eternal Friday's information abilities: wiretap, dossier, surveillance, shadowing, observation."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ...registry import impl
from .core import _each, scratch, seen_character

if TYPE_CHECKING:
    from ...resolve.context import Ctx
    from ...state import Intent, Player


@impl("friday_wiretap")
def friday_wiretap(ctx: Ctx, intent: Intent, eff: Any, people: list[Player]) -> None:
    g = ctx.game
    for tid in _each(intent):
        ctx.emit("friday.wiretap", "players", [intent.pid], target=tid, value=seen_character(g, g.player(tid)))


@impl("friday_dossier")
def friday_dossier(ctx: Ctx, intent: Intent, eff: Any, people: list[Player]) -> None:
    g = ctx.game
    peaceful = set(eff.params.get("peaceful", []))
    for tid in _each(intent):
        ctx.emit("friday.dossier", "players", [intent.pid], target=tid, value=seen_character(g, g.player(tid)) in peaceful)


def _targeted(ctx: Ctx) -> list[Intent]:
    return [i for i in ctx.intents if i.targets]


@impl("friday_surveillance")
def friday_surveillance(ctx: Ctx, intent: Intent, eff: Any, people: list[Player]) -> None:
    """«узнаёт, на кого цель применяла свои способности этой ночью. Если цель бездействовала или
    применяла нецелевую способность, сообщается, что цель применяла способности на саму себя»."""
    for tid in _each(intent):
        out: list[int] = []
        for i in _targeted(ctx):
            if i.pid == tid:
                out += [x for x in i.targets if x not in out]
        ctx.emit("friday.surveillance", "players", [intent.pid], target=tid, players=out or [tid])


@impl("friday_shadow")
def friday_shadow(ctx: Ctx, intent: Intent, eff: Any, people: list[Player]) -> None:
    """Whom the target aimed its night abilities at, and who aimed theirs at it."""
    for tid in _each(intent):
        outgoing: list[int] = []
        incoming: list[int] = []
        for i in _targeted(ctx):
            if i.pid == tid:
                outgoing += [x for x in i.targets if x not in outgoing]
            if tid in i.targets and i.pid not in incoming:
                incoming.append(i.pid)
        ctx.emit("friday.shadow", "players", [intent.pid], target=tid, targets=outgoing, players=sorted(incoming))


@impl("friday_observe")
def friday_observe(ctx: Ctx, intent: Intent, eff: Any, people: list[Player]) -> None:
    """Answered in the morning: whether anyone used the named ability tonight."""
    scratch(ctx)["observations"].append((intent.pid, list(eff.params["abilities"])))
