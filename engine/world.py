"""The world of one game: its ruleset, state, clock and generator, and every read-only question.

Nothing here changes a player's fate: who is alive, what a status means now, a player's true
and visible stats, their abilities by key, what a selector matches, which votes are open. Its
one write is :meth:`World.emit`, the event log. Everything above (legality, mail, the
resolve, the books, the commands in :mod:`engine.game`) asks these questions.
"""

from __future__ import annotations

import random
from typing import Any

from .clock import Clock, TickInfo
from .errors import ActionError, GameError
from .registry import VOTES
from .ruleset import AbilityDef, Requirement, RoleDef, Ruleset, Selector, SlotDef
from .settings import GameSettings
from .state import Audience, Event, Faction, GameState, Player, Status


def blocked_by_status(game: World, p: Player, key: str, slot: str, tick: int) -> bool:
    """Whether a block status of ``p`` in force at ``tick`` covers ability ``key`` (of ``slot``):
    a block's ``slots`` scope lists slots, or ``character`` / ``role`` for all of that kind."""
    for sid, s in p.statuses.items():
        if s.kind != "blocked" or not game.active(p, sid, tick):
            continue
        scope = s.data.get("slots") or []
        if not scope or slot in scope or ("character" in scope and key.startswith("character:")) or ("role" in scope and key.startswith("role:")):
            return True
    return False


def meets(world: World, p: Player, req: Requirement) -> ActionError | None:
    """The refusal when ``p`` does not meet ``req`` (a faction, a stat threshold, a status), else None."""
    if req.in_faction is not None:
        member = in_faction(world, p.pid)
        if req.in_faction is True and not member:
            return ActionError("not_in_faction")
        if req.in_faction is False and member:
            return ActionError("in_faction")
    if req.stat:
        sid = world.rules.stat(req.stat).id
        have = world.true_stat(p, sid, "thresholds") if world.rules.thresholds_read == "true" else p.stats[sid]
        if req.at_least is not None and have < req.at_least:
            return ActionError("threshold_not_met", stat=sid, need=req.at_least)
        if req.below is not None and have >= req.below:
            return ActionError("threshold_not_met", stat=sid, need=req.below)
    for st in req.status:
        if not world.active(p, st):
            return ActionError("needs_status", status=st)
    for st in req.not_status:
        if world.active(p, st):
            return ActionError("has_status", status=st)
    return None


def in_faction(world: World, pid: int) -> bool:
    """Whether ``pid`` is a member of any faction (``factions_of`` is not empty)."""
    for f in world.state.factions.values():  # noqa: SIM110 - a loop: no generator on every legality check
        if pid in f.members:
            return True
    return False


def off_limits(world: World, p: Player) -> bool:
    """Whether a public status in force keeps everyone from acting on ``p`` (``can_be_targeted:
    false``, as ``status_flags`` reads it; a secret one is never told: ``secret_unreachable``)."""
    ids = world.rules.off_limits_status_ids
    statuses = p.statuses
    if ids.isdisjoint(statuses):
        return False
    t = world.state.tick
    for sid in ids.intersection(statuses):
        s = statuses[sid]
        if (s.until is None or s.until > t) and s.since <= t:
            return True
    return False


def status_modifiers(world: World, statuses: dict[str, Status]) -> dict[str, int]:
    """The sum of ``stat_modifiers`` of the statuses in force now among ``statuses``, by stat."""
    ids = world.rules.stat_modifier_status_ids
    if ids.isdisjoint(statuses):
        return _NO_MODIFIERS
    defs = world.rules.status_by_id
    t = world.state.tick
    out: dict[str, int] = {}
    for sid in ids.intersection(statuses):
        s = statuses[sid]
        if (s.until is None or s.until > t) and s.since <= t:
            for k, v in defs[sid].stat_modifiers.items():
                out[k] = out.get(k, 0) + v
    return out


_UNKNOWN = object()  # a cache's "not looked up yet" (None is an answer)
_NO_MODIFIERS: dict[str, int] = {}  # status_modifiers of no status in force (read only)


def shared_clock(rules: Ruleset) -> Clock:
    """The one :class:`Clock` of a ruleset's calendar: a tick's facts depend on the calendar
    alone, so every game of the ruleset shares them (computed once, not once per game)."""
    found = rules.derived_cache.get(("clock",))
    if found is None or found[0] is not rules.calendar:
        found = rules.derived_cache[("clock",)] = (rules.calendar, Clock(rules.calendar))
    return found[1]


class World:
    """A ruleset and a state read together; the base of :class:`engine.game.Game`."""

    def __init__(self, ruleset: Ruleset, state: GameState) -> None:
        if state.ruleset != ruleset.id:
            raise GameError(f"state is for ruleset {state.ruleset!r}, not {ruleset.id!r}")
        self.rules = ruleset
        self.state = state
        self.clock = shared_clock(ruleset)
        # roles and characters whose holders some abilities cannot target (passive ``untargetable``)
        self._untargetable = {
            src.id for src in [*ruleset.roles, *ruleset.characters] if any(pas.kind == "untargetable" for pas in src.passives)
        }
        self.rng = random.Random()
        self.rng.setstate(state.rng_state)
        self._settings: tuple[dict[str, Any], GameSettings] | None = None
        # whether a resolve works out the players' private notices (engine.resolve.notices:
        # the ``notice.*`` events and the causes of ``private.stat``). Set by the caller of a
        # game whose notices nobody reads (``altmafia simulate``'s bulk runs), never by a
        # ruleset, never stored: a loaded game tells them. Nothing else changes without them.
        self.private_notices = True

    @property
    def settings(self) -> GameSettings:
        """The game's settings, typed (``GameState.settings`` read through the schema)."""
        raw = self.state.settings
        if self._settings is None or self._settings[0] is not raw:
            self._settings = (raw, GameSettings.model_validate(raw))
        return self._settings[1]

    def recall_from(self) -> int:
        """The first tick whose events and action history a rule may still read. The built-in
        effects keep what they need in the state (statuses with their expiry, cooldowns, uses);
        only a book's ``impl`` reads the log, and never further back than the cycles it is given
        (``cycles``, default 1: «за прошедшие сутки»). The log before this tick may be kept out
        of memory (the store keeps all of it in its own tables)."""
        return max(0, self.state.tick - self.clock.cycles(_longest_cycles(self.rules)))

    def practice_table(self) -> bool:
        """The GM's setting ``practice_table``: a table below the book's minimum
        (``table.practice_min`` … ``table.min - 1`` seats). Only ``true`` or ``false``, and only
        where the ruleset has a practice table."""
        value = self.settings.practice_table
        if not isinstance(value, bool):
            raise GameError(f"setting practice_table={value!r}: use true or false")
        if value and self.rules.table.practice_min is None:
            raise GameError(f"{self.rules.id} has no practice table (setting practice_table)")
        return value

    def bonus_choice(self, p: Player) -> dict[str, Any] | None:
        """The hidden bonus whose stat ``p`` picks at the start («+2 ВО или +2 ТВ. Выбирает в
        начале игры»), or None: ``choices`` (stat ids, the first is the default), ``amount``,
        ``stat`` now in force, ``chosen`` (by the player, or preset by ``hidden_bonus_choice``)
        and ``open``: the choice may be made or changed until the first resolve."""
        params = next((pas.params for src in self.sources(p) for pas in src.passives
                       if pas.kind == "hidden_bonus" and pas.params.get("stat") is None), None)
        if params is None:
            return None
        choices = [self.rules.stat(c).id for c in params["choices"]]
        mod = next((m for m in p.modifiers if m.source == "choice"), None)
        chosen = str(p.pid) in self.state.core.bonus_choice or p.name in self.settings.hidden_bonus_choice
        return {"choices": choices, "amount": int(params["amount"]), "stat": mod.stat if mod else choices[0], "chosen": chosen,
                "open": self.state.tick == 0 and not self.state.over, "modifier": mod}

    def sync_rng(self) -> None:
        """Copy the generator's state into ``state.rng_state``. Done when the state is written
        out (``Game.to_dict``, ``Game.copy``), not after every draw: ``state.rng_state`` is
        current only then."""
        self.state.rng_state = self.rng.getstate()

    # ---- lookups --------------------------------------------------------------------
    @property
    def info(self) -> TickInfo:
        return self.clock.info(self.state.tick)

    @property
    def end_tick(self) -> int:
        return self.clock.cycles(self.state.end_day)

    def player(self, ref: int | str) -> Player:
        if isinstance(ref, int):
            return self.state.players[ref]
        for p in self.state.players:
            if p.name == ref:
                return p
        raise GameError(f"no player {ref!r}")

    def sources(self, p: Player) -> list[RoleDef]:
        """The player's role and character definitions (looked up once per ruleset and pair)."""
        cache = self.rules.derived_cache
        key = ("sources", p.role, p.character)
        found = cache.get(key)
        if found is None:
            found = [self.rules.role(p.role)]
            if p.character:
                found.append(self.rules.character(p.character))
            cache[key] = found
        return list(found)

    def team(self, p: Player) -> str | None:
        """A player's team: their character's (the secret role), else their role's."""
        teams = self.rules.derived_cache.get(("teams",))
        if teams is None:
            teams = self.rules.derived_cache[("teams",)] = {}
        key = p.role if p.character is None else (p.role, p.character)  # looked up once per ruleset and pair
        found = teams.get(key, _UNKNOWN)
        if found is _UNKNOWN:
            found = teams[key] = (self.rules.character(p.character) if p.character else self.rules.role(p.role)).team
        return found

    def passives(self, p: Player, kind: str) -> list[dict[str, Any]]:
        cache = self.rules.derived_cache
        key = ("passives", p.role, p.character, kind)
        own = cache.get(key)
        if own is None:
            own = cache[key] = [pas.params for src in self.sources(p) for pas in src.passives if pas.kind == kind]
        if not p.grants:
            return own  # the ruleset's own list: read only, as every caller reads it
        out = list(own)
        # the features of another role granted for a while ({"passives": role id}; seed 003:
        # Мародёрство), from ``since`` to ``until`` like granted abilities
        for g in p.grants:
            if g.get("passives") and g.get("since", -1) <= self.state.tick and (g.get("until") is None or g["until"] > self.state.tick):
                out += [pas.params for pas in self.rules.role(g["passives"]).passives if pas.kind == kind]
        return out

    def active(self, p: Player, status: str, tick: int | None = None) -> Status | None:
        s = p.statuses.get(status)
        t = self.state.tick if tick is None else tick
        if s is None or (s.until is not None and s.until <= t) or s.since > t:
            return None  # over, or not yet begun (seed 003: hospital "from the next day")
        return s

    def status_flags(self, p: Player) -> list[Any]:
        """The definitions of ``p``'s statuses in force now (ids the ruleset does not define —
        a GM's own marks — have none and are left out)."""
        defs = self.rules.status_by_id
        t = self.state.tick
        out = []
        for sid, s in p.statuses.items():
            if (s.until is None or s.until > t) and s.since <= t:
                d = defs.get(sid)
                if d is not None:
                    out.append(d)
        return out

    def secret_unreachable(self, p: Player, tick: int | None = None) -> str | None:
        """The first secret status of ``p`` that keeps everyone from acting on them (seed 000's
        ``absent``), or None. No refusal tells it: an action aimed at ``p`` is accepted and fails
        at the resolve the way a blocked one does."""
        ids = self.rules.secret_off_limits_status_ids
        if ids.isdisjoint(p.statuses):
            return None
        for sid in sorted(ids.intersection(p.statuses)):
            if self.active(p, sid, tick):
                return sid
        return None

    def cut_off_secretly(self, p: Player) -> bool:
        """Whether a secret status cuts ``p`` off from messages (seed 000's ``absent``): a PM to
        them is accepted and waits for their return (a refusal would tell the status)."""
        return any(not f.can_communicate and not f.public for f in self.status_flags(p))

    def alive(self, p: Player) -> bool:
        if not p.statuses:
            return True
        gone = self.rules.gone_status_ids  # dead or out of play
        if gone.isdisjoint(p.statuses):
            return True
        # out while one of those is in force now (status_flags' test, for those statuses alone)
        t = self.state.tick
        statuses = p.statuses
        for sid in gone.intersection(statuses):
            s = statuses[sid]
            if (s.until is None or s.until > t) and s.since <= t:
                return False
        return True

    def living(self) -> list[Player]:
        alive = self.alive
        return [p for p in self.state.players if not p.statuses or alive(p)]

    def factions_of(self, pid: int) -> list[Faction]:
        return [f for f in self.state.factions.values() if pid in f.members]

    def teammates(self, pid: int, *, living: bool = False) -> list[int]:
        """The other members of ``pid``'s factions (any of them), by seat; ``living``: only the
        living ones. The one answer to "who is on my team" (orders, kicks, the books' faction
        features)."""
        mates = sorted({m for f in self.factions_of(pid) for m in f.members if m != pid})
        return [m for m in mates if self.alive(self.player(m))] if living else mates

    def faction_of(self, pid: int) -> Faction | None:
        fs = self.factions_of(pid)
        return fs[0] if fs else None

    def faction_bonus(self, p: Player, stat: str) -> int:
        fr = self.rules.factions
        if not fr.enabled or fr.bonus_stat != stat:
            return 0
        players, pid, best = self.state.players, p.pid, 0
        for f in self.state.factions.values():
            if pid in f.members:
                total = 0
                for m in f.members:
                    total += players[m].stats.get(stat, 0)
                bonus = int(total / fr.bonus_step) if fr.bonus_negative else max(0, total // fr.bonus_step)
                best = max(best, bonus) if not fr.bonus_negative else bonus
        return best

    def true_stat(self, p: Player, stat: str, purpose: str = "all") -> int:
        """The stat with every hidden bonus: what the player knows of themselves."""
        value = p.stats.get(stat, 0) + self.faction_bonus(p, stat)
        for m in p.modifiers:
            if m.stat == stat and (m.until is None or m.until > self.state.tick) and m.scope in ("all", purpose):
                value += m.amount
        statuses = p.statuses
        if statuses:
            value += status_modifiers(self, statuses).get(stat, 0)
        return value

    def true_stats(self, p: Player, ids: tuple[str, ...] | list[str]) -> dict[str, int]:
        """:meth:`true_stat` of each of ``ids`` (purpose ``all``) in one pass over ``p``'s
        modifiers and statuses, by ``ids``' order: the same numbers, each bonus read once."""
        stats = p.stats
        out = {sid: stats.get(sid, 0) for sid in ids}
        fr = self.rules.factions
        if fr.enabled and fr.bonus_stat in out:
            out[fr.bonus_stat] += self.faction_bonus(p, fr.bonus_stat)
        if p.modifiers:
            t = self.state.tick
            for m in p.modifiers:
                if m.stat in out and (m.until is None or m.until > t) and m.scope == "all":
                    out[m.stat] += m.amount
        if p.statuses:
            for sid, v in status_modifiers(self, p.statuses).items():
                if sid in out:
                    out[sid] += v
        return out

    def visible_stats(self, p: Player, viewer: int | None) -> dict[str, int]:
        """What ``viewer`` (a pid, or None for the public) may read of ``p``'s stats."""
        out = {}
        for s in self.rules.stats:
            if s.visibility == "public":
                out[s.id] = self.true_stat(p, s.id) if viewer == p.pid else p.stats[s.id]
            elif s.visibility == "secret" and viewer == p.pid:
                out[s.id] = self.true_stat(p, s.id)
        return out

    def emit(self, key: str, audience: Audience, ids: list[Any] | None = None, **args: Any) -> Event:
        """Log an event for ``audience`` (required: who may read it); ``players`` and
        ``faction`` name their readers in ``ids``."""
        # (an audience outside the closed set: Event refuses it, an AudienceError, a GameError)
        if audience == "faction" and not ids:
            raise GameError(f"event {key!r}: a faction event names its faction in ids")
        st = self.state
        ev = Event(st.tick, key, args, audience, list(ids) if ids else [])
        st.events.append(ev)
        return ev

    def next_seq(self) -> int:
        self.state.seq += 1
        return self.state.seq

    # ---- abilities ------------------------------------------------------------------
    def abilities(self, p: Player, granted: bool = True) -> list[tuple[str, AbilityDef]]:
        """A player's own abilities, then those other abilities granted them for a while."""
        cache = self.rules.derived_cache
        ckey = ("abilities", p.role, p.character)
        own = cache.get(ckey)
        if own is None:
            own = cache[ckey] = [(f"{kind}:{src.id}:{ab.id}", ab)
                                 for kind, src in zip(("role", "character"), self.sources(p), strict=False) for ab in src.abilities]
        out = list(own)
        if granted and p.grants:
            # a grant holds from ``since`` (default: at once) to ``until`` (None: the whole game);
            # ``replace`` takes away one's own abilities meanwhile: True all, "role" the role's only
            now = [g for g in p.grants if "key" in g and g.get("since", -1) <= self.state.tick and (g.get("until") is None or g["until"] > self.state.tick)]
            keys = {g["key"] for g in now}
            for g in now:
                if g.get("replace") == "role":
                    out = [(k, ab) for k, ab in out if not k.startswith("role:") or k in keys]
                elif g.get("replace"):
                    out = [(k, ab) for k, ab in out if k in keys]
            have = {k for k, _ in out}
            for g in now:
                if g["key"] not in have:
                    out.append((g["key"], self.ability_def(g["key"])))
                    have.add(g["key"])
        return out

    def ability_def(self, key: str) -> AbilityDef:
        """Any ability of the ruleset by its key ``role|character:<source id>:<ability id>``
        (looked up once per ruleset and key: asked many times a resolve)."""
        cache = self.rules.ability_cache
        found = cache.get(key)
        if found is None:
            found = cache[key] = self._find_ability(key)
        return found

    def _find_ability(self, key: str) -> AbilityDef:
        kind, src_id, ab_id = key.split(":", 2)
        src = self.rules.role(src_id) if kind == "role" else self.rules.character(src_id)
        for ab in src.abilities:
            if ab.id == ab_id:
                return ab
        raise KeyError(key)

    def ability(self, p: Player, key: str) -> AbilityDef:
        for k, ab in self.abilities(p):
            if k == key:
                return ab
        raise ActionError("unknown_ability", ability=key)

    def slot_of(self, ab: AbilityDef) -> SlotDef:
        found = self.rules.slot_by_id.get(ab.slot)
        return found if found is not None else self.rules.slot(ab.slot)

    def counts_as_action(self, ab: AbilityDef) -> bool:
        return ab.counts_as_action if ab.counts_as_action is not None else self.slot_of(ab).counts_as_action

    def lane_of(self, key: str, ab: AbilityDef) -> str:
        if ab.lane:  # abilities that exclude each other in a turn (seed 003)
            return f"lane:{ab.lane}"
        return "action" if self.counts_as_action(ab) else f"free:{key}"

    def cooldown_ticks(self, ab: AbilityDef) -> int:
        cyc = ab.cooldown_cycles if ab.cooldown_cycles is not None else self.slot_of(ab).cooldown_cycles
        return self.clock.cycles(cyc)

    def end_now_requested(self) -> bool:
        """True while an ability that ends the turn at once («Спровоцировать бунт») has cut the
        current day or night short: the scheduler resolves the current tick now, and each
        remaining tick of that turn right after it (nobody can act in them)."""
        e = self.state.core.end_now
        return e is not None and self.state.tick <= e.last

    def phase_cut(self) -> bool:
        e = self.state.core.end_now
        return e is not None and e.tick < self.state.tick <= e.last

    def matches(self, t: Player, sel: Selector, stats: dict[str, int] | None = None, actor: int | None = None) -> bool:
        """Whether ``t`` fits ``sel``; ``stats`` stands in for ``t``'s current base stats."""
        if sel.status and not self.active(t, sel.status):
            return False
        if sel.not_status and self.active(t, sel.not_status):
            return False
        if sel.faction:
            member = shared = False  # t in a faction; t in one with the actor
            for f in self.state.factions.values():
                if t.pid in f.members:
                    member = True
                    if actor is not None and actor in f.members:
                        shared = True
                        break
            if not {"same": shared, "other": not shared, "any_faction": member, "none": not member}[sel.faction]:
                return False
        if sel.stat:
            v = (t.stats if stats is None else stats).get(self.rules.stat(sel.stat).id, 0)
            if sel.lt is not None and not v < sel.lt:
                return False
            if sel.le is not None and not v <= sel.le:
                return False
            if sel.gt is not None and not v > sel.gt:
                return False
            if sel.ge is not None and not v >= sel.ge:
                return False
        return True

    # ---- votes ----------------------------------------------------------------------
    def open_votes(self) -> list[Any]:
        kind = self.info.kind
        cache = self.rules.derived_cache
        held = cache.get(("votes_of_kind", kind))  # the votes a step of this kind of period holds
        if held is None:
            steps = {s.id for s in self.rules.steps.get(kind, [])}
            held = cache[("votes_of_kind", kind)] = [v for v in self.rules.votes if v.step in steps]
        return [v for v in held if self._vote_open(v)]

    def can_vote(self, p: Player) -> bool:
        """Whether this player may cast a ballot now at all (alive, no status that forbids it)."""
        return self.alive(p) and all(f.can_vote for f in self.status_flags(p))

    def vote_withdrawable(self, vote_id: str) -> bool:
        """Whether a ballot of this vote may be taken back before the count (the vote's
        ``params.withdraw``; docs/rules/<ruleset>.md says which book allows it)."""
        vdef = next((v for v in self.rules.votes if v.id == vote_id), None)
        return bool(vdef is not None and vdef.params.get("withdraw"))

    def _vote_open(self, v: Any) -> bool:
        checker = VOTES[v.kind]
        return checker.is_open(self, v)


_CYCLES: dict[int, tuple[Ruleset, int]] = {}


def _longest_cycles(rules: Ruleset) -> int:
    """The most cycles any ``impl`` effect of the ruleset is given (its ``cycles`` or its
    parameter ``cycles``), at least 1."""
    got = _CYCLES.get(id(rules))
    if got is None or got[0] is not rules:
        got = _CYCLES[id(rules)] = (rules, max([1, *_impl_cycles(rules.model_dump())]))
    return got[1]


def _impl_cycles(data: Any) -> list[int]:
    out: list[int] = []
    if isinstance(data, dict):
        if data.get("op") == "impl":
            for v in (data.get("cycles"), (data.get("params") or {}).get("cycles")):
                if isinstance(v, int) and not isinstance(v, bool):
                    out.append(v)
        for v in data.values():
            out += _impl_cycles(v)
    elif isinstance(data, list):
        for v in data:
            out += _impl_cycles(v)
    return out
