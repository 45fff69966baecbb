"""The end-of-game chart (``chart.png`` of the reveal): small multiples, one panel per player.

Every panel has the player's name as its title, shares its axes with the others (days across,
the stats' values up), draws one step line per stat that changed during the game and writes the
player's final values (the reveal's) in words; the winners' panels are gold, the dead ones grey.
The data comes from :mod:`altmafia.text.reveal`; nothing here decides a rule.

Names of every shape: the fonts come from the ``manimgx-fonts`` wheel (Noto Sans, Noto Sans for
Arabic, Hebrew and other scripts, Noto Emoji, Noto Sans Symbols, under the SIL Open Font
License), registered with matplotlib's font manager at run time and given to every text as a
list of families, so that each glyph falls back to the first font that has it. matplotlib ≥ 3.11
lays text out with libraqm: Arabic is shaped and right-to-left text ordered, emoji sequences
(ZWJ, skin tones, flags) joined by the font. A name with a character no font has would be drawn
with a box: it is drawn without that character, followed by its seat number (only the seat
number when nothing drawable is left).

Thread-safety: only an explicit :class:`matplotlib.figure.Figure` on the Agg canvas, never
pyplot's global state; matplotlib's font cache is shared, so renders take a lock. The bot calls
:func:`render` in a worker thread (``asyncio.to_thread``), never on the event loop.
"""

from __future__ import annotations

import io
import math
import threading
import unicodedata
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources
from pathlib import Path

from .names import shorten as cut_name

FONT_PACKAGE = "manimgx_fonts"
#: the families in fallback order; DejaVu Sans (matplotlib's own) last
PREFERRED = ("Noto Sans", "Noto Sans Arabic", "Noto Sans Hebrew", "Noto Sans Devanagari", "Noto Sans Thai",
             "Noto Sans Georgian", "Noto Sans Armenian", "Noto Sans Ethiopic", "Noto Emoji", "Noto Sans Symbols")
#: never drawn on their own: joiners, variation selectors, bidi controls, tags (emoji flags of regions)
INVISIBLE = {"Cf", "Mn", "Me", "Zl", "Zp", "Cc"}
NAME_WIDTH = 24  # characters of a name in a panel title before "…"
STAT_COLORS = ("#2563eb", "#dc2626", "#16a34a", "#9333ea", "#ea580c", "#0891b2")
WIN_FACE, WIN_EDGE, DEAD_FACE = "#fef3c7", "#d97706", "#eeeeee"

_FONTS_LOCK = threading.Lock()
_RENDER_LOCK = threading.RLock()
_families: tuple[str, ...] | None = None


def font_files() -> list[Path]:
    """The font files of the fonts package (empty if it is not installed)."""
    try:
        root = resources.files(FONT_PACKAGE)
    except ModuleNotFoundError:
        return []
    return sorted(Path(str(p)) for p in root.iterdir() if p.name.endswith((".ttf", ".otf")))


def families() -> tuple[str, ...]:
    """Register the package's fonts (once) and return the fallback list of families."""
    global _families
    with _FONTS_LOCK:
        if _families is None:
            # imported here: matplotlib takes ~0.3 s to import, and only a chart needs it
            from matplotlib import font_manager

            names = set()
            for path in font_files():
                font_manager.fontManager.addfont(str(path))
                names.add(font_manager.FontProperties(fname=str(path)).get_name())
            _families = (*[f for f in PREFERRED if f in names], *sorted(names - set(PREFERRED)), "DejaVu Sans")
        return _families


@lru_cache(maxsize=1)
def _coverage() -> frozenset[int]:
    """Every code point some font of :func:`families` has a glyph for."""
    # imported here: matplotlib takes ~0.3 s to import, and only a chart needs it
    import matplotlib
    from matplotlib.ft2font import FT2Font

    paths = [*font_files(), Path(matplotlib.get_data_path()) / "fonts" / "ttf" / "DejaVuSans.ttf"]
    points: set[int] = set()
    for path in paths:
        points |= set(FT2Font(str(path)).get_charmap())
    return frozenset(points)


def drawable(ch: str) -> bool:
    return unicodedata.category(ch) in INVISIBLE or ch.isspace() or ord(ch) in _coverage()


def shorten(name: str, width: int = NAME_WIDTH) -> str:
    return cut_name(name, width)


def panel_name(name: str, seat_label: str, seat_name: str) -> str:
    """The name as it can be drawn: whole; without the characters no font has, followed by the
    seat (``seat_name`` with ``{name}``); or only ``seat_label`` when nothing drawable is left."""
    families()
    kept = "".join(ch for ch in name if drawable(ch)).strip()
    if kept == name.strip() and kept:
        return shorten(kept)
    if not any(unicodedata.category(ch)[0] in "LNS" for ch in kept):
        return seat_label
    return seat_name.format(name=shorten(kept, NAME_WIDTH - 8))


@dataclass
class Panel:
    """One player's panel: ``series`` maps a stat's label to its value at every point."""

    title: str
    series: dict[str, list[int]]
    final: str  # the final values in words, as the reveal shows them
    winner: bool = False
    dead: bool = False
    badge: str = ""  # a word under the name: «победитель», a death status


@dataclass
class Chart:
    title: str
    xs: list[float]  # the points in days (1.0 = the start of day 1)
    x_label: str
    stats: list[str]  # the stat labels with a line, in order (the legend)
    panels: list[Panel] = field(default_factory=list)
    winner_label: str = ""


def _limits(chart: Chart) -> tuple[float, float]:
    values = [v for p in chart.panels for s in chart.stats for v in p.series.get(s, [])]
    if not values:
        return -1.0, 1.0
    lo, hi = min(0, min(values)), max(0, max(values))
    top = max(hi, 1)
    if lo < -2 * top:  # a far negative tail (damage to the dead) would squash everyone else
        lo = -top
    pad = max((hi - lo) * 0.08, 0.5)
    return lo - pad, hi + 3.5 * pad  # room above for the final values


def render(chart: Chart, dpi: int = 100) -> bytes:
    """The chart as PNG bytes (Agg, an explicit Figure: safe in a worker thread)."""
    fams = list(families())
    with _RENDER_LOCK:
        # imported here: matplotlib takes ~0.3 s to import, and only a chart needs it
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure
        from matplotlib.lines import Line2D
        from matplotlib.patches import Patch

        n = max(len(chart.panels), 1)
        ncols = min(n, 4 if n <= 16 else 5)
        nrows = math.ceil(n / ncols)
        fig = Figure(figsize=(3.1 * ncols, 2.05 * nrows + 1.1), dpi=dpi)
        FigureCanvasAgg(fig)
        axes = fig.subplots(nrows, ncols, sharex=True, sharey=True, squeeze=False)
        lo, hi = _limits(chart)
        colors = {s: STAT_COLORS[i % len(STAT_COLORS)] for i, s in enumerate(chart.stats)}
        days = range(math.floor(chart.xs[0]), math.ceil(chart.xs[-1]) + 1) if chart.xs else range(1, 2)
        for i, ax in enumerate(axes.flat):
            if i >= len(chart.panels):
                ax.set_visible(False)
                continue
            p = chart.panels[i]
            ax.set_facecolor(WIN_FACE if p.winner else DEAD_FACE if p.dead else "white")
            for spine in ax.spines.values():
                spine.set_edgecolor(WIN_EDGE if p.winner else "#bbbbbb")
                spine.set_linewidth(2.5 if p.winner else 0.8)
            for d in days:
                ax.axvline(d, color="#d6d3d1", linewidth=0.6, zorder=0)
            if lo < 0 < hi:
                ax.axhline(0, color="#a8a29e", linewidth=0.8, zorder=0)
            for k, s in enumerate(chart.stats):  # thinner each: lines on the same values stay visible
                ys = p.series.get(s)
                if ys:
                    width = max(2.8 - 0.8 * k, 1.0)
                    ax.plot(chart.xs, ys, drawstyle="steps-post", color=colors[s], linewidth=width,
                            alpha=0.6 if p.dead else 1.0, solid_capstyle="butt")
                    ax.plot(chart.xs[-1:], ys[-1:], "o", color=colors[s], markersize=width + 2.2)
            ax.set_title(p.title, fontfamily=fams, fontsize=11, loc="left", pad=3,
                         color="#92400e" if p.winner else "#78716c" if p.dead else "#1c1917")
            if p.badge:
                ax.text(1.0, 1.02, p.badge, transform=ax.transAxes, ha="right", va="bottom", fontfamily=fams,
                        fontsize=8, color=WIN_EDGE if p.winner else "#78716c")
            ax.text(0.03, 0.95, p.final, transform=ax.transAxes, ha="left", va="top", fontfamily=fams, fontsize=8,
                    bbox={"boxstyle": "round,pad=0.2", "facecolor": "white", "edgecolor": "none", "alpha": 0.8})
            ax.set_ylim(lo, hi)
            ax.set_xticks(list(days))
            ax.tick_params(labelsize=8)
            ax.grid(axis="y", alpha=0.25)
        for ax in axes[-1]:
            if ax.get_visible():
                ax.set_xlabel(chart.x_label, fontfamily=fams, fontsize=9)
        for row in axes:  # a bottom panel missing: the panel above it shows the days
            for ax in row:
                if ax.get_visible():
                    ax.xaxis.set_tick_params(labelbottom=True)
        handles: list[Line2D | Patch] = [Line2D([], [], color=colors[s], linewidth=max(2.8 - 0.8 * k, 1.0), label=s) for k, s in enumerate(chart.stats)]
        if chart.winner_label:
            handles.append(Patch(facecolor=WIN_FACE, edgecolor=WIN_EDGE, linewidth=2, label=chart.winner_label))
        fig.suptitle(chart.title, fontfamily=fams, fontsize=13, x=0.01, y=0.995, ha="left", va="top")
        fig.legend(handles=handles, loc="upper right", ncol=len(handles), frameon=False,
                   prop={"family": fams, "size": 9}, bbox_to_anchor=(0.995, 0.995))
        fig.tight_layout(rect=(0, 0, 1, 1 - 0.3 / fig.get_figheight()))
        buf = io.BytesIO()
        fig.savefig(buf, format="png")
        return buf.getvalue()
