"""The stats mafia's checks: initiative − stealth read from the book's table."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ...registry import impl, step
from ...state import Player
from .core import free, memo, seen_role, stat, team

if TYPE_CHECKING:
    from ...resolve.context import Ctx
    from ...state import Intent
    from ...world import World


# ---- checks --------------------------------------------------------------------------------
def read_table(g: World, diff: int, role: str | None) -> str | None:
    """The book's table: the secret role at 5+, the answers by team at 4, by role at 3 and
    1–2; a role a row does not name, and 0 or less, fail."""
    for row in g.settings.check_table:
        if row.get("min", -99) <= diff <= row.get("max", 99):
            if row.get("answer") == "role":
                return role
            if "by_team" in row:
                return row["by_team"].get(team(g, role))
            return row.get("answers", {}).get(role)
    return None


def check(ctx: Ctx, actor: Player, t: Player, initiative: int, *, steady: bool = False) -> None:
    """``steady``: the target's temporary stealth increases are ignored (Журналист)."""
    g = ctx.game
    stealth = stat(g, t, "stealth")
    if steady:
        stealth -= sum(m.amount for m in t.modifiers if m.stat == "stealth" and m.until is not None and m.until > ctx.tick and m.amount > 0)
    diff = initiative - stealth
    answer = read_table(g, diff, seen_role(g, t))
    ctx.emit("sm.gm_check", "gm", actor=actor.pid, target=t.pid, count=diff, value=answer or "")
    if answer is None:
        ctx.emit("check.failed", "players", [actor.pid], target=t.pid)
    else:
        ctx.emit("sm.check", "players", [actor.pid], target=t.pid, value=answer)


@impl("sm_check")
def check_ability(ctx: Ctx, intent: Intent, eff: Any, people: list[Player]) -> None:
    """A check with one's initiative, or with a fixed one (``initiative``: Гробокопательство)."""
    g = ctx.game
    actor = g.player(intent.pid)
    fixed = eff.params.get("initiative")
    for t in people:
        check(ctx, actor, t, stat(g, actor, "initiative") if fixed is None else int(fixed))


@impl("sm_investigate")
def investigate(ctx: Ctx, intent: Intent, eff: Any, people: list[Player]) -> None:
    """«Расследование»: the check itself comes the next night (step ``sm_journalist``)."""
    g = ctx.game
    night = ctx.tick + 1
    while g.clock.info(night).kind != "night":
        night += 1
    for t in people:
        memo(g).investigations.append({"by": intent.pid, "target": t.pid, "night": night, **eff.params})
        ctx.emit("sm.investigation", "players", [intent.pid], target=t.pid)


@step("sm_journalist")
def journalist(ctx: Ctx, sd: Any) -> None:
    """«Если цель использует свою активную ночную способность на следующую ночь, Журналист
    проверяет её ночью с инициативой 2, иначе с инициативой 0», ignoring the target's temporary
    stealth increases."""
    g = ctx.game
    todo = memo(g).investigations
    slots = set(sd.params.get("night_slots", ["night", "night_role"]))
    for inv in [x for x in todo if x["night"] == ctx.tick]:
        actor, t = g.player(inv["by"]), g.player(inv["target"])
        if not free(g, actor):
            continue  # the dead and prisoners get no game messages
        acted = any(
            i.pid == t.pid and g.ability_def(i.ability).slot in slots and ctx.outcome.get(i.seq) != "blocked" for i in ctx.intents
        )
        check(ctx, actor, t, int(inv.get("active", 2) if acted else inv.get("idle", 0)), steady=True)
    memo(g).investigations = [x for x in todo if x["night"] > ctx.tick]
