"""Eternal Friday's built-in steps: the start (settings, teams, first night) and the morning."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ...registry import impl
from ...state import Status
from .core import (
    AUTO_MED,
    DOUBLE,
    HP,
    HP_MAX,
    WOUND,
    die,
    effective_hp,
    heal,
    memo,
    night,
    psycho_knife_masks,
    scratch,
    set_word,
    will_die,
    word_for,
    word_ids,
)

if TYPE_CHECKING:
    from ...resolve.context import Ctx
    from ...state import Intent, Player


@impl("friday_health")
def friday_health(ctx: Ctx, intent: Intent | None, sd: Any, people: list[Player]) -> None:
    """The morning after the night, or the evening after the vote: deaths, the last stand, the
    undertaker, the cap at each player's maximum, the health words, the inherited weapons."""
    g = ctx.game
    st = g.state
    if not sd.params.get("start"):
        died = []
        for p in st.players:
            if not will_die(ctx, p):
                w = g.active(p, WOUND) is None and g.alive(p)
                down = p.stats.get(HP, 0) <= 0 or p.pid in ctx.hanged
                if w and down:  # killed, but the avenger lives one more day or night
                    x = g.passives(p, "last_stand")[0]
                    memo(g).stood[str(p.pid)] = ctx.tick
                    for sid in word_ids(g):
                        p.statuses.pop(sid, None)
                    p.statuses[x.get("status", WOUND)] = Status(id=x.get("status", WOUND), since=ctx.tick)
                    p.stats[HP] = int(x.get("hp", 100))
                    ctx.emit("friday.gm_last_stand", "gm", player=p.pid)
                continue
            die(ctx, p, "wound" if g.active(p, WOUND) else "hanged" if p.pid in ctx.hanged else "hp")
            died.append(p.pid)
        if night(ctx) and died:
            for p in g.living():
                for x in g.passives(p, "heal_per_death"):
                    heal(ctx, p, int(x["amount"]) * len(died), ability="undertaker")
    for p in st.players:
        cap = p.stats.get(HP_MAX)
        if cap is not None and p.stats.get(HP, 0) > cap:
            p.stats[HP] = cap
    for p in st.players:
        if g.alive(p) and not g.active(p, WOUND):
            set_word(g, p, word_for(g, p, ctx.tick), ctx.tick)
    _inherit(ctx)


def _inherit(ctx: Ctx) -> None:
    """The katana passes to the sensei, the pistol with its saved shots to the thug."""
    g = ctx.game
    done = memo(g).inherited
    for p in g.living():
        for x in g.passives(p, "inherits"):
            key = f"{p.pid}:{x['from']}"
            if done.get(key) or not any(q.character == x["from"] and not g.alive(q) for q in g.state.players):
                continue
            done[key] = ctx.tick
            if x.get("grant"):
                p.grants.append({"key": x["grant"], "since": ctx.tick + 1, "until": None})
                ctx.emit("friday.inherited", "players", [p.pid], ability=x["grant"])
            if x.get("auto"):
                p.statuses[AUTO_MED] = Status(id=AUTO_MED, since=ctx.tick + 1)
            if x.get("status"):
                p.statuses[x["status"]] = Status(id=x["status"], since=ctx.tick + 1)
                ctx.emit("friday.inherited_pistol", "players", [p.pid])
            if x.get("stat"):
                for q in g.state.players:
                    if q.character == x["from"] and not g.alive(q):
                        p.stats[x["stat"]] = p.stats.get(x["stat"], 0) + q.stats.get(x["stat"], 0)
                        q.stats[x["stat"]] = 0
                ctx.emit("friday.shots", "players", [p.pid], value=p.stats.get(x["stat"], 0))


@impl("friday_settings")
def friday_settings(ctx: Ctx, intent: Intent | None, sd: Any, people: list[Player]) -> None:
    """The game's settings of this book are checked when it is created, not in a resolve."""
    psycho_knife_masks(ctx.game)


@impl("friday_begin")
def friday_begin(ctx: Ctx, intent: Intent | None, sd: Any, people: list[Player]) -> None:
    """The resolve begins: HP and words as they are now; by day, the open role actions are
    read out to the town («нужно писать открыто»)."""
    scratch(ctx)
    if night(ctx):
        return
    for i in ctx.intents:
        extra = f" ({i.option})" if i.option else ""
        if i.targets:
            ctx.emit("friday.day_action", "public", actor=i.pid, ability=i.ability, targets=list(i.targets), extra=extra)
        else:
            ctx.emit("friday.day_action_alone", "public", actor=i.pid, ability=i.ability, extra=extra)


@impl("friday_morning")
def friday_morning(ctx: Ctx, intent: Intent | None, sd: Any, people: list[Player]) -> None:
    """What the night's end tells: observations, the revolver's report to the boss, the
    psycho's HP, the stuntman's warning; the boss's saved shots."""
    g = ctx.game
    s = scratch(ctx)
    used = {i.ability for i in ctx.intents} | s["auto_used"]
    for pid, keys in s["observations"]:
        ctx.emit("friday.observation", "players", [pid], ability=keys[0], value=any(k in used for k in keys))
    m = memo(g)
    for n in [x for x in m.nagans if x["night"] == ctx.tick]:
        shot = s["nagan_shots"].get(n["holder"])
        boss = g.player(n["boss"])
        if g.alive(boss):
            if shot is None:
                ctx.emit("friday.nagan_report_none", "players", [boss.pid], player=n["holder"])
            else:
                ctx.emit("friday.nagan_report", "players", [boss.pid], player=n["holder"], target=shot)
        holder = g.player(n["holder"])
        if shot != n["victim"] and g.alive(holder):
            holder.statuses[DOUBLE] = Status(id=DOUBLE, since=ctx.tick + 1)
            ctx.emit("friday.gm_doubled", "gm", player=holder.pid)
        m.nagans.remove(n)
    for p in g.living():
        if g.passives(p, "hp_report"):
            ctx.emit("friday.hp_report", "players", [p.pid], value=effective_hp(g, p))
        for d in g.passives(p, "health_display"):
            if d.get("warn_below") and p.stats.get(HP, 0) < int(d["warn_below"]):
                ctx.emit("friday.hp_low", "players", [p.pid], value=int(d["warn_below"]))
    # «За каждую ночь, когда босс не использует эту способность и не находится в больнице, он
    # накапливает 1 выстрел»: the night's own words count (hospital or coma: no shot)
    for p in g.living():
        if not p.character or p.pid in s["pistol_used"] or s["words0"].get(p.pid) in ("hospital", "coma"):
            continue
        for ab in g.rules.character(p.character).abilities:
            for e in ab.effects:
                if e.impl == "friday_shots" and e.params.get("saves"):
                    p.stats[e.params["saves"]] = p.stats.get(e.params["saves"], 0) + 1
                    ctx.emit("friday.shots", "players", [p.pid], value=p.stats[e.params["saves"]])
