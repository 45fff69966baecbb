"""Who is on my team: one engine answer (``World.teammates``, ``Legality.order_targets``) that
an order's check and the bot's suggestions both read."""

from __future__ import annotations

from config import load_ruleset
from engine import DEAL, ActionError, Game, PlayerSpec


def classic(n: int = 12) -> Game:
    return Game.new(load_ruleset("classic"), 7, [PlayerSpec(f"P{i}", DEAL) for i in range(n)])


def refusal_of_order(g: Game, by: int, pid: int) -> str | None:
    """The team refusal of an order from ``by`` for ``pid``, if any (other refusals aside)."""
    try:
        g.submit(pid, "x", [], None, by=by)
    except ActionError as err:
        return err.key if err.key in ("not_teammate", "orders_not_allowed") else None
    return None


def test_teammates_are_the_other_members_of_ones_factions():
    g = classic()
    assert len(g.state.factions["mafia"].members) >= 2
    for p in g.state.players:
        fs = g.factions_of(p.pid)
        want = sorted({m for f in fs for m in f.members} - {p.pid})
        assert g.teammates(p.pid) == want
        assert g.order_targets(p.pid) == want  # everyone alive at the start
        for other in g.state.players:
            if other.pid != p.pid:
                assert (refusal_of_order(g, p.pid, other.pid) is None) == (other.pid in want), (p.pid, other.pid)


def test_a_dead_teammate_takes_and_gives_no_orders():
    g = classic()
    boss, mate = sorted(g.state.factions["mafia"].members)[:2]
    g.gm_remove(mate, "modkill")
    assert not g.alive(g.player(mate))
    assert mate not in g.teammates(boss, living=True) and mate not in g.order_targets(boss)
    assert refusal_of_order(g, boss, mate) == "not_teammate"
    assert boss not in g.order_targets(mate)  # the dead give no orders


def test_no_orders_in_a_ruleset_without_them():
    g = Game.new(load_ruleset("godfather"), 3, [PlayerSpec(f"P{i}", DEAL) for i in range(12)])
    assert all(g.order_targets(p.pid) == [] for p in g.state.players)
