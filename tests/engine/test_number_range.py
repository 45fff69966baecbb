"""The numbers an ability takes: what the engine suggests is exactly what it accepts."""

from __future__ import annotations

import random

import pytest

from engine.errors import ActionError
from engine.legality import NumberRange
from engine.ruleset import NumberArg


@pytest.mark.parametrize("rng", [NumberRange(1, 3), NumberRange(1, 5000), NumberRange(1, None), NumberRange(2, 20, 3),
                                 NumberRange(0, None, 5)])
def test_suggestions_are_accepted_and_accepted_numbers_are_suggested_when_typed(rng):
    for typed in ["", "1", "2", "3", "4", "12", "14", "20", "9999", "0", "+2", "²", "٣", "x"]:
        offered = rng.suggestions(typed)
        assert len(offered) <= 25
        assert all(rng.accepts(v) for v in offered), (rng, typed, offered)
        if rng.accepts(typed):
            assert offered[0] == str(int(typed.lstrip("+"))), (rng, typed, offered)
    top = rng.max if rng.max is not None else rng.min + 200
    for n in range(rng.min - 5, top + 5):
        ok = n >= rng.min and (rng.max is None or n <= rng.max) and (n - rng.min) % rng.step == 0
        assert rng.accepts(str(n)) == ok, (rng, n)
        if ok:
            assert str(n) in rng.suggestions(str(n))


def test_a_random_pick_is_accepted():
    rnd = random.Random(3)
    for rng in [NumberRange(1, 3), NumberRange(1, None), NumberRange(2, 20, 3), NumberRange(0, None, 5)]:
        assert all(rng.accepts(rng.pick(rnd)) for _ in range(200)), rng


def test_the_refusal_names_the_range_and_the_step():
    def said(err: ActionError) -> tuple[str, dict]:
        return err.key, err.args_

    assert said(NumberRange(1, 3).error()) == ("bad_number", {"min": 1, "max": 3})
    assert said(NumberRange(1, None).error()) == ("bad_number", {"min": 1, "max": "…"})
    assert said(NumberRange(2, 20, 3).error()) == ("bad_number_step", {"min": 2, "max": 20, "step": 3})


def test_a_step_below_one_is_a_ruleset_error():
    with pytest.raises(ValueError, match="step"):
        NumberArg(min=1, max=3, step=0)
