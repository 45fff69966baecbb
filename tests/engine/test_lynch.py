"""The day lynch (``engine.votes.Lynch``), one count for seed 002's full game and its slice:
the weights and the VIP, the revolutionary's extra votes, votes worth nothing, the hanging as
lost HP or as a death at once, a tie's damage that nothing reduces, and a majority rule."""

from __future__ import annotations

import yaml

from config import RulesetFileError, load_ruleset, load_ruleset_file
from config.loader import RULESETS_DIR, TEST_RULESETS_DIR
from engine import Game, PlayerSpec
from engine.state import Event

FRIDAY = [  # seat: (open role, secret role)
    ("authority", "civilian"), ("lawyer", "civilian"), ("vip", "civilian"), ("other", "thug"),
    ("other", "civilian"), ("revolutionary", "civilian"), ("other", "killer"),
]


def friday() -> Game:
    g = Game.new(load_ruleset("eternal_friday"), 3, [PlayerSpec(f"P{i}", r, c) for i, (r, c) in enumerate(FRIDAY)],
                 {"practice_table": True})
    while g.info.kind != "day":
        g.resolve()
    return g


def mini(hp: list[int]) -> Game:
    specs = [PlayerSpec(f"P{i}", "other", "civilian" if i % 2 else "ninja", stats={"hp": v}) for i, v in enumerate(hp)]
    g = Game.new(load_ruleset("eternal_friday_mini", include_tests=True), 3, specs)
    while g.info.kind != "day":
        g.resolve()
    return g


def counted(g: Game) -> list[Event]:
    """The events of the day's count, from the resolve just made."""
    tick = g.state.tick - 1
    return [ev for ev in g.state.events if ev.tick == tick and ev.key.startswith(("vote.", "gm.death"))]


def extra_votes(g: Game, pid: int, n: int) -> None:
    g.submit(pid, "role:revolutionary:extra_votes", [], str(n))


def test_weights_and_the_revolutionarys_extra_votes():
    g = friday()
    hp5 = g.player(5).stats["hp"]
    g.vote(0, "lynch", 4)  # the authority: 2.5
    g.vote(1, "lynch", 2)  # the lawyer against the VIP: 1, not 1.5
    g.vote(3, "lynch", 2)
    g.vote(5, "lynch", 4)
    extra_votes(g, 5, 2)  # counted: 4 has 2.5 + 1 + 2
    g.resolve()
    events = counted(g)
    tally = next(ev for ev in events if ev.key == "vote.tally")
    assert tally.args["tally"] == [[4, 5.5], [2, 2]]
    assert any(ev.key == "vote.lynched" and ev.args["player"] == 4 for ev in events)
    assert not g.alive(g.player(4)) and g.player(4).stats["hp"] <= 0  # hang: hp, dead by the evening
    death = next(ev for ev in g.state.events if ev.key == "gm.death" and ev.args["player"] == 4)
    assert death.args["cause"] == "hanged"
    assert g.player(5).stats["hp"] == hp5 - 40  # «20 урона за каждый дополнительный голос»


def test_no_extra_votes_for_the_vip():
    g = friday()
    hp5 = g.player(5).stats["hp"]
    g.vote(5, "lynch", 2)
    extra_votes(g, 5, 3)  # «не может вносить дополнительные голоса за ВИПа»
    g.vote(0, "lynch", 2)  # the authority against the VIP: 1
    g.vote(3, "lynch", 4)
    g.resolve()
    tally = next(ev for ev in counted(g) if ev.key == "vote.tally")
    assert tally.args["tally"] == [[2, 2], [4, 1]]
    assert g.player(5).stats["hp"] == hp5  # nothing counted, nothing paid


def test_votes_worth_nothing_hang_nobody():
    g = friday()
    g.vote(4, "lynch", 1)  # 1 against the lawyer, who takes 1.5 off himself
    g.resolve()
    keys = [ev.key for ev in counted(g)]
    assert "vote.nobody" in keys and "vote.lynched" not in keys
    assert g.alive(g.player(1))


def test_the_slice_hangs_at_once_and_a_tie_is_not_reduced():
    g = mini([100, 100, 100, 100, 100])
    g.vote(0, "lynch", 1)
    g.vote(2, "lynch", 1)
    g.vote(3, "lynch", 4)
    g.vote(4, "lynch", 0)
    g.resolve()  # 1 has 2: hanged (kill, the default)
    assert not g.alive(g.player(1))
    death = next(ev for ev in g.state.events if ev.key == "gm.death" and ev.args["player"] == 1)
    assert death.args["cause"] == "vote:lynch"
    while g.info.kind != "day":
        g.resolve()
    before = {p.pid: p.stats["hp"] for p in g.state.players}
    g.vote(3, "lynch", 0)
    g.vote(4, "lynch", 2)
    g.resolve()  # 0 and 2 tied: 50 each, whole («не спасает ничего»)
    assert next(ev for ev in counted(g) if ev.key == "vote.tie").args["players"] == [0, 2]
    after = {p.pid: p.stats["hp"] for p in g.state.players}
    assert after == {**before, 0: before[0] - 50, 2: before[2] - 50}


def test_a_majority_for_peace_hangs_nobody_and_a_tie_with_it_hurts():
    g = mini([100, 100, 100, 100, 100])
    g.vote(0, "lynch", "peace")
    g.vote(2, "lynch", "peace")
    g.vote(3, "lynch", 4)
    g.resolve()
    assert "vote.peace" in [ev.key for ev in counted(g)]
    assert all(g.alive(p) and p.stats["hp"] == 100 for p in g.state.players)
    while g.info.kind != "day":
        g.resolve()
    g.vote(0, "lynch", "peace")
    g.vote(3, "lynch", 4)
    g.resolve()  # «если разделились между "За мир" и персонажем, персонаж точно так же получает 50 урона»
    assert next(ev for ev in counted(g) if ev.key == "vote.tie").args["players"] == [4]
    assert g.player(4).stats["hp"] == 50


def test_extra_votes_must_name_an_impl_the_ruleset_uses(tmp_path):
    data = yaml.safe_load((RULESETS_DIR / "eternal_friday.yaml").read_text(encoding="utf-8"))
    data["votes"][0]["params"]["extra_votes"] = "friday_extra_vote"
    bad = tmp_path / "eternal_friday.yaml"
    bad.write_text(yaml.safe_dump(data, allow_unicode=True), encoding="utf-8")
    try:
        load_ruleset_file(bad)
    except RulesetFileError as err:
        assert "votes.lynch.params.extra_votes: no ability of the ruleset uses the implementation 'friday_extra_vote'" in str(err), str(err)
    else:
        raise AssertionError("a lynch counting the extra votes of no ability loaded")


def mini_majority(tmp_path, majority: str, hp: list[int]) -> Game:
    """The slice with ``majority`` on its lynch (its tie damage of 50 still in the params)."""
    data = yaml.safe_load((TEST_RULESETS_DIR / "eternal_friday_mini.yaml").read_text(encoding="utf-8"))
    data["votes"][0]["params"]["majority"] = majority
    path = tmp_path / "eternal_friday_mini.yaml"
    path.write_text(yaml.safe_dump(data, allow_unicode=True), encoding="utf-8")
    specs = [PlayerSpec(f"P{i}", "other", "civilian" if i % 2 else "ninja", stats={"hp": v}) for i, v in enumerate(hp)]
    g = Game.new(load_ruleset_file(path), 3, specs)
    while g.info.kind != "day":
        g.resolve()
    return g


def test_a_majority_of_the_living_hangs_and_short_of_it_nobody_is_hurt(tmp_path):
    g = mini_majority(tmp_path, "living", [100] * 5)
    g.vote(0, "lynch", 1)
    g.vote(2, "lynch", 1)
    g.vote(3, "lynch", 4)
    g.resolve()  # 2 of 5 living: no majority
    short = next(ev for ev in counted(g) if ev.key == "vote.no_majority")
    assert short.args == {"vote": "lynch", "majority": "living", "reason": "living", "total": 5}
    assert all(g.alive(p) and p.stats["hp"] == 100 for p in g.state.players)
    while g.info.kind != "day":
        g.resolve()
    g.vote(0, "lynch", 1)
    g.vote(3, "lynch", 4)
    g.resolve()  # a tie is never a majority: the tie's 50 damage is not dealt either
    keys = [ev.key for ev in counted(g)]
    assert "vote.no_majority" in keys and "vote.tie" not in keys
    assert all(p.stats["hp"] == 100 for p in g.state.players)
    while g.info.kind != "day":
        g.resolve()
    for voter in (0, 2, 3):
        g.vote(voter, "lynch", 1)
    g.resolve()  # 3 of 5
    assert "vote.lynched" in [ev.key for ev in counted(g)] and not g.alive(g.player(1))


def test_a_majority_of_the_votes_cast_counts_peace_among_them(tmp_path):
    g = mini_majority(tmp_path, "cast", [100] * 5)
    g.vote(0, "lynch", "peace")
    g.vote(2, "lynch", "peace")
    g.vote(3, "lynch", 4)
    g.resolve()  # peace: 2 of 3 cast
    assert "vote.peace" in [ev.key for ev in counted(g)]
    while g.info.kind != "day":
        g.resolve()
    g.vote(0, "lynch", 4)
    g.vote(2, "lynch", 4)
    g.vote(3, "lynch", "peace")
    g.vote(1, "lynch", 3)
    g.resolve()  # 2 of 4 cast: no majority, though two of five would lead
    short = next(ev for ev in counted(g) if ev.key == "vote.no_majority")
    assert short.args["majority"] == "cast" and short.args["total"] == 4
    assert g.alive(g.player(4))
