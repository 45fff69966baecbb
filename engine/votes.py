"""Vote counters, registered by kind. Each checks a ballot on submit and counts at its step."""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING, Any

from .effects import deal_damage, kill
from .errors import ActionError
from .registry import VOTES

if TYPE_CHECKING:
    from .game import Game
    from .resolver import Ctx
    from .state import Player, Vote


class Lynch:
    """Seed 002's day vote: the most-voted dies; a tie hurts every tied candidate.

    ``params``: ``peace`` (a "for peace" option), ``tie_damage`` (damage to each tied player).
    """

    @staticmethod
    def check_choice(g: Game, vdef: Any, p: Player, choice: int | str | None) -> None:
        if choice == "peace" and vdef.params.get("peace"):
            return
        if not isinstance(choice, int) or not 0 <= choice < len(g.state.players):
            raise ActionError("illegal_target", target=choice)
        if not g.alive(g.player(choice)):
            raise ActionError("target_not_alive", target=choice)

    @staticmethod
    def count(ctx: Ctx, vdef: Any, ballots: list[Vote]) -> None:
        g = ctx.game
        tally = Counter(v.choice for v in ballots if v.choice is not None)
        g.emit("vote.tally", "public", vote=vdef.id, tally=[[k, n] for k, n in sorted(tally.items(), key=lambda kv: (-kv[1], str(kv[0])))])
        if not tally:
            g.emit("vote.nobody", "public", vote=vdef.id)
            return
        top = max(tally.values())
        leaders = sorted((c for c, n in tally.items() if n == top), key=str)
        if len(leaders) == 1:
            if leaders[0] == "peace":
                g.emit("vote.peace", "public", vote=vdef.id)
                return
            victim = g.player(leaders[0])
            g.emit("vote.lynched", "public", vote=vdef.id, player=victim.pid)
            kill(ctx, victim, f"vote:{vdef.id}")
            return
        dmg = int(vdef.params.get("tie_damage", 0))
        hurt = [c for c in leaders if c != "peace"]
        g.emit("vote.tie", "public", vote=vdef.id, players=hurt)
        for c in hurt:
            deal_damage(ctx, None, g.player(c), dmg)


VOTES["lynch"] = Lynch
