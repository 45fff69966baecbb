"""The end-of-game report («разбор партии»): one self-contained HTML page.

Built only from what the engine recorded: the finished game's state (roles, characters, true
stats, statuses, factions, the winners) and its event log (``trace.action`` with its result
and reasons, ``report.*``, ``private.*``, ``gm.*``, faction events). Nothing here decides a
rule. Every text comes from the catalogs (section ``report`` of ``config/messages/<lang>.report.yaml``
and the event texts); every name is escaped and isolated (``<bdi dir="auto">``), so any name
(emoji, Latin, Arabic) reads right. Inline CSS, the stat charts as inline SVG, no script.

Two variants: ``gm`` (everything) for the GM channel, and ``public``, which leaves out what only
the GM may read, as the engine says (:func:`engine.visibility.in_public_report`): every non-public
event that carries a player's written text (personal messages, mail, notes, and the GM's copy of
an anonymous post, which names its author).
"""

from __future__ import annotations

import html
import re
from collections import defaultdict
from typing import Any

from engine import Game
from engine.state import Event
from engine.visibility import in_public_report

from .i18n import Renderer
from .reveal import history

VARIANTS = ("gm", "public")
OPEN, CLOSE = "\x00", "\x01"  # a player's name inside a rendered text: OPEN pid CLOSE
NAME = re.compile(f"{OPEN}(-?\\d+){CLOSE}")
RESULT_CLASS = {"applied": "ok", "blocked": "bad", "protected": "warn", "partly_protected": "warn",
                "gm_task": "info", "no_effect": "muted"}
PALETTE = ("#2563eb", "#dc2626", "#16a34a", "#9333ea", "#ea580c", "#0891b2")


def visible_events(events: list[Event], variant: str) -> list[Event]:
    """What a variant shows: the game's history (no live notice such as «Сейчас: …»), and in the
    public variant none of the players' private texts."""
    if variant not in VARIANTS:
        raise ValueError(f"unknown report variant {variant!r}; known: {', '.join(VARIANTS)}")
    if variant == "gm":
        return history(events)
    return [ev for ev in history(events) if in_public_report(ev)]


class ReportRenderer(Renderer):
    """The catalog renderer, with names marked for isolation and the report's own words for
    causes, reasons, options and faction names."""

    def __init__(self, game: Game, lang: str) -> None:
        super().__init__(game, lang)
        self.rep: dict[str, str] = self.cat.get("report", {})

    def t(self, key: str, **args: Any) -> str:
        template = self.rep.get(key)
        if template is None:
            return key
        try:
            return template.format(**args)
        except (KeyError, IndexError, ValueError):
            return template

    def player(self, pid: Any) -> str:
        if isinstance(pid, int) and 0 <= pid < len(self.game.state.players):
            return f"{OPEN}{pid}{CLOSE}"
        return super().player(pid)

    # the report escapes for HTML (``markup``), not for Discord's markdown
    def typed_name(self, raw: str) -> str:
        return raw

    def said(self, raw: str) -> str:
        return raw

    def _value(self, key: str, args: dict[str, Any]) -> str:
        v = args[key]
        if key == "by" and not isinstance(v, int):
            return "—"
        return super()._value(key, args)


# ---- HTML helpers -----------------------------------------------------------------------------
def markup(r: ReportRenderer, s: str) -> str:
    """A rendered text as safe HTML: every piece escaped, every name isolated."""
    out, last = [], 0
    for m in NAME.finditer(s):
        out.append(html.escape(s[last:m.start()]))
        out.append(name_html(r.game.state.players[int(m.group(1))].name))
        last = m.end()
    out.append(html.escape(s[last:]))
    return "".join(out).replace("\n", "<br>")  # a text of several lines keeps them


def plain(r: ReportRenderer, s: str) -> str:
    return NAME.sub(lambda m: r.game.state.players[int(m.group(1))].name, s)


def name_html(name: str) -> str:
    return f'<bdi dir="auto" class="name">{html.escape(name)}</bdi>'


# ---- the parts ------------------------------------------------------------------------------
def _winners(r: ReportRenderer) -> str:
    g = r.game
    ws = g.state.winner or []
    names = ", ".join(name_html(g.player(w).name) for w in ws) if ws else html.escape(r.word("nobody"))
    return f'<section class="card winners"><h2>{html.escape(r.t("winners"))}</h2><p class="big">{names}</p></section>'


def _team(r: ReportRenderer, pid: int) -> str:
    g = r.game
    teams = {src.team for src in g.sources(g.player(pid)) if src.team}
    return ", ".join(r.faction(t) for t in sorted(teams))


def _players(r: ReportRenderer) -> str:
    g = r.game
    winners = set(g.state.winner or [])
    rows = []
    for p in g.state.players:
        role = r.character(p.role)
        char = r.character(p.character) if p.character else ""
        who = " / ".join(x for x in (role, char) if x)
        stats = " · ".join(f"{r.stat(s.id)} {g.true_stat(p, s.id)}" for s in g.rules.stats)
        flags = g.status_flags(p)
        dead = any(f.dead for f in flags)
        statuses = ", ".join(r.status(f.id) for f in flags)
        side = [r.faction(f.fid) + (f" ({r.t('leader')})" if f.leader == p.pid else "") for f in g.factions_of(p.pid)]
        team = _team(r, p.pid)
        extra = []
        if team:
            extra.append(html.escape(r.t("team_is", team=team)))
        if side:
            extra.append(html.escape(r.t("faction_is", faction=", ".join(side))))
        if statuses:
            extra.append(html.escape(statuses))
        badge = f'<span class="badge ok">{html.escape(r.t("winner"))}</span>' if p.pid in winners else ""
        cls = "player dead" if dead else "player"
        rows.append(
            f'<li class="{cls}"><div class="row"><span class="pname">{name_html(p.name)}</span>{badge}</div>'
            f'<div class="who">{html.escape(who)}</div><div class="stats">{html.escape(stats)}</div>'
            + (f'<div class="extra">{" · ".join(extra)}</div>' if extra else "")
            + "</li>"
        )
    return f'<section class="card"><h2>{html.escape(r.t("players"))}</h2><ul class="players">{"".join(rows)}</ul></section>'


FACTION_KEYS = ("faction.", "factions.", "friday.team")


def _is_faction_event(ev: Event) -> bool:
    return ev.key.startswith(FACTION_KEYS) or ev.audience == "faction"


def _factions(r: ReportRenderer, events: list[Event]) -> str:
    g = r.game
    if not g.state.factions and not any(_is_faction_event(e) for e in events):
        return ""
    parts = [f'<section class="card"><h2>{html.escape(r.t("factions"))}</h2>']
    if g.state.factions:
        items = []
        for fid, f in sorted(g.state.factions.items()):
            members = ", ".join(name_html(g.player(m).name) for m in sorted(f.members))
            items.append(
                f"<li><b>{html.escape(r.t('faction_title', name=r.faction(fid)))}</b>: {html.escape(r.t('leader'))} {name_html(g.player(f.leader).name)};"
                f" {html.escape(r.t('members'))}: {members}</li>"
            )
        parts.append(f'<h3>{html.escape(r.t("factions_final"))}</h3><ul class="plain">{"".join(items)}</ul>')
    else:
        parts.append(f'<p class="muted">{html.escape(r.t("factions_none_left"))}</p>')
    changes = [e for e in events if _is_faction_event(e)]
    if changes:
        items = [f'<li><span class="when">{html.escape(_label(r, e.tick))}</span> {markup(r, r.event(e))}</li>' for e in changes]
        parts.append(f'<details><summary>{html.escape(r.t("factions_changes", n=len(changes)))}</summary>'
                     f'<ul class="plain">{"".join(items)}</ul></details>')
    parts.append("</section>")
    return "".join(parts)


def _label(r: ReportRenderer, tick: int) -> str:
    tick = min(tick, max(r.game.state.tick - 1, 0))
    label = r.label(r.game.clock.info(tick).label)
    return label[:1].upper() + label[1:]


# ---- stat charts ------------------------------------------------------------------------------
STAT_EVENT = {"public": "report.stat", "secret": "private.stat", "hidden": "gm.stat"}


def stat_series(game: Game, events: list[Event]) -> dict[str, dict[int, list[int]]]:
    """Each stat's value for each player at the start (index 0) and after every resolved tick
    (index t + 1), from the values the engine reported: the public stat as the public saw it,
    a secret one as its owner did (with hidden bonuses), a hidden one as the GM did. The start
    is the first reported value minus its change (no report: the final value throughout)."""
    last = game.state.tick
    out: dict[str, dict[int, list[int]]] = {}
    for s in game.rules.stats:
        key = STAT_EVENT.get(s.visibility, "report.stat")
        points: dict[int, list[tuple[int, int, int]]] = defaultdict(list)
        for ev in events:
            if ev.args.get("stat") != s.id:
                continue
            if ev.key == key:
                pid = ev.ids[0] if key == "private.stat" else ev.args["player"]
                points[int(pid)].append((ev.tick, int(ev.args["value"]), int(ev.args["delta"])))
            elif ev.key == "gm.set_stat" and s.visibility == "hidden":
                points[int(ev.args["player"])].append((ev.tick, int(ev.args["new"]), int(ev.args["new"]) - int(ev.args["old"])))
        series = {}
        for p in game.state.players:
            pts = sorted(points.get(p.pid, []), key=lambda x: x[0])
            if pts:
                value = pts[0][1] - pts[0][2]
            else:
                value = game.true_stat(p, s.id) if s.visibility == "secret" else p.stats.get(s.id, 0)
            ys = [value]
            i = 0
            for t in range(last):
                while i < len(pts) and pts[i][0] <= t:
                    value = pts[i][1]
                    i += 1
                ys.append(value)
            series[p.pid] = ys
        if any(len(set(ys)) > 1 for ys in series.values()):
            out[s.id] = series
    return out


def sparkline(r: ReportRenderer, ys: list[int], lo: int, hi: int, color: str, title: str) -> str:
    """A step chart of one player's stat, on the stat's shared scale, with day boundaries."""
    w, h, pad_l, pad_r, pad_t, pad_b = 160, 60, 22, 4, 6, 6
    n = max(len(ys) - 1, 1)
    span = max(hi - lo, 1)

    def x(i: int) -> float:
        return pad_l + (w - pad_l - pad_r) * i / n

    def y(v: int) -> float:
        return pad_t + (h - pad_t - pad_b) * (hi - v) / span

    pts = [f"{x(0):.1f},{y(ys[0]):.1f}"]
    for i in range(1, len(ys)):
        pts.append(f"{x(i):.1f},{y(ys[i - 1]):.1f}")
        pts.append(f"{x(i):.1f},{y(ys[i]):.1f}")
    per = r.game.clock.per_cycle
    grid = "".join(
        f'<line x1="{x(i):.1f}" y1="{pad_t}" x2="{x(i):.1f}" y2="{h - pad_b}" class="day"/>'
        for i in range(0, len(ys), per) if i
    )
    zero = f'<line x1="{pad_l}" y1="{y(0):.1f}" x2="{w - pad_r}" y2="{y(0):.1f}" class="zero"/>' if lo < 0 < hi else ""
    return (
        f'<svg viewBox="0 0 {w} {h}" role="img" aria-label="{html.escape(title)}"><title>{html.escape(title)}</title>'
        f'<rect x="{pad_l}" y="{pad_t}" width="{w - pad_l - pad_r}" height="{h - pad_t - pad_b}" class="frame"/>{grid}{zero}'
        f'<text x="{pad_l - 3}" y="{pad_t + 7}" class="ax">{hi}</text><text x="{pad_l - 3}" y="{h - pad_b}" class="ax">{lo}</text>'
        f'<polyline points="{" ".join(pts)}" fill="none" stroke="{color}" stroke-width="2" stroke-linejoin="round"/>'
        f'<circle cx="{x(len(ys) - 1):.1f}" cy="{y(ys[-1]):.1f}" r="2.5" fill="{color}"/></svg>'
    )


def _charts(r: ReportRenderer, events: list[Event]) -> str:
    g = r.game
    series = stat_series(g, events)
    if not series:
        return ""
    winners = set(g.state.winner or [])
    parts = [f'<section class="card"><h2>{html.escape(r.t("stats"))}</h2>'
             f'<p class="muted">{html.escape(r.t("stats_hint", days=g.clock.info(max(g.state.tick - 1, 0)).day))}</p>']
    for i, (sid, by_player) in enumerate(series.items()):
        color = PALETTE[i % len(PALETTE)]
        values = [v for ys in by_player.values() for v in ys]
        lo, hi = min(0, min(values)), max(values)
        cells = []
        for pid, ys in sorted(by_player.items()):
            name = g.player(pid).name
            title = r.t("chart_title", stat=r.stat(sid), name=name, start=ys[0], end=ys[-1])
            win = " win" if pid in winners else ""
            cells.append(
                f'<figure class="spark{win}"><figcaption>{name_html(name)}<span class="val">{ys[-1]}</span></figcaption>'
                f"{sparkline(r, ys, lo, hi, color, title)}</figure>"
            )
        parts.append(f'<h3>{html.escape(r.t("stat_over_game", stat=r.stat(sid)))}</h3><div class="grid">{"".join(cells)}</div>')
    parts.append("</section>")
    return "".join(parts)


# ---- the timeline -----------------------------------------------------------------------------
def _action(r: ReportRenderer, ev: Event) -> str:
    a = ev.args
    targets = ", ".join(r.player(t) for t in a.get("targets") or [])
    option = r.option(a.get("option"))
    result = a.get("result") or "applied"
    text = r.t("action", actor=r.player(a["actor"]), ability=r.ability(a["ability"]),
               targets=targets or "—", option=f" ({option})" if option else "")
    reasons = "; ".join(r.reason(x) for x in a.get("reasons") or [])
    badge = f'<span class="badge {RESULT_CLASS.get(result, "muted")}">{html.escape(r.word(f"result.{result}"))}</span>'
    why = f'<div class="why">{markup(r, r.t("because", reasons=reasons))}</div>' if reasons else ""
    return f'<li class="act">{markup(r, text)} {badge}{why}</li>'


GROUPS = ("actions", "public", "faction", "players", "gm")


def _group(ev: Event) -> str:
    if ev.key == "trace.action":
        return "actions"
    if ev.audience == "public":
        return "public"
    if ev.audience == "faction" or _is_faction_event(ev):
        return "faction"
    if ev.audience == "players":
        return "players"
    return "gm"


def _line(r: ReportRenderer, ev: Event) -> str:
    body = markup(r, r.event(ev))
    if ev.audience == "players":
        to = ", ".join(name_html(r.game.player(i).name) for i in ev.ids if isinstance(i, int))
        return f'<li><span class="to">→ {to}</span> {body}</li>'
    if ev.audience == "faction":
        to = html.escape(", ".join(r.faction(f) for f in ev.ids))
        return f'<li><span class="to">{html.escape(r.t("to_faction"))} {to}</span> {body}</li>'
    return f"<li>{body}</li>"


def _timeline(r: ReportRenderer, events: list[Event], hidden: dict[int, int]) -> str:
    end = max(r.game.state.tick - 1, 0)
    by_tick: dict[int, list[Event]] = defaultdict(list)
    for ev in events:  # what the end of the game announces (tick = the next, unplayed one) closes the last phase
        by_tick[min(ev.tick, end)].append(ev)
    hidden = {min(t, end): n for t, n in hidden.items()}
    parts = [f'<section class="card"><h2>{html.escape(r.t("timeline"))}</h2>']
    for tick in range(end + 1):  # every phase, also one where nothing happened
        groups: dict[str, list[str]] = {g: [] for g in GROUPS}
        for ev in by_tick.get(tick, []):
            kind = _group(ev)
            groups[kind].append(_action(r, ev) if kind == "actions" else _line(r, ev))
        body = []
        for kind in GROUPS:
            items = groups[kind]
            if not items:
                continue
            head = html.escape(r.t(f"group.{kind}", n=len(items)))
            lst = f'<ul class="{"acts" if kind == "actions" else "plain"}">{"".join(items)}</ul>'
            if kind in ("actions", "public"):
                body.append(f"<h4>{head}</h4>{lst}")
            else:
                body.append(f"<details><summary>{head}</summary>{lst}</details>")
        if hidden.get(tick):
            body.append(f'<p class="muted">{html.escape(r.t("hidden_texts", n=hidden[tick]))}</p>')
        if not body:
            body.append(f'<p class="muted">{html.escape(r.t("quiet"))}</p>')
        parts.append(f'<section class="phase" id="t{tick}"><h3>{html.escape(_label(r, tick))}</h3>{"".join(body)}</section>')
    parts.append("</section>")
    return "".join(parts)


# ---- the page ---------------------------------------------------------------------------------
CSS = """
:root{--bg:#f5f5f4;--card:#fff;--ink:#1c1917;--muted:#78716c;--line:#e7e5e4;--ok:#15803d;--bad:#b91c1c;--warn:#b45309;--info:#1d4ed8}
*{box-sizing:border-box}
body{margin:0;background:var(--bg);color:var(--ink);font:16px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,"Noto Sans",sans-serif;overflow-wrap:anywhere}
main{max-width:860px;margin:0 auto;padding:12px}
header{padding:8px 4px 4px}
h1{font-size:1.5rem;margin:0 0 4px}
h2{font-size:1.2rem;margin:0 0 8px}
h3{font-size:1.05rem;margin:14px 0 6px}
h4{font-size:.95rem;margin:8px 0 4px;color:var(--muted)}
.sub,.muted{color:var(--muted);font-size:.9rem}
.card{background:var(--card);border:1px solid var(--line);border-radius:12px;padding:12px;margin:12px 0}
.winners{border-color:#facc15;background:#fefce8}
.big{font-size:1.2rem;font-weight:600;margin:0}
.name{font-weight:600}
ul{padding:0;margin:0;list-style:none}
.players li{border-top:1px solid var(--line);padding:8px 0}
.players li:first-child{border-top:0}
.row{display:flex;gap:8px;align-items:center;justify-content:space-between}
.who{font-size:.95rem}
.stats{font-size:.9rem;color:#44403c}
.extra{font-size:.85rem;color:var(--muted)}
.dead .pname{text-decoration:line-through;text-decoration-color:var(--bad)}
.badge{display:inline-block;font-size:.75rem;font-weight:600;border-radius:999px;padding:1px 8px;color:#fff;background:var(--muted);white-space:nowrap}
.badge.ok{background:var(--ok)}.badge.bad{background:var(--bad)}.badge.warn{background:var(--warn)}.badge.info{background:var(--info)}
.plain li,.acts li{padding:4px 0;border-top:1px dashed var(--line)}
.plain li:first-child,.acts li:first-child{border-top:0}
.why{font-size:.85rem;color:var(--muted);padding-left:12px}
.to,.when{font-size:.8rem;color:var(--muted)}
details{margin:6px 0}
summary{cursor:pointer;color:#44403c;font-size:.92rem}
.phase{border-top:2px solid var(--line);margin-top:10px}
.grid{display:grid;grid-template-columns:repeat(auto-fill,minmax(160px,1fr));gap:8px}
.spark{margin:0;border:1px solid var(--line);border-radius:8px;padding:4px 6px}
.spark.win{border-color:#facc15;background:#fefce8}
.spark figcaption{display:flex;justify-content:space-between;gap:4px;font-size:.85rem}
.spark .val{font-variant-numeric:tabular-nums;font-weight:600}
.spark svg{width:100%;height:auto;display:block}
svg .frame{fill:none;stroke:var(--line)}
svg .day{stroke:var(--line);stroke-dasharray:2 2}
svg .zero{stroke:#a8a29e}
svg .ax{font-size:8px;fill:var(--muted);text-anchor:end}
footer{color:var(--muted);font-size:.8rem;text-align:center;padding:12px}
"""


def render_report(game: Game, events: list[Event] | None = None, lang: str = "ru", variant: str = "gm",
                  users: dict[int, str] | None = None) -> str:
    """The whole report as one HTML document (a str), in ``lang``; ``variant`` ``gm`` (all)
    or ``public`` (without players' private texts). ``events``: the game's event log (the
    store's, or ``game.state.events`` when not given). ``users``: Discord members' names by id
    (a file shows no mention: one not given is named in words)."""
    all_events = list(game.state.events if events is None else events)
    shown = visible_events(all_events, variant)
    hidden: dict[int, int] = defaultdict(int)
    if variant == "public":
        for ev in all_events:
            if not in_public_report(ev):
                hidden[ev.tick] += 1
    r = ReportRenderer(game, lang)
    r.users = dict(users or {})
    g = game
    st = g.state
    last = max(st.tick - 1, 0)
    days = g.clock.info(last).day
    sub = r.t("subtitle", ruleset=getattr(g.rules.names, lang), players=len(st.players),
              days=days, ended=_label(r, last))
    note = r.t(f"variant.{variant}")
    title = r.t("title")
    return (
        f'<!DOCTYPE html><html lang="{lang}"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{html.escape(title)} — {html.escape(getattr(g.rules.names, lang))}</title><style>{CSS}</style></head>"
        f'<body><main><header><h1>{html.escape(title)}</h1><div class="sub">{html.escape(sub)}</div>'
        f'<div class="sub">{html.escape(note)}</div></header>'
        f"{_winners(r)}{_players(r)}{_factions(r, shown)}{_charts(r, shown)}{_timeline(r, shown, hidden)}"
        f"<footer>{html.escape(r.t('footer', seed=st.seed))}</footer></main></body></html>"
    )


def report_filename(variant: str = "gm") -> str:
    return "report.html" if variant == "gm" else "report-public.html"
