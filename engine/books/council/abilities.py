"""Seed 001 («Совет директоров», Board of Directors): what this book adds to the family.

The roles and characters are Godfather's (their implementations are reused by name); what is
here is the book's own framework: the second vote of the day, «Амнистия или казнь», weighted
by each voter's ТВ, and the ВС a prisoner loses for each full day in prison. The prison vote
with «против всех», the ±15 thresholds, random actions for a missing turn, death reveals and
the lesser winners are parameters of the core. Decisions: docs/rules/council.md.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ...errors import ActionError
from ...registry import VOTES, impl
from ...votes import VoteCounter, publish_tally, secret_passives, secret_stat
from ..godfather.prison import PrisonVote, ballot_counts, day_memory, execute, release

if TYPE_CHECKING:
    from ...resolve.context import Ctx
    from ...state import Player, Vote
    from ...world import World

AMNESTY, EXECUTION = "amnesty", "execution"


class AmnestyVote(VoteCounter):
    """«Амнистия или казнь»: open during a day while anyone jailed before that day is in
    prison; one ballot a day, «амнистия» or «казнь», for nobody in particular. A ballot weighs
    the voter's true ТВ at the moment of voting (+ the passive ``vote_bonus``); a ballot
    deprived of strength weighs 0, a strength taken by another (``vote_taken``) goes to the
    taker, as in the prison vote.

    It is about the prisoners jailed before the day began (:meth:`at_stake`). At the end of
    the day: more weight wins; equal weight: the larger sum of the voters' ВС,
    then the larger sum of the sizes of their factions, then the game's generator; a side
    nobody voted for cannot win. Amnesty frees a random prisoner whose true ВС is ≥ 0 at the
    day's end, execution kills a random one whose true ВС is < 0 (one protected from execution
    is not among them); none such: nothing happens.

    ``params``: ``stat`` (vs), ``weight_stat`` (tv), ``status`` (prison), ``dead_ballots``.
    """

    CHOICES = (AMNESTY, EXECUTION)

    @staticmethod
    def named_choices(g: World, vdef: Any) -> list[str]:
        return list(AmnestyVote.CHOICES)

    @staticmethod
    def secret_weights(g: World, vdef: Any) -> bool:
        """«настоящим ТВ, т.е. тайным влиянием»: a secret stat (and Влиятельный's bonus)."""
        tv = g.rules.stat(vdef.params.get("weight_stat", "tv")).id
        return secret_stat(g, tv) or secret_passives(g, ("vote_bonus", "vote_weight"))

    @staticmethod
    def at_stake(g: World, vdef: Any, tick: int) -> list[Player]:
        """The prisoners a day's vote is about: in prison since before the day began (from the
        start, by the night's results, by an earlier day's vote). One jailed during the day — by
        an ability, by ±15 in an hour, by that day's prison vote — is at stake from the next day
        (docs/rules/council.md, decision 4)."""
        status = vdef.params.get("status", "prison")
        first = tick - g.clock.info(tick).index  # the day's first hour
        out = []
        for p in g.living():
            s = g.active(p, status, tick)
            if s is not None and s.since < first:
                out.append(p)
        return out

    @staticmethod
    def is_open(g: World, vdef: Any) -> bool:
        return g.info.kind == "day" and bool(AmnestyVote.at_stake(g, vdef, g.state.tick))

    @staticmethod
    def on_start(g: World, vdef: Any) -> None:
        AmnestyVote.watch(g, vdef)

    @staticmethod
    def watch(g: World, vdef: Any) -> None:
        """Announce the vote once a day, as soon as it is open."""
        if g.state.over or g.info.kind != "day":
            return
        memo = day_memory(g, vdef, g.info.day)
        if not memo.opened and AmnestyVote.is_open(g, vdef):
            memo.opened = True
            g.emit("vote.amnesty_opened", "public", vote=vdef.id)

    @staticmethod
    def check_choice(g: World, vdef: Any, p: Player, choice: Any) -> None:
        if choice not in AmnestyVote.CHOICES:
            raise ActionError("bad_option", options=list(AmnestyVote.CHOICES))

    @staticmethod
    def weight(g: World, vdef: Any, p: Player) -> int:
        tv = g.rules.stat(vdef.params.get("weight_stat", "tv")).id
        bonus = sum(int(x.get("amount", 1)) for x in g.passives(p, "vote_bonus"))
        return max(0, g.true_stat(p, tv)) + bonus

    @staticmethod
    def on_ballot(g: World, vdef: Any, v: Vote) -> None:
        """«Сила голоса ... настоящим ТВ, т.е. тайным влиянием в момент голосования»."""
        memo = day_memory(g, vdef, g.info.day).strength
        memo[str(v.pid)] = AmnestyVote.weight(g, vdef, g.player(v.pid))

    @staticmethod
    def due(ctx: Ctx, vdef: Any) -> bool:
        return ctx.game.clock.is_turn_end(ctx.tick)

    @staticmethod
    def count(ctx: Ctx, vdef: Any, ballots: list[Vote]) -> None:
        g = ctx.game
        prm = vdef.params
        memo = day_memory(g, vdef, g.clock.info(ctx.tick).day)
        counted = [b for b in ballots if b.choice in AmnestyVote.CHOICES and ballot_counts(g, g.player(b.pid), bool(prm.get("dead_ballots")))]
        if not counted:
            if memo.opened:
                g.emit("vote.amnesty_no_ballots", "public", vote=vdef.id)
            return
        # a strength taken from someone who did not vote: their ТВ now
        for p in g.living():
            memo.strength.setdefault(str(p.pid), AmnestyVote.weight(g, vdef, p))
        stat = g.rules.stat(prm.get("stat", "vs")).id
        sides = {c: [b.pid for b in counted if b.choice == c] for c in AmnestyVote.CHOICES}
        each = PrisonVote.strengths(g, vdef, [b.pid for b in counted])
        weight = {c: sum(each[pid] for pid in sides[c]) for c in sides}
        standing = {c: sum(g.true_stat(g.player(pid), stat) for pid in sides[c]) for c in sides}
        sizes = {c: sum(len(f.members) for pid in sides[c] for f in g.factions_of(pid)) for c in sides}
        g.emit("gm.amnesty_tally", "gm", vote=vdef.id, amnesty=weight[AMNESTY], execution=weight[EXECUTION])
        tally = sorted(([c, weight[c]] for c in AmnestyVote.CHOICES if sides[c]), key=lambda kv: (-kv[1], kv[0]))
        publish_tally(g, vdef, tally, counted, dead_ballots=bool(prm.get("dead_ballots")), gm_tally=False)
        present = [c for c in AmnestyVote.CHOICES if sides[c]]
        if len(present) == 1:
            won = present[0]
        elif weight[AMNESTY] != weight[EXECUTION]:
            won = max(present, key=lambda c: weight[c])
        elif standing[AMNESTY] != standing[EXECUTION]:
            won = max(present, key=lambda c: standing[c])
            g.emit("gm.amnesty_tie_stat", "gm", stat=stat, amnesty=standing[AMNESTY], execution=standing[EXECUTION])
        elif sizes[AMNESTY] != sizes[EXECUTION]:
            won = max(present, key=lambda c: sizes[c])
            g.emit("gm.amnesty_tie_factions", "gm", amnesty=sizes[AMNESTY], execution=sizes[EXECUTION])
        else:
            won = g.rng.choice(sorted(present))
            g.emit("gm.amnesty_tie_random", "gm")
        inmates = AmnestyVote.at_stake(g, vdef, ctx.tick)
        if won == AMNESTY:
            g.emit("vote.amnesty_won", "public", vote=vdef.id)
            pool = [p.pid for p in inmates if g.true_stat(p, stat) >= 0]
            if not pool:
                g.emit("vote.amnesty_nobody", "public", vote=vdef.id)
                return
            p = g.player(g.rng.choice(sorted(pool)))
            release(g, p, f"vote:{vdef.id}")
            g.emit("vote.amnestied", "public", vote=vdef.id, player=p.pid)
            return
        g.emit("vote.execution_won", "public", vote=vdef.id)
        pool = []
        for p in inmates:
            if g.true_stat(p, stat) >= 0:
                continue
            if ctx.protection(p, ["negative", "kill", "execution"], None) is not None:
                g.emit("gm.execution_shielded", "gm", player=p.pid)
                continue
            pool.append(p.pid)
        if not pool:
            g.emit("vote.execution_nobody", "public", vote=vdef.id)
            return
        p = g.player(g.rng.choice(sorted(pool)))
        g.emit("vote.executed", "public", vote=vdef.id, player=p.pid)
        execute(ctx, p, f"vote:{vdef.id}")  # nobody in the pool is protected from it


VOTES["amnesty"] = AmnestyVote


@impl("prison_days")
def prison_days(ctx: Ctx, intent: Any, sd: Any, people: list[Player]) -> None:
    """A resolve step: «За каждые сутки, проведенные подряд в тюрьме, игрок теряет 1 ВС». Each
    full cycle (24 hours) a player has been in ``status`` without a break, ``stat`` changes by
    ``delta``: jailed with the results of 13:00, they lose it with the results of 13:00 the next
    day. Nobody's action: no protection stops it; the public report shows it like any ВС change."""
    g = ctx.game
    prm = sd.params
    status = prm.get("status", "prison")
    stat = g.rules.stat(prm.get("stat", "vs")).id
    delta = int(prm.get("delta", -1))
    for p in g.living():
        s = g.active(p, status, ctx.tick)
        held = ctx.tick - s.since if s is not None else 0
        if held > 0 and held % g.clock.per_cycle == 0:
            p.stats[stat] = p.stats.get(stat, 0) + delta
            ctx.emit("gm.prison_day", "gm", player=p.pid, stat=stat, delta=delta)
