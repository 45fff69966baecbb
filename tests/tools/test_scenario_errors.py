"""A scenario file that is wrong gets one failure saying what is wrong and where (file, step,
key), never a raw Python error."""

from __future__ import annotations

import pytest

from altmafia.tools.scenario import run_file

HEAD = """ruleset: godfather
seed: 7
settings: {votes: []}
players:
  - {name: Аня, role: Хозяин трактира}
  - {name: Борис, role: Ростовщик}
"""
STEP = "steps:\n  - phase: day 1.1\n"

BAD = {
    # the raw errors the issue met: ``invalid literal for int()``, ``string indices must be integers``
    "seed_word": (HEAD.replace("seed: 7", "seed: seven") + STEP, "seed: 'seven' is not a whole number"),
    "player_string": ("ruleset: godfather\nplayers: [Аня, Борис]\n" + STEP,
                      "players[0]: a player is a mapping such as {name: Аня, role: ...}, not a string 'Аня'"),
    "set_stat_word": (HEAD + STEP + "    gm: [{set_stat: {player: Аня, stat: ВО, value: много}}]\n",
                      "step 1: gm[0].set_stat.value: 'много' is not a whole number"),
    "end_day_word": (HEAD + STEP + "    gm: [{set_end_day: завтра}]\n", "step 1: gm[0].set_end_day: 'завтра' is not a whole number"),
    "action_string": (HEAD + STEP + "    actions: [Аня bribes Борис]\n",
                      "step 1: actions[0]: an entry is a mapping such as {by: Аня, ...}, not a string 'Аня bribes Борис'"),
    "action_without_by": (HEAD + STEP + "    actions: [{ability: day, target: Борис}]\n", "step 1: actions[0]: missing key 'by'"),
    "action_typo": (HEAD + STEP + "    actions: [{by: Аня, ability: day, targt: Борис}]\n",
                    "step 1: actions[0]: unknown keys ['targt']; known: ability, at, by, for, lane, option, target, targets, via"),
    "step_string": (HEAD + "steps: [day 1.1]\n", "step 1: a step is a mapping such as {phase: day 1.1, actions: [...]}, not a string 'day 1.1'"),
    "steps_mapping": (HEAD + "steps: {phase: day 1.1}\n", "steps: must be a list of steps, not a mapping"),
    "votes_mapping": (HEAD + STEP + "    votes: {by: Аня, for: Борис}\n", "step 1: votes: must be a list of entries, not a mapping"),
    "expect_stats_list": (HEAD + STEP + "    expect: {stats: {Аня: [2, 2]}}\n",
                          "step 1: expect.stats.Аня: must be a mapping such as {ВО: 3}, not a list"),
    "expect_stat_word": (HEAD + STEP + "    expect: {stats: {Аня: {ВО: two}}}\n", "step 1: expect.stats.Аня.ВО: 'two' is not a whole number"),
    "player_stat_word": (HEAD.replace("role: Ростовщик}", "role: Ростовщик, stats: {ТВ: four}}") + STEP,
                         "players[1] (Борис).stats.ТВ: 'four' is not a whole number"),
    "top_typo": (HEAD + "step:\n  - phase: day 1.1\n", "missing keys: steps"),
    "top_unknown": (HEAD + STEP + "seeds: 3\n", "unknown top-level keys ['seeds']"),
    "gm_unknown": (HEAD + STEP + "    gm: [{kill: Аня}]\n", "step 1: gm[0]: unknown GM operation 'kill'"),
    "unknown_player": (HEAD + STEP + "    actions: [{by: Аня, ability: day, target: Вика}]\n",
                       "step 1 (day 1.1): actions[0]: no player named 'Вика'"),
    "unknown_stat": (HEAD.replace("role: Ростовщик}", "role: Ростовщик, stats: {ЗЛ: 4}}") + STEP,
                     "players[1] (Борис): unknown stat 'ЗЛ'"),
    "bad_phase": (HEAD + "steps:\n  - phase: afternoon\n", "step 1 (afternoon): phase: 'afternoon' is not a phase of this ruleset (write day 1 or night 1, "),
    "day_zero": (HEAD + "steps:\n  - phase: day 0.1\n", "step 1 (day 0.1): phase: 'day 0.1': days are counted from 1"),
    "not_a_mapping": ("- one\n- two\n", "a scenario must be a mapping with keys players, refused, ruleset, seed, settings, start, steps, not a list"),
    "not_yaml": (HEAD + "steps: [\n", "not valid YAML at line"),
    # a second ``expect`` of a step would replace the first and its checks be lost
    "expect_twice": (HEAD + STEP + "    expect: {alive: [Аня]}\n    actions: []\n    expect: {alive: [Борис]}\n",
                     "line 11: the key 'expect' is written twice in one mapping"),
    "unknown_ruleset": (HEAD.replace("ruleset: godfather", "ruleset: godfater") + STEP, "its ruleset: no ruleset 'godfater'; known:"),
}


def failures(tmp_path, case: str, text: str) -> tuple[str, list[str]]:
    path = tmp_path / f"{case}.yaml"
    path.write_text(text, encoding="utf-8")
    return str(path), run_file(path).failures


@pytest.mark.parametrize("case", sorted(BAD))
def test_a_bad_scenario_says_what_and_where(tmp_path, case):
    text, expected = BAD[case]
    path, found = failures(tmp_path, case, text)
    assert len(found) == 1, found
    msg = found[0]
    assert msg.startswith(f"invalid scenario {path}: "), msg
    assert expected in msg, msg
    for raw in ("invalid literal", "string indices", "object has no attribute", "Traceback"):
        assert raw not in msg


def test_a_scenario_not_in_utf8(tmp_path):
    path = tmp_path / "cp1251.yaml"
    path.write_bytes((HEAD + STEP).encode("cp1251"))
    res = run_file(path)
    assert res.failures == [f"invalid scenario {path}: not UTF-8 text (byte 0xc0 at line 5, column 12); save the file as UTF-8"]


def test_a_missing_scenario_file(tmp_path):
    res = run_file(tmp_path / "gone.yaml")
    assert res.failures == [f"invalid scenario {tmp_path / 'gone.yaml'}: cannot read the file (No such file or directory)"]


# a GM operation the engine refuses is the scenario's failure, named by its file, step and key:
# the rest of the folder still runs and reports
REFUSED_GM = {
    "settle_unknown_task": (HEAD + STEP + "    gm: [{settle_task: {task: 3}}]\n",
                            "step 1 (day 1.1): gm[0]: settle_task was refused: unknown_task(task=2)"),
    "gm_after_the_end": (HEAD.replace("settings: {votes: []}", "settings: {votes: [], days: 1}")
                         + "steps:\n  - {phase: night 1, expect: {phase: over}}\n  - gm: [{remove: {player: Аня}}]\n",
                         "step 2 (over): gm[0]: remove was refused: game_over"),
}


@pytest.mark.parametrize("case", sorted(REFUSED_GM))
def test_a_refused_gm_operation_is_one_failure_naming_the_step(tmp_path, case):
    text, expected = REFUSED_GM[case]
    assert failures(tmp_path, case, text)[1] == [expected]


def test_a_gm_refusal_can_be_expected(tmp_path):
    path = tmp_path / "expected.yaml"
    path.write_text(HEAD + STEP + "    rejected:\n      - {gm: {settle_task: {task: 1}}, reason: unknown_task}\n"
                    "      - {gm: {set_end_day: 99}, reason: bad_end_day}\n", encoding="utf-8")
    assert run_file(path).failures == []
    path.write_text(HEAD + STEP + "    rejected:\n      - {gm: {set_end_day: 3}}\n", encoding="utf-8")
    assert run_file(path).failures == ["step 1 (day 1.1): GM: {'gm': {'set_end_day': 3}} was accepted, expected a refusal"]
