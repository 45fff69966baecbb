"""Eternal Friday's day vote (vote kind ``friday_lynch``)."""

from __future__ import annotations

from collections import defaultdict
from typing import TYPE_CHECKING, Any

from ...registry import VOTES
from ...votes import Lynch, publish_tally, secret_passives
from .core import HP, hurt, is_vip, scratch

if TYPE_CHECKING:
    from ...game import Game
    from ...resolve.context import Ctx
    from ...state import Vote


# ---- the vote -----------------------------------------------------------------------------
class FridayLynch(Lynch):
    """The day vote with the open roles' weights: the authority's 2.5 and the lawyer's 1.5 (one
    against the VIP), the revolutionary's extra votes (none for the VIP), the 1.5 the lawyer
    takes off himself unless in a coma. The most votes hang (all HP, «не спасает ничего»); a tie
    gives 50 damage to each tied player (also against «за мир»), which cannot be reduced."""

    @staticmethod
    def named_choices(g: Game, vdef: Any) -> list[str]:
        return ["peace"] if vdef.params.get("peace") else []

    @staticmethod
    def secret_weights(g: Game, vdef: Any) -> bool:
        """The weights belong to open roles («Все дневные действия ... и голоса нужно писать
        открыто»): shown, unless a secret character has one."""
        return secret_passives(g, ("vote_weight",))

    @staticmethod
    def count(ctx: Ctx, vdef: Any, ballots: list[Vote]) -> None:
        g = ctx.game
        s = scratch(ctx)
        tally: dict[Any, float] = defaultdict(float)
        by_voter: dict[int, Any] = {}
        for b in sorted(ballots, key=lambda b: b.pid):
            voter = g.player(b.pid)
            if b.choice is None or not g.alive(voter) or any(not f.can_vote for f in g.status_flags(voter)):
                continue
            weight = 1.0
            if not (isinstance(b.choice, int) and is_vip(g, g.player(b.choice))):
                weight = max([float(x["weight"]) for x in g.passives(voter, "vote_weight")] or [1.0])
            tally[b.choice] += weight
            by_voter[b.pid] = b.choice
        for i in ctx.intents:
            if not any(e.impl == "friday_extra_votes" for e in g.ability_def(i.ability).effects):
                continue
            choice = by_voter.get(i.pid)
            if isinstance(choice, int) and not is_vip(g, g.player(choice)):
                tally[choice] += int(i.option or 0)
                s["extra_votes"][i.pid] = int(i.option or 0)
        for c in list(tally):
            if isinstance(c, int):
                p = g.player(c)
                for x in g.passives(p, "vote_weight"):
                    if x.get("against_self") and not g.active(p, x.get("not_in", "coma")):
                        tally[c] = max(0.0, tally[c] - float(x["against_self"]))

        def num(v: float) -> int | float:
            return int(v) if v == int(v) else v

        shown = sorted(((c, num(n)) for c, n in tally.items()), key=lambda kv: (-kv[1], str(kv[0])))
        publish_tally(g, vdef, [[c, n] for c, n in shown], ballots, nobody_follows=True)
        top = max([n for n in tally.values()] or [0])
        if top <= 0:
            g.emit("vote.nobody", "public", vote=vdef.id)
            return
        leaders = sorted((c for c, n in tally.items() if n == top), key=str)
        if len(leaders) == 1:
            if leaders[0] == "peace":
                g.emit("vote.peace", "public", vote=vdef.id)
                return
            victim = g.player(leaders[0])
            g.emit("vote.lynched", "public", vote=vdef.id, player=victim.pid)
            s["lynched"].add(victim.pid)
            victim.stats[HP] = min(victim.stats.get(HP, 0), 0)
            return
        hurt_ = [c for c in leaders if c != "peace"]
        g.emit("vote.tie", "public", vote=vdef.id, players=hurt_)
        for c in hurt_:
            hurt(ctx, g.player(c), int(vdef.params.get("tie_damage", 50)), labels=["vote"], ability="vote", unreducible=True)


VOTES["friday_lynch"] = FridayLynch
