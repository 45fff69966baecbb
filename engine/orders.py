"""Orders: an action a teammate gives for another member of their faction (seed 002's
«приказ»; ``FactionRules.orders``), for this phase or a later one. The shape of an order for a
later phase is checked when it is given, the rest when its phase is resolved
(:meth:`Orders.settle_orders`, called by the resolve)."""

from __future__ import annotations

from .errors import ActionError
from .legality import Legality
from .state import Intent, Player


class Orders(Legality):
    """The order checks and the orders given ahead; a mixin of :class:`engine.game.Game`."""

    def _check_order(self, by: int, p: Player) -> None:
        if not self.rules.factions.orders:
            raise ActionError("orders_not_allowed")
        if self.state.over:
            raise ActionError("game_over")
        if not self.alive(self.player(by)):
            raise ActionError("not_alive")
        if p.pid not in self.teammates(by):
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

