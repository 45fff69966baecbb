"""The full reveal at a game's end: who was who, the factions, the timeline, and a chart of
each player's public stat over the days (a PNG drawn with matplotlib's Agg backend)."""

from __future__ import annotations

import io
from typing import Any

from engine import Game, PlayerSpec
from engine.state import Event

from .i18n import Renderer, text


def public_stat(game: Game) -> str | None:
    for s in game.rules.stats:
        if s.visibility == "public":
            return s.id
    return None


def summary(game: Game, lang: str) -> str:
    """Roles, characters, stats with every hidden bonus, statuses, factions, the winners."""
    r = Renderer(game, lang)
    lines = [text(lang, "reveal.title")]
    for p in game.state.players:
        stats = ", ".join(f"{r.stat(s.id)} {game.true_stat(p, s.id)}" for s in game.rules.stats)
        statuses = ", ".join(r.status(f.id) for f in game.status_flags(p))
        char = r.character(p.character) if p.character else "—"
        lines.append(text(lang, "reveal.player", name=p.name, role=r.character(p.role), character=char, stats=stats,
                          statuses=f" ({statuses})" if statuses else ""))
    if game.state.factions:
        lines.append(text(lang, "reveal.factions"))
        for fid, f in sorted(game.state.factions.items()):
            members = ", ".join(game.player(m).name for m in sorted(f.members))
            lines.append(text(lang, "reveal.faction", fid=fid, leader=game.player(f.leader).name, members=members))
    winners = ", ".join(game.player(w).name for w in game.state.winner or []) or r.word("nobody")
    lines.append(text(lang, "reveal.winners", winners=winners))
    return "\n".join(lines)


AUDIENCE_TAG = {"public": "reveal.tag_public", "gm": "reveal.tag_gm", "faction": "reveal.tag_faction"}


def timeline(game: Game, events: list[Event], lang: str) -> str:
    """Every event of the game in order under its phase, with whom it was for."""
    r = Renderer(game, lang)
    out: list[str] = []
    label = None
    for ev in events:
        here = r.label(game.clock.info(ev.tick).label)
        if here != label:
            out.append(f"\n== {here} ==")
            label = here
        if ev.audience == "players":
            tag = text(lang, "reveal.tag_players", names=", ".join(r.player(i) for i in ev.ids))
        else:
            tag = text(lang, AUDIENCE_TAG.get(ev.audience, "reveal.tag_gm"), fid=", ".join(map(str, ev.ids)))
        out.append(f"[{tag}] {r.event(ev)}")
    return "\n".join(out).strip() + "\n"


def stat_series(game: Game, info: Any, events: list[Event]) -> tuple[str | None, list[float], dict[int, list[int]]]:
    """The public stat of every player at the start and after each resolved tick."""
    stat = public_stat(game)
    if stat is None:
        return None, [], {}
    start = Game.new(game.rules, info.seed, [PlayerSpec(**p) for p in info.players], info.settings)
    value = {p.pid: p.stats.get(stat, 0) for p in start.state.players}
    per_cycle = game.clock.per_cycle
    last = game.state.tick
    xs = [1.0]
    series = {pid: [v] for pid, v in value.items()}
    by_tick: dict[int, list[Event]] = {}
    for ev in events:
        if ev.key == "report.stat" and ev.audience == "public" and ev.args.get("stat") == stat:
            by_tick.setdefault(ev.tick, []).append(ev)
    for t in range(last):
        for ev in by_tick.get(t, []):
            value[int(ev.args["player"])] = int(ev.args["value"])
        xs.append(1 + (t + 1) / per_cycle)
        for pid in series:
            series[pid].append(value[pid])
    return stat, xs, series


def chart_png(game: Game, info: Any, events: list[Event], lang: str) -> bytes | None:
    stat, xs, series = stat_series(game, info, events)
    if stat is None:
        return None
    # imported here: matplotlib takes ~0.3 s to import, and only a finished game's chart needs it
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib.figure import Figure

    r = Renderer(game, lang)
    fig = Figure(figsize=(10, 6), dpi=100)
    ax = fig.add_subplot()
    cmap = matplotlib.colormaps["tab20"]
    for i, (pid, ys) in enumerate(sorted(series.items())):
        ax.plot(xs, ys, label=r.player(pid), color=cmap(i % 20), linewidth=1.8, drawstyle="steps-post")
    ax.set_xlabel(text(lang, "reveal.chart_x"))
    ax.set_ylabel(r.stat(stat))
    ax.set_title(text(lang, "reveal.chart_title", stat=r.stat(stat)))
    ax.grid(True, alpha=0.3)
    ax.legend(loc="center left", bbox_to_anchor=(1.0, 0.5), fontsize=8)
    fig.tight_layout()
    buf = io.BytesIO()
    fig.savefig(buf, format="png")
    return buf.getvalue()
