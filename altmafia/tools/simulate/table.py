"""Balance simulation: many games of one ruleset played to the end by automatic players.

``altmafia simulate`` (see ``docs/simulate.md``) plays N games and reports win rates by role,
character, faction (or team) and policy with Wilson 95% intervals, the average game length,
how often each ability was used and blocked (from the GM trace, ``trace.action``), and the
share of games ended by each victory path.

Everything is drawn from generators seeded by ``(seed, game index)``: the same seed gives the
same report, and game ``i`` of a run can be replayed on its own (``--game i``).

Two policies play:

* ``random`` — a legal move in every lane of the turn (ability, targets, option or number,
  ``via``: leader action, extra action, borrowed action), votes while a vote is open, PMs,
  anonymous posts, faction moves at night and answers to invitations;
* ``greedy`` — an *informed* player (it reads the true state: stats, teams, faction claims)
  that scores every legal move with a cheap heuristic from the ability's effects (what each
  effect does to whom, weighted by how that player stands to me) and takes the best; it
  votes against the biggest threat, builds factions it leads and overthrows a leader it can
  beat. It is a yardstick that plays to win, not a model of real players.
"""

from __future__ import annotations

import hashlib
import math
import random
import sys
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from typing import Any

from tqdm import tqdm

from altmafia.text.chart import families
from altmafia.text.i18n import catalog, count
from config import load_ruleset
from engine import DEAL, ActionError, Game, LegalAction, PlayerSpec, Ruleset

POLICIES = ("random", "greedy", "mixed")
Z95 = 1.959963984540054

# the random player's habits
ACT_RATE = 0.9  # uses a lane of the turn
VOTE_RATE = 0.9  # casts a ballot in an open vote (a random player may change it later)
REVOTE_RATE = 0.2
PM_RATE = 0.2
ANON_RATE = 0.05
FACTION_RATE = 0.3
ACCEPT_RATE = 0.5
RETRIES = 8  # other targets and options tried when the engine refuses a combination

# the greedy player's heuristic weights (see docs/simulate.md)
KILL_VALUE = 12.0
POISON_VALUE = 5.0
BLOCK_VALUE = 1.5
PROTECT_VALUE = 1.0
INFO_VALUE = 0.3
ACT_BONUS = 0.05


class SimulationError(Exception):
    """A simulation that cannot run (bad table size, unknown policy…): the message says why."""


def derive_seed(seed: int, index: int, purpose: str) -> int:
    """A 48-bit seed for game ``index`` of a run with ``seed``: stable across runs and
    platforms (not Python's salted ``hash``)."""
    digest = hashlib.sha256(f"altmafia/simulate/{seed}/{index}/{purpose}".encode()).digest()
    return int.from_bytes(digest[:6], "big")


def table_size(rules: Ruleset, players: int | None) -> int:
    n = rules.table.default if players is None else players
    if not rules.table.min <= n <= rules.table.max:
        raise SimulationError(f"{rules.id} is for {rules.table.min}–{rules.table.max} players, not {n}")
    return n


def wilson(wins: int, n: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval of a proportion (95% by default); (0, 1) when n is 0."""
    if n == 0:
        return 0.0, 1.0
    p = wins / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return max(0.0, centre - half), min(1.0, centre + half)


# ---- one game -------------------------------------------------------------------------------
def new_table(rules: Ruleset, seed: int, index: int, players: int | None, policy: str) -> tuple[Game, list[str], random.Random]:
    """Game ``index`` of a run: the game, each seat's policy, the players' generator.

    Up to the number of roles, roles and characters are dealt by the engine (``DEAL``, from the
    game's generator); a larger table gets every role once and repeats for the other seats (a
    GM's assignment may repeat a role); characters are dealt, repeating once the deck is out.
    """
    if policy not in POLICIES:
        raise SimulationError(f"unknown policy {policy!r}; known: {', '.join(POLICIES)}")
    n = table_size(rules, players)
    rnd = random.Random(derive_seed(seed, index, "players"))
    if n <= len(rules.roles) or rules.table.deck(n) is not None:  # a deal per size: the engine's
        roles = [DEAL] * n
    else:
        roles = [r.id for r in rules.roles] + [rnd.choice(rules.roles).id for _ in range(n - len(rules.roles))]
        rnd.shuffle(roles)
    character = DEAL if rules.characters else None
    specs = [PlayerSpec(name=f"P{i + 1}", role=roles[i], character=character) for i in range(n)]
    game = Game.new(rules, derive_seed(seed, index, "game"), specs)
    if policy == "mixed":
        seats = list(range(n))
        rnd.shuffle(seats)
        greedy = set(seats[: n // 2])
        policies = ["greedy" if i in greedy else "random" for i in range(n)]
    else:
        policies = [policy] * n
    return game, policies, rnd


def side_of(g: Game, pid: int) -> str | None:
    """What "faction" means in the report: the team for team victories; for player-made
    factions the player's place at the end (faction leader, faction member, free)."""
    p = g.player(pid)
    if g.rules.victory.kind == "last_team":
        source = g.rules.victory.params.get("team_from", "character")
        src = g.rules.character(p.character) if source == "character" and p.character else g.rules.role(p.role)
        return f"team:{src.team}" if src.team else "team:none"
    if g.rules.factions.enabled:
        fs = g.factions_of(pid)
        if any(f.leader == pid for f in fs):
            return "faction_leader"
        return "faction_member" if fs else "free"
    teams = {src.team for src in g.sources(p) if src.team}
    return f"team:{sorted(teams)[0]}" if teams else None


def victory_path(g: Game) -> str:
    """How the game ended: free player / faction leader / faction member for ``highest_stat``,
    the team for ``last_team``, or no winner (and why)."""
    winners = g.state.winner or []
    kind = g.rules.victory.kind
    if not winners:
        if kind == "last_team":
            ignored = set(g.rules.victory.params.get("ignore_teams", []))
            alive = [p for p in g.living() if (side_of(g, p.pid) or "").removeprefix("team:") not in ignored]
            return "no_winner:everybody_died" if not alive else "no_winner:time_out"
        return "no_winner"
    if kind == "highest_stat":
        if any(f.leader in winners for f in g.state.factions.values()):
            return "faction_leader"
        if any(g.factions_of(w) for w in winners):
            return "faction_member"
        return "free_player"
    if kind == "last_team":
        return side_of(g, winners[0]) or "team:none"
    sides = sorted({side_of(g, w) for w in winners} - {None})  # another kind: the winners' sides
    return "+".join(sides) if sides else "winners"


def draw(rnd: random.Random, a: LegalAction, fewest: bool = False) -> tuple[list[int], str | None]:
    """Random targets of a legal move (as many as the ability takes: ``targets`` up to
    ``max_targets``; with ``fewest`` the least it takes) and a random option or number, drawn
    in that order; the option one of those left for the drawn targets (``LegalAction.spent``:
    never a pair the engine refuses as used already). The one random draw of a move, shared by
    the simulator and the tests' random players (tests/players.py)."""
    ab = a.ability
    cap = getattr(ab, "max_targets", None)  # "unlimited": the ability's checks refuse too many
    most = len(a.targets) if cap == "unlimited" else min(cap or ab.targets, len(a.targets))
    k = rnd.randint(ab.targets, most) if most > ab.targets and not fewest else ab.targets
    targets = rnd.sample(a.targets, k) if k else []
    return targets, a.any_option(rnd, targets)


class Table:
    """One game with its automatic players."""

    def __init__(self, game: Game, policies: list[str], rnd: random.Random) -> None:
        self.g = game
        self.policies = policies
        self.rnd = rnd
        self.refused = 0  # legal moves the engine refused: should stay 0 (reported as a check)
        self.factions_on = game.rules.factions.enabled
        self.max_ticks = game.clock.cycles(game.rules.calendar.max_days) + game.clock.per_cycle

    # ---- the loop ----------------------------------------------------------------------------
    def play(self, on_tick: Callable[[Game, list[Any]], None] | None = None) -> None:
        g = self.g
        while not g.state.over:
            if g.state.tick > self.max_ticks:
                raise SimulationError(f"game seed {g.state.seed} did not end by tick {self.max_ticks}")
            self.tick()
            events = g.resolve()
            if on_tick is not None:
                on_tick(g, events)

    def tick(self) -> None:
        g = self.g
        order = [p.pid for p in g.living()]
        self.rnd.shuffle(order)
        view = View(g) if "greedy" in self.policies else None
        for pid in order:
            if self.policies[pid] == "greedy":
                self.greedy_turn(pid, view)
            else:
                self.random_turn(pid)
        if self.factions_on and g.info.kind == "night":
            for pid in order:  # answers come after everyone's invitations
                self.answer_invitations(pid, view)

    def draw(self, a: LegalAction, fewest: bool = False) -> tuple[list[int], str | None]:
        return draw(self.rnd, a, fewest)

    def submit(self, pid: int, a: LegalAction, targets: list[int], option: str | None) -> bool:
        """Submit a move; when the engine refuses that combination of targets and option (a
        target already used with that option…), try other random ones. Only a move none of
        whose tries is accepted counts as refused (a check: legal_actions offered it)."""
        for _ in range(RETRIES):
            try:
                self.g.submit(pid, a.key, targets, option, via=a.via)
                return True
            except ActionError:
                targets, option = self.draw(a, fewest=True)
        self.refused += 1
        return False

    @staticmethod
    def try_(call: Callable[[], Any]) -> bool:
        try:
            call()
        except ActionError:
            return False
        return True

    def lanes(self, pid: int) -> dict[str, list[LegalAction]]:
        out: dict[str, list[LegalAction]] = {}
        for a in self.g.legal_actions(pid):
            out.setdefault(a.lane or self.g.lane_for(a.key, a.ability, a.via), []).append(a)
        return out

    # ---- the random player ------------------------------------------------------------------
    def random_turn(self, pid: int) -> None:
        g, rnd = self.g, self.rnd
        for acts in self.lanes(pid).values():
            if rnd.random() < ACT_RATE:
                a = rnd.choice(acts)
                self.submit(pid, a, *self.draw(a))
        for v in g.open_votes():
            mine = next((b for b in g.state.votes if b.pid == pid and b.vote == v.id), None)
            if rnd.random() < (REVOTE_RATE if mine else VOTE_RATE):
                choices: list[int | str] = [q.pid for q in g.living()] + (["peace"] if v.params.get("peace") else [])
                rnd.shuffle(choices)
                self.cast(pid, v.id, choices)
        self.messages(pid)
        if self.factions_on and g.info.kind == "night" and rnd.random() < FACTION_RATE:
            op = rnd.choice(["invite", "invite", "leave", "kick", "overthrow"])
            others = [q.pid for q in g.living() if q.pid != pid]
            target = rnd.choice(others) if others and op in ("invite", "kick") else None
            self.try_(lambda: g.faction_op(pid, op, target))

    def cast(self, pid: int, vote_id: str, choices: Iterable[int | str]) -> bool:
        """A ballot for the first of ``choices`` the engine accepts (``vote_choices``: what
        ``Game.vote`` accepts, asked once instead of trying each choice); False when the player
        may not vote now or may not change their ballot."""
        try:
            accepted = set(self.g.vote_choices(pid, vote_id))  # game_over, vote_closed, cannot_vote
        except ActionError:
            return False
        for c in choices:
            if c in accepted:
                try:
                    self.g.vote(pid, vote_id, c)
                    return True
                except ActionError as exc:  # vote_change_limit: the one refusal left for an accepted choice
                    if exc.key in ("cannot_vote", "vote_closed", "game_over", "vote_change_limit"):
                        return False
        return False

    def messages(self, pid: int) -> None:
        g, rnd = self.g, self.rnd
        if rnd.random() < PM_RATE:
            others = [q.pid for q in g.living() if q.pid != pid]
            if others:
                to = rnd.choice(others)
                self.try_(lambda: g.send_pm(pid, to, "…"))
        if rnd.random() < ANON_RATE:
            self.try_(lambda: g.post_anon(pid, "слух"))

    def answer_invitations(self, pid: int, view: View | None) -> None:
        g = self.g
        invites = [o for o in g.state.faction_ops if o.tick == g.state.tick and o.op == "invite" and o.target == pid]
        for o in sorted(invites, key=lambda o: o.seq):
            if self.policies[pid] == "greedy" and view is not None:
                yes = view.worth_joining(pid, o.pid)
            else:
                yes = self.rnd.random() < ACCEPT_RATE
            if self.try_(lambda o=o, yes=yes: g.faction_op(pid, "accept" if yes else "decline", o.pid)) and yes:
                return

    # ---- the greedy player ------------------------------------------------------------------
    def greedy_turn(self, pid: int, view: View) -> None:
        g, rnd = self.g, self.rnd
        me = g.player(pid)
        for lane, acts in self.lanes(pid).items():
            best: tuple[float, float, LegalAction, list[int], str | None] | None = None
            for a in acts:
                for option in view.options(a, rnd):
                    score, targets = view.score(me, a, option)
                    cand = (score, rnd.random(), a, targets, option)
                    if best is None or cand[:2] > best[:2]:
                        best = cand
            if best is not None and best[0] > view.idle_value(me, lane):
                self.submit(pid, best[2], best[3], best[4])
        for v in g.open_votes():
            mine = next((b for b in g.state.votes if b.pid == pid and b.vote == v.id), None)
            choices: list[int | str] = [q.pid for q in g.living()] + (["peace"] if v.params.get("peace") else [])
            ranked = sorted(choices, key=lambda c: (view.relation(me, c), rnd.random()))
            if mine is None or (ranked and mine.choice != ranked[0] and view.relation(me, mine.choice) >= 0):
                self.cast(pid, v.id, ranked)
        self.messages(pid)
        if self.factions_on and g.info.kind == "night":
            view.faction_moves(self, me)


class View:
    """What a greedy player reads of the game at the start of a tick (the true state)."""

    def __init__(self, g: Game) -> None:
        self.g = g
        vdef = g.rules.victory
        self.kind = vdef.kind
        stats = [s.id for s in g.rules.stats]
        self.vstat = g.rules.stat(vdef.params.get("stat", stats[0])).id if self.kind == "highest_stat" else None
        self.tstat = g.rules.stat(vdef.params["tie_stat"]).id if self.kind == "highest_stat" and vdef.params.get("tie_stat") else None
        self.barred = set(vdef.params.get("no_win_status", []))
        self.ignored = {f"team:{t}" for t in vdef.params.get("ignore_teams", [])}
        hidden = [s for s in g.rules.stats if s.visibility == "hidden"]
        hp = g.settings.hp_stat or (hidden[0].id if hidden else None)
        self.hp = hp
        self.weights: dict[str, float] = {}
        for s in g.rules.stats:
            if s.id == self.vstat:
                w = 1.0
            elif s.id == self.tstat:
                w = 0.4
            else:
                w = 1.0 / max(1.0, abs(s.default) / 10)  # 100 HP: 10 HP weigh like 1 point
            self.weights[s.id] = w
        self.side = {p.pid: side_of(g, p.pid) for p in g.state.players}
        self.unit: dict[int, str] = {}
        self.claim: dict[str, float] = defaultdict(float)
        if self.kind == "highest_stat":
            for p in g.living():
                fs = g.factions_of(p.pid)
                self.unit[p.pid] = f"f:{fs[0].fid}" if fs else f"p:{p.pid}"
                score = g.true_stat(p, self.vstat)
                if any(g.active(p, s) for s in self.barred):
                    score -= 10  # a prisoner's claim is void
                self.claim[self.unit[p.pid]] += score

    # relations: +1 me, allies positive, rivals negative by how much they threaten me
    def relation(self, me: Any, q: int | str | None) -> float:
        if not isinstance(q, int):
            return 0.0  # "peace", nobody
        if q == me.pid:
            return 1.0
        g = self.g
        if self.kind == "highest_stat":
            mine, theirs = self.unit.get(me.pid), self.unit.get(q)
            if theirs is None:
                return 0.0  # dead
            if mine == theirs:
                return 0.6
            rivals = sorted({c for u, c in self.claim.items() if u != mine})
            if not rivals or rivals[-1] == rivals[0]:
                return -0.6
            pos = (self.claim[theirs] - rivals[0]) / (rivals[-1] - rivals[0])
            return -(0.2 + 0.8 * pos)
        if self.kind == "last_team":
            a, b = self.side.get(me.pid), self.side.get(q)
            if not g.alive(g.player(q)):
                return 0.0
            if b in self.ignored:
                return -0.2
            return 0.8 if a == b and a != "team:none" else -1.0
        return -0.5

    def idle_value(self, me: Any, lane: str) -> float:
        """What not acting in ``lane`` is worth: the inactivity penalty for the turn's action."""
        rule = self.g.rules.inactivity
        if lane != "action" or rule.mode != "penalty":
            return 0.0
        return sum(d * self.weights.get(self.g.rules.stat(s).id, 1.0) for s, d in rule.stats.items())

    def options(self, a: LegalAction, rnd: random.Random) -> list[str | None]:
        if a.ability.number is not None:
            return [a.any_option(rnd)]
        if a.spent:  # an option used already on so many targets that too few are left for it
            return [o for o in a.options if len(a.targets_for(o)) >= a.ability.targets]
        return list(a.options) if a.options else [None]

    # what one effect does for its recipient (positive: good for them)
    def benefit(self, e: Any, q: Any, labels: set[str]) -> float:
        g, op = self.g, e.op
        if op in ("stat", "modifier") or (op == "impl" and e.stat and e.delta is not None):
            d = e.delta if e.delta is not None else (e.amount or 0)
            return d * self.weights.get(g.rules.stat(e.stat).id, 0.5) if e.stat else 0.0
        if op == "damage":
            return -(e.amount or 10) * self.weights.get(self.hp, 0.1) if self.hp else -2.0
        if op == "kill":
            return -KILL_VALUE
        if op == "poison":
            return -POISON_VALUE
        if op in ("heal", "cure"):
            hurt = op == "cure" and any(sid.startswith("poison") for sid in q.statuses)
            if op == "heal" and self.hp:
                top = g.rules.stat(self.hp).max
                hurt = top is not None and q.stats.get(self.hp, 0) < top
            return (POISON_VALUE if op == "cure" else (e.amount or 10) * self.weights.get(self.hp or "", 0.1)) if hurt else 0.1
        if op == "protect":
            return PROTECT_VALUE
        if op == "block":
            return -BLOCK_VALUE
        if op == "status" and e.status:
            sdef = g.rules.status(e.status)
            if sdef.dead or sdef.out_of_play:
                return -KILL_VALUE
            if sdef.id in self.barred:
                return -8.0
            return -3.0 if "*" in sdef.blocks_slots else -0.5
        if op == "impl":
            name = (e.impl or "").lower()
            if any(w in name for w in ("kill", "attack", "murder", "execut", "jail", "sentence")):
                return -4.0
            if labels & {"negative", "block", "poison", "damage", "attack", "prison"} or any(x.startswith("negative") for x in labels):
                return -2.0
            if "heal" in name or "positive" in labels:
                return 2.0
        return 0.0

    def recipients(self, me: Any, e: Any, targets: list[int]) -> list[Any]:
        g = self.g
        to = e.to
        if to == "target":
            people = [g.player(t) for t in targets]
        elif to == "self":
            people = [me]
        elif to in ("all", "others"):
            people = [p for p in g.living() if to == "all" or p.pid != me.pid]
        elif to == "own_faction":
            people = [g.player(m) for f in g.factions_of(me.pid) for m in sorted(f.members)]
        elif to == "target_faction":
            people = []
            for t in targets:
                fs = g.factions_of(t)
                people += [g.player(m) for f in fs for m in sorted(f.members)] if fs else [g.player(t)]
        else:
            people = []
        if e.where is not None:
            people = [p for p in people if g.matches(p, e.where, actor=me.pid)]
        return people

    def effect_score(self, me: Any, effects: list[Any], targets: list[int], labels: set[str]) -> float:
        total = 0.0
        for e in effects:
            if e.op in ("reveal", "gm_task") or (e.op == "impl" and self.benefit(e, me, labels) == 0.0):
                total += INFO_VALUE if e.op != "gm_task" else INFO_VALUE / 2
                continue
            elabels = labels | set(e.labels)
            for q in self.recipients(me, e, targets):
                total += self.benefit(e, q, elabels) * self.relation(me, q.pid)
        return total

    def score(self, me: Any, a: LegalAction, option: str | None) -> tuple[float, list[int]]:
        """The heuristic value of ``a`` with ``option`` and the best targets for it."""
        ab = a.ability
        effects = ab.all_effects(option)
        labels = set(ab.labels)
        targets: list[int] = []
        if ab.targets:  # the targets on which this option is left (``LegalAction.spent``)
            per = sorted(((self.effect_score(me, effects, [t], labels), -t) for t in a.targets_for(option)), reverse=True)
            targets = [-t for _, t in per[: ab.targets]]
        return self.effect_score(me, effects, targets, labels) + ACT_BONUS, targets

    # factions: found and lead one; join only a faction one could take over (or win in)
    def worth_joining(self, pid: int, inviter: int) -> bool:
        g = self.g
        me, other = g.player(pid), g.player(inviter)
        if any(x.get("as_member") for x in g.passives(me, "victory")):
            return True
        stat = g.rules.factions.overthrow_stat
        return bool(stat) and g.true_stat(me, stat) >= g.true_stat(other, stat)

    def faction_moves(self, table: Table, me: Any) -> None:
        g = self.g
        if self.kind != "highest_stat":
            return
        mine = g.factions_of(me.pid)
        fr = g.rules.factions
        for f in mine:
            if f.leader != me.pid and fr.overthrow_stat:
                leader = g.player(f.leader)
                if g.true_stat(me, fr.overthrow_stat) >= g.true_stat(leader, fr.overthrow_stat):
                    table.try_(lambda f=f: g.faction_op(me.pid, "overthrow", None, f.fid))
                return
        free = [p for p in g.living() if p.pid != me.pid and not g.factions_of(p.pid) and not any(p.has(s) for s in self.barred)]
        ts = fr.overthrow_stat
        free.sort(key=lambda p: (-(g.true_stat(p, self.vstat) - (5 if ts and g.true_stat(p, ts) > g.true_stat(me, ts) else 0)), p.pid))
        for p in free[:1]:
            table.try_(lambda p=p: g.faction_op(me.pid, "invite", p.pid))


def play_game(rules: Ruleset, seed: int, index: int, players: int | None, policy: str,
              on_tick: Callable[[Game, list[Any]], None] | None = None, notices: bool = True) -> dict[str, Any]:
    """Play game ``index`` of a run to the end; a plain (picklable) record of it. ``notices``
    False: the players' private notices are not worked out (``World.private_notices``; the
    record never reads them, and nothing else in the game changes without them)."""
    game, policies, rnd = new_table(rules, seed, index, players, policy)
    game.private_notices = notices
    table = Table(game, policies, rnd)
    table.play(on_tick)
    return record(table)


def record(table: Table) -> dict[str, Any]:
    g = table.g
    winners = set(g.state.winner or [])
    abilities: dict[str, list[int]] = {}
    for e in g.state.events:
        if e.key != "trace.action":
            continue
        row = abilities.setdefault(e.args["ability"], [0, 0, 0])
        row[0] += 1
        result = e.args.get("result")
        if result == "blocked":
            row[1] += 1
        elif result in ("protected", "partly_protected"):
            row[2] += 1
    return {
        "seed": g.state.seed,
        "ticks": g.state.tick,
        "winners": sorted(winners),
        "path": victory_path(g),
        "players": [
            [p.role, p.character, side_of(g, p.pid), table.policies[p.pid], p.pid in winners] for p in g.state.players
        ],
        "abilities": abilities,
        "refused": table.refused,
    }


# ---- many games ------------------------------------------------------------------------------
@dataclass(frozen=True)
class Run:
    ruleset: str  # an id or a file path
    games: int
    seed: int
    players: int | None = None
    policy: str = "random"


def _worker(args: tuple[str, int, int, int | None, str]) -> dict[str, Any]:
    ref, seed, index, players, policy = args
    return {"index": index, **play_game(load_ruleset(ref, include_tests=True, files=True), seed, index, players, policy,
                                        notices=False)}


def run_games(run: Run, jobs: int = 1, progress: bool = False) -> list[dict[str, Any]]:
    """Every game of ``run`` in index order (the same whatever ``jobs``). The report reads no
    private notice: the games work none out (a replayed game, ``--game``, does)."""
    rules = load_ruleset(run.ruleset, include_tests=True, files=True)
    table_size(rules, run.players)
    if run.policy not in POLICIES:
        raise SimulationError(f"unknown policy {run.policy!r}; known: {', '.join(POLICIES)}")
    if run.games < 1:
        raise SimulationError("--games must be at least 1")
    bar = _progress(run.games, f"{rules.id} ({run.policy})", progress)
    jobs = max(1, min(jobs, run.games))
    out: list[dict[str, Any]] = []
    try:
        if jobs == 1:
            for i in range(run.games):
                out.append({"index": i, **play_game(rules, run.seed, i, run.players, run.policy, notices=False)})
                bar.update(1)
        else:
            work = [(run.ruleset, run.seed, i, run.players, run.policy) for i in range(run.games)]
            with ProcessPoolExecutor(max_workers=jobs) as pool:
                for rec in pool.map(_worker, work, chunksize=max(1, run.games // (jobs * 8))):
                    out.append(rec)
                    bar.update(1)
    finally:
        bar.close()
    return out


class _NoBar:
    def update(self, n: int) -> None:
        pass

    def close(self) -> None:
        pass


def _progress(total: int, desc: str, enabled: bool) -> Any:
    if not enabled or not sys.stderr.isatty():
        return _NoBar()
    return tqdm(total=total, desc=desc, unit="game", file=sys.stderr, leave=False, dynamic_ncols=True)


def _rate_rows(counts: dict[str, list[int]], names: Callable[[str], str]) -> list[dict[str, Any]]:
    rows = []
    for key in sorted(counts, key=lambda k: (-(counts[k][1] / counts[k][0]) if counts[k][0] else 0, k)):
        n, wins = counts[key]
        lo, hi = wilson(wins, n)
        rows.append({"id": key, "name": names(key), "n": n, "wins": wins, "rate": _r(wins / n if n else 0.0), "ci": [_r(lo), _r(hi)]})
    return rows


def _r(x: float) -> float:
    return round(x, 4)


def summarize(run: Run, records: list[dict[str, Any]], lang: str = "ru") -> dict[str, Any]:
    """The report of a run, as JSON-compatible data (no timings: the same seed, the same data)."""
    rules = load_ruleset(run.ruleset, include_tests=True, files=True)
    per_cycle = len(rules.calendar.periods)
    names = {"role": {r.id: getattr(r.name, lang) for r in rules.roles}, "character": {c.id: getattr(c.name, lang) for c in rules.characters}}
    tallies: dict[str, dict[str, list[int]]] = {k: defaultdict(lambda: [0, 0]) for k in ("role", "character", "faction", "policy")}
    paths: Counter[str] = Counter()
    used: dict[str, list[int]] = {}
    ticks = []
    refused = 0
    seats = wins_total = 0
    for rec in records:
        ticks.append(rec["ticks"])
        paths[rec["path"]] += 1
        refused += rec["refused"]
        for role, char, side, policy, won in rec["players"]:
            seats += 1
            wins_total += int(won)
            for kind, key in (("role", role), ("character", char), ("faction", side), ("policy", policy)):
                if key is None:
                    continue
                tallies[kind][key][0] += 1
                tallies[kind][key][1] += int(won)
        for key, (n, blocked, protected) in rec["abilities"].items():
            row = used.setdefault(key, [0, 0, 0, 0])
            row[0] += n
            row[1] += blocked
            row[2] += protected
            row[3] += 1
    games = len(records)
    def ability_names(key: str) -> dict[str, str]:
        kind, src, ab_id = key.split(":", 2)
        owner = rules.role(src) if kind == "role" else rules.character(src)
        ab = next((a for a in owner.abilities if a.id == ab_id), None)
        return {"key": key, "owner": getattr(owner.name, lang), "name": getattr(ab.name, lang) if ab else ab_id}

    ability_rows = []
    for key in sorted(used, key=lambda k: (-used[k][0], k)):
        n, blocked, protected, in_games = used[key]
        ability_rows.append({
            **ability_names(key), "used": n, "per_game": _r(n / games), "games_used": in_games,
            "blocked": blocked, "blocked_share": _r(blocked / n if n else 0.0), "protected": protected,
        })
    offered = [f"{k}:{src.id}:{a.id}" for k, group in (("role", rules.roles), ("character", rules.characters)) for src in group for a in src.abilities]
    return {
        "ruleset": {"id": rules.id, "name": getattr(rules.names, lang), "source": run.ruleset, "victory": rules.victory.kind},
        "lang": lang,
        "games": games,
        "seed": run.seed,
        "players": len(records[0]["players"]) if records else run.players,
        "policy": run.policy,
        "length": {
            "ticks_mean": _r(sum(ticks) / games),
            "days_mean": _r(sum(ticks) / games / per_cycle),
            "ticks_min": min(ticks),
            "ticks_max": max(ticks),
            "ticks_per_day": per_cycle,
        },
        "victory_paths": [
            {"path": p, "games": n, "share": _r(n / games), "ci": [_r(x) for x in wilson(n, games)]}
            for p, n in sorted(paths.items(), key=lambda kv: (-kv[1], kv[0]))
        ],
        "mean_win_rate": _r(wins_total / seats if seats else 0.0),
        "win_rates": {
            "role": _rate_rows(tallies["role"], lambda k: names["role"].get(k, k)),
            "character": _rate_rows(tallies["character"], lambda k: names["character"].get(k, k)),
            "faction": _rate_rows(tallies["faction"], lambda k: side_name(k, lang)),
            "policy": _rate_rows(tallies["policy"], lambda k: k),
        },
        "abilities": ability_rows,
        "abilities_never_used": [ability_names(k) for k in offered if k not in used],
        "per_game": [
            {"index": rec["index"], "seed": rec["seed"], "ticks": rec["ticks"], "path": rec["path"], "winners": rec["winners"]}
            for rec in records
        ],
        "checks": {"refused_legal_moves": refused},
    }


# ---- output ----------------------------------------------------------------------------------
def _t(lang: str, key: str, **args: Any) -> str:
    """A text of ``simulate`` (catalog section ``simulate``) in ``lang``."""
    template = catalog(lang).get("simulate", {}).get(key, key)
    return template.format(**args) if args else template


def team_name(team: str, lang: str) -> str:
    return catalog(lang).get("report", {}).get(f"team.{team}", team)


def side_name(side: str, lang: str) -> str:
    """A side of the report in words: a team's name, or faction leader / member / free player."""
    if side.startswith("team:"):
        team = side.removeprefix("team:")
        return _t(lang, "side.none") if team == "none" else team_name(team, lang)
    return _t(lang, f"side.{side}")


def path_name(path: str, lang: str) -> str:
    """A victory path in words (``team:mafia``, ``no_winner:time_out``, ``free_player``…)."""
    if path.startswith("team:"):
        return _t(lang, "path.team", team=side_name(path, lang))
    return "+".join(_t(lang, "path." + part.replace(":", ".")) if not part.startswith("team:") else side_name(part, lang)
                    for part in path.split("+"))


def format_report(rep: dict[str, Any]) -> str:
    """The report as text, in the language it was summarised in (``rep["lang"]``)."""
    lang = rep.get("lang", "en")
    out = []
    rs = rep["ruleset"]
    out.append(_t(lang, "header", ruleset=rs["name"], id=rs["id"], games=count(rep["games"], "game", lang),
                  players=count(rep["players"], "player", lang), policy=rep["policy"], seed=rep["seed"]))
    ln = rep["length"]
    out.append(_t(lang, "length", days=f"{ln['days_mean']:.2f}", ticks=f"{ln['ticks_mean']:.2f}", per_day=ln["ticks_per_day"],
                  shortest=ln["ticks_min"], longest=ln["ticks_max"]))
    out.append("")
    out.append(_t(lang, "paths"))
    for row in rep["victory_paths"]:
        out.append(f"  {path_name(row['path'], lang):32} {row['games']:6}  {100 * row['share']:5.1f}%  [{100 * row['ci'][0]:5.1f}–{100 * row['ci'][1]:5.1f}]")
    out.append(_t(lang, "mean", rate=f"{100 * rep['mean_win_rate']:.1f}"))
    for kind, rows in rep["win_rates"].items():
        if not rows or (kind == "policy" and len(rows) < 2):
            continue
        out.append("")
        width = max(24, *(len(r["name"]) for r in rows))
        out.append(_t(lang, "rates", by=_t(lang, f"by.{kind}")))
        out.append(f"  {'':{width}} {'n':>6} {_t(lang, 'col_wins'):>6}   {_t(lang, 'col_rate'):5}  95% CI")
        for r in rows:
            out.append(
                f"  {r['name']:{width}} {r['n']:6} {r['wins']:6}  {100 * r['rate']:5.1f}%  [{100 * r['ci'][0]:5.1f}–{100 * r['ci'][1]:5.1f}]"
            )
    out.append("")
    out.append(_t(lang, "abilities"))
    if rep["abilities"]:
        width = min(max(24, *(len(f"{r['owner']}: {r['name']}") for r in rep["abilities"])), 60)
        out.append(f"  {'':{width}} {_t(lang, 'col_uses'):>7} {_t(lang, 'col_per_game'):>7} {_t(lang, 'col_games'):>6} "
                   f"{_t(lang, 'col_blocked'):>8} {'':7} {_t(lang, 'col_protected'):>9}")
        for r in rep["abilities"]:
            label = _short(f"{r['owner']}: {r['name']}", width)
            out.append(
                f"  {label:{width}} {r['used']:7} {r['per_game']:7.2f} {r['games_used']:6} "
                f"{r['blocked']:8} ({100 * r['blocked_share']:4.1f}%) {r['protected']:9}"
            )
    if rep["abilities_never_used"]:
        out.append(_t(lang, "never_used", n=len(rep["abilities_never_used"])))
        for r in rep["abilities_never_used"]:
            out.append(f"  {r['owner']}: {r['name']}")
    if rep["checks"]["refused_legal_moves"]:
        out.append(_t(lang, "refused", n=rep["checks"]["refused_legal_moves"]))
    return "\n".join(out)


def plot(rep: dict[str, Any], path: str) -> None:
    """A PNG of the win rates (role, character, faction/side, policy) with 95% intervals, in
    the report's language (an explicit Agg figure, the reveal chart's fonts)."""
    # imported here: matplotlib takes ~0.3 s to import, and only --plot needs it
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    lang = rep.get("lang", "en")
    fams = list(families())

    panels = [(k, rows) for k, rows in rep["win_rates"].items() if rows and not (k == "policy" and len(rows) < 2)]
    heights = [max(2, len(rows)) * 0.32 + 0.9 for _, rows in panels]
    fig = Figure(figsize=(9, sum(heights) + 1.0))
    FigureCanvasAgg(fig)
    axes = fig.subplots(len(panels), 1, gridspec_kw={"height_ratios": heights}, squeeze=False)
    mean = rep["mean_win_rate"]
    for ax, (kind, rows) in zip(axes[:, 0], panels, strict=True):
        rows = sorted(rows, key=lambda r: (r["rate"], r["name"]))
        ys = range(len(rows))
        rates = [100 * r["rate"] for r in rows]
        lo = [100 * (r["rate"] - r["ci"][0]) for r in rows]
        hi = [100 * (r["ci"][1] - r["rate"]) for r in rows]
        colors = ["#2b7bba" if r["rate"] >= mean else "#d95f02" for r in rows]
        ax.barh(list(ys), rates, color=colors, alpha=0.85, height=0.7)
        ax.errorbar(rates, list(ys), xerr=[lo, hi], fmt="none", ecolor="#333333", elinewidth=1, capsize=2)
        ax.axvline(100 * mean, color="#555555", linestyle="--", linewidth=1)
        top = min(100.0, max(10.0, math.ceil(max(100 * r["ci"][1] for r in rows) * 1.12 / 10) * 10))
        for y, r in zip(ys, rows, strict=True):
            ax.text(min(100 * r["ci"][1] + top * 0.01, top * 0.99), y, f"{100 * r['rate']:.1f}%", va="center",
                    ha="left" if 100 * r["ci"][1] + top * 0.08 < top else "right", fontsize=7, color="#222222")
        ax.set_yticks(list(ys))
        ax.set_yticklabels([f"{_short(r['name'])}  (n={r['n']})" for r in rows], fontsize=8, fontfamily=fams)
        ax.set_xlim(0, top)
        ax.set_title(_t(lang, "plot_title", by=_t(lang, f"by.{kind}")), fontsize=10, loc="left", fontfamily=fams)
        ax.grid(axis="x", alpha=0.3)
        ax.tick_params(axis="x", labelsize=8)
    axes[-1, 0].set_xlabel(_t(lang, "plot_x"), fontsize=8, fontfamily=fams)
    rs = rep["ruleset"]
    fig.suptitle(_t(lang, "header", ruleset=rs["name"], id=rs["id"], games=count(rep["games"], "game", lang),
                    players=count(rep["players"], "player", lang), policy=rep["policy"], seed=rep["seed"]),
                 fontsize=11, fontfamily=fams)
    fig.tight_layout(rect=(0, 0, 1, 0.98))
    fig.savefig(path, dpi=110)


def _short(name: str, width: int = 38) -> str:
    return name if len(name) <= width else name[: width - 1].rstrip() + "…"


def replay(run: Run, index: int, lang: str = "ru") -> tuple[dict[str, Any], list[str]]:
    """Game ``index`` of ``run`` on its own: its record and a readable log (GM trace, votes,
    final standings)."""
    rules = load_ruleset(run.ruleset, include_tests=True, files=True)
    game, policies, rnd = new_table(rules, run.seed, index, run.players, run.policy)
    table = Table(game, policies, rnd)
    g = game
    log: list[str] = []

    def who(pid: int) -> str:
        p = g.player(pid)
        role = getattr(rules.role(p.role).name, lang)
        char = f"/{getattr(rules.character(p.character).name, lang)}" if p.character else ""
        return f"{p.name} ({role}{char})"

    log.append(f"game {index} of seed {run.seed}: engine seed {g.state.seed}")
    for p in g.state.players:
        log.append(f"  seat {p.pid}: {who(p.pid)}, {policies[p.pid]}")

    def on_tick(game: Game, events: list[Any]) -> None:
        label = game.clock.info(game.state.tick - 1).label
        lines = []
        for e in events:
            if e.key == "trace.action":
                ab = game.ability_def(e.args["ability"])
                targets = ", ".join(game.player(t).name for t in e.args["targets"]) or "—"
                opt = f" [{e.args['option']}]" if e.args.get("option") else ""
                lines.append(f"    {game.player(e.args['actor']).name}: {getattr(ab.name, lang)}{opt} → {targets}: {e.args['result']}")
            elif e.key in ("vote.jailed", "vote.lynched"):
                lines.append(f"    vote {e.args['vote']}: {game.player(e.args['player']).name} {e.key.split('.')[1]}")
            elif e.key == "game.over":
                lines.append(f"    game over: winners {', '.join(who(w) for w in e.args['winners']) or 'none'}")
        log.append(f"  {label}:")
        log.extend(lines or ["    (nothing)"])

    table.play(on_tick)
    rec = {"index": index, **record(table)}
    log.append(f"ended at tick {g.state.tick}: {rec['path']}")
    for p in g.state.players:
        stats = ", ".join(f"{getattr(rules.stat(s).abbr, lang)} {g.true_stat(p, s)}" for s in p.stats)
        status = ", ".join(sorted(sid for sid in p.statuses if g.active(p, sid))) or "—"
        log.append(f"  {who(p.pid)}: {stats}; {status}; {side_of(g, p.pid) or ''}{' — WINNER' if p.pid in rec['winners'] else ''}")
    return rec, log
