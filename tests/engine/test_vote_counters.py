"""Every registered vote kind is a VoteCounter that counts and checks ballots of its own."""

from __future__ import annotations

import engine  # noqa: F401  (registers the books' vote counters)
from engine.registry import VOTES
from engine.votes import Lynch, VoteCounter


def test_every_vote_kind_is_a_vote_counter():
    assert {"lynch", "prison", "amnesty", "stats_prison", "friday_lynch", "plurality_lynch"} <= set(VOTES)
    for kind, counter in VOTES.items():
        assert isinstance(counter, type) and issubclass(counter, VoteCounter), kind
        assert counter.check_choice is not VoteCounter.check_choice, kind
        assert counter.count is not VoteCounter.count, kind


def test_the_defaults_of_the_hooks():
    """A counter that overrides nothing but the two required hooks: always open, counted at
    every run of its step, weights public, no named choices."""
    assert Lynch.is_open(None, None) is True
    assert Lynch.due(None, None) is True
    assert VoteCounter.secret_weights(None, None) is False
    assert Lynch.named_choices(None, None) == []
    assert VOTES["prison"].named_choices is not VoteCounter.named_choices


def test_one_lynch_count():
    """Eternal Friday's lynch is the core's: the same count, its parameters in the ruleset; the
    book overrides only how a tie's damage reaches its HP."""
    friday = VOTES["friday_lynch"]
    assert issubclass(friday, Lynch) and friday.__bases__ == (Lynch,)
    assert set(vars(friday)) - {"__module__", "__doc__", "__qualname__", "__firstlineno__", "__static_attributes__"} == {"wound"}
