"""Seed 000's prison: the daily vote to jail a player below zero, and the ±6 thresholds.

The list of a day holds every free living player whose ВО is below zero at the start of the
day, and whoever drops below zero after a period of that day. The vote is open while the
list is not empty; it is counted at the end of the day's last period. A voter's strength is
1 + the ТВ bonus at the moment the vote opened. Decisions: docs/rules/godfather.md.
"""

from __future__ import annotations

from collections import defaultdict
from typing import TYPE_CHECKING, Any

from .errors import ActionError
from .registry import VOTES, step
from .state import Status

if TYPE_CHECKING:
    from .game import Game
    from .resolver import Ctx
    from .state import Player, Vote


def _day_memo(g: Game, vdef: Any, day: int) -> dict[str, Any]:
    memo = g.state.memo.setdefault(vdef.id, {})
    return memo.setdefault(str(day), {"list": [], "strength": {}})


def _stat(g: Game, vdef: Any) -> str:
    return g.rules.stat(vdef.params.get("stat", "vo")).id


def _value(g: Game, p: Player, stat: str) -> int:
    return g.true_stat(p, stat, "thresholds") if g.rules.thresholds_read == "true" else p.stats[stat]


def jail(g: Game, p: Player, cause: str) -> None:
    """Put ``p`` in prison; a jailed leader loses the lead to the member with the most ТВ."""
    from .factions import pick_leader

    if p.has("prison"):
        return
    p.statuses["prison"] = Status(id="prison", since=g.state.tick, data={"cause": cause})
    for f in g.factions_of(p.pid):
        if f.leader == p.pid and len(f.members) > 1:
            others = [m for m in f.members if m != p.pid]
            f.leader = pick_leader(g, f, among=others)
            g.emit("faction.new_leader", "faction", [f.fid], leader=f.leader)
    g.emit("gm.jailed", "gm", player=p.pid, cause=cause)


def release(g: Game, p: Player, cause: str) -> None:
    if p.statuses.pop("prison", None) is not None:
        g.emit("gm.released", "gm", player=p.pid, cause=cause)


class PrisonVote:
    """``params``: stat (vo), strength_step (5), changes_per_game (1), penalty ({vo: -2, tv: -2})."""

    @staticmethod
    def on_start(g: Game, vdef: Any) -> None:
        PrisonVote.watch(g, vdef)

    @staticmethod
    def watch(g: Game, vdef: Any) -> None:
        """Add everyone now below zero to the list of the current (or coming) day."""
        info = g.info
        if info.kind != "day" or g.state.over:
            return
        stat = _stat(g, vdef)
        memo = _day_memo(g, vdef, info.day)
        was_open = bool(memo["list"])
        for p in g.living():
            if p.pid not in memo["list"] and not p.has("prison") and _value(g, p, stat) < 0:
                memo["list"].append(p.pid)
                g.emit("vote.listed", "public", vote=vdef.id, player=p.pid)
        if memo["list"] and not was_open:
            step_ = int(vdef.params.get("strength_step", 5))
            tv = g.rules.stat(vdef.params.get("strength_stat", "tv")).id
            for p in g.living():
                bonus = max(0, g.true_stat(p, tv) // step_)
                extra = sum(int(x.get("amount", 1)) for x in g.passives(p, "vote_bonus"))
                memo["strength"][str(p.pid)] = max(1, 1 + bonus + extra)
            g.emit("vote.opened", "public", vote=vdef.id, players=list(memo["list"]))

    @staticmethod
    def is_open(g: Game, vdef: Any) -> bool:
        info = g.info
        return info.kind == "day" and bool(_day_memo(g, vdef, info.day)["list"])

    @staticmethod
    def check_choice(g: Game, vdef: Any, p: Player, choice: Any) -> None:
        listed = _day_memo(g, vdef, g.info.day)["list"]
        if choice not in listed:
            raise ActionError("not_on_list", target=choice)

    @staticmethod
    def due(ctx: Ctx, vdef: Any) -> bool:
        return ctx.game.clock.is_turn_end(ctx.tick)

    @staticmethod
    def strength(g: Game, vdef: Any, pid: int) -> int:
        memo = _day_memo(g, vdef, g.info.day)
        base = memo["strength"].get(str(pid), 1)
        if g.active(g.player(pid), "no_vote_strength"):
            return 0
        return base

    @staticmethod
    def count(ctx: Ctx, vdef: Any, ballots: list[Vote]) -> None:
        g = ctx.game
        memo = _day_memo(g, vdef, g.clock.info(ctx.tick).day)
        if not memo["list"]:
            return
        stat = _stat(g, vdef)
        tally: dict[int, int] = defaultdict(int)
        voted = set()
        for b in ballots:
            voted.add(b.pid)
            if b.choice is not None:
                tally[int(b.choice)] += PrisonVote.strength(g, vdef, b.pid)
        g.emit("vote.tally", "public", vote=vdef.id, tally=[[k, n] for k, n in sorted(tally.items(), key=lambda kv: (-kv[1], kv[0]))])
        penalty = vdef.params.get("penalty", {})
        for p in g.living():
            if p.pid in voted or any(not f.can_vote for f in g.status_flags(p)):
                continue
            for s, d in penalty.items():
                sid = g.rules.stat(s).id
                p.stats[sid] = p.stats.get(sid, 0) + d
            g.emit("gm.no_vote", "gm", player=p.pid, vote=vdef.id)
            g.emit("private.no_vote", "players", [p.pid], penalty=dict(penalty))
        ranked = sorted(
            (pid for pid, n in tally.items() if n > 0),
            key=lambda pid: (-tally[pid], _value(g, g.player(pid), stat), pid),
        )
        # equal votes and equal ВО: the game's random generator decides among them
        groups: dict[tuple[int, int], list[int]] = defaultdict(list)
        for pid in ranked:
            groups[(tally[pid], _value(g, g.player(pid), stat))].append(pid)
        order: list[int] = []
        for key in sorted(groups, key=lambda k: (-k[0], k[1])):
            grp = groups[key]
            if len(grp) > 1:
                g.rng.shuffle(grp)
            order += grp
        for pid in order:
            p = g.player(pid)
            if g.alive(p) and not p.has("prison") and _value(g, p, stat) < 0:
                jail(g, p, f"vote:{vdef.id}")
                g.emit("vote.jailed", "public", vote=vdef.id, player=pid)
                return
        g.emit("vote.nobody_jailed", "public", vote=vdef.id)


VOTES["prison"] = PrisonVote


@step("prison_thresholds")
def prison_thresholds(ctx: Ctx, sd: Any) -> None:
    """At the end of a day: ВО ≤ jail_at sends to prison, ВО ≥ release_at frees."""
    g = ctx.game
    if not g.clock.is_turn_end(ctx.tick):
        return
    stat = g.rules.stat(sd.params.get("stat", "vo")).id
    jail_at, release_at = sd.params.get("jail_at"), sd.params.get("release_at")
    for p in g.living():
        v = _value(g, p, stat)
        if release_at is not None and p.has("prison") and v >= release_at:
            release(g, p, "threshold")
        elif jail_at is not None and not p.has("prison") and v <= jail_at:
            jail(g, p, "threshold")
