"""Vote counters, registered by kind. Each checks a ballot on submit and counts at its step."""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING, Any

from .errors import ActionError
from .registry import VOTES
from .resolve.effects import deal_damage, kill

if TYPE_CHECKING:
    from .game import Game
    from .resolve.context import Ctx
    from .state import Player, Vote


# ---- the base of every vote counter ----------------------------------------------------------
class VoteCounter:
    """A vote kind (``VoteDef.kind``), registered in :data:`engine.registry.VOTES` as the class
    itself: every hook is a static method taking the game (or the resolve context) and the
    vote's definition ``vdef`` (its ``params`` come from the ruleset). A counter overrides
    :meth:`check_choice` and :meth:`count` and only those other hooks its book needs; a
    variant of a counter overrides a few hooks of it (Eternal Friday's lynch: the weights and
    the count, over :class:`Lynch`)."""

    @staticmethod
    def check_choice(g: Game, vdef: Any, p: Player, choice: Any) -> None:
        """Raise :class:`~engine.errors.ActionError` unless ``p`` may cast ``choice`` (a pid or
        a named choice) now. Asked by :meth:`engine.game.Game.vote` and by the bot's choices."""
        raise NotImplementedError

    @staticmethod
    def count(ctx: Ctx, vdef: Any, ballots: list[Vote]) -> None:
        """Count ``ballots`` at the vote's step (``VoteDef.step``) and carry out the outcome;
        publish the tally (:func:`publish_tally`). The ballots are cleared afterwards."""
        raise NotImplementedError

    @staticmethod
    def is_open(g: Game, vdef: Any) -> bool:
        """Whether the vote takes ballots now (asked for the open votes; default: always, in
        the phases whose steps list the vote's step)."""
        return True

    @staticmethod
    def due(ctx: Ctx, vdef: Any) -> bool:
        """Whether the vote is counted at this run of its step (default: every run)."""
        return True

    @staticmethod
    def on_start(g: Game, vdef: Any) -> None:
        """Once when the game is created, after the deal (default: nothing)."""

    @staticmethod
    def on_ballot(g: Game, vdef: Any, v: Vote) -> None:
        """After a new ballot ``v`` is cast: a vote that reads something at the moment of
        voting (seed 001: the voter's ТВ). Not called when a ballot is changed."""

    @staticmethod
    def watch(g: Game, vdef: Any) -> None:
        """After every resolve: the vote looks at the new state (seed 000's prison list grows
        after every period). Default: nothing."""

    @staticmethod
    def secret_weights(g: Game, vdef: Any) -> bool:
        """Whether a ballot's weight can derive from a secret (``public_vote_weights: auto``
        then hides the weighted totals). Default: no, one ballot one vote."""
        return False

    @staticmethod
    def named_choices(g: Game, vdef: Any) -> list[str]:
        """The choices that are not a player («против всех», «амнистия», «казнь»…)."""
        return []


# ---- the public tally ------------------------------------------------------------------------
# A vote is a public post: the town sees every ballot and the outcome. What a ballot *weighs*
# may come from a secret (seed 000: 1 + the ТВ band, Влиятельный's invisible +1; seed 001's
# amnesty: the true ТВ): a weighted total in the public channel would let anyone work out who
# has ТВ ≥ 5. ``Ruleset.public_vote_weights`` chooses: ``shown`` publishes the weighted totals
# (``vote.tally``); ``hidden`` publishes the ballots (``vote.ballots``: how many each choice
# got) and gives the weighted totals to the GM (``gm.vote_tally``); ``auto`` (default) hides
# them when the vote kind says its weights can derive from a secret (``secret_weights``).


def secret_stat(g: Game, stat: str) -> bool:
    return g.rules.stat(stat).visibility != "public"


def secret_passives(g: Game, kinds: tuple[str, ...]) -> bool:
    """Whether a secret character (the hidden half of a player in every shipped ruleset) has a
    passive of one of ``kinds``; open roles' passives are known to the town."""
    return any(pas.kind in kinds for c in g.rules.characters for pas in c.passives)


def secret_statuses(g: Game, ids: list[str]) -> bool:
    return any(s.id in ids and not s.public for s in g.rules.statuses)


def weights_public(g: Game, vdef: Any) -> bool:
    mode = g.rules.public_vote_weights
    if mode != "auto":
        return mode == "shown"
    return not VOTES[vdef.kind].secret_weights(g, vdef)


def public_ballots(g: Game, ballots: list[Vote], dead_ballots: bool = False) -> list[list[Any]]:
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


def publish_tally(g: Game, vdef: Any, tally: list[list[Any]], ballots: list[Vote], *, dead_ballots: bool = False,
                  gm_tally: bool = True) -> None:
    """The public tally of a counted vote: the weighted ``tally`` where weights may be shown,
    else the ballots, and the weighted tally for the GM (``gm_tally``: unless the vote has a
    GM trace of its own)."""
    if weights_public(g, vdef):
        g.emit("vote.tally", "public", vote=vdef.id, tally=tally)
        return
    heads = public_ballots(g, ballots, dead_ballots)
    if heads:
        g.emit("vote.ballots", "public", vote=vdef.id, ballots=heads)
    if gm_tally:
        g.emit("gm.vote_tally", "gm", vote=vdef.id, tally=tally)


class Lynch(VoteCounter):
    """Seed 002's day vote: the most-voted dies; a tie hurts every tied candidate.

    ``params``: ``peace`` (a "for peace" option), ``tie_damage`` (damage to each tied player).
    """

    @staticmethod
    def check_choice(g: Game, vdef: Any, p: Player, choice: int | str | None) -> None:
        if choice == "peace" and vdef.params.get("peace"):
            return
        if not isinstance(choice, int) or not 0 <= choice < len(g.state.players):
            raise ActionError("illegal_target", target=choice)
        if not g.alive(g.player(choice)):
            raise ActionError("target_not_alive", target=choice)

    @staticmethod
    def secret_weights(g: Game, vdef: Any) -> bool:
        return False  # one ballot, one vote

    @staticmethod
    def count(ctx: Ctx, vdef: Any, ballots: list[Vote]) -> None:
        g = ctx.game
        tally = Counter(v.choice for v in ballots if v.choice is not None)
        publish_tally(g, vdef, [[k, n] for k, n in sorted(tally.items(), key=lambda kv: (-kv[1], str(kv[0])))], ballots)
        if not tally:
            g.emit("vote.nobody", "public", vote=vdef.id)
            return
        top = max(tally.values())
        leaders = sorted((c for c, n in tally.items() if n == top), key=str)
        if len(leaders) == 1:
            if leaders[0] == "peace":
                g.emit("vote.peace", "public", vote=vdef.id)
                return
            victim = g.player(leaders[0])
            g.emit("vote.lynched", "public", vote=vdef.id, player=victim.pid)
            kill(ctx, victim, f"vote:{vdef.id}")
            return
        dmg = int(vdef.params.get("tie_damage", 0))
        hurt = [c for c in leaders if c != "peace"]
        g.emit("vote.tie", "public", vote=vdef.id, players=hurt)
        for c in hurt:
            deal_damage(ctx, None, g.player(c), dmg)


VOTES["lynch"] = Lynch
