"""``altmafia bench --quick``: every row has a number or says why it was not measured.

Shape only: these tests never judge a time."""

from __future__ import annotations

import io
import json
import math
from contextlib import redirect_stdout

import pytest

from altmafia.cli import main
from altmafia.tools.bench import Bench, fit_exponent, format_rows

EXPECTED = {
    "engine.resolve_tick_16", "engine.legal_actions_16", "engine.games_per_second",
    "engine.scaling_8", "engine.scaling_16", "engine.scaling_32", "engine.scaling_64", "engine.scaling_exponent",
    "scale.memory_per_game", "scale.resolve_all", "scale.resolve_one",
    "storage.tx_per_command", "storage.tx_per_refused", "storage.tx_per_resolve", "storage.apply_ms", "storage.resolve_ms",
    "storage.save_day1_ms", "storage.save_day7_ms", "storage.snapshot_day1", "storage.snapshot_day7", "storage.snapshot_long",
    "storage.memory_day7",
    "storage.resolve_500_day7", "storage.tx_per_resolve_delivered", "storage.memory_finished",
    "discord.command_path", "discord.command_path_day7", "discord.command_floor", "discord.command_floor_day7",
    "discord.rest_create_13", "discord.rest_resolve",
    "postgres.round_trips_per_command", "postgres.round_trips_per_resolve", "shards.deadline_speedup",
    "load.reply_p99_ms", "load.pm_posted_p99_ms", "lobby.start_20_first_response_s", "lobby.start_20_done_ratio",
    "deadline.commit_ratio", "deadline.delivered_ratio",
}
EXPECTED |= {"store.open_5000_s", "bot.first_reply_after_restart_s", "memory.rss_per_game_kib", "pm.transactions", "pm.cpu_vs_noop", "pm.floor_vs_noop"}  # bench_restart.py


@pytest.fixture(scope="module")
def quick() -> dict:
    buf = io.StringIO()
    with redirect_stdout(buf):
        assert main(["bench", "--quick", "--json"]) == 0
    return json.loads(buf.getvalue())


def test_every_row_has_a_number_or_a_reason(quick):
    assert quick["quick"] is True
    assert {"nproc", "cpu", "python"} <= set(quick["machine"])
    ids = [r["id"] for r in quick["rows"]]
    assert len(ids) == len(set(ids))
    assert set(ids) >= EXPECTED
    for r in quick["rows"]:
        assert r["section"] in ("engine", "peer", "scale", "storage", "discord", "postgres", "load", "deadline")
        if r["not_measured"] is None:
            assert isinstance(r["value"], int | float) and math.isfinite(r["value"]), r
            assert r["value"] >= 0, r
        else:
            assert r["not_measured"].startswith("not measured:") and r["value"] is None, r
        if r["goal"] and r["not_measured"] is None:
            assert r["verdict"] in ("meets the goal", "misses the goal"), r


def test_goal_rows_carry_their_ratio(quick):
    rows = {r["id"]: r for r in quick["rows"]}
    assert rows["engine.scaling_exponent"]["ratio"] is not None
    assert rows["scale.resolve_all"]["ratio"] > 0
    # counts, not times: an accepted command and a resolve each commit at least once, a refusal never
    assert rows["storage.tx_per_command"]["value"] >= 1
    assert rows["storage.tx_per_resolve"]["value"] >= 1
    assert rows["storage.tx_per_refused"]["value"] == 0
    assert "floor" in rows["discord.rest_resolve"]["goal"]
    # a PM: its command's transaction and the one mark of its two sends
    assert rows["pm.transactions"]["not_measured"] or rows["pm.transactions"]["value"] == 2


def test_text_output_names_every_figure(quick):
    b = Bench(machine=quick["machine"], quick=True, rows=quick["rows"])
    text = format_rows(b)
    assert text.startswith("altmafia bench --quick:")
    for r in quick["rows"]:
        assert r["title"] in text
    assert "not measured" in text or not any(r["not_measured"] for r in quick["rows"])


def test_only_one_section(capsys):
    assert main(["bench", "--quick", "--json", "--only", "discord"]) == 0
    rows = json.loads(capsys.readouterr().out)["rows"]
    assert {r["section"] for r in rows} == {"discord"}


def test_fitted_exponent():
    assert fit_exponent([8, 16, 32, 64], [1.0, 2.0, 4.0, 8.0]) == pytest.approx(1.0)
    assert fit_exponent([8, 16, 32], [1.0, 4.0, 16.0]) == pytest.approx(2.0)
