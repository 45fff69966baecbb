"""Bad files and values met at the command line: one sentence naming the file or the value, and
what to do; never a traceback, never a help text about something else."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from .test_cli import ROOT
from .test_cli import run as run_cli


def run(*args: str, cwd: Path):
    """``python -m altmafia …`` in ``cwd``, on this checkout's code."""
    return run_cli(*args, cwd=cwd, env={"PYTHONPATH": str(ROOT)})

#: the help shown when no token is set: wrong for a file that has one, on a line it cannot read
TOKEN_HELP_MARK = "discord.com/developers/applications"


def one_line(stderr: str) -> str:
    assert stderr.endswith("\n") and stderr.count("\n") == 1, stderr
    assert "Traceback" not in stderr, stderr
    return stderr.strip()


def test_an_env_file_that_is_not_utf8_names_the_file_and_the_line(tmp_path: Path):
    # saved by a Windows editor in its own code page: «# Ведущий» in cp1251
    (tmp_path / ".env").write_bytes("DISCORD_TOKEN=abc\n# Ведущий: Аня\n".encode("cp1251"))
    r = run("run", cwd=tmp_path)
    assert r.returncode == 2
    line = one_line(r.stderr)
    assert ".env, line 2" in line and "UTF-8" in line and "UnicodeDecodeError" not in line, line
    assert not (tmp_path / "altmafia.sqlite3").exists()


def test_a_broken_env_line_is_named_instead_of_the_token_help(tmp_path: Path):
    (tmp_path / ".env").write_text("# the bot\nDISCORD_TOKEN abc\nALTMAFIA_LANG=ru\n", encoding="utf-8")
    r = run("run", cwd=tmp_path)
    assert r.returncode == 2
    line = one_line(r.stderr)
    assert TOKEN_HELP_MARK not in line, line
    assert ".env, line 2" in line and "'DISCORD_TOKEN abc'" in line and "NAME=value" in line, line
    # the same for the command that only syncs
    r = run("sync", cwd=tmp_path)
    assert r.returncode == 2 and ".env, line 2" in r.stderr


def test_a_good_env_file_with_comments_quotes_and_export_still_reads(tmp_path: Path):
    (tmp_path / ".env").write_text(
        "\ufeff# settings\nexport ALTMAFIA_LANG=en\nALTMAFIA_TZ='Europe/Moscow'  # Moscow\n\nALTMAFIA_SCHEDULER_SECONDS=inf\n",
        encoding="utf-8",
    )
    r = run("run", cwd=tmp_path)
    # the file was read to its last line: the bad number there is what stops the start
    assert r.returncode == 2 and one_line(r.stderr) == "altmafia: ALTMAFIA_SCHEDULER_SECONDS='inf' is not a finite number"


def test_a_gm_role_of_everyone_is_refused_at_start(tmp_path: Path):
    for value in ("@everyone", "everyone", "@here"):
        (tmp_path / ".env").write_text(f"DISCORD_TOKEN=abc\nALTMAFIA_GM_ROLE={value}\n", encoding="utf-8")
        r = run("run", cwd=tmp_path)
        assert r.returncode == 2, r.stderr
        line = one_line(r.stderr)
        assert f"ALTMAFIA_GM_ROLE='{value}'" in line and "every member a GM" in line and "cannot sign up" in line, line
        assert not (tmp_path / "altmafia.sqlite3").exists()


def test_a_backup_onto_its_own_database_says_they_are_the_same_file(tmp_path: Path):
    db = tmp_path / "g.sqlite3"
    sqlite3.connect(db).close()
    for out in (str(db), "./g.sqlite3", str(tmp_path / "." / "g.sqlite3")):
        r = run("backup", str(db), out, cwd=tmp_path)
        assert r.returncode == 1
        line = one_line(r.stderr)
        assert "the same file" in line and "exists" not in line, line
