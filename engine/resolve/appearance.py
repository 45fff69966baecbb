"""How a player appears to the checks: the team a check of alignment sees (``appears_as``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..state import Player
    from ..world import World


def seen_team(g: World, p: Player) -> str | None:
    """The team a check of alignment sees: a status in force with ``appears_as`` (a frame),
    else a passive ``appears_as`` (the miller), else the player's team (``World.team``)."""
    if p.statuses:
        known = g.rules.status_by_id
        for sid in sorted(p.statuses):
            sdef = known.get(sid)
            if sdef is not None and sdef.appears_as and g.active(p, sid) is not None:
                return sdef.appears_as
    for x in g.passives(p, "appears_as"):
        return str(x["team"])
    return g.team(p)
