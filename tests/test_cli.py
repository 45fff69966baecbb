"""The altmafia command line as a new user meets it."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def run(*args: str, cwd: Path = ROOT, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    e = {k: v for k, v in os.environ.items() if k != "DISCORD_TOKEN"}
    e.update(env or {})
    return subprocess.run([sys.executable, "-m", "altmafia", *args], cwd=cwd, env=e, capture_output=True, text=True, timeout=120)


def test_run_without_token_explains_and_fails(tmp_path):
    r = run("run", cwd=tmp_path)
    assert r.returncode != 0
    assert "DISCORD_TOKEN" in r.stderr
    assert "discord.com/developers/applications" in r.stderr
    assert ".env" in r.stderr


def test_run_reads_token_from_env_file(tmp_path):
    # a closed port on this machine: the bot tries to log in and fails at once, never the network
    env_file = "DISCORD_TOKEN=abc\nALTMAFIA_API_BASE=http://127.0.0.1:9/api/v10\nALTMAFIA_DB=./t.sqlite3\n"
    (tmp_path / ".env").write_text(env_file, encoding="utf-8")
    r = run("run", cwd=tmp_path)
    assert "DISCORD_TOKEN is not set" not in r.stderr
    assert r.returncode != 0


def test_scenario_command_counts(tmp_path):
    r = run("scenario", str(ROOT / "tests" / "scenarios"))
    assert r.returncode == 0, r.stdout + r.stderr
    assert r.stdout.strip().splitlines()[-1].endswith(" passed, 0 failed")


def test_scenario_command_reports_a_failure_with_step_and_difference(tmp_path):
    src = (ROOT / "tests" / "scenarios" / "godfather" / "example.yaml").read_text(encoding="utf-8")
    bad = tmp_path / "wrong.yaml"
    bad.write_text(src.replace("Борис: {ВО: 3, ТВ: 4}", "Борис: {ВО: 5, ТВ: 4}"), encoding="utf-8")
    r = run("scenario", str(bad), str(ROOT / "tests" / "scenarios" / "godfather" / "example.yaml"))
    assert r.returncode == 1
    assert "step 1 (day 1.1): Борис ВО: expected 5, got 3" in r.stdout
    assert r.stdout.strip().splitlines()[-1] == "1 passed, 1 failed"


def test_rules_lists_and_shows():
    r = run("rules")
    assert r.returncode == 0 and "godfather" in r.stdout
    r = run("rules", "godfather", "--lang", "en")
    assert r.returncode == 0 and "Tavern keeper" in r.stdout


def test_rules_coverage_table_is_complete_for_godfather():
    r = run("rules", "godfather", "--coverage")
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert "owner | slot | ability | step | frequency | implemented | scenarios" in lines
    assert any(line.startswith("Хозяин трактира | day | Упомянуть в местных байках | effects |") for line in lines)
    assert lines[-1].startswith("124 of 124 abilities implemented with a scenario")


def test_a_passive_with_a_typo_fails_at_load(tmp_path):
    src = (ROOT / "config" / "rulesets" / "godfather.yaml").read_text(encoding="utf-8")
    bad = tmp_path / "typo.yaml"
    bad.write_text(src.replace("{kind: pm_quota, params: {extra: 10}}", "{kind: pm_qouta, params: {extra: 10}}", 1), encoding="utf-8")
    r = run("rules", str(bad), "--lang", "en")
    assert r.returncode == 1
    assert "unknown passive kind 'pm_qouta'" in r.stderr and "typo.yaml" in r.stderr
    assert "did you mean 'pm_quota'?" in r.stderr


# ---- bad input on the command line: one clear line, never a traceback --------------------
def _main(capsys, *args: str) -> tuple[int, str, str]:
    from altmafia.cli import main

    code = main(list(args))
    out = capsys.readouterr()
    return code, out.out, out.err


def test_paths_that_do_not_exist_get_one_line_and_exit_2(tmp_path, capsys):
    for args, line in (
        (("scenario", str(tmp_path / "missing")), f"altmafia: no such file or folder: {tmp_path / 'missing'}"),
        (("rules", str(tmp_path / "r.yaml")), f"altmafia: no such ruleset file: {tmp_path / 'r.yaml'}"),
        (("simulate", "--ruleset", str(tmp_path / "r.yaml")), f"altmafia: no such ruleset file: {tmp_path / 'r.yaml'}"),
        (("simulate", "--ruleset", "stats_mafia_mini", "--plot", str(tmp_path / "no" / "c.png")),
         f"altmafia: no such folder for the chart: {tmp_path / 'no'}"),
    ):
        code, out, err = _main(capsys, *args)
        assert code == 2 and err == line + "\n" and out == "", (args, err)


def test_a_bad_number_of_games_is_refused_by_the_parser(capsys):
    import pytest

    for bad in ("0", "-5", "many"):
        with pytest.raises(SystemExit) as exc:
            _main(capsys, "simulate", "--games", bad)
        assert exc.value.code == 2
        assert "argument --games:" in capsys.readouterr().err


def _godfather_with(tmp_path: Path, name: str, edit) -> Path:
    import yaml

    data = yaml.safe_load((ROOT / "config" / "rulesets" / "godfather.yaml").read_text(encoding="utf-8"))
    edit(data)
    path = tmp_path / name
    path.write_text(yaml.safe_dump(data, allow_unicode=True), encoding="utf-8")
    return path


def test_rulesets_that_crashed_simulate_are_refused_by_rules_and_simulate(tmp_path, capsys):
    no_periods = _godfather_with(tmp_path, "no_periods.yaml", lambda d: d["calendar"].update(periods=[]))
    bad_op = _godfather_with(tmp_path, "bad_op.yaml", lambda d: d["roles"][0]["abilities"][0].update(effects=[{"op": "explode"}]))
    for path, words in ((no_periods, "calendar.periods: a calendar needs at least one period"),
                        (bad_op, "effects[0].op: unknown effect op 'explode'")):
        for args in (("rules", str(path), "--lang", "en"), ("simulate", "--ruleset", str(path), "--games", "1")):
            code, _out, err = _main(capsys, *args)
            assert code == 1, (args, err)
            assert err.startswith(f"{path}: the ruleset is not valid (1 problem):") and words in err, err
            assert "Traceback" not in err


def test_a_ruleset_file_that_is_not_utf8(tmp_path, capsys):
    path = tmp_path / "cp1251.yaml"
    path.write_bytes((ROOT / "config" / "rulesets" / "godfather.yaml").read_text(encoding="utf-8").encode("cp1251", "replace"))
    code, _out, err = _main(capsys, "rules", str(path))
    assert code == 1
    assert err.startswith(f"{path}: not UTF-8 text (byte 0x") and err.endswith("save the file as UTF-8\n")


def test_a_bad_scenario_file_is_one_located_failure(tmp_path, capsys):
    bad = tmp_path / "bad.yaml"
    bad.write_text("ruleset: godfather\nseed: seven\nplayers: [{name: Аня, role: Ростовщик}]\nsteps: []\n", encoding="utf-8")
    code, out, _err = _main(capsys, "scenario", str(bad))
    assert code == 1
    assert out.splitlines() == [f"FAIL  {bad}", f"    invalid scenario {bad}: seed: 'seven' is not a whole number", "0 passed, 1 failed"]


def test_run_stops_at_once_on_a_bad_setting(tmp_path):
    # the issue: ``inf`` let the bot start and killed its deadline loop
    (tmp_path / ".env").write_text("DISCORD_TOKEN=abc\nALTMAFIA_SCHEDULER_SECONDS=inf\n", encoding="utf-8")
    r = run("run", cwd=tmp_path)
    assert r.returncode == 2
    assert r.stderr == "altmafia: ALTMAFIA_SCHEDULER_SECONDS='inf' is not a finite number\n"
    assert not (tmp_path / "altmafia.sqlite3").exists()
