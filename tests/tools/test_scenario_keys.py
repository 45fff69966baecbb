"""The keys that let a scenario say the start, a refused table, the deal, a starting status with
time left and "refused, or accepted but void": each fails, with its place, when it does not hold."""

from __future__ import annotations

from altmafia.tools.scenario import run_file

CLASSIC = """ruleset: classic
seed: 3
players:
  - {name: Аня, role: Мирный житель}
  - {name: Борис, role: Мафиози}
  - {name: Вера, role: Блокировщик}
  - {name: Глеб, role: Мирный житель}
  - {name: Дина, role: Мирный житель}
"""


def run(tmp_path, text: str) -> list[str]:
    path = tmp_path / "case.yaml"
    path.write_text(text, encoding="utf-8")
    return run_file(path).failures


def test_an_applied_action_fails_refused_or_void(tmp_path):
    failures = run(tmp_path, CLASSIC + "steps:\n  - phase: night 1\n    refused_or_void:\n"
                   "      - {by: Борис, ability: Убийство мафии, target: Аня}\n")
    assert failures == ["step 1 (night 1): Борис: «Убийство мафии» was accepted and applied, expected a refusal or no effect"]


def test_a_refusal_for_another_reason_fails_refused_or_void(tmp_path):
    failures = run(tmp_path, CLASSIC + "steps:\n  - phase: night 1\n    refused_or_void:\n"
                   "      - {by: Вера, ability: Блокировка, target: Вера, reason: wrong_phase}\n")
    assert failures == ["step 1 (night 1): Вера: «Блокировка» refused with self_target, expected wrong_phase"]


def test_an_accepted_table_fails_refused(tmp_path):
    assert run(tmp_path, CLASSIC + "refused: true\n") == ["players: the table was accepted, expected a refusal"]


def test_a_refused_table_may_not_play_steps(tmp_path):
    failures = run(tmp_path, CLASSIC + "refused: true\nsteps:\n  - phase: night 1\n")
    assert failures == [f"invalid scenario {tmp_path / 'case.yaml'}: refused: a refused table plays no steps (steps: [])"]


def test_the_start_and_the_deal_are_checked_before_any_step(tmp_path):
    failures = run(tmp_path, CLASSIC.replace("role: Мирный житель}\n  - {name: Борис", 'role: "?"}\n  - {name: Борис')
                   + "start:\n  roles: {Борис: Мафиози, Аня: cop}\n  teams: {Борис: town}\n  public: [никогда]\nsteps: []\n")
    assert failures[0] == "start: Борис's team: expected town, got mafia"
    assert failures[1].startswith("start: public report: 'никогда' missing"), failures


def test_a_starting_status_says_its_time_left_as_cycles(tmp_path):
    text = CLASSIC.replace("role: Мирный житель}\n  - {name: Борис", "role: Мирный житель, status: [{id: blocked, days: 2}]}\n  - {name: Борис")
    assert run(tmp_path, text + "steps: []\n") == [
        f"invalid scenario {tmp_path / 'case.yaml'}: players[0] (Аня).status[0]: unknown keys ['days']; known: cycles, id"]
