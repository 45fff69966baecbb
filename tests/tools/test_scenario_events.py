"""``expect.events`` / ``events_absent`` in scenarios: an event matched by key, a subset of its
arguments (names resolved), its audience, whom it is for and how many; a wrong entry is one
failure naming the step and the key."""

from __future__ import annotations

import pytest

from altmafia.tools.scenario import run_file

HEAD = """ruleset: classic
seed: 12
players:
  - {name: Аня, role: Мирный житель}
  - {name: Борис, role: Мирный житель}
  - {name: Вера, role: Мафиози}
  - {name: Глеб, role: Мирный житель}
  - {name: Дина, role: Мирный житель}
steps:
  - phase: night 1
  - phase: day 1
    votes:
      - {by: Аня, for: Вера}
      - {by: Борис, for: Вера}
      - {by: Вера, for: Аня}
    expect:
"""


def play(tmp_path, expect: str):
    path = tmp_path / "case.yaml"
    path.write_text(HEAD + expect, encoding="utf-8")
    return run_file(path)


def test_events_that_hold_pass(tmp_path):
    res = play(tmp_path, """      events:
        - {key: vote.cast, args: {voter: Аня, target: Вера, ballots: [[Вера, 1]]}, audience: public}
        - {key: vote.cast, audience: public, count: 3}
        - {key: vote.lynched, args: {player: Вера}}
        - {key: death.role, args: {player: Вера, value: mafioso}}
      events_absent:
        - {key: vote.changed}
        - {key: vote.cast, args: {voter: Глеб}}
        - {key: vote.lynched, audience: gm}
""")
    assert res.ok, res.failures


@pytest.mark.parametrize("entry, why", [
    ("{key: vote.cast, args: {voter: Аня, target: Борис}}", "missing"),
    ("{key: vote.cast, args: {voter: Аня}, audience: gm}", "missing"),
    ("{key: vote.cast, count: 2}", "found 3 times"),
    ("{key: vote.cast, args: {ballots: [[Вера, 2]]}, count: 2}", "found 1 times"),
    ("{key: vote.nobody}", "missing"),
])
def test_an_event_that_does_not_hold_fails_and_lists_the_steps_events(tmp_path, entry, why):
    res = play(tmp_path, f"      events:\n        - {entry}\n")
    assert len(res.failures) == 1, res.failures
    msg = res.failures[0]
    assert msg.startswith("step 2 (day 1): event key: ") and why in msg, msg
    assert "vote.lynched [public]" in msg and "«Казнь по итогам голосования: Вера.»" in msg, msg


def test_an_event_that_must_be_absent(tmp_path):
    res = play(tmp_path, "      events_absent:\n        - {key: vote.lynched, args: {player: Вера}}\n")
    assert len(res.failures) == 1 and "should not be there" in res.failures[0], res.failures


@pytest.mark.parametrize("expect, error", [
    ("      events: {key: vote.cast}\n", "step 2: expect.events: must be a list, not a mapping"),
    ("      events: [vote.cast]\n", "step 2: expect.events[0]: must be a mapping such as {key: vote.cast}, not a string"),
    ("      events: [{args: {voter: Аня}}]\n", "step 2: expect.events[0]: missing key 'key'"),
    ("      events_absent: [{key: vote.cast, who: Аня}]\n", "step 2: expect.events_absent[0]: unknown keys ['who']"),
    ("      events: [{key: vote.cast, audience: town}]\n", "step 2: expect.events[0].audience: 'town' is not one of public"),
    ("      events: [{key: vote.cast, count: many}]\n", "step 2: expect.events[0].count: 'many' is not a whole number"),
    ("      events: [{key: vote.cast, args: [Аня]}]\n", "step 2: expect.events[0].args: must be a mapping, not a list"),
])
def test_a_wrong_events_entry_says_where(tmp_path, expect, error):
    res = play(tmp_path, expect)
    assert len(res.failures) == 1, res.failures
    assert error in res.failures[0], res.failures[0]


def test_the_vote_display_shapes_the_ballot_event(tmp_path):
    """``vote_display: count``: the counts without the voter; ``hidden``: neither."""
    for mode, key, secret in (("count", "vote.cast_count", "voter: Аня"), ("hidden", "vote.cast_hidden", "ballots: [[Вера, 1]]")):
        text = HEAD.replace("seed: 12\n", f"seed: 12\nsettings: {{vote_display: {mode}}}\n") + (
            f"      events:\n        - {{key: {key}, audience: public, count: 3}}\n"
            f"      events_absent:\n        - {{key: vote.cast}}\n        - {{key: {key}, args: {{{secret}}}}}\n")
        path = tmp_path / f"{mode}.yaml"
        path.write_text(text, encoding="utf-8")
        res = run_file(path)
        assert res.ok, (mode, res.failures)
