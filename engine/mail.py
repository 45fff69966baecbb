"""Mail: private messages and anonymous posts, their quotas, and a ruleset's own mail policy."""

from __future__ import annotations

from .errors import ActionError
from .registry import MAIL
from .state import Anon, Player, Pm, WaitingPm
from .world import World


# ---- messages -------------------------------------------------------------------
def pm_quota(world: World, p: Player) -> int | None:
    base = world.rules.quotas.pm_per_day
    if base is None:
        return None
    return base + sum(int(x.get("extra", 0)) for x in world.passives(p, "pm_quota"))


def pm_left(world: World, p: Player) -> int | None:
    """How many PMs ``p`` may still send today (None: no limit): the quota less those sent."""
    quota = pm_quota(world, p)
    return None if quota is None else max(0, quota - p.pm_sent.get(str(world.info.day), 0))


def already_sent(world: World, sender: int, recipient: int, text: str) -> bool:
    """Whether ``sender`` already sent this very ``text`` to ``recipient`` in this phase: a
    second one is a retry (a lost reply), never a new message, and is not sent again."""
    tick = world.state.tick
    return any(m.sender == sender and m.recipient == recipient and m.text == text and m.tick == tick for m in world.state.pms)


def anon_quota(world: World, p: Player) -> int | None:
    """Anonymous posts ``p`` may send a day (None: no limit), their features included."""
    base = world.rules.quotas.anon_per_day
    if base is None:
        return None
    return base + sum(int(x.get("extra", 0)) for x in world.passives(p, "anon_quota"))


def anon_left(world: World, p: Player) -> int | None:
    """How many anonymous posts ``p`` may still send today (None: no limit)."""
    quota = anon_quota(world, p)
    return None if quota is None else max(0, quota - p.anon_sent.get(str(world.info.day), 0))


def mail_quotas(world: World, p: Player) -> dict[str, int | None]:
    """Each kind of message the ruleset gives ``p`` and its quota (None: no limit), in the
    order a card lists them: ``pm_per_day``, ``anon_per_day`` or, with the ruleset's own mail
    policy, what that policy says (seed 003: ``letters_per_phase``, ``notes_per_phase``).
    A kind the ruleset does not have (PMs with a quota of 0) is left out."""
    if world.rules.mail:
        quotas = getattr(MAIL[world.rules.mail], "quotas", None)
        return dict(quotas(world, p)) if quotas else {}
    out: dict[str, int | None] = {}
    if world.rules.quotas.pm_per_day != 0:
        out["pm_per_day"] = pm_quota(world, p)
    out["anon_per_day"] = anon_quota(world, p)
    return out


def recipients(world: World, sender: int) -> list[int]:
    """Whom a player may address a PM to: the living, oneself excepted (``send_pm`` refuses
    the rest; a status that cuts someone off is said at sending, as it may be secret)."""
    return [q.pid for q in world.living() if q.pid != sender]


def send_pm(world: World, sender: int, recipient: int, text: str) -> Pm:
    p, r = world.player(sender), world.player(recipient)
    if world.state.over:
        raise ActionError("game_over")
    if world.rules.mail:  # the ruleset's own mail (seed 003: anonymous letters, prison notes)
        return MAIL[world.rules.mail].send(world, p, r, text)
    if world.rules.quotas.pm_per_day == 0:
        raise ActionError("pm_not_allowed")
    if not world.alive(p):
        raise ActionError("not_alive")
    if not world.alive(r):
        raise ActionError("target_not_alive", target=recipient)
    if sender == recipient:
        raise ActionError("self_target")
    no_pm = world.rules.status_of_kind("no_pm")
    if no_pm and world.active(p, no_pm):
        raise ActionError("pm_deprived")
    _check_communicates(world, p, r)
    if not text.strip():
        raise ActionError("empty_message")
    day = str(world.info.day)
    quota = pm_quota(world, p)
    if quota is not None and p.pm_sent.get(day, 0) >= quota:
        raise ActionError("pm_quota", quota=quota)
    p.pm_sent[day] = p.pm_sent.get(day, 0) + 1
    pm = Pm(seq=world.next_seq(), sender=sender, recipient=recipient, text=text, tick=world.state.tick)
    world.state.pms.append(pm)
    if world.cut_off_secretly(r):  # away: it waits for them (resolver), the sender is told nothing
        world.state.core.pm_waiting.append(WaitingPm(sender=sender, recipient=recipient, text=text))
        world.emit("gm.pm_waiting", "gm", player=recipient, sender=sender)
        return pm
    world.emit("pm.received", "players", [recipient], sender=sender, text=text)
    return pm


def _check_communicates(world: World, p: Player, r: Player | None = None) -> None:
    """A status that cuts its holder off (``can_communicate: false``) stops messages both ways."""
    for f in world.status_flags(p):
        if not f.can_communicate:
            raise ActionError("cannot_communicate", status=f.id)
    if r is not None and any(not f.can_communicate and f.public for f in world.status_flags(r)):
        raise ActionError("target_unreachable", target=r.pid)


def post_anon(world: World, pid: int, text: str) -> Anon:
    p = world.player(pid)
    if world.state.over:
        raise ActionError("game_over")
    if world.rules.mail:  # the ruleset's own mail: a letter to the whole town
        return MAIL[world.rules.mail].post(world, p, text)
    if not world.alive(p):
        raise ActionError("not_alive")
    _check_communicates(world, p)
    if not text.strip():
        raise ActionError("empty_message")
    quota = anon_quota(world, p)
    if quota is not None:
        day = str(world.info.day)
        if p.anon_sent.get(day, 0) >= quota:
            raise ActionError("anon_quota", quota=quota)
        p.anon_sent[day] = p.anon_sent.get(day, 0) + 1
    a = Anon(seq=world.next_seq(), pid=pid, text=text, tick=world.state.tick)
    world.state.anons.append(a)
    world.emit("gm.anon_queued", "gm", player=pid, text=text, seq=a.seq)  # the GM may refuse it (gm_refuse_anon)
    return a
