"""Seed 000's prison: the daily vote to jail a player below zero, the ±6 thresholds, and the
sentences abilities pass (prison or execution "по итогам дня").

The list of a day holds every free living player whose ВО is below zero at the start of the
day, and whoever drops below zero after a period of that day. The vote is open while the
list is not empty; it is counted at the end of the day's last period. A voter's strength is
1 + the ТВ bonus at the moment the vote opened (+ the passive ``vote_bonus``); abilities may
take a vote's strength away (status ``no_vote_strength``) or hand it to someone else (status
``vote_taken``, whose ``by`` receives it). At the end of a day, after the vote: ВО ≤ −6
jails, ВО ≥ 6 releases, then the sentences due that day are carried out. Every jailing asks
the target's protections (label ``prison``; ``execution`` for an execution).
Decisions: docs/rules/godfather.md.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ...errors import ActionError
from ...factions import pick_leader
from ...registry import VOTES, book_memory, step
from ...resolve.effects import kill
from ...state import Status
from ...votes import (
    VoteCounter,
    publish_tally,
    secret_passives,
    secret_stat,
    secret_statuses,
    weighed,
)

if TYPE_CHECKING:
    from ...resolve.context import Ctx
    from ...state import Player, Vote
    from ...world import World

SENTENCES = "prison_sentences"  # the snapshot's ``memo`` key of the sentences waiting for a day's end


@dataclass
class PrisonDay:
    """One day of a prison (or amnesty) vote: the players listed, in the order they were
    listed; each voter's strength by ``str(pid)``; whether the vote was announced (amnesty).
    The snapshot keeps it as ``{"list", "strength"}`` (+ ``"opened"`` when true); keys an older
    build wrote and this one does not know stay in ``extra`` and are saved again."""

    listed: list[int] = field(default_factory=list)
    strength: dict[str, int] = field(default_factory=dict)
    opened: bool = False
    extra: dict[str, Any] = field(default_factory=dict)

    def to_memo(self) -> dict[str, Any]:
        out: dict[str, Any] = {**self.extra, "list": list(self.listed), "strength": dict(self.strength)}
        if self.opened:
            out["opened"] = True
        return out

    @classmethod
    def from_memo(cls, d: dict[str, Any]) -> PrisonDay:
        extra = {k: v for k, v in d.items() if k not in ("list", "strength", "opened")}
        strength = {str(k): int(v) for k, v in (d.get("strength") or {}).items()}
        return cls([int(x) for x in d.get("list") or []], strength, bool(d.get("opened")), extra)


@dataclass
class Sentence:
    """A prison or execution sentence passed by an ability, carried out at the resolve ``due``."""

    pid: int
    verdict: str  # "prison" | "execution"
    cause: str
    by: int | None
    due: int


@book_memory("godfather_prison")
@dataclass
class PrisonMemory:
    """Seed 000's (and 001's) prison memory between ticks: each vote's day lists under the
    vote's own id (``days[vote id][str(day)]``) and the sentences waiting for a day's end.

    Its snapshot keeps the layout of the free ``memo`` dict it replaced, so older snapshots
    load: ``memo[<vote id>] = {str(day): {"list", "strength", …}}`` and
    ``memo["prison_sentences"] = [...]``; :meth:`claims` tells those keys from the others'."""

    days: dict[str, dict[str, PrisonDay]] = field(default_factory=dict)
    sentences: list[Sentence] = field(default_factory=list)

    @staticmethod
    def claims(key: str, value: Any) -> bool:
        """Whether a snapshot's ``memo[key]`` is this memory's: the sentences, or a vote's day
        lists (a mapping of day numbers to mappings)."""
        if key == SENTENCES:
            return isinstance(value, list)
        return isinstance(value, dict) and bool(value) and all(str(k).isdigit() and isinstance(v, dict) for k, v in value.items())

    def to_memo(self) -> dict[str, Any]:
        out: dict[str, Any] = {vid: {day: d.to_memo() for day, d in by_day.items()} for vid, by_day in self.days.items()}
        if self.sentences:
            out[SENTENCES] = [{"pid": s.pid, "verdict": s.verdict, "cause": s.cause, "by": s.by, "due": s.due} for s in self.sentences]
        return out

    @classmethod
    def from_memo(cls, items: dict[str, Any]) -> PrisonMemory:
        place = cls()
        for key, value in items.items():
            if key == SENTENCES:
                place.sentences = [Sentence(**s) for s in value]
            else:
                place.days[key] = {str(day): PrisonDay.from_memo(d) for day, d in value.items()}
        return place


def day_memory(g: World, vdef: Any, day: int) -> PrisonDay:
    """The memory of ``day`` of the vote ``vdef`` (made empty when first asked for; seed 001's
    amnesty vote keeps its day here too)."""
    days = g.state.place(PrisonMemory).days.setdefault(vdef.id, {})
    found = days.get(str(day))  # asked for every choice of every ballot: no empty day built in vain
    if found is None:
        found = days[str(day)] = PrisonDay()
    return found


def _stat(g: World, vdef: Any) -> str:
    return g.rules.stat(vdef.params.get("stat", "vo")).id


def value(g: World, p: Player, stat: str) -> int:
    """The value the prison reads. Setting ``prison_reads``: ``public`` (default) the ВО
    everyone sees, so the public list and the ±6 rule never betray a hidden bonus; ``true``
    with the faction and personal hidden bonuses (not threshold-only ones)."""
    if g.settings.prison_reads == "true":
        return g.true_stat(p, stat, "prison")
    return p.stats[stat]


def day_end(g: World, tick: int) -> int:
    """The tick whose resolve ends the day of ``tick`` (at night: the coming day)."""
    t = tick
    while not (g.clock.info(t).kind == "day" and g.clock.is_turn_end(t)):
        t += 1
    return t


def _shielded(ctx: Ctx | None, p: Player, labels: list[str], actor: int | None) -> bool:
    if ctx is None or ctx.protection(p, labels, actor) is None:
        return False
    ctx.emit("gm.execution_shielded" if "execution" in labels else "gm.prison_shielded", "gm", player=p.pid)
    return True


def jail(g: World, p: Player, cause: str, ctx: Ctx | None = None, labels: list[str] | None = None, actor: int | None = None) -> bool:
    """Put ``p`` in prison unless a protection stops it (``labels``, default ``prison``);
    a jailed leader loses the lead to the member with the most ТВ. True when jailed."""
    if p.has("prison") or not g.alive(p):
        return False
    if _shielded(ctx, p, labels or ["prison"], actor):
        return False
    p.statuses["prison"] = Status(id="prison", since=g.state.tick, data={"cause": cause})
    for f in g.factions_of(p.pid):
        if f.leader == p.pid and len(f.members) > 1:
            others = [m for m in f.members if m != p.pid]
            f.leader = pick_leader(g, f, among=others)
            g.emit("faction.new_leader", "faction", [f.fid], leader=f.leader)
    g.emit("gm.jailed", "gm", player=p.pid, cause=cause)
    return True


def release(g: World, p: Player, cause: str) -> bool:
    if p.statuses.pop("prison", None) is not None:
        g.emit("gm.released", "gm", player=p.pid, cause=cause)
        return True
    return False


def execute(ctx: Ctx, p: Player, cause: str, actor: int | None = None) -> bool:
    """An execution: the player is dead (the public report says so) unless protected."""
    if not ctx.game.alive(p) or _shielded(ctx, p, ["negative", "kill", "execution"], actor):
        return False
    kill(ctx, p, cause, ctx.game.settings.execution_status)  # its own dead status, if any
    return True


def sentence(ctx: Ctx, p: Player, verdict: str, cause: str, actor: int | None) -> None:
    """Prison or execution for ``p``, carried out with the results of the current day (a
    sentence passed at night: of the coming day)."""
    due = day_end(ctx.game, ctx.tick)
    ctx.game.state.place(PrisonMemory).sentences.append(Sentence(p.pid, verdict, cause, actor, due))
    key = "gm.sentence_execution" if verdict == "execution" else "gm.sentence_prison"
    ctx.emit(key, "gm", player=p.pid, by=actor, phase=ctx.game.clock.info(due).label)


def carry_out_sentences(ctx: Ctx) -> None:
    g = ctx.game
    memory = g.state.peek(PrisonMemory)
    if not memory.sentences:
        return
    due = [s for s in memory.sentences if s.due <= ctx.tick]
    memory.sentences = [s for s in memory.sentences if s.due > ctx.tick]
    # an execution outweighs a prison sentence passed on the same player
    for s in sorted(due, key=lambda s: (s.verdict != "execution", s.pid, s.cause)):
        p = g.player(s.pid)
        if s.verdict == "execution":
            execute(ctx, p, s.cause, s.by)
        else:
            jail(g, p, s.cause, ctx, ["negative", "prison"], s.by)


AGAINST_ALL = "against_all"


def ballot_counts(g: World, voter: Player, dead_ballots: bool = False) -> bool:
    """A ballot counts while its voter may vote; with ``dead_ballots`` (seed 001: «Голос игрока,
    казненного ... или умершего в течение дня, также учитывается») also once the voter is dead."""
    if not g.alive(voter):
        return dead_ballots
    return all(f.can_vote for f in g.status_flags(voter))


class PrisonVote(VoteCounter):
    """``params``: stat (vo), strength_step (5; null: every ballot weighs 1 + ``vote_bonus``),
    changes_per_game (1), changes, penalty ({vo: -2, tv: -2}; {}: none), and for seed 001:
    ``against_all`` (a ballot «против всех»; more than half of those entitled to vote → nobody
    goes), ``dead_ballots`` (ballots of the dead count), ``count_reads`` (``true``: whether a
    listed player may go, and the ties, read the true values), ``tie_stats`` (equal votes: the
    lower of these stats goes first, in order, then the game's generator; default ``[stat]``)."""

    @staticmethod
    def named_choices(g: World, vdef: Any) -> list[str]:
        return [AGAINST_ALL] if vdef.params.get("against_all") else []

    @staticmethod
    def secret_weights(g: World, vdef: Any) -> bool:
        """A strength from a secret stat's band (seed 000: ТВ), a secret character's bonus
        (Влиятельный's invisible +1) or a secret loss of strength betrays its holder."""
        prm = vdef.params
        from_stat = bool(prm.get("strength_step", 5)) and secret_stat(g, g.rules.stat(prm.get("strength_stat", "tv")).id)
        statuses = [prm.get("deprived_status", "no_vote_strength"), prm.get("taken_status", "vote_taken")]
        return from_stat or secret_passives(g, ("vote_bonus", "vote_weight")) or secret_statuses(g, statuses)

    @staticmethod
    def on_start(g: World, vdef: Any) -> None:
        PrisonVote.watch(g, vdef)

    @staticmethod
    def watch(g: World, vdef: Any) -> None:
        """Add everyone now below zero to the list of the current (or coming) day."""
        info = g.info
        if info.kind != "day" or g.state.over:
            return
        stat = _stat(g, vdef)
        memo = day_memory(g, vdef, info.day)
        was_open = bool(memo.listed)
        for p in g.living():
            if p.pid not in memo.listed and not p.has("prison") and value(g, p, stat) < 0:
                memo.listed.append(p.pid)
                g.emit("vote.listed", "public", vote=vdef.id, player=p.pid)
                g.emit("notice.listed", "players", [p.pid], vote=vdef.id)
        if memo.listed and not was_open:
            step_ = vdef.params.get("strength_step", 5)
            tv = g.rules.stat(vdef.params.get("strength_stat", "tv")).id
            for p in g.living():
                bonus = max(0, g.true_stat(p, tv) // int(step_)) if step_ else 0
                extra = sum(int(x.get("amount", 1)) for x in g.passives(p, "vote_bonus"))
                memo.strength[str(p.pid)] = max(1, 1 + bonus + extra)
            g.emit("vote.opened", "public", vote=vdef.id, players=list(memo.listed))

    @staticmethod
    def is_open(g: World, vdef: Any) -> bool:
        info = g.info
        return info.kind == "day" and bool(day_memory(g, vdef, info.day).listed)

    @staticmethod
    def check_choice(g: World, vdef: Any, p: Player, choice: Any) -> None:
        if choice == AGAINST_ALL and vdef.params.get("against_all"):
            return
        listed = day_memory(g, vdef, g.info.day).listed
        if choice not in listed:
            raise ActionError("not_on_list", target=choice)

    @staticmethod
    def accepted(g: World, vdef: Any, p: Player, candidates: list[Any]) -> list[Any]:
        """What :meth:`check_choice` accepts of ``candidates``: the listed, and «против всех»."""
        listed = day_memory(g, vdef, g.info.day).listed
        against = vdef.params.get("against_all")
        return [c for c in candidates if (c == AGAINST_ALL and against) or c in listed]

    @staticmethod
    def due(ctx: Ctx, vdef: Any) -> bool:
        return ctx.game.clock.is_turn_end(ctx.tick)

    @staticmethod
    def strength(g: World, vdef: Any, pid: int) -> int:
        """What ``pid``'s ballot weighs: their strength at opening, 0 when their vote has no
        force or was taken, plus every strength taken by them (and not itself deprived)."""
        return PrisonVote.strengths(g, vdef, [pid])[pid]

    @staticmethod
    def strengths(g: World, vdef: Any, pids: Iterable[int]) -> dict[int, int]:
        """:meth:`strength` of each of ``pids``, with one walk over the living players (who took
        whose vote) for all of them, not one per ballot."""
        memo = day_memory(g, vdef, g.info.day).strength
        deprived = vdef.params.get("deprived_status", "no_vote_strength")
        taken = vdef.params.get("taken_status", "vote_taken")

        def taker(q: Player) -> int | None:  # a dead taker takes nothing any more
            s = g.active(q, taken)
            by = s.data.get("by") if s is not None else None
            return by if by is not None and g.alive(g.player(by)) else None

        took: dict[int, list[Player]] = defaultdict(list)  # taker -> the living whose vote they took
        for q in g.living():
            by = taker(q)
            if by is not None:
                took[by].append(q)
        out: dict[int, int] = {}
        for pid in pids:
            p = g.player(pid)
            if g.active(p, deprived):
                out[pid] = 0
                continue
            total = 0 if taker(p) not in (None, pid) else weighed(g, p, memo.get(str(pid), 1))  # (passive vote_weight)
            for q in took.get(pid, ()):
                if q.pid != pid and not g.active(q, deprived):
                    total += weighed(g, q, memo.get(str(q.pid), 1))
            out[pid] = total
        return out

    @staticmethod
    def count(ctx: Ctx, vdef: Any, ballots: list[Vote]) -> None:
        g = ctx.game
        memo = day_memory(g, vdef, g.clock.info(ctx.tick).day)
        if not memo.listed:
            return
        prm = vdef.params
        stat = _stat(g, vdef)

        def val(p: Player, s: str) -> int:
            return g.true_stat(p, s, "prison") if prm.get("count_reads") == "true" else value(g, p, s)

        tally: dict[int, int] = defaultdict(int)
        voted = set()
        against = 0
        weight = PrisonVote.strengths(g, vdef, {b.pid for b in ballots if b.choice not in (None, AGAINST_ALL)})
        for b in ballots:
            if not ballot_counts(g, g.player(b.pid), bool(prm.get("dead_ballots"))):
                continue  # cast before losing the vote (barracks, death): it no longer counts
            voted.add(b.pid)
            if b.choice == AGAINST_ALL:
                against += 1  # a head: "больше, чем 50% от имеющих право голоса"
            elif b.choice is not None:
                tally[int(b.choice)] += weight[b.pid]
        # a ballot without force is not in the weighted tally: shown, it must not tell who lost it
        shown: list[list[Any]] = [[k, n] for k, n in sorted(((k, n) for k, n in tally.items() if n > 0), key=lambda kv: (-kv[1], kv[0]))]
        publish_tally(g, vdef, shown + ([[AGAINST_ALL, against]] if against else []), ballots, dead_ballots=bool(prm.get("dead_ballots")))
        penalty = prm.get("penalty", {})
        for p in g.living():
            if not penalty or p.pid in voted or any(not f.can_vote for f in g.status_flags(p)):
                continue
            for s, d in penalty.items():
                sid = g.rules.stat(s).id
                p.stats[sid] = p.stats.get(sid, 0) + d
            g.emit("gm.no_vote", "gm", player=p.pid, vote=vdef.id)
            g.emit("private.no_vote", "players", [p.pid], penalty=dict(penalty))
        entitled = voted | {p.pid for p in g.living() if ballot_counts(g, p)}
        if prm.get("against_all") and against * 2 > len(entitled):
            g.emit("vote.against_all", "public", vote=vdef.id, count=against, of=len(entitled))
            return
        ranked = [pid for pid, n in tally.items() if n > 0]
        # equal votes and equal ВО (then the other ``tie_stats``): the game's generator decides
        ties = [g.rules.stat(s).id for s in prm.get("tie_stats") or [stat]]
        groups: dict[tuple[int, ...], list[int]] = defaultdict(list)
        for pid in sorted(ranked):
            groups[(tally[pid], *(val(g.player(pid), s) for s in ties))].append(pid)
        order: list[int] = []
        for key in sorted(groups, key=lambda k: (-k[0], *k[1:])):
            grp = groups[key]
            if len(grp) > 1:
                g.rng.shuffle(grp)
            order += grp
        # the most-voted who may go: still below zero, free, alive and not immune; else the next
        for pid in order:
            p = g.player(pid)
            if g.alive(p) and not p.has("prison") and val(p, stat) < 0 and jail(g, p, f"vote:{vdef.id}", ctx):
                g.emit("vote.jailed", "public", vote=vdef.id, player=pid)
                return
        g.emit("vote.nobody_jailed", "public", vote=vdef.id)


VOTES["prison"] = PrisonVote


@step("prison_thresholds")
def prison_thresholds(ctx: Ctx, sd: Any) -> None:
    """At the end of a day: ВО ≤ jail_at sends to prison, ВО ≥ release_at frees; then the
    sentences due today are carried out. ``every_tick`` (seed 001: «тут же»): the thresholds
    apply at every resolve this step is in; the sentences still wait for the day's end."""
    g = ctx.game
    end = g.clock.is_turn_end(ctx.tick)
    if not end and not sd.params.get("every_tick"):
        return
    stat = g.rules.stat(sd.params.get("stat", "vo")).id
    jail_at, release_at = sd.params.get("jail_at"), sd.params.get("release_at")
    for p in g.living():
        v = value(g, p, stat)
        if release_at is not None and p.has("prison") and v >= release_at:
            release(g, p, "threshold")
        elif jail_at is not None and not p.has("prison") and v <= jail_at:
            jail(g, p, "threshold", ctx)
    if end:
        carry_out_sentences(ctx)
