"""A seat's vote counts N (passive ``vote_weight``) in every vote kind that can weigh a ballot; the
kinds that count every ballot once refuse a ruleset that gives a weight (engine/ruleset_check.py),
so no weight is ignored in silence. Each weighing kind has its scenario."""

from __future__ import annotations

from pathlib import Path

from engine import registry
from engine.ruleset_check import WEIGHTLESS_VOTES

SCENARIOS = Path(__file__).resolve().parents[1] / "scenarios"
# the kinds that read the weight, and the scenario that plays it in each
WEIGHING = {
    "prison": "council_double_voter/double_vote.yaml",
    "amnesty": "council_double_voter/double_vote.yaml",
    "stats_prison": "stats_mafia_staples/bodyguard_and_double_vote.yaml",
    "friday_lynch": "eternal_friday/role_authority.yaml",
}


def test_every_vote_kind_weighs_a_ballot_or_refuses_a_weight():
    assert set(registry.VOTES) == set(WEIGHING) | WEIGHTLESS_VOTES
    assert not set(WEIGHING) & WEIGHTLESS_VOTES


def test_each_weighing_kind_has_its_scenario():
    for kind, path in WEIGHING.items():
        assert (SCENARIOS / path).is_file(), (kind, path)
