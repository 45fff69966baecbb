"""The end-of-game report opened in a real headless browser (Debian's chromium): what it shows
on a phone-sized screen (390 px wide), not only its HTML source."""

from __future__ import annotations

import html
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from PIL import Image  # with matplotlib, a dependency of the reveal chart

from altmafia.text.i18n import catalog
from altmafia.text.report import render_report

from .test_report import play

CHROMIUM = shutil.which("chromium") or ("/usr/bin/chromium" if Path("/usr/bin/chromium").exists() else None)
pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed (apt-get install chromium; .ci/run does it)")
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync", "--hide-scrollbars"]
WIDTH, HEIGHT = 390, 2000


def chromium(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[bytes]:
    profile = tmp_path / f"profile{len(list(tmp_path.glob('profile*')))}"
    cmd = [CHROMIUM, *FLAGS, f"--user-data-dir={profile}", *args]
    return subprocess.run(cmd, capture_output=True, timeout=120, check=True)


@pytest.mark.parametrize(("ruleset", "lang"), [("godfather", "ru"), ("eternal_friday", "en"), ("stats_mafia", "ru"), ("council", "en")])
def test_the_report_in_a_browser(tmp_path, ruleset, lang):
    g = play(ruleset)
    page = tmp_path / "report.html"
    page.write_text(render_report(g, None, lang, "gm"), encoding="utf-8")
    url = page.as_uri()

    dom = chromium(tmp_path, "--dump-dom", url).stdout.decode("utf-8")
    text = html.unescape(re.sub(r"<[^>]+>", " ", re.sub(r"<style>.*?</style>", " ", dom, flags=re.S)))
    text = re.sub(r"\s+", " ", text)
    rep = catalog(lang)["report"]
    assert rep["title"] in text and rep["winners"] in text and rep["timeline"] in text
    winners = text.split(rep["winners"], 1)[1].split(rep["players"], 1)[0]
    for w in g.state.winner or []:
        assert g.player(w).name in winners, (g.player(w).name, winners[:200])
    for p in g.state.players:
        assert p.name in text, p.name
    first = "День 1" if lang == "ru" else "Day 1"
    night = "Ночь 1" if lang == "ru" else "Night 1"
    assert first in text or night in text  # a phase heading
    assert "<svg" in dom  # the charts were parsed as SVG

    shot = tmp_path / "shot.png"
    chromium(tmp_path, f"--screenshot={shot}", f"--window-size={WIDTH},{HEIGHT}", url)
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    with Image.open(shot) as im:
        assert im.format == "PNG" and im.size == (WIDTH, HEIGHT)
        rgb = im.convert("RGB")
    # not blank: many colours, ink (dark text) in the first screenful, and nothing wider than
    # the screen (the right edge is the page's background, not cut-off content)
    colours = rgb.getcolors(maxcolors=1 << 20) or []
    assert len(colours) > 50, len(colours)
    top = rgb.crop((0, 0, WIDTH, 800))
    dark = sum(n for n, c in top.getcolors(maxcolors=1 << 20) if sum(c) < 200)
    assert dark > 2000, dark
    edge = rgb.crop((WIDTH - 4, 0, WIDTH, HEIGHT)).getcolors(maxcolors=1 << 20)
    assert len(edge) <= 3, edge
