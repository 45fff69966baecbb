"""The stats mafia's letters («Почта», «Записка на волю»): mail policy ``stats_mafia``."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...errors import ActionError
from ...registry import mail
from ...state import Anon, Player, Pm
from .core import free, in_prison, memo, team

if TYPE_CHECKING:
    from ...world import World


# ---- mail («Почта», «Записка на волю») -------------------------------------------------------
@mail("stats_mafia")
class StatsMafiaMail:
    """No private messages: «Почта» is an anonymous letter to one player or the whole town, any
    phase, read at the start of the next; a prisoner's «Записка на волю» is the same, signed;
    the Mafia talk freely on the first night (``team_talk: {mafia: [1]}``)."""

    @staticmethod
    def quotas(g: World, p: Player) -> dict[str, int | None]:
        """The role card's quotas: letters a phase, and a prisoner's signed notes (None: no limit)."""
        out: dict[str, int | None] = {}
        for key, name in (("letters_per_phase", "mail_per_phase"), ("notes_per_phase", "notes_per_phase")):
            n = int(getattr(g.settings, name))
            out[key] = n or None
        return out

    @staticmethod
    def _letter(g: World, p: Player, to: int | None, text: str) -> tuple[int, bool]:
        if not g.alive(p):
            raise ActionError("not_alive")
        if not text.strip():
            raise ActionError("empty_message")
        if to is not None:
            if to == p.pid:
                raise ActionError("self_target")
            r = g.player(to)
            if not g.alive(r):
                raise ActionError("target_not_alive", target=to)
            if in_prison(g, r):
                raise ActionError("target_unreachable", target=to)
        signed = in_prison(g, p)
        kind = "notes" if signed else "letters"
        quota = g.settings.notes_per_phase if signed else g.settings.mail_per_phase
        sent = memo(g).sent.setdefault(str(g.state.tick), {}).setdefault(kind, {})
        if quota and sent.get(str(p.pid), 0) >= quota:
            raise ActionError("mail_quota", quota=quota)
        sent[str(p.pid)] = sent.get(str(p.pid), 0) + 1
        seq = g.next_seq()
        memo(g).mail.append({"seq": seq, "from": p.pid, "to": to, "text": text, "tick": g.state.tick, "signed": signed})
        return seq, signed

    @staticmethod
    def send(g: World, p: Player, r: Player, text: str) -> Pm:
        info = g.info
        side = team(g, p.character)
        talk = (g.settings.team_talk or {}).get(side or "", [])  # {mafia: [1]}
        if (
            info.kind == "night" and info.day in talk and free(g, p) and free(g, r) and p.pid != r.pid
            and team(g, r.character) == side and text.strip()
        ):
            # «мафия может общаться между собой в первую ночь»: signed and at once
            pm = Pm(seq=g.next_seq(), sender=p.pid, recipient=r.pid, text=text, tick=g.state.tick)
            g.state.pms.append(pm)
            g.emit("pm.received", "players", [r.pid], sender=p.pid, text=text)
            return pm
        seq, _ = StatsMafiaMail._letter(g, p, r.pid, text)
        return Pm(seq=seq, sender=p.pid, recipient=r.pid, text=text, tick=g.state.tick)

    @staticmethod
    def post(g: World, p: Player, text: str) -> Anon:
        seq, _ = StatsMafiaMail._letter(g, p, None, text)
        return Anon(seq=seq, pid=p.pid, text=text, tick=g.state.tick)
