"""Submitting, replacing and cancelling intents; 'what may I do' is the same code as validation."""

from __future__ import annotations

import pytest

from engine import ActionError

from ..conftest import TABLE, make_game


def test_submit_replace_cancel(godfather):
    g = make_game(godfather, TABLE)
    g.submit(0, "Упомянуть в местных байках", [1])
    g.submit(0, "day", [2])  # replaces: one action per day
    assert [(i.ability, i.targets) for i in g.pending(0)] == [("role:tavern_keeper:tall_tales", [2])]
    assert g.cancel(0)
    assert g.pending(0) == []
    assert not g.cancel(0)


def test_typed_errors_carry_key_and_arguments(godfather):
    g = make_game(godfather, TABLE)
    with pytest.raises(ActionError) as e:
        g.submit(0, "Напоить отменным ромом", [1])
    assert e.value.key == "wrong_phase" and e.value.args_["phase"] == "night"
    with pytest.raises(ActionError) as e:
        g.submit(0, "day", [0])
    assert e.value.key == "self_target"
    with pytest.raises(ActionError) as e:
        g.submit(0, "day", [])
    assert e.value.key == "wrong_target_count" and e.value.args_ == {"need": 1}
    with pytest.raises(ActionError) as e:
        g.submit(0, "heroic", [])
    assert e.value.key == "threshold_not_met" and e.value.args_ == {"stat": "vo", "need": 8}
    with pytest.raises(ActionError) as e:
        g.submit(2, "individual", [0, 1, 3], option="gold")
    assert e.value.key == "bad_option"
    with pytest.raises(ActionError) as e:
        g.submit(0, "Шпионаж", [1])
    assert e.value.key == "unknown_ability"


def test_legal_actions_match_validation_everywhere(godfather):
    """For every player, ability and target over several ticks: legal ⇔ accepted."""
    g = make_game(godfather, TABLE, seed=3)
    for _ in range(6):
        for p in g.state.players:
            legal = {a.key: set(a.targets) for a in g.legal_actions(p.pid)}
            for key, ab in g.abilities(p):
                candidates = [[]] if ab.targets == 0 else [[t.pid] for t in g.state.players] if ab.targets == 1 else [
                    [t.pid for t in g.state.players if t.pid != x][: ab.targets] for x in range(len(g.state.players))
                ]
                option = str(ab.number.min) if ab.number else next(iter(ab.options), None)
                for targets in candidates:
                    try:
                        g.check_submission(p, key, targets, option)
                        ok = True
                    except ActionError:
                        ok = False
                    want = key in legal and set(targets) <= legal[key]
                    assert ok == want, (p.name, key, targets, g.info.label)
        for p in g.living():
            acts = [a for a in g.legal_actions(p.pid) if g.counts_as_action(a.ability)]
            if acts:
                a = acts[0]
                g.submit(p.pid, a.key, a.targets[: a.ability.targets], a.any_option(g.rng), via=a.via)
        g.resolve()


def test_cannot_act_twice_in_one_day(godfather):
    g = make_game(godfather, TABLE)
    g.submit(0, "day", [1])
    g.resolve()
    assert g.info.label == "day 1.2"
    with pytest.raises(ActionError) as e:
        g.submit(0, "day", [1])
    assert e.value.key == "turn_used"
    assert all(not g.counts_as_action(a.ability) for a in g.legal_actions(0))


def test_leader_action_uses_a_members_ordinary_action_even_on_self_and_is_never_blocked(godfather):
    g = make_game(
        godfather,
        [
            {"name": "Лидер", "role": "courtier", "character": "smart", "faction": "f1", "leader": True},
            {"name": "Член", "role": "tavern_keeper", "faction": "f1"},
            {"name": "Чужой", "role": "moneylender", "character": "strategist"},
        ],
    )
    legal = {(a.key, a.via) for a in g.legal_actions(0)}
    assert ("role:tavern_keeper:tall_tales", "leader") in legal
    assert ("role:courtier:weave_intrigue", "leader") in legal  # one's own, via the leader action
    assert all(via is None for _, via in {(a.key, a.via) for a in g.legal_actions(1)})
    g.submit(2, "Ставка на опережение", [0])  # Чужой blocks the leader
    g.submit(0, "Упомянуть в местных байках", [0], via="leader")  # on self
    g.resolve()
    assert g.player(0).stats["vo"] == 3
    # instead of the leader's own action: the day's turn is spent
    with pytest.raises(ActionError) as e:
        g.submit(0, "day", [1])
    assert e.value.key == "turn_used"
    g.resolve()  # day 1.2
    g.resolve()  # night 1
    # once a cycle: day 2.1 is exactly one cycle after day 1.1
    g.submit(0, "Упомянуть в местных байках", [1], via="leader")
    with pytest.raises(ActionError) as e:
        g.submit(1, "Плести интриги", [0], via="leader")
    assert e.value.key == "not_leader"


def test_dealing_is_distinct_seeded_and_respects_the_gm(godfather):
    from engine import DEAL, Game, PlayerSpec

    names = [f"И{i}" for i in range(13)]
    a = Game.new(godfather, 9, [PlayerSpec(n, DEAL, DEAL) for n in names])
    b = Game.new(godfather, 9, [PlayerSpec(n, DEAL, DEAL) for n in names])
    assert [(p.role, p.character) for p in a.state.players] == [(p.role, p.character) for p in b.state.players]
    assert len({p.role for p in a.state.players}) == 13
    assert len({p.character for p in a.state.players}) == 13
    c = Game.new(godfather, 10, [PlayerSpec(n, DEAL, DEAL) for n in names])
    assert [p.role for p in c.state.players] != [p.role for p in a.state.players]
    # the GM assigns a role; the rest are dealt around it; stats come from the role table
    d = Game.new(godfather, 9, [PlayerSpec("ГМ-выбор", "Хозяин трактира", DEAL)] + [PlayerSpec(n, DEAL, DEAL) for n in names[:12]])
    assert d.player(0).role == "tavern_keeper" and d.player(0).stats == {"vo": 2, "tv": 2}
    assert "tavern_keeper" not in [p.role for p in d.state.players[1:]]
    # 16 players: every role once; characters repeat only from a second deck
    e = Game.new(godfather, 1, [PlayerSpec(f"Р{i}", DEAL, DEAL) for i in range(16)])
    assert len({p.role for p in e.state.players}) == 16
    with pytest.raises(Exception, match="2–16 players"):
        Game.new(godfather, 1, [PlayerSpec(f"Р{i}", DEAL, DEAL) for i in range(17)])
