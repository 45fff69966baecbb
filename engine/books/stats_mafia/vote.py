"""The stats mafia's day vote («Вече»): vote kind ``stats_prison``."""

from __future__ import annotations

from collections import defaultdict
from typing import TYPE_CHECKING, Any

from ...errors import ActionError
from ...registry import VOTES
from ...state import Player
from ...votes import VoteCounter, publish_tally, secret_passives, weighed
from .core import jail, memo, stat

if TYPE_CHECKING:
    from ...resolve.context import Ctx
    from ...state import Vote
    from ...world import World


# ---- the day vote («Вече») -----------------------------------------------------------------
def _instead_of_vote(g: World, pid: int, tick: int, outcome: dict[int, str] | None = None) -> str | None:
    """An ability used instead of the day's vote (label ``instead_of_vote``), if ``pid`` has one."""
    for i in g.state.intents:
        if (
            i.pid == pid and i.tick == tick and "instead_of_vote" in g.ability_def(i.ability).labels
            and (outcome is None or outcome.get(i.seq) != "blocked")
        ):
            return i.ability
    return None


def _detained(g: World, p: Player, tick: int) -> bool:
    for sid, s in p.statuses.items():
        if s.kind == "blocked" and g.active(p, sid, tick) and (not s.data.get("slots") or "day" in s.data["slots"]):
            return True
    return False


class StatsPrisonVote(VoteCounter):
    """«Голосование»: public, changeable (the last ballot counts); at the end of the day the
    most-voted goes to Prison, for ``prison_term_cycles`` сутки on the days of ``term_days``,
    for the rest of the game later; a tie (or no vote) jails nobody."""

    @staticmethod
    def secret_weights(g: World, vdef: Any) -> bool:
        """Деспотия (Политик), «Обвинительный приговор» (Прокурор, «публично»), the VIP's cap
        (Авторитет) and «Компромат» (Сплетник) belong to open roles: shown, unless a secret
        character has such a weight. (Скользкий ублюдок's secret discount is applied after the
        public tally: only the outcome tells.)"""
        return secret_passives(g, ("vote_bonus", "vote_cap_against", "vote_weight"))

    @staticmethod
    def is_open(g: World, vdef: Any) -> bool:
        return g.info.kind == "day"

    @staticmethod
    def check_choice(g: World, vdef: Any, p: Player, choice: Any) -> None:
        if not isinstance(choice, int) or not 0 <= choice < len(g.state.players):
            raise ActionError("illegal_target", target=choice)
        if not g.alive(g.player(choice)):
            raise ActionError("target_not_alive", target=choice)
        instead = _instead_of_vote(g, p.pid, g.state.tick)
        if instead:
            raise ActionError("vote_replaced", ability=instead)

    @staticmethod
    def count(ctx: Ctx, vdef: Any, ballots: list[Vote]) -> None:
        g = ctx.game
        m = memo(g)
        tick = str(ctx.tick)
        void = set(m.vote_void.get(tick, []))
        spend = m.bank_spend.get(tick, {})
        bank = m.bank
        tally: dict[int, int] = defaultdict(int)
        for b in sorted(ballots, key=lambda b: b.pid):
            voter = g.player(b.pid)
            why = None
            if not g.alive(voter) or any(not f.can_vote for f in g.status_flags(voter)):
                why = "cannot_vote"
            elif _detained(g, voter, ctx.tick):
                why = "detained"
            elif b.pid in void:
                why = "indicted"
            elif _instead_of_vote(g, b.pid, ctx.tick, ctx.outcome):
                why = "instead"
            if why or b.choice is None or not g.alive(g.player(int(b.choice))):
                if why:
                    ctx.emit("sm.gm_vote_void", "gm", player=b.pid, reason=why)
                continue
            target = g.player(int(b.choice))
            weight = weighed(g, voter, 1 + sum(int(x.get("amount", 1)) for x in g.passives(voter, "vote_bonus")))
            saved = min(int(spend.get(str(b.pid), 0)), bank.get(str(b.pid), 0))
            weight += saved
            caps = [int(x.get("max", 1)) for x in g.passives(target, "vote_cap_against")]
            if caps and weight > min(caps):
                saved = max(0, saved - (weight - min(caps)))
                weight = min(caps)
            if saved:
                bank[str(b.pid)] -= saved
                ctx.emit("sm.bank_spent", "players", [b.pid], count=saved, left=bank[str(b.pid)])
            tally[target.pid] += weight
        for pid, n in m.vote_extra.get(tick, {}).items():
            tally[int(pid)] += n
        shown = sorted(((k, n) for k, n in tally.items() if n > 0), key=lambda kv: (-kv[1], kv[0]))
        if shown:
            publish_tally(g, vdef, [[k, n] for k, n in shown], ballots)
        # «Скользкий ублюдок ... Каждый день списывает число голосов, равное его Инициативе»: the
        # public saw the ballots; only the outcome tells (the GM trace says how)
        for pid in list(tally):
            for x in g.passives(g.player(pid), "vote_discount"):
                cut = max(0, stat(g, g.player(pid), x.get("stat", "initiative")))
                if cut:
                    tally[pid] = max(0, tally[pid] - cut)
                    ctx.emit("sm.gm_vote_discount", "gm", player=pid, count=cut)
        top = max(tally.values(), default=0)
        leaders = sorted(pid for pid, n in tally.items() if n == top)
        if top <= 0:
            g.emit("sm.vote_nobody", "public")
            return
        if len(leaders) > 1:
            g.emit("sm.vote_tie", "public", players=leaders)
            return
        p = g.player(leaders[0])
        reprieves = [x for x in g.passives(p, "vote_reprieve")]
        used = m.vote_reprieves
        if reprieves and used.get(str(p.pid), 0) < sum(int(x.get("uses", 1)) for x in reprieves):
            used[str(p.pid)] = used.get(str(p.pid), 0) + 1
            g.emit("sm.bribe", "public", player=p.pid)
            return
        day = g.clock.info(ctx.tick).day
        life = day not in g.settings.prison_term_days
        if not jail(ctx, p, life, f"vote:{vdef.id}"):
            g.emit("sm.vote_already", "public", player=p.pid)
            return
        g.emit("sm.vote_jailed_life" if life else "sm.vote_jailed_term", "public", player=p.pid)


VOTES["stats_prison"] = StatsPrisonVote
