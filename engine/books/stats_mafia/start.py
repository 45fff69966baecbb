"""The stats mafia's start: dealing the stats and the random bonuses."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ...registry import step
from ...state import Modifier, Player
from .core import STATS, memo, team
from .steps import upkeep

if TYPE_CHECKING:
    from ...resolve.context import Ctx
    from ...world import World


# ---- start ---------------------------------------------------------------------------------
@step("sm_start")
def start(ctx: Ctx, sd: Any) -> None:
    """«Контакты - в начале игры все члены Мафии узнают Явные роли друг друга»; the Гик's stat,
    drawn by the game's generator and told to the GM only; the Maniac's default disguise."""
    g = ctx.game
    for p in g.state.players:
        for x in g.passives(p, "team_contacts"):
            mates = [q.pid for q in g.state.players if team(g, q.character) == x["team"]]
            ctx.emit("sm.contacts", "players", mates, players=mates, by=p.pid)
        for x in g.passives(p, "random_bonus"):
            random_bonus(g, p, x)
        for _, ab in g.abilities(p):
            for effs in ab.options.values():
                for e in effs:
                    if e.impl == "sm_disguise" and e.params.get("default"):
                        memo(g).disguise[str(p.pid)] = e.params["default"]
    upkeep(ctx, sd)


def random_bonus(g: World, p: Player, x: dict[str, Any]) -> None:
    """«Google-fu - имеет +1 к случайному стату, к какому - не знает даже сам Гик»."""
    picked = g.settings.random_bonus_choice.get(p.name)  # the GM's (or a scenario's) pick
    stat_id = picked or g.rng.choice(sorted(x.get("stats", STATS)))
    amount = int(x.get("amount", 1))
    p.modifiers.append(Modifier(stat=stat_id, amount=amount, source="random_bonus", scope="contest"))
    g.emit("sm.gm_random_bonus", "gm", player=p.pid, stat=stat_id, count=amount)
