"""``altmafia simulate``: the same seed gives the same report; the report has its shape."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from altmafia.cli import main
from altmafia.tools.simulate.table import Run, _progress, derive_seed, run_games, summarize, wilson
from config import RulesetFileError, available_rulesets, load_ruleset

ROOT = Path(__file__).resolve().parents[2]
PNG = b"\x89PNG\r\n\x1a\n"


def simulate(capsys, *args: str) -> dict:
    assert main(["simulate", *args, "--json"]) == 0
    out = capsys.readouterr().out
    return json.loads(out)


def check_shape(rep: dict, games: int) -> None:
    for key in ("ruleset", "games", "seed", "players", "policy", "length", "victory_paths", "mean_win_rate",
                "win_rates", "abilities", "abilities_never_used", "per_game", "checks"):
        assert key in rep, key
    assert rep["games"] == games and len(rep["per_game"]) == games
    assert [g["index"] for g in rep["per_game"]] == list(range(games))
    assert set(rep["win_rates"]) == {"role", "character", "faction", "policy"}
    assert rep["win_rates"]["role"], "every seat has a role"
    for kind, rows in rep["win_rates"].items():
        for r in rows:
            assert {"id", "name", "n", "wins", "rate", "ci"} <= set(r), kind
            lo, hi = r["ci"]
            assert 0 <= lo <= r["rate"] <= hi <= 1, (kind, r)
            assert 0 <= r["wins"] <= r["n"]
    seats = sum(r["n"] for r in rep["win_rates"]["role"])
    assert seats == games * rep["players"]
    assert sum(p["games"] for p in rep["victory_paths"]) == games
    assert abs(sum(p["share"] for p in rep["victory_paths"]) - 1) < 1e-3
    ln = rep["length"]
    assert ln["ticks_min"] <= ln["ticks_mean"] <= ln["ticks_max"]
    for a in rep["abilities"]:
        assert 0 <= a["blocked"] <= a["used"] and 0 <= a["blocked_share"] <= 1
        assert 1 <= a["games_used"] <= games
    assert rep["checks"]["refused_legal_moves"] == 0, "the engine refused a move legal_actions offered"


def test_same_seed_same_json(capsys):
    a = simulate(capsys, "--ruleset", "godfather", "--games", "2", "--seed", "11", "--policy", "mixed")
    b = simulate(capsys, "--ruleset", "godfather", "--games", "2", "--seed", "11", "--policy", "mixed")
    assert json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)
    check_shape(a, 2)
    assert {r["id"] for r in a["win_rates"]["policy"]} == {"greedy", "random"}
    assert {r["id"] for r in a["win_rates"]["faction"]} <= {"faction_leader", "faction_member", "free"}
    assert a["abilities"], "the GM trace counts the abilities used"
    c = simulate(capsys, "--ruleset", "godfather", "--games", "2", "--seed", "12", "--policy", "mixed")
    assert c["per_game"] != a["per_game"], "another seed, other games"


@pytest.mark.parametrize(("ruleset", "policy"), [("eternal_friday_mini", "random"), ("stats_mafia_mini", "greedy")])
def test_mini_rulesets(capsys, ruleset, policy):
    rep = simulate(capsys, "--ruleset", ruleset, "--games", "4", "--seed", "3", "--policy", policy, "--lang", "en")
    check_shape(rep, 4)
    assert rep["ruleset"]["id"] == ruleset and rep["ruleset"]["victory"] == "last_team"
    assert all(r["id"].startswith("team:") for r in rep["win_rates"]["faction"])
    assert all(p["path"].startswith(("team:", "no_winner")) for p in rep["victory_paths"])


def test_a_gms_own_ruleset_file(capsys, tmp_path):
    mine = tmp_path / "eternal_friday_mini.yaml"  # a file's id is its name
    shutil.copy(ROOT / "tests" / "rulesets" / "eternal_friday_mini.yaml", mine)
    rep = simulate(capsys, "--ruleset", str(mine), "--games", "2", "--seed", "1", "--players", "8")
    check_shape(rep, 2)
    assert rep["players"] == 8 and rep["ruleset"]["source"] == str(mine)


def test_plot_writes_a_png(capsys, tmp_path):
    png = tmp_path / "rates.png"
    assert main(["simulate", "--ruleset", "stats_mafia_mini", "--games", "3", "--policy", "mixed", "--plot", str(png),
                 "--lang", "en"]) == 0
    out = capsys.readouterr().out
    assert "win rate by role" in out and "victory paths" in out and str(png) in out
    assert png.read_bytes()[:8] == PNG


def test_russian_report_and_plot(capsys, tmp_path):
    """``--lang ru``: the titles, columns, sides and victory paths in Russian, in the text and
    in the picture (its texts read back from the figure)."""
    png = tmp_path / "rates.png"
    assert main(["simulate", "--ruleset", "godfather", "--games", "3", "--seed", "2", "--lang", "ru", "--plot", str(png)]) == 0
    out = capsys.readouterr().out
    assert out.startswith("Наследие крестного отца [godfather]: 3 игры, 13 игроков")
    for words in ("пути к победе:", "доля побед — по роли", "по фракции / стороне", "вольный игрок", "способности"):
        assert words in out, words
    for english in ("win rate", "victory paths", "free player", "faction leader", "games,", "abilities ("):
        assert english not in out, english
    assert png.read_bytes()[:8] == PNG
    rep = simulate(capsys, "--ruleset", "stats_mafia_mini", "--games", "2", "--seed", "3", "--lang", "ru")
    from altmafia.text.i18n import catalog

    teams = {r["id"]: r["name"] for r in rep["win_rates"]["faction"]}
    assert teams and all(name == catalog("ru")["report"][f"team.{tid.removeprefix('team:')}"] for tid, name in teams.items())
    from altmafia.tools.simulate.table import path_name, side_name

    assert side_name("team:mafia", "ru") == "Мафия" and side_name("free", "en") == "free player"
    assert path_name("no_winner:time_out", "ru") == "без победителя: время вышло"
    assert path_name("team:yakuza", "en") == "Yakuza win"


def test_plot_texts_follow_the_language(tmp_path):
    from matplotlib.figure import Figure

    from altmafia.tools.simulate import table as sim

    rep = sim.summarize(Run("stats_mafia_mini", games=2, seed=5), run_games(Run("stats_mafia_mini", games=2, seed=5), jobs=1), "ru")
    texts: list[str] = []
    real = Figure.savefig

    def keep(fig, *a, **kw):  # read the figure's texts as drawn, then save it for real
        texts.extend(t.get_text() for t in fig.findobj(lambda o: hasattr(o, "get_text")))
        return real(fig, *a, **kw)

    Figure.savefig = keep
    try:
        sim.plot(rep, str(tmp_path / "p.png"))
    finally:
        Figure.savefig = real
    joined = "\n".join(texts)
    assert "Доля побед по роли" in joined and "доля побед, %" in joined and "2 игры" in joined
    assert "Win rate" not in joined and "games" not in joined


def test_one_game_replays_alone(capsys):
    rep = simulate(capsys, "--ruleset", "stats_mafia_mini", "--games", "3", "--seed", "9")
    one = simulate(capsys, "--ruleset", "stats_mafia_mini", "--games", "3", "--seed", "9", "--game", "2")
    assert {k: one[k] for k in ("index", "seed", "ticks", "path", "winners")} == rep["per_game"][2]
    assert main(["simulate", "--ruleset", "stats_mafia_mini", "--seed", "9", "--game", "2"]) == 0
    log = capsys.readouterr().out
    assert "seat 0:" in log and "ended at tick" in log


def test_worker_processes_give_the_same_games():
    run = Run("stats_mafia_mini", games=3, seed=4)
    assert run_games(run, jobs=2) == run_games(run, jobs=1)


def test_greedy_differs_from_random():
    a = summarize(Run("stats_mafia_mini", 2, 5, policy="random"), run_games(Run("stats_mafia_mini", 2, 5, policy="random")))
    b = summarize(Run("stats_mafia_mini", 2, 5, policy="greedy"), run_games(Run("stats_mafia_mini", 2, 5, policy="greedy")))
    assert a["abilities"] != b["abilities"]


def test_bad_table_size_is_refused(capsys):
    assert main(["simulate", "--ruleset", "godfather", "--games", "1", "--players", "40"]) == 1
    assert "2–16 players, not 40" in capsys.readouterr().err


def test_wilson_and_seeds():
    assert wilson(0, 0) == (0.0, 1.0)
    lo, hi = wilson(5, 10)
    assert round(lo, 4) == 0.2366 and round(hi, 4) == 0.7634
    lo, hi = wilson(0, 10)
    assert lo == 0.0 and 0.27 < hi < 0.28
    assert derive_seed(1, 2, "game") == derive_seed(1, 2, "game") != derive_seed(1, 3, "game")


def test_no_progress_bar_off_a_terminal():
    bar = _progress(10, "x", enabled=True)  # pytest captures stderr: not a TTY
    assert type(bar).__name__ == "_NoBar"


@pytest.mark.parametrize("rid", sorted(available_rulesets(include_tests=True)))
def test_every_ruleset_plays(rid):
    """Every shipped and test-only ruleset plays a game to the end (a ruleset file that does not
    load yet is test_rulesets' concern, not this one's)."""
    try:
        load_ruleset(rid, include_tests=True)
    except RulesetFileError as exc:
        pytest.skip(f"{rid} does not load: {str(exc).splitlines()[0]}")
    run = Run(rid, games=1, seed=2, policy="mixed")
    rep = summarize(run, run_games(run))
    check_shape(rep, 1)
