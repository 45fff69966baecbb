"""Legality: may this player use this ability now, on whom, with which option or number.

The one place both a submission (:meth:`engine.game.Game.submit`) and the lists of what a
player may do (:meth:`Legality.legal_actions`, the bot's autocomplete) ask.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from .errors import ActionError
from .registry import CHECKS
from .ruleset import AbilityDef, SlotDef
from .state import VIAS, Player
from .votes import vote_choices
from .world import World, meets, off_limits

_ASK = object()  # _target_ok: work the blackmail binding out itself
_NONE_SPENT: frozenset[tuple[int, str]] = frozenset()


@dataclass(frozen=True)
class NumberRange:
    """The numbers an ability takes as its option (``AbilityDef.number``): ``min``, ``min +
    step`` … up to ``max`` (None: no upper bound). The one answer both a submission and the
    bot's suggestions read."""

    min: int
    max: int | None
    step: int = 1

    SUGGEST_SPAN = 1000  # how far past ``min`` suggestions of an unbounded range look

    @staticmethod
    def parse(option: Any) -> int | None:
        """The number written in ``option`` (ASCII digits after any ``+``), else None."""
        if not isinstance(option, str):
            return None
        digits = option.lstrip("+")
        return int(digits) if digits.isascii() and digits.isdigit() else None

    def accepts(self, option: Any) -> bool:
        n = self.parse(option)
        return n is not None and self.min <= n and (self.max is None or n <= self.max) and (n - self.min) % self.step == 0

    def error(self) -> ActionError:
        top = self.max if self.max is not None else "…"
        if self.step != 1:
            return ActionError("bad_number_step", min=self.min, max=top, step=self.step)
        return ActionError("bad_number", min=self.min, max=top)

    def suggestions(self, typed: str = "", limit: int = 25) -> list[str]:
        """Numbers to offer for what the player has typed so far: the typed number first when
        it is accepted, then the range's numbers beginning with it, in order; each accepted."""
        typed = typed.strip()
        out: list[str] = []
        if typed and self.accepts(typed):
            out.append(str(self.parse(typed)))
        top = self.max if self.max is not None else self.min + self.step * (self.SUGGEST_SPAN - 1)
        for n in range(self.min, top + 1, self.step):
            if len(out) >= limit:
                break
            v = str(n)
            if v.startswith(typed.lstrip("+")) and v not in out:
                out.append(v)
        return out[:limit]

    def pick(self, rnd: Any) -> str:
        """A random accepted number (an unbounded range: one of its first ten)."""
        if self.step == 1:  # the draw of old games, kept so that they replay the same
            return str(rnd.randint(self.min, self.max if self.max is not None else self.min + 9))
        top = self.max if self.max is not None else self.min + 9 * self.step
        return str(self.min + self.step * rnd.randint(0, (top - self.min) // self.step))


def number_range(ab: AbilityDef) -> NumberRange | None:
    """The numbers ``ab`` takes as its option, or None when it takes none."""
    num = ab.number
    return None if num is None else NumberRange(min=num.min, max=num.max, step=num.step)


@dataclass(frozen=True)
class LegalAction:
    key: str
    ability: AbilityDef
    targets: list[int]  # every player this ability may be aimed at now (empty: no target)
    options: list[str]
    via: str | None = None
    number: NumberRange | None = None  # the numbers it takes as its option, if it takes one
    lane: str | None = None  # the lane it fills this turn (``lane_for``): one move a lane
    # the (target, option) pairs among ``targets`` × ``options`` already used (``once_per:
    # target_option``: «не может увеличить один и тот же стат одному и тому же персонажу
    # дважды»); every target listed has at least one option left. Always empty on this class
    # (a class attribute): a field of :class:`LegalActionOnce` alone, so that every other legal
    # action is built as fast as before
    spent: ClassVar[frozenset[tuple[int, str]]] = _NONE_SPENT

    def options_for(self, targets: Any = ()) -> list[str]:
        """The options left for these targets: ``options`` but those already used on any of them."""
        if not self.spent or not targets:
            return self.options
        return [o for o in self.options if not any((t, o) in self.spent for t in targets)]

    def targets_for(self, option: str | None) -> list[int]:
        """The targets on which ``option`` is still left: ``targets`` but those it was used on."""
        if not self.spent or option is None:
            return self.targets
        return [t for t in self.targets if (t, option) not in self.spent]

    def any_option(self, rnd: Any, targets: Any = ()) -> str | None:
        """A legal choice (for ``targets``, when given): one of the options left, a number in
        range, or None."""
        if self.number is not None:
            return self.number.pick(rnd)
        options = self.options_for(targets)
        return rnd.choice(options) if options else None


@dataclass(frozen=True)
class LegalActionOnce(LegalAction):
    """A legal action of an ability used once per target and option, with the pairs used."""

    spent: frozenset[tuple[int, str]] = _NONE_SPENT  # type: ignore[misc]  # LegalAction.spent, as a field


class PlayerNow:
    """What :meth:`Legality.check_available` reads of one player in this period, found once
    for every way they may act (``legal_actions`` asks for all of them at once; nothing
    changes the game in between)."""

    __slots__ = ("info", "flags", "stops", "spent", "held", "riot", "_ob", "_lg", "_p")

    def __init__(self, lg: Legality, p: Player, flags: list[Any] | None = None) -> None:
        st = lg.world.state
        self.info = lg.world.info
        self.flags = lg.world.status_flags(p) if flags is None else flags
        # the statuses that forbid some slots and whose holder may not act in them anyway
        self.stops = [f for f in self.flags if f.blocks_slots and not lg.world.passives(p, f"acts_in_{f.id}")]
        self.spent = p.spent.get(self.info.turn, [])
        self.held: dict[str, str] = {}  # lane -> the first irrevocable submission holding it
        for i in st.intents:
            if i.pid == p.pid and i.lane not in self.held and lg.world.ability_def(i.ability).irrevocable:
                self.held[i.lane] = i.ability
        cut = st.core.end_now
        self.riot = bool(cut and cut.tick == st.tick and cut.by == p.pid)
        self._ob: Any = _ASK
        self._lg = lg
        self._p = p

    @property
    def obligation(self) -> dict[str, Any] | None:
        """:meth:`Legality.obligation` of the player, asked once."""
        if self._ob is _ASK:
            self._ob = self._lg.obligation(self._p)
        return self._ob


class Legality:
    """The checks of every way to act: one's own ability, the leader action, the extra action,
    an action performed through a borrowing ability; a job over one :class:`World`."""

    def __init__(self, world: World) -> None:
        self.world = world

    def find_ability(self, p: Player, ref: str, via: str | None = None) -> str:
        """An ability key from its key, id, name (ru/en) or, when unambiguous, its slot."""
        if via == "leader":
            if not any(f.leader == p.pid for f in self.world.factions_of(p.pid)):
                raise ActionError("not_leader")
            own = [(k, self.world.ability_def(k)) for k in self.leader_keys(p)]
        elif via not in self.VIAS:
            own = [(k, self.world.ability_def(k)) for k in self.borrow_keys(p, via)]
        else:
            own = self.world.abilities(p)
        for k, ab in own:
            if ref == k or ref == ab.id or ref == ab.name.ru or ref == ab.name.en:
                return k
        try:
            slot = self.world.rules.slot(ref)
        except KeyError:
            slot = None
        if slot:
            hits = [k for k, ab in own if ab.slot == slot.id]
            if len(hits) == 1:
                return hits[0]
            if len(hits) > 1:
                # the one usable in this phase, if only one is
                kind = self.world.info.kind
                now = [k for k, ab in own if ab.slot == slot.id and self.world.rules.slot(ab.slot).phase in (kind, "any")]
                if len(now) == 1:
                    return now[0]
        raise ActionError("unknown_ability", ability=ref)

    # ---- ways to act ------------------------------------------------------------------
    # ``via`` says how an ability is used: None (one's own, or granted by an ability),
    # "leader" (the leader action: a member's ordinary action of the current kind, instead of
    # one's own, once a cycle, even on self, never blocked), "extra" (Хитрец: one more
    # ordinary action alongside any other), or the key of one's own *borrowing* ability
    # (``op: borrow``: «Ремонт каюты капитана», «Маскировка фракционного логова»): another
    # member's action performed through it, on its counters and on the borrowed one's.
    VIAS = VIAS

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
        return [k for k, ab in self.world.abilities(p) if _way(self, k, ab)[2]]

    def borrow_keys(self, p: Player, via: str | None) -> list[str]:
        """The actions ``p`` may perform through the borrowing ability ``via``: those of its
        slots that belong to the other members of p's factions (their own, not granted)."""
        if via not in self.borrowers(p):
            return []
        slots = set(self.borrow_params(self.world.ability_def(via)).get("slots", []))
        keys: list[str] = []
        for f in self.world.factions_of(p.pid):
            for m in sorted(f.members):
                if m == p.pid:
                    continue
                for k, ab in self.world.abilities(self.world.player(m), granted=False):
                    if ab.slot in slots and k not in keys:
                        keys.append(k)
        return keys

    def obligation(self, p: Player) -> dict[str, Any] | None:
        """What a blackmailed player («Шантаж») must do with the action of the bound turn, from
        an active ``obliged:*`` status: ``key`` the move to make, ``target`` the player it must
        be aimed at. A move that cannot be made now, or a target out of reach, binds nothing."""
        for sid in sorted(p.statuses):
            if p.statuses[sid].kind != "obliged" or not self.world.active(p, sid):
                continue
            data = dict(p.statuses[sid].data)
            x = data.get("target")
            if x is not None:
                t = self.world.player(x)
                if not self.world.alive(t) or off_limits(self.world, t):
                    data["target"] = None  # a secret status binds on: freeing the player would tell it
            if data.get("key"):
                try:
                    self.check_available(p, data["key"], unbound=True, borrowing=data["key"] in self.borrowers(p))
                except ActionError:
                    continue
            return data
        return None

    def order_targets(self, pid: int) -> list[int]:
        """Whom ``pid`` may give an order for (``FactionRules.orders``): the living other
        members of their factions; nobody when the ruleset has no orders or ``pid`` is out."""
        if not self.world.rules.factions.orders or self.world.state.over or not self.world.alive(self.world.player(pid)):
            return []
        return self.world.teammates(pid, living=True)

    def leader_keys(self, p: Player) -> list[str]:
        keys: list[str] = []
        slots: set[str] | None = None
        for f in self.world.state.factions.values():
            if f.leader != p.pid or p.pid not in f.members:
                continue  # the factions p leads: few players lead one
            if slots is None:
                slots = set(self.world.settings.leader_slots)
            for m in sorted(f.members):
                for k, ab in self.world.abilities(self.world.player(m), granted=False):
                    if ab.slot in slots and k.startswith("role:") and k not in keys:
                        keys.append(k)
        return keys

    def extra_slots(self, p: Player) -> set[str]:
        return {s for x in self.world.passives(p, "extra_action") for s in x.get("slots", [])}

    def lane_for(self, key: str, ab: AbilityDef, via: str | None) -> str:
        if via == "extra":
            return "extra"
        if via is not None:  # the leader action, or an action performed through another
            return "action"
        return self.world.lane_of(key, ab)

    def _ability_via(self, p: Player, key: str, via: str | None) -> AbilityDef:
        if via not in self.VIAS:
            if via not in self.borrowers(p):
                raise ActionError("unknown_ability", ability=via)
            if key not in self.borrow_keys(p, via):
                raise ActionError("not_borrowable", ability=key)
            return self.world.ability_def(key)
        if via == "leader":
            if key not in self.leader_keys(p):
                raise ActionError("not_leader")
            return self.world.ability_def(key)
        ab = self.world.ability(p, key)
        if via == "extra" and ab.slot not in self.extra_slots(p):
            raise ActionError("no_extra_action")
        return ab

    def check_available(self, p: Player, key: str, via: str | None = None, *, unbound: bool = False, borrowing: bool = False,
                        known: AbilityDef | None = None, flags: list[Any] | None = None, now: PlayerNow | None = None) -> AbilityDef:
        """Raise unless ``p`` may use ability ``key`` now (targets aside).

        ``unbound``: leave a blackmail obligation aside; ``borrowing``: ``key`` is a borrowing
        ability checked for use through it (never usable on its own). ``known`` and ``now``
        (``legal_actions``, which asks for every way at once): the ability, already found to be
        the player's by that way with the game running and the player alive and free to act in
        this period, and :class:`PlayerNow` of the player (``flags``: their status flags)."""
        st = self.world.state
        if known is None:
            if st.over:
                raise ActionError("game_over")
            if not self.world.alive(p):
                raise ActionError("not_alive")
            if self.world.phase_cut():
                raise ActionError("phase_ended")
            ab = self._ability_via(p, key, via)
        else:
            ab = known
        borrow = via not in self.VIAS
        slot, own_lane, borrower = _way(self, key, ab)
        if borrow:
            self.check_available(p, via, unbound=True, borrowing=True)
        elif via is None and not borrowing and borrower:
            raise ActionError("borrow_needs_choice", ability=key)
        if now is None:
            now = PlayerNow(self, p, flags)
        any_phase = borrow and self.borrow_params(self.world.ability_def(via)).get("any_phase")
        if slot.phase != "any" and slot.phase != now.info.kind and not any_phase:
            raise ActionError("wrong_phase", ability=key, phase=slot.phase)
        for flag in now.stops:
            if "*" in flag.blocks_slots or slot.id in flag.blocks_slots:
                raise ActionError("status_forbids", status=flag.id)
        if key in p.forbidden and via != "leader":
            raise ActionError("ability_forbidden", ability=key)
        lane = own_lane if via is None else self.lane_for(key, ab, via)
        if lane in now.spent:
            raise ActionError("turn_used")
        held = now.held.get(lane)  # an irrevocable submission («в любой момент») holds its lane
        if held is not None:
            raise ActionError("irrevocable", ability=held)
        if now.riot and lane == "action":
            raise ActionError("turn_used")  # the riot that ended this turn cannot be taken back
        err = _refusal_after_lane(self, p, key, via, ab, slot, lane, now, unbound)
        if err is not None:
            raise err
        return ab

    def run_checks(self, p: Player, ab: AbilityDef, targets: list[int] | None, option: str | None) -> ActionError | None:
        """The ability's registered checks (``AbilityDef.checks``): the first refusal, or None."""
        for c in ab.checks:
            err = CHECKS[c.kind](self.world, p, ab, c.params, targets, option)
            if err is not None:
                return err
        return None

    def _target_facts(self, t: Player) -> tuple[bool, bool]:
        """(alive, publicly unreachable): what every ability asks of a target."""
        # only a public status refuses: a secret one (seed 000's absent) would be told by the
        # refusal; such a target is accepted and the action fails at the resolve (resolver)
        if not t.statuses:
            return True, False  # no status at all: alive, and nothing keeps anyone off
        return self.world.alive(t), off_limits(self.world, t)

    def _target_ok(self, p: Player, ab: AbilityDef, t: Player, via: str | None = None, *, unbound: bool = False,
                   facts: dict[int, tuple[bool, bool]] | None = None, bound: Any = _ASK) -> ActionError | None:
        """None when ``p`` may aim ``ab`` at ``t``, else the refusal. ``facts``: the targets'
        :meth:`_target_facts`, computed once for many abilities (``legal_actions``); ``bound``:
        :meth:`_bound_target` of ``(p, ab, via)``, computed once for every target."""
        self_ok = ab.self_target if ab.self_target is not None else self.world.slot_of(ab).self_target
        if t.pid == p.pid and not self_ok and via != "leader":
            return ActionError("self_target")
        alive, unreachable = facts[t.pid] if facts is not None else self._target_facts(t)
        if ab.dead_targets:  # an ability aimed at the dead only
            if alive:
                return ActionError("illegal_target", target=t.pid)
        elif not alive:
            return ActionError("target_not_alive", target=t.pid)
        if unreachable:
            return ActionError("target_unreachable", target=t.pid)
        if ab.target_where and not self.world.matches(t, ab.target_where, actor=p.pid):
            return ActionError("illegal_target", target=t.pid)
        if t.pid != p.pid and (t.grants or {t.role, t.character} & self.world._untargetable) and any(
            ab.slot in x.get("slots", []) or set(ab.labels) & set(x.get("labels", [])) for x in self.world.passives(t, "untargetable")
        ):
            return ActionError("illegal_target", target=t.pid)
        if ab.checks:
            err = self.run_checks(p, ab, [t.pid], None)
            if err:
                return err
        if ab.once_per:
            if ab.once_per == "target":
                if p.uses.get(f"once:{ab.id}:{t.pid}"):
                    return ActionError("once_per_target", target=t.pid)
            elif p.uses and ab.options and all(p.uses.get(f"once:{ab.id}:{t.pid}:{o}") for o in ab.options):
                return ActionError("once_per_target", target=t.pid)  # every option already used on this target
        x = None if unbound else (self._bound_target(p, ab, via) if bound is _ASK else bound)
        if x is not None and ab.targets == 1 and t.pid != x:
            return ActionError("blackmailed_target", target=x)
        return None

    def _bound_target(self, p: Player, ab: AbilityDef, via: str | None, now: PlayerNow | None = None) -> int | None:
        """The player a blackmailed player's action must be aimed at, if this action can be
        (``now``: :class:`PlayerNow` of ``p``, when known)."""
        if (now is not None and now.obligation is None) or via == "extra" or not self.world.counts_as_action(ab):
            return None
        ob = self.obligation(p) if now is None else now.obligation
        x = ob.get("target") if ob else None
        if x is None or self._target_ok(p, ab, self.world.player(x), via, unbound=True) is not None:
            return None
        return x

    def check_submission(self, p: Player, key: str, targets: list[int], option: str | None, via: str | None = None) -> AbilityDef:
        ab = self.check_available(p, key, via)
        if not ab.takes_targets(len(targets)):
            raise ActionError("wrong_target_count", need=ab.targets)
        if len(set(targets)) != len(targets) and not ab.repeat_targets:
            raise ActionError("duplicate_target")
        for t in targets:
            if not 0 <= t < len(self.world.state.players):
                raise ActionError("unknown_player")
            err = self._target_ok(p, ab, self.world.state.players[t], via)
            if err:
                raise err
        numbers = number_range(ab)
        if numbers is not None:
            if not numbers.accepts(option):
                raise numbers.error()
            return ab
        if ab.options and option not in ab.options:
            raise ActionError("bad_option", options=list(ab.options))
        if not ab.options and option is not None:
            raise ActionError("bad_option", options=[])
        if ab.once_per == "target_option":
            for t in targets:
                if p.uses.get(f"once:{ab.id}:{t}:{option}"):  # this choice on this target; others may be left
                    raise ActionError("once_per_target_option", target=t, options=[option])
        if ab.checks:
            err = self.run_checks(p, ab, list(targets), option)
            if err:
                raise err
        return ab

    def legal_actions(self, pid: int) -> list[LegalAction]:
        """What ``pid`` may do now and on whom: the same checks as :meth:`submit`."""
        world = self.world
        p = world.player(pid)
        out: list[LegalAction] = []
        if world.state.over or not world.alive(p) or world.phase_cut():
            return out  # what check_available refuses first, for every way at once
        now = PlayerNow(self, p)
        kind = now.info.kind
        own, borrowers = _own_ways(self, p, kind)
        extra = self.extra_slots(p)
        # (key, via, the ability when known, its slot, lane, whether it borrows): a way that
        # check_available refuses at once (another phase, a spent lane…) is skipped unasked
        ways: list[tuple[str, str | None, AbilityDef | None, Any, str, bool]] = list(own)
        if world.state.factions:
            for k in self.leader_keys(p):
                ab = world.ability_def(k)
                ways.append((k, "leader", ab, _way(self, k, ab)[0], "action", False))
        if extra:
            ways += [(k, "extra", ab, slot, "extra", False) for k, _, ab, slot, _, _ in own if ab.slot in extra]
        ways += [(k, b, None, None, "", False) for b in borrowers for k in self.borrow_keys(p, b)]
        facts: dict[int, tuple[bool, bool]] | None = None
        seats: list[tuple[Player, bool, bool, bool]] = []
        for key, via, known, slot, lane, borrower in ways:
            if known is not None:
                if slot.phase not in ("any", kind) or borrower:  # borrower: only as one's own (via None)
                    continue
                if lane in now.spent or lane in now.held or (now.riot and lane == "action") or (key in p.forbidden and via != "leader"):
                    continue
                if now.stops and any("*" in f.blocks_slots or slot.id in f.blocks_slots for f in now.stops):
                    continue
                if _refusal_after_lane(self, p, key, via, known, slot, lane, now, False) is not None:
                    continue
                ab = known
            else:
                try:
                    ab = self.check_available(p, key, via, now=now)
                except ActionError:
                    continue
                lane = self.lane_for(key, ab, via)
            targets = []
            if ab.targets:
                if facts is None:
                    players = world.state.players
                    facts = {t.pid: self._target_facts(t) if t.statuses else (True, False) for t in players}
                    # (player, alive, publicly unreachable, plain: no passive can make them untargetable)
                    shield = world._untargetable
                    seats = [(t, *facts[t.pid], not (t.grants or (shield and {t.role, t.character} & shield))) for t in players]
                targets = _targets(self, p, ab, via, seats, facts, self._bound_target(p, ab, via, now))
                if len(targets) < ab.targets:
                    continue
            options = [o for o in ab.options if self.run_checks(p, ab, None, o) is None] if ab.checks else list(ab.options)
            if options and targets and ab.once_per == "target_option":  # the pairs used already
                spent, targets = _spent_pairs(p, ab, targets, options)
                if len(targets) < ab.targets:
                    continue
                out.append(LegalActionOnce(key=key, ability=ab, targets=targets, options=options, via=via, number=number_range(ab),
                                           lane=lane, spent=spent))
                continue
            if ab.options and not options:
                continue
            out.append(LegalAction(key=key, ability=ab, targets=targets, options=options, via=via, number=number_range(ab), lane=lane))
        return out

    # ---- votes: who may vote, and for what ------------------------------------------------
    def open_vote(self, vote_id: str | None = None) -> Any:
        """The open vote ``vote_id`` (None: the first open now); ``game_over`` or
        ``vote_closed`` when there is none to vote in."""
        if self.world.state.over:
            raise ActionError("game_over")
        votes = [v for v in self.world.open_votes() if vote_id in (None, v.id)]
        if not votes or self.world.phase_cut():
            raise ActionError("vote_closed", vote=vote_id or "")
        return votes[0]

    def vote_choices(self, pid: int, vote_id: str | None = None) -> list[int | str]:
        """What ``pid`` may choose in the vote ``vote_id`` (None: the first open) now: players
        in seat order, then the vote's named choices («за мир», «против всех», «амнистия»,
        «казнь»). Raises :class:`ActionError` (``game_over``, ``vote_closed``, ``cannot_vote``)
        when they may not vote at all. :meth:`engine.game.Game.vote` accepts nothing else."""
        vdef, p = self.voter(pid, vote_id)
        return vote_choices(self.world, vdef, p)

    def voter(self, pid: int, vote_id: str | None = None) -> tuple[Any, Player]:
        """The open vote ``vote_id`` and the player ``pid`` who may cast a ballot in it now;
        raises what :meth:`vote_choices` raises before it lists any choice (``game_over``,
        ``vote_closed``, ``cannot_vote``)."""
        vdef = self.open_vote(vote_id)
        p = self.world.player(pid)
        if not self.world.alive(p) or any(not f.can_vote for f in self.world.status_flags(p)):
            raise ActionError("cannot_vote")
        return vdef, p


# ---- what legal_actions finds once: the ways of a role and character, the targets of a way ----
def cooling_until(world: World, p: Player, key: str) -> int | None:
    """The tick from which ``p`` may use ``key`` again (an ability, a borrowing ability, or
    ``leader``: the faction leader's action), while it is still cooling down; else None."""
    ready = p.ready_at.get(key)
    return ready if ready is not None and world.state.tick < ready else None


def cooldowns(world: World, p: Player) -> dict[str, int]:
    """Everything of ``p``'s still cooling down, by key (as :func:`cooling_until`), with the
    tick from which it is ready: what the player is told of their cooldowns."""
    return {k: t for k in sorted(p.ready_at) if (t := cooling_until(world, p, k)) is not None}


def _way(lg: Legality, key: str, ab: AbilityDef) -> tuple[SlotDef, str, bool]:
    """What the ruleset alone says of the ability ``ab`` held under ``key``: its slot, the
    lane it fills used as one's own (``lane_of``), and whether it borrows (``op: borrow``);
    found once per ruleset and key."""
    cache = lg.world.rules.derived_cache
    found = cache.get(("way", key))
    if found is None or found[0] is not ab:
        found = cache["way", key] = (ab, lg.world.slot_of(ab), lg.world.lane_of(key, ab), lg.borrow_params(ab) is not None)
    return found[1], found[2], found[3]


def _own_ways(lg: Legality, p: Player, kind: str) -> tuple[list[tuple[str, None, AbilityDef, SlotDef, str, bool]], list[str]]:
    """``p``'s own abilities (``abilities``) of the period ``kind`` (their slot's phase) as ways
    to act: (key, None, the ability, its slot, its lane, whether it borrows); and the keys of
    all their borrowing abilities. Looked up once per role, character and period for a player
    without grants."""
    if not p.grants:
        ckey = ("own_ways", p.role, p.character, kind)
        found = lg.world.rules.derived_cache.get(ckey)
        if found is None:
            found = lg.world.rules.derived_cache[ckey] = _own_ways_now(lg, lg.world.abilities(p), kind)
        return found
    return _own_ways_now(lg, lg.world.abilities(p), kind)


def _own_ways_now(lg: Legality, own: list[tuple[str, AbilityDef]], kind: str) -> tuple[list[Any], list[str]]:
    ways = [(k, None, ab, *_way(lg, k, ab)) for k, ab in own]
    return [w for w in ways if w[3].phase in ("any", kind)], [w[0] for w in ways if w[5]]


def _targets(lg: Legality, p: Player, ab: AbilityDef, via: str | None, seats: list[tuple[Player, bool, bool, bool]],
             facts: dict[int, tuple[bool, bool]], bound: int | None) -> list[int]:
    """Every pid :meth:`Legality._target_ok` accepts for ``p``'s ``ab`` by ``via``, in seat order
    (``seats``, ``facts``: each target's facts, found once per ``legal_actions``). An
    ability with no checks and no once-per-target rule is decided from the facts and its
    target filter, for each target no passive can shield; any other pair asks
    :meth:`Legality._target_ok` itself."""
    if ab.checks or ab.once_per == "target":
        return [t.pid for t, *_ in seats if lg._target_ok(p, ab, t, via, facts=facts, bound=bound) is None]
    world = lg.world
    self_ok = via == "leader" or (ab.self_target if ab.self_target is not None else world.slot_of(ab).self_target)
    want_alive = not ab.dead_targets
    only = bound if bound is not None and ab.targets == 1 else None
    where = ab.target_where
    out = []
    for t, alive, unreachable, plain in seats:
        if not plain:
            if lg._target_ok(p, ab, t, via, facts=facts, bound=bound) is None:
                out.append(t.pid)
        elif (alive is want_alive and not unreachable and (self_ok or t is not p) and (only is None or t.pid == only)
              and (where is None or world.matches(t, where, actor=p.pid))):
            out.append(t.pid)
    return out


def _spent_pairs(p: Player, ab: AbilityDef, targets: list[int], options: list[str]) -> tuple[frozenset[tuple[int, str]], list[int]]:
    """For an ability used once per target and option (``once_per: target_option``): the
    pairs of ``targets`` × ``options`` ``p`` has already used (``uses["once:<id>:<t>:<o>"]``,
    written at the resolve), and ``targets`` without those left no option at all (their
    pairs left out too)."""
    prefix = f"once:{ab.id}:"
    used = [k for k in p.uses if k.startswith(prefix)]  # a few keys: read them rather than ask every pair
    if not used:
        return _NONE_SPENT, targets
    cut, listed, offered = len(prefix), set(targets), set(options)
    found = []
    for k in used:
        t, _, o = k[cut:].partition(":")
        if o in offered and int(t) in listed and p.uses[k]:
            found.append((int(t), o))
    if not found:
        return _NONE_SPENT, targets
    spent = frozenset(found)
    per: dict[int, int] = {}  # how many of the options each target has used
    for t, _ in spent:
        per[t] = per.get(t, 0) + 1
    gone = {t for t, n in per.items() if n >= len(offered)}
    if not gone:
        return spent, targets
    return frozenset(x for x in spent if x[0] not in gone), [t for t in targets if t not in gone]


def _refusal_after_lane(lg: Legality, p: Player, key: str, via: str | None, ab: AbilityDef, slot: SlotDef, lane: str,
                        now: PlayerNow, unbound: bool) -> ActionError | None:
    """The refusal of :meth:`Legality.check_available` once the phase, the statuses, the
    forbidden abilities and the lane have let the way pass (a blackmail, a cooldown, a
    requirement, the uses, the ability's checks), or None; returned, not raised, for
    ``legal_actions``, which asks it of every way."""
    ob = now.obligation if lane == "action" and not unbound else None
    if ob:
        forced = ob.get("key")
        if forced and not ((key == forced and via is None) or via == forced):
            return ActionError("blackmailed", ability=forced)
        if ob.get("target") is not None and ab.targets == 0:
            return ActionError("blackmailed_target", target=ob["target"])
    if via == "leader":
        ready = cooling_until(lg.world, p, "leader")
        if ready is not None:
            return ActionError("cooldown", ability="leader", ready=lg.world.clock.info(ready).label)
        return None
    if slot.requires or ab.requires:
        for reqs in (slot.requires, ab.requires):
            for req in reqs:
                err = meets(lg.world, p, req)
                if err:
                    return err
    ready = cooling_until(lg.world, p, key)
    if ready is not None:
        return ActionError("cooldown", ability=key, ready=lg.world.clock.info(ready).label)
    if ab.uses_per_game is not None and p.uses.get(key, 0) >= ab.uses_per_game:
        return ActionError("no_uses_left", ability=key)
    if ab.checks:
        err = lg.run_checks(p, ab, None, None)
        if err:
            return err
    return None

