"""Vote counters, registered by kind. Each checks a ballot on submit and counts at its step."""

from __future__ import annotations

from collections import Counter, defaultdict
from typing import TYPE_CHECKING, Any

from .errors import ActionError
from .registry import VOTES
from .resolve.effects import deal_damage, kill

if TYPE_CHECKING:
    from .resolve.context import Ctx
    from .state import Intent, Player, Vote
    from .world import World


# ---- the base of every vote counter ----------------------------------------------------------
class VoteCounter:
    """A vote kind (``VoteDef.kind``), registered in :data:`engine.registry.VOTES` as the class
    itself: every hook is a static method taking the game (or the resolve context) and the
    vote's definition ``vdef`` (its ``params`` come from the ruleset). A counter overrides
    :meth:`check_choice` and :meth:`count` and only those other hooks its book needs; a
    variant of a counter overrides a few hooks of it (Eternal Friday's lynch: how a tie's damage
    reaches the book's HP, :meth:`Lynch.wound`, over the one count of :class:`Lynch`)."""

    @staticmethod
    def check_choice(g: World, vdef: Any, p: Player, choice: Any) -> None:
        """Raise :class:`~engine.errors.ActionError` unless ``p`` may cast ``choice`` (a pid or
        a named choice) now. Asked by :meth:`engine.game.Game.vote` and by the bot's choices."""
        raise NotImplementedError

    @staticmethod
    def accepted(g: World, vdef: Any, p: Player, candidates: list[Any]) -> list[Any] | None:
        """The ``candidates`` :meth:`check_choice` accepts for ``p``, in their order, when the
        counter can tell them at once (a counter whose check reads one list); None (default):
        :func:`vote_choices` asks :meth:`check_choice` of each. It must accept exactly what
        :meth:`check_choice` accepts (tests/engine/test_legal_actions_paths.py holds them together)."""
        return None

    @staticmethod
    def count(ctx: Ctx, vdef: Any, ballots: list[Vote]) -> None:
        """Count ``ballots`` at the vote's step (``VoteDef.step``) and carry out the outcome;
        publish the tally (:func:`publish_tally`). The ballots are cleared afterwards."""
        raise NotImplementedError

    @staticmethod
    def is_open(g: World, vdef: Any) -> bool:
        """Whether the vote takes ballots now (asked for the open votes; default: always, in
        the phases whose steps list the vote's step)."""
        return True

    @staticmethod
    def due(ctx: Ctx, vdef: Any) -> bool:
        """Whether the vote is counted at this run of its step (default: every run)."""
        return True

    @staticmethod
    def on_start(g: World, vdef: Any) -> None:
        """Once when the game is created, after the deal (default: nothing)."""

    @staticmethod
    def on_ballot(g: World, vdef: Any, v: Vote) -> None:
        """After a new ballot ``v`` is cast: a vote that reads something at the moment of
        voting (seed 001: the voter's ТВ). Not called when a ballot is changed."""

    @staticmethod
    def watch(g: World, vdef: Any) -> None:
        """After every resolve: the vote looks at the new state (seed 000's prison list grows
        after every period). Default: nothing."""

    @staticmethod
    def secret_weights(g: World, vdef: Any) -> bool:
        """Whether a ballot's weight can derive from a secret (``public_vote_weights: auto``
        then hides the weighted totals). Default: no, one ballot one vote."""
        return False

    @staticmethod
    def named_choices(g: World, vdef: Any) -> list[str]:
        """The choices that are not a player («за мир», «против всех», «амнистия», «казнь»…),
        each still asked of :meth:`check_choice` before it is offered (:func:`vote_choices`)."""
        return []


# ---- a seat's vote counts N ------------------------------------------------------------------
def weighed(g: World, p: Player, base: int | float) -> int | float:
    """``base`` (what the vote kind counts ``p``'s ballot) times the passive ``vote_weight`` of
    ``p`` (``weight``, the largest when several; none: 1): a double voter's ballot counts twice
    in every vote kind that asks (Eternal Friday's lynch, whose ballots count 1, reads the
    passive itself)."""
    ws = [x["weight"] for x in g.passives(p, "vote_weight")]
    if not ws:
        return base
    out = base * max(float(w) for w in ws)
    return int(out) if out == int(out) else out


# ---- what a voter may choose -----------------------------------------------------------------
def vote_choices(g: World, vdef: Any, p: Player) -> list[int | str]:
    """Every choice ``p`` may cast in ``vdef`` now: the players its counter accepts, in seat
    order, then «за мир» where the vote's ``params`` offer it (``peace``), then its named choices
    in the counter's order. The one list the bot offers and :meth:`engine.game.Game.vote`
    accepts."""
    counter = VOTES[vdef.kind]
    out: list[int | str] = []
    candidates = vote_candidates(g, vdef)
    at_once = counter.accepted(g, vdef, p, candidates)
    if at_once is not None:
        for c in at_once:
            if c not in out:
                out.append(c)
        return out
    for c in candidates:
        try:
            counter.check_choice(g, vdef, p, c)
        except ActionError:
            continue
        if c not in out:
            out.append(c)
    return out


def vote_candidates(g: World, vdef: Any) -> list[int | str]:
    """Every choice a ballot of ``vdef`` may name before its counter is asked: each seat, then
    «за мир» where the vote's ``params`` offer it (``peace``), then the counter's named choices."""
    peace = ["peace"] if vdef.params.get("peace") else []
    return [*(q.pid for q in g.state.players), *peace, *VOTES[vdef.kind].named_choices(g, vdef)]


# ---- a ballot, told in the vote channel ------------------------------------------------------
# «Все дневные действия ... и голоса нужно писать открыто» (seed 002); in every book a ballot is
# a post in the thread. So each new or changed ballot is a public event (delivered to the vote
# channel), shaped by the game setting ``vote_display``: ``open`` (who votes for whom, and how
# many ballots each choice has now), ``count`` (the counts only), ``hidden`` (that a ballot was
# cast). The live count is of ballots, never of their weights (which may read a secret stat):
# the weighted totals are the count's business (``publish_tally``).
BALLOT_EVENTS = ("vote.cast", "vote.changed", "vote.cast_count", "vote.cast_hidden", "vote.withdrawn", "vote.withdrawn_count",
                 "vote.withdrawn_hidden")


def live_ballots(g: World, vote_id: str) -> list[list[Any]]:
    """How many ballots each choice of ``vote_id`` has now, most first."""
    heads = Counter(v.choice for v in g.state.votes if v.vote == vote_id and v.choice is not None)
    return [[k, n] for k, n in sorted(heads.items(), key=lambda kv: (-kv[1], str(kv[0])))]


def announce_ballot(g: World, vdef: Any, v: Vote, changed: bool) -> None:
    """The public line of a ballot just cast (``changed``: a ballot replaced)."""
    mode = g.settings.vote_display
    if mode == "count":
        g.emit("vote.cast_count", "public", vote=vdef.id, ballots=live_ballots(g, vdef.id))
    elif mode == "hidden":
        g.emit("vote.cast_hidden", "public", vote=vdef.id)
    else:
        g.emit("vote.changed" if changed else "vote.cast", "public", vote=vdef.id, voter=v.pid, target=v.choice,
               ballots=live_ballots(g, vdef.id))


def announce_withdrawn(g: World, vdef: Any, pid: int) -> None:
    """The public line of a ballot taken back (where the vote allows it: ``Game.unvote``)."""
    mode = g.settings.vote_display
    if mode == "count":
        g.emit("vote.withdrawn_count", "public", vote=vdef.id, ballots=live_ballots(g, vdef.id))
    elif mode == "hidden":
        g.emit("vote.withdrawn_hidden", "public", vote=vdef.id)
    else:
        g.emit("vote.withdrawn", "public", vote=vdef.id, voter=pid, ballots=live_ballots(g, vdef.id))


# ---- the public tally ------------------------------------------------------------------------
# A vote is a public post: the town sees every ballot and the outcome. What a ballot *weighs*
# may come from a secret (seed 000: 1 + the ТВ band, Влиятельный's invisible +1; seed 001's
# amnesty: the true ТВ): a weighted total in the public channel would let anyone work out who
# has ТВ ≥ 5. ``Ruleset.public_vote_weights`` chooses: ``shown`` publishes the weighted totals
# (``vote.tally``); ``hidden`` publishes the ballots (``vote.ballots``: how many each choice
# got) and gives the weighted totals to the GM (``gm.vote_tally``); ``auto`` (default) hides
# them when the vote kind says its weights can derive from a secret (``secret_weights``).


def secret_stat(g: World, stat: str) -> bool:
    return g.rules.stat(stat).visibility != "public"


def secret_passives(g: World, kinds: tuple[str, ...]) -> bool:
    """Whether a secret character (the hidden half of a player in every shipped ruleset) has a
    passive of one of ``kinds``; open roles' passives are known to the town."""
    return any(pas.kind in kinds for c in g.rules.characters for pas in c.passives)


def secret_statuses(g: World, ids: list[str]) -> bool:
    return any(s.id in ids and not s.public for s in g.rules.statuses)


def weights_public(g: World, vdef: Any) -> bool:
    mode = g.rules.public_vote_weights
    if mode != "auto":
        return mode == "shown"
    return not VOTES[vdef.kind].secret_weights(g, vdef)


def public_ballots(g: World, ballots: list[Vote], dead_ballots: bool = False) -> list[list[Any]]:
    """The ballots as the thread shows them: per choice, how many were cast by voters the town
    knows may vote (the dead, unless their ballots count, and holders of a *public* status
    without the vote are left out; a secret loss of the vote or of its strength is not told)."""
    heads: Counter[Any] = Counter()
    for b in ballots:
        if b.choice is None:
            continue
        flags = [f for f in g.status_flags(g.player(b.pid)) if f.public]
        gone = any(f.dead or f.out_of_play for f in flags)
        if gone and not dead_ballots:
            continue
        if not gone and any(not f.can_vote for f in flags):
            continue
        heads[b.choice] += 1
    return [[k, n] for k, n in sorted(heads.items(), key=lambda kv: (-kv[1], str(kv[0])))]


def publish_tally(g: World, vdef: Any, tally: list[list[Any]], ballots: list[Vote], *, dead_ballots: bool = False,
                  gm_tally: bool = True, nobody_follows: bool = False) -> None:
    """The public tally of a counted vote: the weighted ``tally`` where weights may be shown,
    else the ballots, and the weighted tally for the GM (``gm_tally``: unless the vote has a
    GM trace of its own). ``nobody_follows``: the caller announces «Никто не проголосовал»
    when nobody did, so an empty tally is not posted as well (one fact, one line)."""
    if weights_public(g, vdef):
        if tally or not nobody_follows:
            g.emit("vote.tally", "public", vote=vdef.id, tally=tally)
        return
    heads = public_ballots(g, ballots, dead_ballots)
    if heads:
        g.emit("vote.ballots", "public", vote=vdef.id, ballots=heads)
    if gm_tally:
        g.emit("gm.vote_tally", "gm", vote=vdef.id, tally=tally)


# ---- an ability used in the open, told in the same thread -----------------------------------
# «Все дневные действия (способности явных ролей) и голоса нужно писать открыто в комментарии к
# посту в общей комнате. И то и другое может быть изменено неограниченное число раз» (seed 002):
# an ability of a slot in the game setting ``public_slots`` is a public post each time it is
# submitted, replaced or taken back, delivered like a ballot (the vote channel). Which one
# counts is read out again at the resolve (the book's ``friday_begin``: «засчитываются ... из
# последнего поста»).
OPEN_EVENTS = ("open.action", "open.action_alone", "open.cancelled")


def used_openly(g: World, intent: Intent) -> bool:
    try:
        slot = g.slot_of(g.ability_def(intent.ability)).id
    except (KeyError, ValueError):
        return False
    return slot in g.settings.public_slots


def announce_open_action(g: World, intent: Intent, cancelled: bool = False) -> None:
    """The public post of an open ability just submitted (or, ``cancelled``, taken back)."""
    if not used_openly(g, intent):
        return
    if cancelled:
        g.emit("open.cancelled", "public", player=intent.pid, ability=intent.ability)
    elif intent.targets:
        g.emit("open.action", "public", player=intent.pid, ability=intent.ability, targets=list(intent.targets), option=intent.option)
    else:
        g.emit("open.action_alone", "public", player=intent.pid, ability=intent.ability, option=intent.option)


class Lynch(VoteCounter):
    """The day lynch (seed 002's vote, and the base of classic's plurality lynch): the most
    votes hang; a tie hurts every tied candidate. One count for every ruleset that hangs this
    way; what differs is its ``params``:

    - ``peace``: a «за мир» choice (its majority hangs nobody; a tie with it hurts the player);
    - ``tie_damage``: the damage to each tied player; ``unreducible``: no protection reduces
      it («не спасает ничего»);
    - ``hang``: ``kill`` (default: the hanged is dead at once) or ``hp`` (the hanged loses all
      their HP, the ruleset's ``hp_stat``; whether they die is the ruleset's HP rule, read after
      the vote: seed 002's avenger stands one more night);
    - ``plain_against``: a label; a ballot against a player whose ``protection`` passive names it
      weighs 1 and takes no extra votes (seed 002's VIP: «голосуют против ВИПа одним голосом»);
    - ``extra_votes``: the impl of an ability whose number adds that many votes to its user's
      own ballot (seed 002's revolutionary; those counted are ``Ctx.extra_votes``).

    - ``majority``: ``none`` (default: the most votes hang), ``cast`` or ``living``: only a
      choice with more than half of the weighted votes cast (extra votes included), or of the
      weighted votes of every living player who may vote, wins; short of it, and so on every
      tie, nobody is hanged or hurt («Большинства нет»: ``vote.no_majority``).

    A ballot weighs the most of its voter's ``vote_weight`` passives (``weight``; 1 without one);
    a player with ``against_self`` takes that much off the votes against themself unless in the
    status ``not_in`` (never below 0). A dead voter's ballot, or one of a voter who may not vote
    (a coma), does not count. No ballot, or only ballots worth 0, hangs nobody. The hanged are
    ``Ctx.hanged``. A book whose HP take damage their own way overrides :meth:`wound` alone
    (:meth:`count` is a class method so that the variant's is the one it calls).
    """

    @staticmethod
    def check_choice(g: World, vdef: Any, p: Player, choice: int | str | None) -> None:
        if choice == "peace" and vdef.params.get("peace"):
            return
        if not isinstance(choice, int) or not 0 <= choice < len(g.state.players):
            raise ActionError("illegal_target", target=choice)
        if not g.alive(g.player(choice)):
            raise ActionError("target_not_alive", target=choice)

    @staticmethod
    def secret_weights(g: World, vdef: Any) -> bool:
        """Weights come from ``vote_weight`` passives: secret only if a secret character has one."""
        return secret_passives(g, ("vote_weight",))

    @staticmethod
    def wound(ctx: Ctx, vdef: Any, p: Player, amount: int) -> None:
        """Deal a tie's ``amount`` of damage to ``p`` (the ruleset's ``hp_stat``): through the
        protections, unless ``unreducible``."""
        if vdef.params.get("unreducible"):
            hp = ctx.game.settings.hp_stat or "hp"
            p.stats[hp] = p.stats.get(hp, 0) - amount
        else:
            deal_damage(ctx, None, p, amount)

    @classmethod
    def count(cls, ctx: Ctx, vdef: Any, ballots: list[Vote]) -> None:
        g = ctx.game
        tally, cast = lynch_count(ctx, vdef, ballots)
        shown = sorted(((c, tally_number(n)) for c, n in tally.items()), key=lambda kv: (-kv[1], str(kv[0])))
        publish_tally(g, vdef, [[c, n] for c, n in shown], ballots, nobody_follows=True)
        top = max(tally.values(), default=0)
        if top <= 0:
            g.emit("vote.nobody", "public", vote=vdef.id)
            return
        basis = majority_basis(ctx, vdef, cast)
        if basis is not None and top * 2 <= basis:
            mode = vdef.params["majority"]
            # the number the majority is of, where the weighted totals are public
            told = {"reason": mode, "total": tally_number(basis)} if weights_public(g, vdef) else {}
            g.emit("vote.no_majority", "public", vote=vdef.id, majority=mode, **told)
            return
        leaders = sorted((c for c, n in tally.items() if n == top), key=str)
        if len(leaders) == 1:
            if leaders[0] == "peace":
                g.emit("vote.peace", "public", vote=vdef.id)
                return
            victim = g.player(leaders[0])
            g.emit("vote.lynched", "public", vote=vdef.id, player=victim.pid)
            ctx.hanged.add(victim.pid)
            if vdef.params.get("hang", "kill") == "hp":
                hp = g.settings.hp_stat or "hp"
                victim.stats[hp] = min(victim.stats.get(hp, 0), 0)
            else:
                kill(ctx, victim, f"vote:{vdef.id}")
            return
        tied = [c for c in leaders if c != "peace"]
        g.emit("vote.tie", "public", vote=vdef.id, players=tied)
        dmg = int(vdef.params.get("tie_damage", 0))
        for c in tied:
            cls.wound(ctx, vdef, g.player(c), dmg)


def lynch_tally(ctx: Ctx, vdef: Any, ballots: list[Vote]) -> dict[Any, float]:
    """The weighted votes of each choice of a :class:`Lynch` (its ``params``, its docstring)."""
    return lynch_count(ctx, vdef, ballots)[0]


def voter_weight(g: World, voter: Player) -> float:
    """What a ballot of ``voter`` weighs: the most of their ``vote_weight`` passives, else 1."""
    return max([float(x["weight"]) for x in g.passives(voter, "vote_weight")] or [1.0])


def may_vote(g: World, voter: Player) -> bool:
    """Whether a ballot of ``voter`` counts: alive and in no status without the vote."""
    return g.alive(voter) and all(f.can_vote for f in g.status_flags(voter))


def majority_rule(vdef: Any) -> str | None:
    """The majority a vote hangs by (``cast`` or ``living``), or None: the most votes (a vote
    kind other than :class:`Lynch`, or its ``majority: none``). What a player is told in /help."""
    if not issubclass(VOTES[vdef.kind], Lynch):
        return None
    mode = vdef.params.get("majority", "none")
    return None if mode == "none" else mode


def majority_basis(ctx: Ctx, vdef: Any, cast: float) -> float | None:
    """The votes a :class:`Lynch` with ``majority`` needs more than half of: ``cast`` (the
    weighted votes cast), or, for ``living``, the weight of every living player who may vote
    (and the extra votes used); None without a majority rule."""
    mode = vdef.params.get("majority", "none")
    if mode == "cast":
        return cast
    if mode == "living":
        g = ctx.game
        return sum(voter_weight(g, p) for p in g.state.players if may_vote(g, p)) + sum(ctx.extra_votes.values())
    return None


def lynch_count(ctx: Ctx, vdef: Any, ballots: list[Vote]) -> tuple[dict[Any, float], float]:
    """:func:`lynch_tally`, and the weighted votes cast (extra votes included, before a
    candidate's ``against_self``): what a ``majority: cast`` is of."""
    g = ctx.game
    plain_label = vdef.params.get("plain_against")

    def plain(choice: Any) -> bool:
        return bool(plain_label) and isinstance(choice, int) and any(
            plain_label in x.get("against", []) for x in g.passives(g.player(choice), "protection"))

    tally: dict[Any, float] = defaultdict(float)
    by_voter: dict[int, Any] = {}
    for b in sorted(ballots, key=lambda b: b.pid):
        voter = g.player(b.pid)
        if b.choice is None or not may_vote(g, voter):
            continue
        weight = 1.0 if plain(b.choice) else voter_weight(g, voter)
        tally[b.choice] += weight
        by_voter[b.pid] = b.choice
    extra = vdef.params.get("extra_votes")
    if extra:
        for i in ctx.intents:
            if not any(e.impl == extra for e in g.ability_def(i.ability).effects):
                continue
            choice = by_voter.get(i.pid)
            if isinstance(choice, int) and not plain(choice):
                tally[choice] += int(i.option or 0)
                ctx.extra_votes[i.pid] = int(i.option or 0)
    cast = sum(tally.values())
    for c in list(tally):
        if isinstance(c, int):
            p = g.player(c)
            for x in g.passives(p, "vote_weight"):
                # the weight against them is not taken off in the status the ruleset names
                if x.get("against_self") and not (x.get("not_in") and g.active(p, x["not_in"])):
                    tally[c] = max(0.0, tally[c] - float(x["against_self"]))
    return tally, cast


def tally_number(v: float) -> int | float:
    """A tally's number as it reads: 3, not 3.0; 2.5 stays."""
    return int(v) if v == int(v) else v


VOTES["lynch"] = Lynch
