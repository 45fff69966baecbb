"""Each player's own news: what happened to their stats and statuses, and why.

One mechanism for every ruleset, derived from the diff of the state, never a line per ability:

- :func:`tracked` credits every change of a player's own stats (as they know them: with the
  hidden and timed bonuses) to its cause while the resolve runs, in a ledger: an
  action (the ability's key and its actor), a step (its kind, or ``vote:<id>``), the inactivity
  penalty, a clamp, a change «на сутки» given back. :func:`stat_causes` reads it for one player
  and stat, in the words the player may know: their own ability by its name, another player's
  action only as ``action`` (the book never tells a target who acted on them, nor how: seed
  000's «Цель узнает факт вскрытия своей роли» is the exception that proves it), and the part
  of the change the ledger does not explain (a timed bonus running out with the period, a
  faction's bonus) as ``bonus``.
- :func:`status_notices` tells a player privately each public status they gained or lost
  (the public report says it to all; their hidden channel says it to them), and that they were
  blocked (a ``blocked`` status put on them this resolve, setting ``tell_blocked``).
- :func:`action_result` tells the performer of an action aimed at others that it went out
  (setting ``tell_results``; a blocked one is told under ``tell_blocked`` as before).

Every event here has the audience of that one player and a key under ``notice.``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..state import Intent
    from ..world import World
    from .context import Ctx

LEDGER = "ledger"  # Ctx.scratch key: [(pid, stat, delta, cause, actor)]


def own_stats(game: World) -> dict[int, dict[str, int]]:
    """Every player's stats as they know them (:meth:`World.true_stat`: with every hidden and
    timed bonus), so that a timed bonus an ability gives is credited to it like a base change."""
    ids = _reads(game)[0]
    true_stats = game.true_stats
    return {p.pid: true_stats(p, ids) for p in game.state.players}


def credit(ctx: Ctx, before: dict[int, dict[str, int]], cause: str, actor: int | None = None) -> None:
    """Credit every change of a player's own stats since ``before`` to ``cause`` (done by ``actor``)."""
    _credit(ctx, before, _own_now(ctx)[1], cause, actor)


def _credit(ctx: Ctx, before: dict[int, dict[str, int]], now: dict[int, dict[str, int]], cause: str,
            actor: int | None, pids: list[int] | None = None) -> None:
    """Append to the ledger each change from ``before`` to ``now``, by seat and then by stat;
    ``pids``: only these players can have changed (by seat; None: anyone)."""
    book = ctx.scratch.setdefault(LEDGER, [])
    for pid in now if pids is None else pids:
        mine = now[pid]
        old = before.get(pid, {})
        for sid, v in mine.items():
            d = v - old.get(sid, 0)
            if d:
                book.append((pid, sid, d, cause, actor))


def _reads(game: World) -> tuple[tuple[str, ...], frozenset[str], bool]:
    """What :meth:`World.true_stat` can read in this ruleset (once per ruleset): its stat ids,
    the statuses that move a stat (``stat_modifiers``; any other status adds nothing), and
    whether a faction bonus applies (``factions.bonus_stat`` of an enabled faction rule)."""
    rules = game.rules
    cache = rules.derived_cache
    found = cache.get(("own_stat_reads",))
    if found is None:
        ids = tuple(s.id for s in rules.stats)
        fr = rules.factions
        found = cache[("own_stat_reads",)] = (
            ids,
            frozenset(s.id for s in rules.statuses if s.stat_modifiers),
            bool(fr.enabled and fr.bonus_stat),
        )
    return found


def _fingerprint(game: World) -> tuple[Any, ...]:
    """Everything :meth:`World.true_stat` reads (the tick, each player's base stats, modifiers
    and the statuses that move a stat with their times, faction members where a faction bonus
    applies): equal fingerprints, equal own stats. Far cheaper than the stats themselves
    (copies of plain dicts, compared as dicts), so that a step or action that changes nothing
    costs next to nothing; :func:`_changed` says whose own stats two of them can differ in."""
    st = game.state
    _, moving, bonus = _reads(game)
    players = st.players
    return (
        st.tick,
        [p.stats.copy() for p in players],
        {p.pid: [(m.stat, m.amount, m.until, m.scope) for m in p.modifiers] for p in players if p.modifiers},
        {p.pid: [(k, s.since, s.until) for k, s in p.statuses.items() if k in moving] for p in players if p.statuses}
        if moving else None,
        [(fid, f.members.copy()) for fid, f in st.factions.items()] if bonus else None,
    )


def _changed(game: World, old: tuple[Any, ...], new: tuple[Any, ...]) -> list[int] | None:
    """The players (by seat) whose own stats can differ between two fingerprints: those whose
    base stats, modifiers or stat-moving statuses differ, and where a faction bonus applies
    every member of a faction one of whose members' base stats differ (the bonus reads them
    all); None (everyone) when the tick, the table or the factions differ."""
    if old[0] != new[0] or old[4] != new[4] or len(old[1]) != len(new[1]):
        return None
    players = game.state.players
    out = {players[i].pid for i, (a, b) in enumerate(zip(old[1], new[1], strict=True)) if a != b}
    if out and _reads(game)[2]:
        out.update(m for f in game.state.factions.values() if not out.isdisjoint(f.members) for m in f.members)
    for part in (2, 3):
        a, b = old[part], new[part]
        if a != b:
            out.update(k for k in a.keys() | b.keys() if a.get(k) != b.get(k))
    return [p.pid for p in players if p.pid in out]


OWN = "own_stats"  # Ctx.scratch key: (fingerprint, own_stats) as last computed
FRESH = "own_stats_fresh"  # Ctx.scratch key: True while OWN is known to hold the state as it is now
CHAIN = "own_stats_chain"  # Ctx.scratch key: True while nothing but tracked work changes the state


def seed_own(ctx: Ctx, own: dict[int, dict[str, int]]) -> None:
    """The players' own stats as they are now, worked out by the caller (the resolve's first
    snapshot): the first tracked work starts from them instead of computing them again."""
    ctx.scratch[OWN] = (_fingerprint(ctx.game), own)


def _recompute(game: World, old_fp: tuple[Any, ...], old_own: dict[int, dict[str, int]], fp: tuple[Any, ...]
               ) -> tuple[dict[int, dict[str, int]], list[int] | None]:
    """The own stats for fingerprint ``fp``, from those of ``old_fp``: only the players whose
    part changed are worked out again (the others' dicts are shared: never written)."""
    pids = _changed(game, old_fp, fp)
    if pids is None:
        return own_stats(game), None
    own = dict(old_own)
    ids = _reads(game)[0]
    players = game.state.players
    true_stats = game.true_stats
    for pid in pids:
        own[pid] = true_stats(players[pid], ids)
    return own, pids


def _own_now(ctx: Ctx) -> tuple[tuple[Any, ...], dict[int, dict[str, int]]]:
    fp = _fingerprint(ctx.game)
    cached = ctx.scratch.get(OWN)
    if cached is None:
        cached = ctx.scratch[OWN] = (fp, own_stats(ctx.game))
    elif cached[0] != fp:
        cached = ctx.scratch[OWN] = (fp, _recompute(ctx.game, cached[0], cached[1], fp)[0])
    return cached


def tracked(ctx: Ctx, cause: str, work: Callable[[], Any], actor: int | None = None) -> Any:
    """Run ``work`` and credit the changes of the players' own stats it made to ``cause``
    (the own stats are computed again only when something they read has changed, and only
    for the players whose part of it changed; a ruleset without stats has nothing to credit:
    ``work`` alone runs). Where the resolve runs tracked work back to back with nothing in
    between that could change a stat (``CHAIN``: the steps), the state one work left is the
    state the next one starts from: it is not fingerprinted twice."""
    game = ctx.game
    if not _reads(game)[0] or not game.private_notices:
        return work()
    scratch = ctx.scratch
    if scratch.pop(FRESH, False):
        fp, before = scratch[OWN]
    else:
        fp, before = _own_now(ctx)
    try:
        return work()
    finally:
        now = _fingerprint(game)
        if now != fp:
            own, pids = _recompute(game, fp, before, now)
            scratch[OWN] = (now, own)
            _credit(ctx, before, own, cause, actor, pids)
        if scratch.get(CHAIN):
            scratch[FRESH] = True


def step_cause(game: World, step: Any) -> str:
    """A step as a cause: a vote step is its vote (``vote:<id>``), any other its kind."""
    if step.kind == "vote":
        vote = next((v for v in game.rules.votes if v.step == step.id), None)
        if vote is not None:
            return f"vote:{vote.id}"
        return "vote"
    if step.kind == "impl":
        return str(step.params.get("impl", "rules"))
    return step.kind


def stat_causes(ctx: Ctx, pid: int, sid: str, true_delta: int, gained: set[str] = frozenset(),
                lost: set[str] = frozenset()) -> list[list[Any]]:
    """[[cause, delta], …] of one player's change of one stat, in the order they came, one
    entry per cause (another player's action: ``action``). The rest of the change that the
    ledger does not explain is a status that came or went with the period (seed 003's
    «Госпиталь - -2 к инициативе, защите и скрытности», from the next day: the status by its
    id), else ``bonus``."""
    out: dict[str, int] = {}
    for who, stat, d, cause, actor in ctx.scratch.get(LEDGER, []):
        if who != pid or stat != sid:
            continue
        if cause.startswith(("role:", "character:")) and actor != pid:
            cause = "action"
        out[cause] = out.get(cause, 0) + d
    rest = true_delta - sum(out.values())
    known = ctx.rules.status_by_id
    for st_id, sign in [*((x, 1) for x in sorted(gained)), *((x, -1) for x in sorted(lost))]:
        amount = sign * known[st_id].stat_modifiers.get(sid, 0) if st_id in known else 0
        # what the status gave or took: out of the rest, or out of what ran out with it
        for pool in ("rest", "expired"):
            have = rest if pool == "rest" else out.get("expired", 0)
            if not amount or not have or (amount > 0) != (have > 0):
                continue
            part = amount if abs(amount) <= abs(have) else have
            out[st_id] = out.get(st_id, 0) + part
            amount -= part
            if pool == "rest":
                rest -= part
            else:
                out["expired"] -= part
    if rest:
        out["bonus"] = out.get("bonus", 0) + rest
    return [[c, d] for c, d in out.items() if d]


def message_mode(game: World, pid: int) -> str:
    """How a player's news travels now (``StatusDef.messages``; seed 002: «персонажам, которые
    умерли в эту ночь или впали в кому, ничего не сообщается»): ``drop`` (the dead), ``hold``
    (the coma), or ``deliver``."""
    p = game.player(pid)
    statuses = p.statuses
    if not statuses:
        return "deliver"  # no status, no mode but the plain one
    # the ruleset's statuses with a mode of their own (once per ruleset): only those can
    # change it, and only while in force (World.status_flags' test, for those alone)
    cache = game.rules.derived_cache
    modes = cache.get(("message_modes",))
    if modes is None:
        modes = cache[("message_modes",)] = {s.id: s.messages for s in game.rules.statuses if s.messages != "deliver"}
    if modes.keys().isdisjoint(statuses):
        return "deliver"
    t = game.state.tick
    hold = False
    for sid, s in statuses.items():
        mode = modes.get(sid)
        if mode is not None and (s.until is None or s.until > t) and s.since <= t:
            if mode == "drop":
                return "drop"  # (before any hold)
            hold = True
    return "hold" if hold else "deliver"


def tell(game: World, pid: int, key: str, **args: Any) -> None:
    """One notice to one player, unless their message mode is not ``deliver``: the dead get
    none; one in a coma gets none of the changes they went through while out of it (they
    are not held like the coma's other news: waking, the player is told the statuses of that
    resolve, «Статус снят: в коме» among them)."""
    if game.private_notices and message_mode(game, pid) == "deliver":
        game.emit(key, "players", [pid], **args)


def one_fact(known: dict[str, Any], gained: list[str], lost: list[str]) -> tuple[list[str], list[str]]:
    """Statuses that come or go together as one fact (``StatusDef.covers``): of those put on,
    the covering one alone («в Тюрьме до конца игры»); of those taken off, the covered one alone
    («в Тюрьме»)."""
    def covered(sids: list[str]) -> set[str]:
        return {c for s in sids if s in known for c in known[s].covers if c in sids}
    if gained:
        drop = covered(gained)
        gained = [s for s in gained if s not in drop]
    if lost:
        drop = {s for s in lost if s in known and any(c in lost for c in known[s].covers)}
        lost = [s for s in lost if s not in drop]
    return gained, lost


def status_notices(game: World, pid: int, gained: list[str], lost: list[str], new_kinds: set[str]) -> None:
    """A player's own public statuses gained and lost, and a block put on them (the secret
    statuses already reach them as ``report.status_*`` with their own audience)."""
    if not gained and not lost and "blocked" not in new_kinds or not game.private_notices:
        return
    if game.state.players[pid].statuses and message_mode(game, pid) != "deliver":  # (none: ``deliver``)
        return  # every notice below goes through ``tell``: none would reach them
    # (their mode is ``deliver``: each notice goes out as ``tell`` would send it)
    known = game.rules.status_by_id
    emit = game.emit
    died = bool(gained) and any(known[sid].dead for sid in gained if sid in known)
    gained, lost = one_fact(known, gained, lost)
    for sid in gained:
        if sid in known and known[sid].public:
            emit("notice.status_on", "players", [pid], status=sid)
    for sid in lost:
        if sid in known and known[sid].public and not died:
            emit("notice.status_off", "players", [pid], status=sid)
    if "blocked" in new_kinds and not died and game.settings.tell_blocked:
        emit("notice.blocked", "players", [pid])


def action_result(game: World, intent: Intent, outcome: str) -> None:
    """The performer of an action aimed at other players learns that it went out (it was not
    blocked), where the ruleset tells it (``tell_results``): never whether a protection stopped
    it on its way (the target's secret; the GM trace says it). A blocked action is told as
    before (``private.no_effect`` under ``tell_blocked``); a targetless one (on oneself, one's
    faction, everyone) shows in the performer's own notices, its name as the cause."""
    if not game.private_notices or not game.settings.tell_results or outcome in ("blocked", "superseded", "gm_task"):
        return
    if not intent.targets or intent.targets == [intent.pid] or not game.alive(game.player(intent.pid)):
        return
    tell(game, intent.pid, "notice.action_done", ability=intent.ability)
