"""The end-of-game report (altmafia/report.py): a seeded random game of each ruleset played to
the end and rendered, in both languages and both variants: names escaped and isolated, no raw
ids, every phase, every action with its result and reasons, the charts, the winners."""

from __future__ import annotations

import html
import re
from pathlib import Path

import pytest

from altmafia.text.i18n import catalog
from altmafia.text.report import render_report, stat_series, visible_events
from altmafia.tools.simulate.table import Table, new_table
from config import load_ruleset
from engine import Game

RULESETS = ("godfather", "council", "eternal_friday", "stats_mafia")
# names that break naive markup or bidi: HTML, emoji, Arabic (RTL), Latin, quotes
NAMES = ["<b>Аня</b>", "Даша 🌸", "فاطمة", "O'Brien & Co", 'Лёша "Ус"', "Zoë"]
PM_TEXT = "секрет-для-ведущего-42"
ANON_TEXT = "анонимка-77"


def play(ruleset: str, index: int = 0) -> Game:
    """Game ``index`` of a seeded simulation run, with tricky names; on its first tick a PM and
    (where the ruleset has them) an anonymous post with texts the public report must hide."""
    game, policies, rnd = new_table(load_ruleset(ruleset), 5, index, None, "mixed")
    for p, name in zip(game.state.players, NAMES, strict=False):
        p.name = name
    for pid in range(len(game.state.players)):
        try:
            game.send_pm(pid, (pid + 1) % len(game.state.players), PM_TEXT)
            break
        except Exception:  # noqa: BLE001 - this seat may not write now; the next one tries
            continue
    if game.rules.quotas.anon_per_day:
        game.post_anon(0, ANON_TEXT)
    Table(game, policies, rnd).play()
    assert game.state.over
    return game


@pytest.fixture(scope="module", params=RULESETS)
def finished(request) -> Game:
    return play(request.param)


def page_text(doc: str) -> str:
    body = re.sub(r"<(style|title)>.*?</\1>", " ", doc, flags=re.S)
    return html.unescape(re.sub(r"<[^>]+>", " ", body))


RAW_ID = re.compile(r"\b(?:role|character|vote):[a-z_]+|\b[a-z]+_[a-z_]+\b|\{[a-z_]+\}|\b[a-z]+\.[a-z_]+\.[a-z_]+\b")


@pytest.mark.parametrize("lang", ["ru", "en"])
@pytest.mark.parametrize("variant", ["gm", "public"])
def test_report_shows_the_whole_game(finished, lang, variant):
    g = finished
    doc = render_report(g, g.state.events, lang, variant)
    assert doc.startswith("<!DOCTYPE html>") and f'<html lang="{lang}">' in doc
    assert '<meta name="viewport" content="width=device-width, initial-scale=1">' in doc
    assert "<script" not in doc and "http://" not in doc and "https://" not in doc  # self-contained
    rep = catalog(lang)["report"]
    text = page_text(doc)
    # every name escaped and isolated; never as raw markup
    assert "<b>Аня</b>" not in doc and "&lt;b&gt;Аня&lt;/b&gt;" in doc
    for p in g.state.players:
        assert f'<bdi dir="auto" class="name">{html.escape(p.name)}</bdi>' in doc, p.name
    # the winners, under their heading
    winners = re.search(r'<section class="card winners">(.*?)</section>', doc, re.S).group(1)
    for w in g.state.winner or []:
        assert html.escape(g.player(w).name) in winners
    # every phase has its heading, in order
    labels = [html.unescape(m) for m in re.findall(r'<section class="phase" id="t\d+"><h3>(.*?)</h3>', doc)]
    assert {e.tick for e in visible_events(g.state.events, variant)} <= set(range(g.state.tick + 1))
    assert len(labels) == g.state.tick and labels[0].lower().startswith(("день", "ночь", "day", "night"))
    # every action of the GM trace, with its result in words
    traces = [e for e in g.state.events if e.key == "trace.action"]
    assert doc.count('<li class="act">') == len(traces) > 10
    for result in {e.args["result"] for e in traces}:
        assert catalog(lang)["words"][f"result.{result}"] in text
    blocked = [e for e in traces if e.args["result"] == "blocked"]
    if blocked:
        assert rep["because"].split(":")[0] in text
    # no raw ids anywhere in what a person reads
    bad = sorted(set(RAW_ID.findall(text)))
    assert not bad, bad


def test_public_variant_hides_private_texts():
    g = play("godfather")
    full, public = render_report(g, None, "ru", "gm"), render_report(g, None, "ru", "public")
    assert any(e.key == "pm.received" and e.args["text"] == PM_TEXT for e in g.state.events)
    authors = [e for e in g.state.events if e.key == "gm.anon_author" and e.args["text"] == ANON_TEXT]
    assert authors
    assert PM_TEXT in full and PM_TEXT not in public
    # the anonymous post itself was public; its author is told only in the full report
    author = f'Автор анонимки: <bdi dir="auto" class="name">{html.escape(g.player(authors[0].args["player"]).name)}</bdi>'
    assert author in full and author not in public  # (a player who found the author out still tells it)
    assert ANON_TEXT in public  # published for everyone during the game
    assert "Скрыто личных текстов в этой фазе" in public and "Скрыто" not in full
    with pytest.raises(ValueError):
        render_report(g, None, "ru", "everything")


def test_stat_series_follow_the_reported_values(finished):
    g = finished
    series = stat_series(g, g.state.events)
    assert series, "a stat changed during the game"
    for sid, by_player in series.items():
        vis = g.rules.stat(sid).visibility
        assert len(by_player) == len(g.state.players)
        for pid, ys in by_player.items():
            assert len(ys) == g.state.tick + 1
            p = g.player(pid)
            final = g.true_stat(p, sid) if vis == "secret" else p.stats[sid]
            reported = [e for e in g.state.events if e.args.get("stat") == sid
                        and e.key in ("report.stat", "private.stat", "gm.stat")
                        and (e.ids[0] if e.key == "private.stat" else e.args.get("player")) == pid]
            if reported:
                assert ys[-1] == reported[-1].args["value"]
                assert ys[reported[0].tick + 1] == reported[0].args["value"] or len(
                    [e for e in reported if e.tick == reported[0].tick]) > 1
            elif vis != "secret":
                assert ys == [final] * len(ys)
    doc = render_report(g, None, "en")
    assert doc.count("<svg ") == sum(len(v) for v in series.values())


def test_catalogs_have_the_same_report_texts():
    ru, en = catalog("ru")["report"], catalog("en")["report"]
    assert set(ru) == set(en)
    src = (Path(__file__).resolve().parents[2] / "altmafia" / "text" / "report.py").read_text(encoding="utf-8")
    for key in set(re.findall(r'r\.t\("([a-z_.]+)"', src)):
        assert key in ru, key


def test_every_team_has_a_name():
    rep = catalog("ru")["report"]
    for rs in RULESETS:
        rules = load_ruleset(rs)
        for src in [*rules.roles, *rules.characters]:
            if src.team:
                assert f"team.{src.team}" in rep, (rs, src.team)


def test_simulate_writes_the_report_of_one_game(tmp_path, capsys):
    from altmafia.cli import main

    out = tmp_path / "game.html"
    assert main(["simulate", "--ruleset", "stats_mafia", "--seed", "3", "--game", "1", "--report", str(out), "--public"]) == 0
    page = out.read_text(encoding="utf-8")
    assert "Публичная версия" in page and "Ход игры" in page
    assert main(["simulate", "--report", str(out)]) == 2
    assert "--report needs --game" in capsys.readouterr().err
