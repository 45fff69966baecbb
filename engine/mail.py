"""Mail: private messages and anonymous posts, their quotas, and a ruleset's own mail policy."""

from __future__ import annotations

from .errors import ActionError
from .registry import MAIL
from .state import Anon, Player, Pm, WaitingPm
from .world import World


class Mail(World):
    """Sending a PM and posting anonymously (``Ruleset.mail`` may hand both to a book's policy)."""

    # ---- messages -------------------------------------------------------------------
    def pm_quota(self, p: Player) -> int | None:
        base = self.rules.quotas.pm_per_day
        if base is None:
            return None
        return base + sum(int(x.get("extra", 0)) for x in self.passives(p, "pm_quota"))

    def anon_quota(self, p: Player) -> int | None:
        """Anonymous posts ``p`` may send a day (None: no limit), their features included."""
        base = self.rules.quotas.anon_per_day
        if base is None:
            return None
        return base + sum(int(x.get("extra", 0)) for x in self.passives(p, "anon_quota"))

    def mail_quotas(self, p: Player) -> dict[str, int | None]:
        """Each kind of message the ruleset gives ``p`` and its quota (None: no limit), in the
        order a card lists them: ``pm_per_day``, ``anon_per_day`` or, with the ruleset's own mail
        policy, what that policy says (seed 003: ``letters_per_phase``, ``notes_per_phase``).
        A kind the ruleset does not have (PMs with a quota of 0) is left out."""
        if self.rules.mail:
            quotas = getattr(MAIL[self.rules.mail], "quotas", None)
            return dict(quotas(self, p)) if quotas else {}
        out: dict[str, int | None] = {}
        if self.rules.quotas.pm_per_day != 0:
            out["pm_per_day"] = self.pm_quota(p)
        out["anon_per_day"] = self.anon_quota(p)
        return out

    def send_pm(self, sender: int, recipient: int, text: str) -> Pm:
        p, r = self.player(sender), self.player(recipient)
        if self.state.over:
            raise ActionError("game_over")
        if self.rules.mail:  # the ruleset's own mail (seed 003: anonymous letters, prison notes)
            return MAIL[self.rules.mail].send(self, p, r, text)
        if self.rules.quotas.pm_per_day == 0:
            raise ActionError("pm_not_allowed")
        if not self.alive(p):
            raise ActionError("not_alive")
        if not self.alive(r):
            raise ActionError("target_not_alive", target=recipient)
        if sender == recipient:
            raise ActionError("self_target")
        no_pm = self.rules.status_of_kind("no_pm")
        if no_pm and self.active(p, no_pm):
            raise ActionError("pm_deprived")
        self._check_communicates(p, r)
        if not text.strip():
            raise ActionError("empty_message")
        day = str(self.info.day)
        quota = self.pm_quota(p)
        if quota is not None and p.pm_sent.get(day, 0) >= quota:
            raise ActionError("pm_quota", quota=quota)
        p.pm_sent[day] = p.pm_sent.get(day, 0) + 1
        pm = Pm(seq=self.next_seq(), sender=sender, recipient=recipient, text=text, tick=self.state.tick)
        self.state.pms.append(pm)
        if self.cut_off_secretly(r):  # away: it waits for them (resolver), the sender is told nothing
            self.state.core.pm_waiting.append(WaitingPm(sender=sender, recipient=recipient, text=text))
            self.emit("gm.pm_waiting", "gm", player=recipient, sender=sender)
            return pm
        self.emit("pm.received", "players", [recipient], sender=sender, text=text)
        return pm

    def _check_communicates(self, p: Player, r: Player | None = None) -> None:
        """A status that cuts its holder off (``can_communicate: false``) stops messages both ways."""
        for f in self.status_flags(p):
            if not f.can_communicate:
                raise ActionError("cannot_communicate", status=f.id)
        if r is not None and any(not f.can_communicate and f.public for f in self.status_flags(r)):
            raise ActionError("target_unreachable", target=r.pid)

    def post_anon(self, pid: int, text: str) -> Anon:
        p = self.player(pid)
        if self.state.over:
            raise ActionError("game_over")
        if self.rules.mail:  # the ruleset's own mail: a letter to the whole town
            return MAIL[self.rules.mail].post(self, p, text)
        if not self.alive(p):
            raise ActionError("not_alive")
        self._check_communicates(p)
        if not text.strip():
            raise ActionError("empty_message")
        quota = self.anon_quota(p)
        if quota is not None:
            day = str(self.info.day)
            if p.anon_sent.get(day, 0) >= quota:
                raise ActionError("anon_quota", quota=quota)
            p.anon_sent[day] = p.anon_sent.get(day, 0) + 1
        a = Anon(seq=self.next_seq(), pid=pid, text=text, tick=self.state.tick)
        self.state.anons.append(a)
        self.emit("gm.anon_queued", "gm", player=pid, text=text, seq=a.seq)  # the GM may refuse it (gm_refuse_anon)
        return a
