"""The full reveal at a game's end: who was who, the factions, the timeline, and a chart of
every player's stats over the days with the values the reveal shows (with hidden bonuses),
drawn by :mod:`altmafia.text.chart`."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from engine import Game
from engine.state import Event

from .chart import Chart, Panel, panel_name, render
from .i18n import Renderer, text


def revealed_stats(game: Game, p: Any) -> dict[str, int]:
    """A player's stats as the reveal shows them: with every hidden bonus (``true_stat``)."""
    return {s.id: game.true_stat(p, s.id) for s in game.rules.stats}


def seat_members(events: Iterable[Event]) -> dict[int, list[int]]:
    """The Discord members who played each substituted seat, in order (``gm.substituted``):
    the first member and every one who took the seat over."""
    out: dict[int, list[int]] = {}
    for ev in events:
        if ev.key != "gm.substituted":
            continue
        seat = out.setdefault(int(ev.args["player"]), [])
        for uid in (ev.args.get("old_user"), ev.args.get("new_user")):
            if isinstance(uid, int) and (not seat or seat[-1] != uid):
                seat.append(uid)
    return out


def summary(game: Game, lang: str, events: Iterable[Event] | None = None) -> str:
    """Roles, characters, stats with every hidden bonus, statuses, factions, the winners; a
    substituted seat says every member who played it (``events``: the game's log)."""
    r = Renderer(game, lang)
    played = seat_members(game.state.events if events is None else events)
    lines = [text(lang, "reveal.title")]
    for p in game.state.players:
        # only what the ruleset has: a character where it deals them, stats where it keeps any
        stats = ", ".join(f"{r.stat(sid)} {v}" for sid, v in revealed_stats(game, p).items())
        statuses = ", ".join(r.status(f.id) for f in game.status_flags(p))
        who = r.character(p.role)
        if game.rules.characters:
            who = text(lang, "reveal.role_character", role=who, character=r.character(p.character) if p.character else "—")
        line = text(lang, "reveal.player_as", name=r.player(p.pid), who=who, stats=f"; {stats}" if stats else "",
                    statuses=f"; {statuses}" if statuses else "")  # a status name may hold brackets itself
        if len(played.get(p.pid, [])) > 1:  # «место играли по очереди: @Аня → @Вика»
            line += text(lang, "reveal.seat_played_by", members=" → ".join(r.user("user", u) for u in played[p.pid]))
        lines.append(line)
    if game.state.factions:
        lines.append(text(lang, "reveal.factions"))
        for fid, f in sorted(game.state.factions.items()):
            members = ", ".join(r.player(m) for m in sorted(f.members))
            lines.append(text(lang, "reveal.faction", fid=r.faction(fid), leader=r.player(f.leader), members=members))
    winners = ", ".join(r.player(w) for w in game.state.winner or []) or r.word("nobody")
    lines.append(text(lang, "reveal.winners", winners=winners))
    return "\n".join(lines)


#: live notices: true when they were posted («Сейчас: день 2 — до …», ``notice.phase``), not history
LIVE_NOTICES = frozenset({"notice.phase"})


def history(events: Iterable[Event]) -> list[Event]:
    """The events that tell what happened, without the live notices (the timelines, the report)."""
    return [ev for ev in events if ev.key not in LIVE_NOTICES]


AUDIENCE_TAG = {"public": "reveal.tag_public", "gm": "reveal.tag_gm", "faction": "reveal.tag_faction"}


def timeline(game: Game, events: list[Event], lang: str, users: dict[int, str] | None = None) -> str:
    """Every event of the game in order under its phase, with whom it was for (no live notice).
    A file, not a Discord message: a member is named by ``users`` (id → name) or in words, a
    text of several lines keeps them, indented under its tag."""
    r = Renderer(game, lang)
    r.users = dict(users or {})
    out: list[str] = []
    label = None
    for ev in history(events):
        here = r.label(game.clock.info(ev.tick).label)
        if here != label:
            out.append(f"\n== {here} ==")
            label = here
        if ev.audience == "players":
            tag = text(lang, "reveal.tag_players", names=", ".join(r.player(i) for i in ev.ids))
        else:
            tag = text(lang, AUDIENCE_TAG.get(ev.audience, "reveal.tag_gm"), fid=", ".join(r.faction(i) for i in ev.ids))
        out.append(f"[{tag}] " + r.event(ev).replace("\n", "\n    "))
    return "\n".join(out).strip() + "\n"


def public_events(events: list[Event]) -> list[Event]:
    """What was public during the game: the events whose audience was everyone (no GM line, no
    anonymous author, no PM, nothing of a faction's or a player's own)."""
    return [ev for ev in events if ev.audience == "public"]


def public_timeline(game: Game, events: list[Event], lang: str, users: dict[int, str] | None = None) -> str:
    """The timeline the public gets at the end by default: its own events only."""
    return timeline(game, public_events(events), lang, users)


def true_series(states: Iterable[Game]) -> tuple[list[float], list[dict[int, dict[str, int]]]]:
    """Every player's stats as the reveal shows them (:func:`revealed_stats`) at each of
    ``states``: the game at its start and after every resolve (``storage.commands.replay``).
    Returns the points in days (1.0 = the start of day 1) and the values at each point."""
    xs: list[float] = []
    points: list[dict[int, dict[str, int]]] = []
    for g in states:
        xs.append(1 + g.state.tick / g.clock.per_cycle)
        points.append({p.pid: revealed_stats(g, p) for p in g.state.players})
    return xs, points


def chart(game: Game, states: Iterable[Game], lang: str) -> Chart | None:
    """The reveal's chart: a panel per player with every stat that changed during the game,
    the final values as the reveal writes them, the winners marked; ``states``: the game at its
    start and after every resolve (``storage.commands.replay``)."""
    if not game.rules.stats:
        return None
    r = Renderer(game, lang)
    xs, points = true_series(states)
    final = {p.pid: revealed_stats(game, p) for p in game.state.players}
    points[-1] = final  # the reveal's own values (the replay ends on the same ones)
    sids = [s.id for s in game.rules.stats]
    moving = [sid for sid in sids if any(len({pt[p.pid][sid] for pt in points}) > 1 for p in game.state.players)]
    shown = moving or sids[:1]
    winners = set(game.state.winner or [])
    panels = []
    for p in game.state.players:
        seat = p.pid + 1
        title = panel_name(p.name, text(lang, "reveal.chart_seat", n=seat), text(lang, "reveal.chart_seat_name", n=seat, name="{name}"))
        deaths = [r.status(f.id) for f in game.status_flags(p) if f.dead]
        badge = text(lang, "reveal.chart_winner") if p.pid in winners else ", ".join(deaths)
        panels.append(Panel(
            title=title,
            series={r.stat(sid): [pt[p.pid][sid] for pt in points] for sid in shown},
            final=" · ".join(f"{r.stat(sid)} {final[p.pid][sid]}" for sid in sids),
            winner=p.pid in winners, dead=bool(deaths), badge=badge,
        ))
    stats = [r.stat(sid) for sid in shown]
    return Chart(title=text(lang, "reveal.chart_title", stats=", ".join(stats)), xs=xs, x_label=text(lang, "reveal.chart_x"),
                 stats=stats, panels=panels, winner_label=text(lang, "reveal.chart_winner") if winners else "")


def chart_png(game: Game, states: Iterable[Game], lang: str) -> bytes | None:
    """The chart as a PNG (None for a ruleset without stats). Slow for a long game: the bot
    calls it in a worker thread."""
    c = chart(game, states, lang)
    return render(c) if c is not None else None
