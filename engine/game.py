"""A game: its ruleset, its state, and every way a player or GM may change it.

Submissions are validated here (one :class:`~engine.errors.ActionError` with a message key);
``legal_actions`` runs the very same checks to say what a player may do now, on whom.
Resolution lives in :mod:`engine.resolver`.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

from .clock import Clock, TickInfo
from .errors import ActionError, GameError
from .ruleset import AbilityDef, Requirement, RoleDef, Ruleset, Selector, SlotDef
from .state import (
    Anon,
    Event,
    Faction,
    FactionOp,
    GameState,
    Intent,
    Modifier,
    Player,
    Pm,
    Status,
    Vote,
    new_rng_state,
)

DEAL = "?"  # a role or character to be dealt at random
PM_WAITING = "pm_waiting"  # GameState.memo key: PMs to players secretly cut off, until they are back


@dataclass(frozen=True)
class PlayerSpec:
    name: str
    role: str
    character: str | None = None
    user_id: int | None = None
    stats: dict[str, int] | None = None
    statuses: list[str] | None = None
    faction: str | None = None
    leader: bool = False


@dataclass(frozen=True)
class LegalAction:
    key: str
    ability: AbilityDef
    targets: list[int]  # every player this ability may be aimed at now (empty: no target)
    options: list[str]
    via: str | None = None

    def any_option(self, rnd: Any) -> str | None:
        """A legal choice: one of the options, a number in range, or None."""
        num = self.ability.number
        if num is not None:
            return str(rnd.randint(num.min, num.max if num.max is not None else num.min + 9))
        return rnd.choice(self.options) if self.options else None


class Game:
    def __init__(self, ruleset: Ruleset, state: GameState) -> None:
        if state.ruleset != ruleset.id:
            raise GameError(f"state is for ruleset {state.ruleset!r}, not {ruleset.id!r}")
        self.rules = ruleset
        self.state = state
        self.clock = Clock(ruleset.calendar)
        # roles and characters whose holders some abilities cannot target (passive ``untargetable``)
        self._untargetable = {
            src.id for src in [*ruleset.roles, *ruleset.characters] if any(pas.kind == "untargetable" for pas in src.passives)
        }
        self.rng = random.Random()
        self.rng.setstate(state.rng_state)

    # ---- creation -------------------------------------------------------------------
    @classmethod
    def new(cls, ruleset: Ruleset, seed: int, players: list[PlayerSpec], settings: dict[str, Any] | None = None) -> Game:
        state = GameState(ruleset=ruleset.id, seed=seed, rng_state=new_rng_state(seed), end_day=ruleset.calendar.days)
        state.settings = {**ruleset.settings, **(settings or {})}
        if "days" in state.settings:
            state.end_day = int(state.settings["days"])
        game = cls(ruleset, state)
        players = game._deal(players)
        names = set()
        for seat, spec in enumerate(players):
            if spec.name in names:
                raise GameError(f"two players named {spec.name!r}")
            names.add(spec.name)
            role = ruleset.role(spec.role)
            char = ruleset.character(spec.character) if spec.character else None
            stats = {s.id: s.default for s in ruleset.stats}
            for src in (role, char):
                if src:
                    stats.update(src.stats)
            for k, v in (spec.stats or {}).items():
                stats[ruleset.stat(k).id] = v
            p = Player(pid=seat, name=spec.name, role=role.id, character=char.id if char else None, user_id=spec.user_id, stats=stats)
            for st in spec.statuses or []:
                sid = ruleset.status(st).id
                p.statuses[sid] = Status(id=sid, since=-1)
            state.players.append(p)
        for seat, spec in enumerate(players):
            if spec.faction:
                f = state.factions.get(spec.faction)
                if f is None:
                    f = state.factions[spec.faction] = Faction(fid=spec.faction, leader=seat)
                f.members[seat] = -1
                if spec.leader:
                    f.leader = seat
        game._apply_passive_modifiers()
        game._apply_bands()
        from .registry import VOTES

        for vdef in ruleset.votes:
            hook = getattr(VOTES[vdef.kind], "on_start", None)
            if hook:
                hook(game, vdef)
        if ruleset.steps.get("start"):
            from .resolver import run_start

            run_start(game)
        game.sync_rng()
        return game

    def _deal(self, players: list[PlayerSpec]) -> list[PlayerSpec]:
        """Deal every role and character given as ``DEAL`` from the game's generator.

        Roles are distinct (those the GM assigned are taken out first); characters are
        distinct while the deck lasts, and a second shuffled deck serves a larger table, or,
        with ``table.fill``, that character fills the seats beyond the deck, shuffled in with it.
        """
        from dataclasses import replace

        n = len(players)
        table = self.rules.table
        practice = self.practice_table()
        lo, hi = table.seats(practice)
        if not lo <= n <= hi:
            more = "" if practice or table.practice_min is None else f" (a practice table of {table.practice_min}+: setting practice_table)"
            raise GameError(f"this ruleset is for {lo}–{hi} players, not {n}{more}")
        # roles the GM assigned are taken out of the deck; assigning one role twice is the GM's
        # call (scenarios and practice tables do it); the lobby checks table.distinct_roles
        taken = {self.rules.role(p.role).id for p in players if p.role != DEAL}
        deck_for_size = table.deck(n)
        if deck_for_size is not None:  # a deal per table size: roles repeat as counted
            pool = self._size_deck(deck_for_size, n, [self.rules.role(p.role).id for p in players if p.role != DEAL])
        else:
            pool = sorted(r.id for r in self.rules.roles if r.id not in taken)
        self.rng.shuffle(pool)
        wanted = sum(1 for p in players if p.role == DEAL)
        if wanted > len(pool):
            raise GameError("not enough roles to deal")
        chars_taken = [self.rules.character(p.character).id for p in players if p.character not in (None, DEAL)]
        to_deal = sum(1 for p in players if p.character == DEAL)
        deck: list[str] = []
        out = []
        for p in players:
            if p.role == DEAL:
                p = replace(p, role=pool.pop())
            if p.character == DEAL and not self.rules.characters:
                p = replace(p, character=None)  # a ruleset without characters (classic)
            if p.character == DEAL:
                if not deck:
                    # a character is in the deck ``copies`` times; the GM's choices are taken out
                    full = sorted(c.id for c in self.rules.characters for _ in range(c.copies))
                    deck = list(full)
                    for cid in chars_taken:
                        if cid in deck:
                            deck.remove(cid)
                    deck = deck or full
                    if table.fill:  # the seats beyond the deck, shuffled in with it (any seat may get one)
                        deck += [self.rules.character(table.fill).id] * max(0, to_deal - len(deck))
                    self.rng.shuffle(deck)
                    chars_taken = []
                p = replace(p, character=deck.pop())
                to_deal -= 1
            out.append(p)
        self.sync_rng()
        return out

    def _size_deck(self, deck: Any, n: int, assigned: list[str]) -> list[str]:
        """The cards of ``deck`` filled up to ``n`` seats with the table's ``fill``, less the
        roles the GM assigned (a card each; beyond the deck's cards, a fill card)."""
        cards = sorted(rid for rid, k in deck.cards.items() for _ in range(k))
        fill = self.rules.table.fill
        if len(cards) > n or (len(cards) < n and not fill):
            raise GameError(f"the deal for up to {deck.upto} seats does not fit {n} players")
        cards += [fill] * (n - len(cards))
        for rid in assigned:
            if rid in cards:
                cards.remove(rid)
            elif fill in cards:
                cards.remove(fill)
        return sorted(cards)

    def practice_table(self) -> bool:
        """The GM's setting ``practice_table``: a table below the book's minimum
        (``table.practice_min`` … ``table.min - 1`` seats). Only ``true`` or ``false``, and only
        where the ruleset has a practice table."""
        value = self.state.settings.get("practice_table", False)
        if not isinstance(value, bool):
            raise GameError(f"setting practice_table={value!r}: use true or false")
        if value and self.rules.table.practice_min is None:
            raise GameError(f"{self.rules.id} has no practice table (setting practice_table)")
        return value

    def _apply_passive_modifiers(self) -> None:
        for p in self.state.players:
            for src in self.sources(p):
                for pas in src.passives:
                    if pas.kind == "hidden_bonus":
                        self._hidden_bonus(p, pas.params)

    def _hidden_bonus(self, p: Player, params: dict[str, Any]) -> None:
        stat, source = params.get("stat"), "passive"
        if stat is None:  # a bonus whose stat the player picks at the start (Стратег): see choose_bonus
            picks = self.state.settings.get("hidden_bonus_choice", {})
            stat, source = picks.get(p.name) or params["choices"][0], "choice"
        p.modifiers.append(Modifier(stat=self.rules.stat(stat).id, amount=int(params["amount"]), source=source, scope=params.get("scope", "all")))

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
        chosen = str(p.pid) in self.state.memo.get("bonus_choice", {}) or p.name in self.state.settings.get("hidden_bonus_choice", {})
        return {"choices": choices, "amount": int(params["amount"]), "stat": mod.stat if mod else choices[0], "chosen": chosen,
                "open": self.state.tick == 0 and not self.state.over, "modifier": mod}

    def choose_bonus(self, pid: int, stat: str) -> str:
        """The player picks (or changes) the stat of their hidden bonus; refused after the first resolve."""
        p = self.player(pid)
        if self.state.over:
            raise ActionError("game_over")
        ch = self.bonus_choice(p)
        if ch is None or ch["modifier"] is None:
            raise ActionError("no_bonus_choice")
        if not ch["open"]:
            raise ActionError("bonus_locked")
        sid = next((s.id for s in self.rules.stats if stat in (s.id, s.abbr.ru, s.abbr.en)), None)
        if sid not in ch["choices"]:
            raise ActionError("bad_bonus_stat", stats=ch["choices"])
        ch["modifier"].stat = sid
        self.state.memo.setdefault("bonus_choice", {})[str(pid)] = sid
        self.emit("private.bonus_chosen", "players", [pid], stat=sid, amount=ch["amount"])
        self.emit("gm.bonus_chosen", "gm", player=pid, stat=sid, amount=ch["amount"])
        return sid

    def sync_rng(self) -> None:
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
        out = [self.rules.role(p.role)]
        if p.character:
            out.append(self.rules.character(p.character))
        return out

    def passives(self, p: Player, kind: str) -> list[dict[str, Any]]:
        out = [pas.params for src in self.sources(p) for pas in src.passives if pas.kind == kind]
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
        out = []
        for sid in p.statuses:
            if self.active(p, sid):
                try:
                    out.append(self.rules.status(sid))
                except KeyError:
                    continue
        return out

    def secret_unreachable(self, p: Player, tick: int | None = None) -> str | None:
        """The first secret status of ``p`` that keeps everyone from acting on them (seed 000's
        ``absent``), or None. No refusal tells it: an action aimed at ``p`` is accepted and fails
        at the resolve the way a blocked one does."""
        for sid in sorted(p.statuses):
            if not self.active(p, sid, tick):
                continue
            try:
                f = self.rules.status(sid)
            except KeyError:
                continue
            if not f.public and not f.can_be_targeted:
                return f.id
        return None

    def cut_off_secretly(self, p: Player) -> bool:
        """Whether a secret status cuts ``p`` off from messages (seed 000's ``absent``): a PM to
        them is accepted and waits for their return (a refusal would tell the status)."""
        return any(not f.can_communicate and not f.public for f in self.status_flags(p))

    def alive(self, p: Player) -> bool:
        return not any(s.dead or s.out_of_play for s in self.status_flags(p))

    def living(self) -> list[Player]:
        return [p for p in self.state.players if self.alive(p)]

    def factions_of(self, pid: int) -> list[Faction]:
        return [f for f in self.state.factions.values() if pid in f.members]

    def faction_of(self, pid: int) -> Faction | None:
        fs = self.factions_of(pid)
        return fs[0] if fs else None

    def faction_bonus(self, p: Player, stat: str) -> int:
        fr = self.rules.factions
        if not fr.enabled or fr.bonus_stat != stat:
            return 0
        best = 0
        for f in self.factions_of(p.pid):
            total = sum(self.state.players[m].stats.get(stat, 0) for m in f.members)
            bonus = int(total / fr.bonus_step) if fr.bonus_negative else max(0, total // fr.bonus_step)
            best = max(best, bonus) if not fr.bonus_negative else bonus
        return best

    def true_stat(self, p: Player, stat: str, purpose: str = "all") -> int:
        """The stat with every hidden bonus: what the player knows of themselves."""
        value = p.stats.get(stat, 0) + self.faction_bonus(p, stat)
        for m in p.modifiers:
            if m.stat == stat and (m.until is None or m.until > self.state.tick) and m.scope in ("all", purpose):
                value += m.amount
        for flag in self.status_flags(p):
            value += flag.stat_modifiers.get(stat, 0)
        return value

    def visible_stats(self, p: Player, viewer: int | None) -> dict[str, int]:
        """What ``viewer`` (a pid, or None for the public) may read of ``p``'s stats."""
        out = {}
        for s in self.rules.stats:
            if s.visibility == "public":
                out[s.id] = self.true_stat(p, s.id) if viewer == p.pid else p.stats[s.id]
            elif s.visibility == "secret" and viewer == p.pid:
                out[s.id] = self.true_stat(p, s.id)
        return out

    def emit(self, key: str, audience: str = "gm", ids: list[Any] | None = None, **args: Any) -> Event:
        ev = Event(tick=self.state.tick, key=key, args=args, audience=audience, ids=list(ids or []))
        self.state.events.append(ev)
        return ev

    def next_seq(self) -> int:
        self.state.seq += 1
        return self.state.seq

    # ---- abilities ------------------------------------------------------------------
    def abilities(self, p: Player, granted: bool = True) -> list[tuple[str, AbilityDef]]:
        """A player's own abilities, then those other abilities granted them for a while."""
        out = []
        for kind, src in zip(("role", "character"), self.sources(p), strict=False):
            for ab in src.abilities:
                out.append((f"{kind}:{src.id}:{ab.id}", ab))
        if granted:
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
        """Any ability of the ruleset by its key ``role|character:<source id>:<ability id>``."""
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

    def find_ability(self, p: Player, ref: str, via: str | None = None) -> str:
        """An ability key from its key, id, name (ru/en) or, when unambiguous, its slot."""
        if via == "leader":
            if not any(f.leader == p.pid for f in self.factions_of(p.pid)):
                raise ActionError("not_leader")
            own = [(k, self.ability_def(k)) for k in self.leader_keys(p)]
        elif via not in self.VIAS:
            own = [(k, self.ability_def(k)) for k in self.borrow_keys(p, via)]
        else:
            own = self.abilities(p)
        for k, ab in own:
            if ref in (k, ab.id, ab.name.ru, ab.name.en):
                return k
        try:
            slot = self.rules.slot(ref)
        except KeyError:
            slot = None
        if slot:
            hits = [k for k, ab in own if ab.slot == slot.id]
            if len(hits) == 1:
                return hits[0]
            if len(hits) > 1:
                # the one usable in this phase, if only one is
                kind = self.info.kind
                now = [k for k, ab in own if ab.slot == slot.id and self.rules.slot(ab.slot).phase in (kind, "any")]
                if len(now) == 1:
                    return now[0]
        raise ActionError("unknown_ability", ability=ref)

    def slot_of(self, ab: AbilityDef) -> SlotDef:
        return self.rules.slot(ab.slot)

    def counts_as_action(self, ab: AbilityDef) -> bool:
        return ab.counts_as_action if ab.counts_as_action is not None else self.slot_of(ab).counts_as_action

    def lane_of(self, key: str, ab: AbilityDef) -> str:
        if ab.lane:  # abilities that exclude each other in a turn (seed 003)
            return f"lane:{ab.lane}"
        return "action" if self.counts_as_action(ab) else f"free:{key}"

    def cooldown_ticks(self, ab: AbilityDef) -> int:
        cyc = ab.cooldown_cycles if ab.cooldown_cycles is not None else self.slot_of(ab).cooldown_cycles
        return self.clock.cycles(cyc)

    def _meets(self, p: Player, req: Requirement) -> ActionError | None:
        if req.in_faction is True and not self.factions_of(p.pid):
            return ActionError("not_in_faction")
        if req.in_faction is False and self.factions_of(p.pid):
            return ActionError("in_faction")
        if req.stat:
            sid = self.rules.stat(req.stat).id
            have = self.true_stat(p, sid, "thresholds") if self.rules.thresholds_read == "true" else p.stats[sid]
            if req.at_least is not None and have < req.at_least:
                return ActionError("threshold_not_met", stat=sid, need=req.at_least)
            if req.below is not None and have >= req.below:
                return ActionError("threshold_not_met", stat=sid, need=req.below)
        for st in req.status:
            if not self.active(p, st):
                return ActionError("needs_status", status=st)
        for st in req.not_status:
            if self.active(p, st):
                return ActionError("has_status", status=st)
        return None

    # ---- ways to act ------------------------------------------------------------------
    # ``via`` says how an ability is used: None (one's own, or granted by an ability),
    # "leader" (the leader action: a member's ordinary action of the current kind, instead of
    # one's own, once a cycle, even on self, never blocked), "extra" (Хитрец: one more
    # ordinary action alongside any other), or the key of one's own *borrowing* ability
    # (``op: borrow``: «Ремонт каюты капитана», «Маскировка фракционного логова»): another
    # member's action performed through it, on its counters and on the borrowed one's.
    VIAS = (None, "leader", "extra")

    @staticmethod
    def borrow_params(ab: AbilityDef) -> dict[str, Any] | None:
        """``params`` of an ability that performs another player's action (``op: borrow``):
        ``slots`` the slots it may borrow, ``any_phase`` whether the borrowed action may be
        used outside its own phase."""
        for e in ab.effects:
            if e.op == "borrow":
                return dict(e.params)
        return None

    def borrowers(self, p: Player) -> list[str]:
        return [k for k, ab in self.abilities(p) if self.borrow_params(ab) is not None]

    def borrow_keys(self, p: Player, via: str | None) -> list[str]:
        """The actions ``p`` may perform through the borrowing ability ``via``: those of its
        slots that belong to the other members of p's factions (their own, not granted)."""
        if via not in self.borrowers(p):
            return []
        slots = set(self.borrow_params(self.ability_def(via)).get("slots", []))
        keys: list[str] = []
        for f in self.factions_of(p.pid):
            for m in sorted(f.members):
                if m == p.pid:
                    continue
                for k, ab in self.abilities(self.player(m), granted=False):
                    if ab.slot in slots and k not in keys:
                        keys.append(k)
        return keys

    def obligation(self, p: Player) -> dict[str, Any] | None:
        """What a blackmailed player («Шантаж») must do with the action of the bound turn, from
        an active ``obliged:*`` status: ``key`` the move to make, ``target`` the player it must
        be aimed at. A move that cannot be made now, or a target out of reach, binds nothing."""
        for sid in sorted(p.statuses):
            if not sid.startswith("obliged:") or not self.active(p, sid):
                continue
            data = dict(p.statuses[sid].data)
            x = data.get("target")
            if x is not None:
                t = self.player(x)
                if not self.alive(t) or any(not f.can_be_targeted and f.public for f in self.status_flags(t)):
                    data["target"] = None  # a secret status binds on: freeing the player would tell it
            if data.get("key"):
                try:
                    self.check_available(p, data["key"], unbound=True, borrowing=data["key"] in self.borrowers(p))
                except ActionError:
                    continue
            return data
        return None

    def submit_forced(self) -> None:
        """A blackmailed player who has not made the forced move by the last tick of the bound
        turn makes it now: at the blackmailer's target when it takes targets, the rest of the
        targets and an option from the game's generator (sorted first)."""
        tick = self.state.tick
        if self.state.over or not self.clock.is_turn_end(tick):
            return
        for p in self.living():
            ob = self.obligation(p)
            if not ob or not ob.get("force") or not ob.get("key"):
                continue
            if any(i.pid == p.pid and i.lane == "action" and i.tick == tick for i in self.state.intents):
                continue
            key = ob["key"]
            ab = self.ability_def(key)
            pool = sorted(t.pid for t in self.state.players if ab.targets and self._target_ok(p, ab, t) is None)
            x = ob.get("target")
            targets = [x] if ab.targets and x in pool else []
            rest = [t for t in pool if t not in targets]
            need = ab.targets - len(targets)
            try:
                if self.borrow_params(ab) is not None or need > len(rest):
                    raise ActionError("wrong_target_count", need=ab.targets)
                targets += self.rng.sample(rest, need) if need else []
                option = self.rng.choice(sorted(ab.options)) if ab.options else None
                self.submit(p.pid, key, targets, option)
            except ActionError:
                self.emit("gm.forced_lapsed", "gm", player=p.pid, ability=key)
                continue
            self.emit("gm.forced_action", "gm", player=p.pid, ability=key, targets=targets)
            self.emit("private.forced_action", "players", [p.pid], ability=key, targets=targets)
        self.sync_rng()

    def end_now_requested(self) -> bool:
        """True while an ability that ends the turn at once («Спровоцировать бунт») has cut the
        current day or night short: the scheduler resolves the current tick now, and each
        remaining tick of that turn right after it (nobody can act in them)."""
        e = self.state.memo.get("end_now")
        return bool(e) and self.state.tick <= e["last"]

    def phase_cut(self) -> bool:
        e = self.state.memo.get("end_now")
        return bool(e) and e["tick"] < self.state.tick <= e["last"]

    def _request_end_now(self, p: Player, intent: Intent, ab: AbilityDef) -> None:
        from .resolver import blocked_by_status

        tick = self.state.tick
        if blocked_by_status(self, p, intent.ability, ab.slot, tick):
            return  # a block already in force when it is announced: the announcement has no force
        if self.state.memo.get("end_now", {}).get("tick") == tick:
            return  # ended already
        last = tick
        while self.clock.info(last + 1).turn == self.clock.info(tick).turn:
            last += 1
        self.state.memo["end_now"] = {"seq": intent.seq, "by": p.pid, "tick": tick, "last": last}
        self.emit("phase.end_now", "gm", by=p.pid, phase=self.info.turn)

    def leader_keys(self, p: Player) -> list[str]:
        keys: list[str] = []
        slots = set(self.rules.settings.get("leader_slots", ["day", "night"]))
        for f in self.factions_of(p.pid):
            if f.leader != p.pid:
                continue
            for m in sorted(f.members):
                for k, ab in self.abilities(self.player(m), granted=False):
                    if ab.slot in slots and k.startswith("role:") and k not in keys:
                        keys.append(k)
        return keys

    def extra_slots(self, p: Player) -> set[str]:
        return {s for x in self.passives(p, "extra_action") for s in x.get("slots", [])}

    def lane_for(self, key: str, ab: AbilityDef, via: str | None) -> str:
        if via == "extra":
            return "extra"
        if via is not None:  # the leader action, or an action performed through another
            return "action"
        return self.lane_of(key, ab)

    def _ability_via(self, p: Player, key: str, via: str | None) -> AbilityDef:
        if via not in self.VIAS:
            if via not in self.borrowers(p):
                raise ActionError("unknown_ability", ability=via)
            if key not in self.borrow_keys(p, via):
                raise ActionError("not_borrowable", ability=key)
            return self.ability_def(key)
        if via == "leader":
            if key not in self.leader_keys(p):
                raise ActionError("not_leader")
            return self.ability_def(key)
        ab = self.ability(p, key)
        if via == "extra" and ab.slot not in self.extra_slots(p):
            raise ActionError("no_extra_action")
        return ab

    def check_available(self, p: Player, key: str, via: str | None = None, *, unbound: bool = False, borrowing: bool = False) -> AbilityDef:
        """Raise unless ``p`` may use ability ``key`` now (targets aside).

        ``unbound``: leave a blackmail obligation aside; ``borrowing``: ``key`` is a borrowing
        ability checked for use through it (never usable on its own)."""
        st = self.state
        if st.over:
            raise ActionError("game_over")
        if not self.alive(p):
            raise ActionError("not_alive")
        if self.phase_cut():
            raise ActionError("phase_ended")
        ab = self._ability_via(p, key, via)
        borrow = via not in self.VIAS
        if borrow:
            self.check_available(p, via, unbound=True, borrowing=True)
        elif via is None and not borrowing and self.borrow_params(ab) is not None:
            raise ActionError("borrow_needs_choice", ability=key)
        slot = self.slot_of(ab)
        info = self.info
        any_phase = borrow and self.borrow_params(self.ability_def(via)).get("any_phase")
        if slot.phase != "any" and slot.phase != info.kind and not any_phase:
            raise ActionError("wrong_phase", ability=key, phase=slot.phase)
        for flag in self.status_flags(p):
            forbids = "*" in flag.blocks_slots or slot.id in flag.blocks_slots
            if forbids and not self.passives(p, f"acts_in_{flag.id}"):
                raise ActionError("status_forbids", status=flag.id)
        if key in p.forbidden and via != "leader":
            raise ActionError("ability_forbidden", ability=key)
        lane = self.lane_for(key, ab, via)
        spent = p.spent.get(info.turn, [])
        if lane in spent:
            raise ActionError("turn_used")
        for i in st.intents:  # an irrevocable submission («в любой момент») holds its lane
            if i.pid == p.pid and i.lane == lane and self.ability_def(i.ability).irrevocable:
                raise ActionError("irrevocable", ability=i.ability)
        cut = st.memo.get("end_now")
        if cut and cut["tick"] == st.tick and cut["by"] == p.pid and lane == "action":
            raise ActionError("turn_used")  # the riot that ended this turn cannot be taken back
        ob = self.obligation(p) if lane == "action" and not unbound else None
        if ob:
            forced = ob.get("key")
            if forced and not ((key == forced and via is None) or via == forced):
                raise ActionError("blackmailed", ability=forced)
            if ob.get("target") is not None and ab.targets == 0:
                raise ActionError("blackmailed_target", target=ob["target"])
        if via == "leader":
            ready = p.ready_at.get("leader")
            if ready is not None and st.tick < ready:
                raise ActionError("cooldown", ability="leader", ready=self.clock.info(ready).label)
            return ab
        for req in [*slot.requires, *ab.requires]:
            err = self._meets(p, req)
            if err:
                raise err
        ready = p.ready_at.get(key)
        if ready is not None and st.tick < ready:
            raise ActionError("cooldown", ability=key, ready=self.clock.info(ready).label)
        if ab.uses_per_game is not None and p.uses.get(key, 0) >= ab.uses_per_game:
            raise ActionError("no_uses_left", ability=key)
        if ab.checks:
            err = self.run_checks(p, ab, None, None)
            if err:
                raise err
        return ab

    def run_checks(self, p: Player, ab: AbilityDef, targets: list[int] | None, option: str | None) -> ActionError | None:
        """The ability's registered checks (``AbilityDef.checks``): the first refusal, or None."""
        from .registry import CHECKS

        for c in ab.checks:
            err = CHECKS[c.kind](self, p, ab, c.params, targets, option)
            if err is not None:
                return err
        return None

    def _target_ok(self, p: Player, ab: AbilityDef, t: Player, via: str | None = None, *, unbound: bool = False) -> ActionError | None:
        self_ok = ab.self_target if ab.self_target is not None else self.slot_of(ab).self_target
        if t.pid == p.pid and not self_ok and via != "leader":
            return ActionError("self_target")
        if ab.dead_targets:  # an ability aimed at the dead only
            if self.alive(t):
                return ActionError("illegal_target", target=t.pid)
        elif not self.alive(t):
            return ActionError("target_not_alive", target=t.pid)
        # only a public status refuses: a secret one (seed 000's absent) would be told by the
        # refusal; such a target is accepted and the action fails at the resolve (resolver)
        if any(not f.can_be_targeted and f.public for f in self.status_flags(t)):
            return ActionError("target_unreachable", target=t.pid)
        if ab.target_where and not self.matches(t, ab.target_where, actor=p.pid):
            return ActionError("illegal_target", target=t.pid)
        if t.pid != p.pid and (t.grants or {t.role, t.character} & self._untargetable) and any(
            ab.slot in x.get("slots", []) or set(ab.labels) & set(x.get("labels", [])) for x in self.passives(t, "untargetable")
        ):
            return ActionError("illegal_target", target=t.pid)
        if ab.checks:
            err = self.run_checks(p, ab, [t.pid], None)
            if err:
                return err
        if ab.once_per == "target" and p.uses.get(f"once:{ab.id}:{t.pid}"):
            return ActionError("once_per_target", target=t.pid)
        x = None if unbound else self._bound_target(p, ab, via)
        if x is not None and ab.targets == 1 and t.pid != x:
            return ActionError("blackmailed_target", target=x)
        return None

    def _bound_target(self, p: Player, ab: AbilityDef, via: str | None) -> int | None:
        """The player a blackmailed player's action must be aimed at, if this action can be."""
        if via == "extra" or not self.counts_as_action(ab):
            return None
        ob = self.obligation(p)
        x = ob.get("target") if ob else None
        if x is None or self._target_ok(p, ab, self.player(x), via, unbound=True) is not None:
            return None
        return x

    def check_submission(self, p: Player, key: str, targets: list[int], option: str | None, via: str | None = None) -> AbilityDef:
        ab = self.check_available(p, key, via)
        if not ab.takes_targets(len(targets)):
            raise ActionError("wrong_target_count", need=ab.targets)
        if len(set(targets)) != len(targets) and not ab.repeat_targets:
            raise ActionError("duplicate_target")
        for t in targets:
            if not 0 <= t < len(self.state.players):
                raise ActionError("unknown_player")
            err = self._target_ok(p, ab, self.state.players[t], via)
            if err:
                raise err
        if ab.number is not None:
            lo, hi = ab.number.min, ab.number.max
            n = int(option) if isinstance(option, str) and option.lstrip("+").isascii() and option.lstrip("+").isdigit() else None
            if n is None or n < lo or (hi is not None and n > hi):
                raise ActionError("bad_number", min=lo, max=hi if hi is not None else "…")
            return ab
        if ab.options and option not in ab.options:
            raise ActionError("bad_option", options=list(ab.options))
        if not ab.options and option is not None:
            raise ActionError("bad_option", options=[])
        if ab.once_per == "target_option":
            for t in targets:
                if p.uses.get(f"once:{ab.id}:{t}:{option}"):
                    raise ActionError("once_per_target", target=t)
        if ab.checks:
            err = self.run_checks(p, ab, list(targets), option)
            if err:
                raise err
        return ab

    def legal_actions(self, pid: int) -> list[LegalAction]:
        """What ``pid`` may do now and on whom: the same checks as :meth:`submit`."""
        p = self.player(pid)
        out = []
        ways: list[tuple[str, str | None]] = [(k, None) for k, _ in self.abilities(p)]
        ways += [(k, "leader") for k in self.leader_keys(p)]
        ways += [(k, "extra") for k, ab in self.abilities(p) if ab.slot in self.extra_slots(p)]
        ways += [(k, b) for b in self.borrowers(p) for k in self.borrow_keys(p, b)]
        for key, via in ways:
            try:
                ab = self.check_available(p, key, via)
            except ActionError:
                continue
            targets = [t.pid for t in self.state.players if ab.targets and self._target_ok(p, ab, t, via) is None]
            if ab.targets and len(targets) < ab.targets:
                continue
            options = [o for o in ab.options if not ab.checks or self.run_checks(p, ab, None, o) is None]
            if ab.options and not options:
                continue
            out.append(LegalAction(key=key, ability=ab, targets=targets, options=options, via=via))
        return out

    def matches(self, t: Player, sel: Selector, stats: dict[str, int] | None = None, actor: int | None = None) -> bool:
        """Whether ``t`` fits ``sel``; ``stats`` stands in for ``t``'s current base stats."""
        if sel.status and not self.active(t, sel.status):
            return False
        if sel.not_status and self.active(t, sel.not_status):
            return False
        if sel.faction:
            mine = {f.fid for f in self.factions_of(actor)} if actor is not None else set()
            theirs = {f.fid for f in self.factions_of(t.pid)}
            ok = {
                "same": bool(mine & theirs),
                "other": not (mine & theirs),
                "any_faction": bool(theirs),
                "none": not theirs,
            }[sel.faction]
            if not ok:
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

    # ---- submissions ----------------------------------------------------------------
    def submit(self, pid: int, ability: str, targets: list[int] | None = None, option: str | None = None, via: str | None = None,
               *, by: int | None = None, tick: int | None = None) -> Intent:
        """Submit or replace an action. Raises :class:`ActionError` when refused.

        ``by``: a teammate gives ``pid``'s action (``FactionRules.orders``); it never replaces
        what the player submitted themself, and the player's own submission replaces it.
        ``tick``: an order for a later phase, checked when that phase resolves."""
        p = self.player(pid)
        by = None if by == pid else by
        if by is not None:
            self._check_order(by, p)
        if tick is not None and tick != self.state.tick:
            return self._order_ahead(p, ability, list(targets or []), option, by, tick)
        if via not in self.VIAS:  # a borrowing ability, by key or name
            via = self.find_ability(p, via)
            if via not in self.borrowers(p):
                raise ActionError("unknown_ability", ability=via)
        key = self.find_ability(p, ability, via)
        targets = list(targets or [])
        ab = self.check_submission(p, key, targets, option, via)
        x = self._bound_target(p, ab, via)
        if x is not None and ab.targets > 1 and x not in targets:
            targets = [x, *targets[1:]]  # blackmailed: one of the targets is the one imposed
        lane = self.lane_for(key, ab, via)
        mine = [i for i in self.state.intents if i.pid == pid and i.lane == lane and i.tick == self.state.tick]
        if by is not None and any(i.by is None for i in mine):
            raise ActionError("own_action")
        self.state.intents = [i for i in self.state.intents if not (i.pid == pid and i.lane == lane and i.tick == self.state.tick)]
        intent = Intent(seq=self.next_seq(), pid=pid, ability=key, targets=targets, option=option, tick=self.state.tick, lane=lane, via=via, by=by)
        self.state.intents.append(intent)
        if any(e.op == "end_phase" for e in ab.all_effects(option)):
            self._request_end_now(p, intent, ab)
        return intent

    def _check_order(self, by: int, p: Player) -> None:
        if not self.rules.factions.orders:
            raise ActionError("orders_not_allowed")
        if self.state.over:
            raise ActionError("game_over")
        if not self.alive(self.player(by)):
            raise ActionError("not_alive")
        if not {f.fid for f in self.factions_of(by)} & {f.fid for f in self.factions_of(p.pid)}:
            raise ActionError("not_teammate", target=p.pid)

    def _order_ahead(self, p: Player, ability: str, targets: list[int], option: str | None, by: int | None, tick: int) -> Intent:
        """An order for a later phase: its shape is checked now, the rest when it resolves."""
        if by is None or tick < self.state.tick:
            raise ActionError("wrong_phase", ability=ability, phase=self.clock.info(max(tick, 0)).kind)
        key = self.find_ability(p, ability)
        ab = self.ability_def(key)
        kind = self.clock.info(tick).kind
        if self.slot_of(ab).phase not in (kind, "any"):
            raise ActionError("wrong_phase", ability=key, phase=self.slot_of(ab).phase)
        if not ab.takes_targets(len(targets)):
            raise ActionError("wrong_target_count", need=ab.targets)
        if len(set(targets)) != len(targets) and not ab.repeat_targets:
            raise ActionError("duplicate_target")
        if any(not 0 <= t < len(self.state.players) for t in targets):
            raise ActionError("unknown_player")
        if ab.options and option not in ab.options:
            raise ActionError("bad_option", options=list(ab.options))
        lane = self.lane_of(key, ab)
        self.state.intents = [i for i in self.state.intents if not (i.pid == p.pid and i.lane == lane and i.tick == tick)]
        intent = Intent(seq=self.next_seq(), pid=p.pid, ability=key, targets=targets, option=option, tick=tick, lane=lane, by=by)
        self.state.intents.append(intent)
        return intent

    def settle_orders(self) -> None:
        """The orders given for this tick are checked as if their actor submitted them now; one
        that no longer holds (the actor is in hospital, the target died) lapses, and the
        teammate who gave it is told."""
        tick = self.state.tick
        for i in [i for i in self.state.intents if i.tick == tick and i.by is not None]:
            self.state.intents.remove(i)
            try:
                self.check_submission(self.player(i.pid), i.ability, list(i.targets), i.option, i.via)
            except ActionError as err:
                self.emit("gm.order_lapsed", "gm", player=i.pid, by=i.by, ability=i.ability, reason=err.key)
                self.emit("private.order_lapsed", "players", [i.by], player=i.pid, ability=i.ability)
                continue
            self.state.intents.append(i)

    def cancel(self, pid: int, lane: str = "action") -> bool:
        cut = self.state.memo.get("end_now")
        if cut and cut["tick"] == self.state.tick and cut["by"] == pid and lane == "action":
            return False  # a riot that ended the turn cannot be taken back
        before = len(self.state.intents)
        self.state.intents = [
            i for i in self.state.intents if not (i.pid == pid and i.lane == lane and not self.ability_def(i.ability).irrevocable)
        ]
        return len(self.state.intents) != before

    def pending(self, pid: int) -> list[Intent]:
        return [i for i in self.state.intents if i.pid == pid]

    # ---- votes ----------------------------------------------------------------------
    def open_votes(self) -> list[Any]:
        kind = self.info.kind
        steps = {s.id for s in self.rules.steps.get(kind, [])}
        return [v for v in self.rules.votes if v.step in steps and self._vote_open(v)]

    def _vote_open(self, v: Any) -> bool:
        from .registry import VOTES

        checker = VOTES[v.kind]
        return checker.is_open(self, v) if hasattr(checker, "is_open") else True

    def vote(self, pid: int, vote_id: str, choice: int | str | None) -> Vote:
        from .registry import VOTES

        p = self.player(pid)
        if self.state.over:
            raise ActionError("game_over")
        votes = [v for v in self.open_votes() if v.id == vote_id]
        if not votes or self.phase_cut():
            raise ActionError("vote_closed", vote=vote_id)
        vdef = votes[0]
        if not self.alive(p) or any(not f.can_vote for f in self.status_flags(p)):
            raise ActionError("cannot_vote")
        VOTES[vdef.kind].check_choice(self, vdef, p, choice)
        existing = [v for v in self.state.votes if v.pid == pid and v.vote == vote_id]
        if existing and existing[0].choice == choice:
            return existing[0]  # the same ballot again is not a change: nothing is spent
        if existing:
            limit = vdef.params.get("changes")
            per_game = vdef.params.get("changes_per_game")
            used = f"vote_change:{vote_id}"
            if limit is not None and existing[0].changes >= limit:
                raise ActionError("vote_change_limit")
            if per_game is not None and p.uses.get(used, 0) >= per_game:
                raise ActionError("vote_change_limit")
            existing[0].choice = choice
            existing[0].changes += 1
            if per_game is not None:
                p.uses[used] = p.uses.get(used, 0) + 1
            return existing[0]
        v = Vote(vote=vote_id, pid=pid, choice=choice)
        self.state.votes.append(v)
        hook = getattr(VOTES[vdef.kind], "on_ballot", None)
        if hook:  # a vote that reads something at the moment of voting (seed 001: the voter's ТВ)
            hook(self, vdef, v)
        return v

    # ---- messages -------------------------------------------------------------------
    def pm_quota(self, p: Player) -> int | None:
        base = self.rules.quotas.pm_per_day
        if base is None:
            return None
        return base + sum(int(x.get("extra", 0)) for x in self.passives(p, "pm_quota"))

    def send_pm(self, sender: int, recipient: int, text: str) -> Pm:
        p, r = self.player(sender), self.player(recipient)
        if self.state.over:
            raise ActionError("game_over")
        if self.rules.mail:  # the ruleset's own mail (seed 003: anonymous letters, prison notes)
            from .registry import MAIL

            return MAIL[self.rules.mail].send(self, p, r, text)
        if self.rules.quotas.pm_per_day == 0:
            raise ActionError("pm_not_allowed")
        if not self.alive(p):
            raise ActionError("not_alive")
        if not self.alive(r):
            raise ActionError("target_not_alive", target=recipient)
        if sender == recipient:
            raise ActionError("self_target")
        if self.active(p, "no_pm"):
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
            self.state.memo.setdefault(PM_WAITING, []).append({"sender": sender, "recipient": recipient, "text": text})
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
            from .registry import MAIL

            return MAIL[self.rules.mail].post(self, p, text)
        if not self.alive(p):
            raise ActionError("not_alive")
        self._check_communicates(p)
        if not text.strip():
            raise ActionError("empty_message")
        base = self.rules.quotas.anon_per_day
        if base is not None:
            quota = base + sum(int(x.get("extra", 0)) for x in self.passives(p, "anon_quota"))
            day = str(self.info.day)
            if p.anon_sent.get(day, 0) >= quota:
                raise ActionError("anon_quota", quota=quota)
            p.anon_sent[day] = p.anon_sent.get(day, 0) + 1
        a = Anon(seq=self.next_seq(), pid=pid, text=text, tick=self.state.tick)
        self.state.anons.append(a)
        self.emit("gm.anon_queued", "gm", player=pid, text=text, seq=a.seq)  # the GM may refuse it (gm_refuse_anon)
        return a

    # ---- factions -------------------------------------------------------------------
    def faction_op(self, pid: int, op: str, target: int | None = None, fid: str | None = None) -> FactionOp:
        from .factions import check_op

        check_op(self, self.player(pid), op, target, fid)
        o = FactionOp(seq=self.next_seq(), op=op, pid=pid, target=target, fid=fid, tick=self.state.tick)
        self.state.faction_ops.append(o)
        return o

    # ---- GM operations --------------------------------------------------------------
    def gm_set_stat(self, pid: int, stat: str, value: int) -> None:
        p = self.player(pid)
        sid = self.rules.stat(stat).id
        old = p.stats[sid]
        p.stats[sid] = value
        self.emit("gm.set_stat", "gm", player=pid, stat=sid, old=old, new=value)
        sdef = self.rules.stat(sid)
        if sdef.visibility == "public":
            self.emit("report.stat", "public", player=pid, stat=sid, delta=value - old, value=value)
        elif sdef.visibility == "secret":
            self.emit("private.stat", "players", [pid], stat=sid, delta=value - old, value=self.true_stat(p, sid))
        self._apply_bands()

    def gm_set_status(self, pid: int, status: str, cycles: int | None = None) -> None:
        p = self.player(pid)
        sdef = self.rules.status(status)
        # set between resolves, it is in force at once, for this period's resolve too: it counts
        # as if it had taken hold at the previous resolve, so it covers as many resolves as an
        # action's «на сутки» and never outlasts the GM's n × 24 hours (docs/rules/godfather.md)
        until = self.clock.lasts_until(self.state.tick - 1, cycles) if cycles else None
        p.statuses[sdef.id] = Status(id=sdef.id, since=self.state.tick, until=until)
        for sid in sdef.clears:
            p.statuses.pop(sid, None)
        self.emit("gm.set_status", "gm", player=pid, status=sdef.id)
        self.emit("report.status_on", "public" if sdef.public else "players", [] if sdef.public else [pid], player=pid, status=sdef.id)

    def gm_clear_status(self, pid: int, status: str) -> None:
        p = self.player(pid)
        sdef = self.rules.status(status)
        if p.statuses.pop(sdef.id, None) is not None:
            self.emit("gm.clear_status", "gm", player=pid, status=sdef.id)
            self.emit("report.status_off", "public" if sdef.public else "players", [] if sdef.public else [pid], player=pid, status=sdef.id)

    def gm_message(self, pid: int, text: str) -> None:
        if any(f.messages == "hold" for f in self.status_flags(self.player(pid))):  # seed 002's coma
            self.state.held.setdefault(str(pid), []).append({"key": "gm.message", "args": {"text": text}})
            self.emit("gm.message_held", "gm", player=pid)
            return
        self.emit("gm.message", "players", [pid], text=text)

    def gm_refuse_anon(self, seq: int) -> Anon:
        """«При несоответствии ведущий может отказать»: a queued anonymous post is dropped and
        its author told. It gives the day's quota back unless ``refused_anon_spends``."""
        if self.state.over:
            raise ActionError("game_over")
        a = next((a for a in self.state.anons if a.seq == seq), None)
        if a is None:
            published = any(x.get("seq") == seq for x in self.state.memo.get("anons", []))
            raise ActionError("anon_published" if published else "unknown_anon", seq=seq)
        self.state.anons.remove(a)
        spends = bool(self.state.settings.get("refused_anon_spends", False))
        p, day = self.player(a.pid), str(self.clock.info(a.tick).day)
        if not spends and p.anon_sent.get(day):
            p.anon_sent[day] -= 1
        self.emit("gm.anon_refused", "gm", player=a.pid, text=a.text)
        self.emit("private.anon_refused_spent" if spends else "private.anon_refused", "players", [a.pid], text=a.text)
        return a

    def gm_set_end_day(self, day: int) -> None:
        cal = self.rules.calendar
        if not cal.min_days <= day <= cal.max_days or self.clock.cycles(day) <= self.state.tick:
            raise ActionError("bad_end_day", day=day)
        old, self.state.end_day = self.state.end_day, day
        self.emit("gm.end_day", "gm", old=old, new=day)

    def gm_settle_task(self, index: int, note: str = "") -> None:
        task = self.state.gm_tasks[index]
        task["settled"] = note or True
        self.emit("gm.task_settled", "gm", index=index)

    # ---- resolution -----------------------------------------------------------------
    def resolve(self) -> list[Event]:
        """Resolve the current tick; returns the events it produced."""
        from .resolver import resolve_tick

        return resolve_tick(self)

    def _apply_bands(self) -> None:
        from .resolver import apply_bands

        apply_bands(self, announce=False)

    # ---- persistence ----------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        self.sync_rng()
        return self.state.to_dict()

    @classmethod
    def from_dict(cls, ruleset: Ruleset, data: dict[str, Any]) -> Game:
        return cls(ruleset, GameState.from_dict(data))
