"""A seat's vote counts N (passive ``vote_weight``): the vote kinds of their own books multiply
their ballot's strength by it (``engine.votes.weighed``), each played by a scenario; the lynches
weigh a ballot by it in their own count."""

from __future__ import annotations

from pathlib import Path

from engine import registry
from engine.votes import Lynch

SCENARIOS = Path(__file__).resolve().parents[1] / "scenarios"
# the books' vote kinds that multiply a ballot's strength, and the scenario that plays each
WEIGHING = {
    "prison": "council_double_voter/double_vote.yaml",
    "amnesty": "council_double_voter/double_vote.yaml",
    "stats_prison": "stats_mafia_staples/bodyguard_and_double_vote.yaml",
}


def test_every_vote_kind_is_a_lynch_or_weighs_its_strengths():
    others = {k for k, c in registry.VOTES.items() if not issubclass(c, Lynch)}
    assert others == set(WEIGHING)


def test_each_weighing_kind_has_its_scenario():
    for kind, path in WEIGHING.items():
        assert (SCENARIOS / path).is_file(), (kind, path)
    assert (SCENARIOS / "eternal_friday" / "role_authority.yaml").is_file()  # the lynch's 2.5
