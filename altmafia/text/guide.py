"""What a reader is told to do: ``/help`` for a player, a GM and a newcomer, the GM's briefing at
the start, and a GM task's notice (the ability's text, the command that settles it).

Every rule question is the engine's (legal actions now, open votes, PM quotas); this module
only puts the answers and the commands into words. Command names are written as the reader's
Discord client shows them: the catalog's ``commands`` names in the reader's language.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo

from engine import Game
from engine.state import Event
from engine.votes import majority_rule

from . import cards
from .i18n import Renderer, catalog, count, task_number, text


def slash(lang: str, *parts: str, **params: Any) -> str:
    """A command as its reader types it: ``slash("ru", "gm", "settle", task=3)`` is
    ``/ведущий решить задача:3``; ``params`` are parameters of the command (``action.submit.for``)
    or of its group (``gm.task``), with the value to show."""
    names = catalog(lang)["commands"]
    words = [names.get(".".join(parts[: i + 1]) + ".name", part) for i, part in enumerate(parts)]
    for name, value in params.items():  # a parameter of the command itself, or of its group
        word = names.get(".".join(parts) + f".{name}.name") or names.get(f"{parts[0]}.{name}.name", name)
        words.append(f"{word}:{value}")
    return "`/" + " ".join(words) + "`"


def command_lines(lang: str, commands: Iterable[str]) -> list[str]:
    """One line per command (its qualified name, ``gm resolve``): how to type it, and what it
    does (its description)."""
    names = catalog(lang)["commands"]
    return [f"• {slash(lang, *c.split())} — {names.get(c.replace(' ', '.') + '.desc', '')}".rstrip(" —") for c in commands]


# ---- abilities ---------------------------------------------------------------------------------
def ability_text(game: Game, key: str, lang: str) -> str | None:
    """The ability's effect in the book's words: ``altmafia.text.cards.ability_text`` where it
    exists, else the ability's own ``text`` or ``description`` in the ruleset; None without one."""
    own = getattr(cards, "ability_text", None)
    try:
        if own is not None:
            return own(game, key, lang) or None
        ab = game.ability_def(key)
    except (KeyError, ValueError):
        return None
    words = getattr(ab, "text", None) or ab.description
    return getattr(words, lang, None) if words else None


def gm_task_abilities(game: Game) -> list[str]:
    """The keys of the ruleset's abilities that become GM tasks (``op: gm_task``)."""
    rules = game.rules
    out = []
    for kind, group in (("role", rules.roles), ("character", rules.characters)):
        for src in group:
            for ab in src.abilities:
                if any(e.op == "gm_task" for effs in [ab.effects, *ab.options.values()] for e in effs):
                    out.append(f"{kind}:{src.id}:{ab.id}")
    return out


def task_notice(game: Game, ev: Event, lang: str) -> str:
    """The GM channel's line for a new GM task (event ``gm.task``): who used what on whom, the
    ability's text, and the commands that apply its effect and settle it."""
    r = Renderer(game, lang)
    lines = [r.event(ev)]
    index = ev.args.get("index")
    tasks = game.state.gm_tasks
    if not (isinstance(index, int) and 0 <= index < len(tasks)):
        return lines[0]
    task = tasks[index]
    if task.get("option") not in (None, ""):
        lines.append(text(lang, "task.option", option=r.option(task["option"])))
    words = ability_text(game, task["ability"], lang)
    lines.append(text(lang, "task.text", text=words) if words else text(lang, "task.no_text"))
    lines.append(text(lang, "task.how", setstat=slash(lang, "gm", "setstat"), setstatus=slash(lang, "gm", "setstatus"),
                      tell=slash(lang, "gm", "tell"), settle=slash(lang, "gm", "settle", task=task_number(index), note="…")))
    return "\n".join(lines)


# ---- /help ----------------------------------------------------------------------------------------
def player_help(game: Game, pid: int, lang: str, deadline: str, mates: list[int] | None = None) -> str:
    """A player's /help: the phase now and until when, what they may do now and how; ``mates``:
    the teammates whose actions they may order (``factions.orders``)."""
    p = game.player(pid)
    r = Renderer(game, lang)
    lines = [text(lang, "help.player_title", name=r.player(pid), phase=r.label(game.info.label)), deadline]
    if not game.alive(p):
        lines.append(text(lang, "help.out"))
        lines.append(text(lang, "help.more", me=slash(lang, "action", "me"), players=slash(lang, "lobby", "players")))
        return "\n".join(lines)
    legal = game.legal_actions(pid)
    if legal:
        actions = "\n".join(f"  • {r.ability(la.key)} — {getattr(game.rules.slot(la.ability.slot).names, lang)}" for la in legal[:15])
        lines.append(text(lang, "help.can", submit=slash(lang, "action", "submit"), actions=actions))
    else:
        lines.append(text(lang, "help.cannot"))
    pending = game.pending(pid)
    if pending:
        lines.append(text(lang, "help.pending", pending="; ".join(r.ability(i.ability) for i in pending),
                          submit=slash(lang, "action", "submit"), cancel=slash(lang, "action", "cancel")))
    if mates:
        lines.append(text(lang, "help.orders", submit=slash(lang, "action", "submit", **{"for": "…"}),
                          names=", ".join(r.player(m) for m in mates)))
    lines.extend(vote_lines(game, pid, lang))
    lines.extend(mail_lines(game, pid, lang))
    if game.rules.factions.enabled:
        lines.append(text(lang, "help.factions", info=slash(lang, "faction", "info"), invite=slash(lang, "faction", "invite")))
    lines.append(text(lang, "help.more", me=slash(lang, "action", "me"), players=slash(lang, "lobby", "players")))
    return "\n".join(lines)


def vote_lines(game: Game, pid: int, lang: str) -> list[str]:
    """Each vote open now, and whether this player may vote in it and has."""
    r = Renderer(game, lang)
    p = game.player(pid)
    may = all(f.can_vote for f in game.status_flags(p))
    out = []
    for vd in game.open_votes():
        out.append(text(lang, "help.vote_open", vote=getattr(vd.names, lang), cast=slash(lang, "vote", "cast"), show=slash(lang, "vote", "show")))
        majority = majority_rule(vd)
        if majority:
            out.append(text(lang, f"help.vote_majority_{majority}"))
        mine = next((v for v in game.state.votes if v.pid == pid and v.vote == vd.id), None)
        if not may:
            out.append(text(lang, "help.vote_barred"))
        elif mine is None:
            out.append(text(lang, "help.not_voted"))
        else:
            out.append(text(lang, "help.voted", choice=r.player(mine.choice) if mine.choice is not None else "—"))
    return out


def mail_lines(game: Game, pid: int, lang: str) -> list[str]:
    """Private messages and anonymous posts as the ruleset has them, with what is left today."""
    rules = game.rules
    p = game.player(pid)
    if rules.mail:  # the ruleset's own mail (seed 003: letters instead of PMs)
        return [text(lang, "help.mail", pm=slash(lang, "pm", "send"), anon=slash(lang, "anon", "post"))]
    out = []
    quota = game.pm_quota(p)
    if quota is None:
        out.append(text(lang, "help.pm_free", cmd=slash(lang, "pm", "send")))
    elif quota > 0:
        out.append(text(lang, "help.pm_left", left=game.pm_left(p), cmd=slash(lang, "pm", "send")))
    base = rules.quotas.anon_per_day
    if base is None:
        out.append(text(lang, "help.anon_free", cmd=slash(lang, "anon", "post")))
    elif base > 0:
        out.append(text(lang, "help.anon_left", left=game.anon_left(p), cmd=slash(lang, "anon", "post")))
    return out


def gm_help(lang: str, title: str) -> str:
    """A GM's /help: the short guide and where the full one is."""
    return text(lang, "help.gm", title=title, status=slash(lang, "gm", "status"), preview=slash(lang, "gm", "preview"),
                resolve=slash(lang, "gm", "resolve"), extend=slash(lang, "gm", "extend"), pause=slash(lang, "gm", "pause"),
                tasks=slash(lang, "gm", "tasks"), settle=slash(lang, "gm", "settle"), setstat=slash(lang, "gm", "setstat"),
                tell=slash(lang, "gm", "tell"), say=slash(lang, "gm", "say"), substitute=slash(lang, "gm", "substitute"),
                endday=slash(lang, "gm", "endday"), end=slash(lang, "gm", "end"), guide=text(lang, "help.guide_path"))


def lobby_gm_help(lang: str, lobby_id: str, players: int) -> str:
    """/help of the GM of the lobby open in this channel: the table so far and the next steps."""
    return text(lang, "help.lobby_gm", id=lobby_id, players=count(players, "player", lang), times=slash(lang, "lobby", "times"),
                options=slash(lang, "lobby", "options"), list=slash(lang, "lobby", "players"), start=slash(lang, "lobby", "start"),
                end=slash(lang, "lobby", "end"))


def lobby_player_help(lang: str, lobby_id: str, players: int) -> str:
    """/help of a player signed up in the lobby of this channel."""
    return text(lang, "help.lobby_player", id=lobby_id, players=count(players, "player", lang), list=slash(lang, "lobby", "players"),
                leave=slash(lang, "lobby", "leave"))


def spectator_help(lang: str, title: str) -> str:
    """/help of a spectator of the game here: what they read, the table, and nothing else."""
    return text(lang, "help.spectator", title=title) + "\n" + text(lang, "help.spectator_more", players=slash(lang, "lobby", "players"),
                                                                 help=slash(lang, "help"))


def over_gm_help(lang: str, published: bool, archived: bool) -> str:
    """/help of a GM in a finished game's channel: the buttons left in the GM channel."""
    lines = [text(lang, "help.over")]
    lines.append(text(lang, "help.over_published") if published else text(lang, "help.over_publish", publish=text(lang, "btn.publish")))
    if not archived:
        lines.append(text(lang, "help.over_cleanup", archive=text(lang, "btn.archive"), delete=text(lang, "btn.delete")))
    return "\n".join(lines)


def outside_help(lang: str) -> str:
    """/help outside a game: how to open a lobby or join one."""
    return text(lang, "help.outside", create=slash(lang, "lobby", "create"), join=slash(lang, "lobby", "join"),
                leave=slash(lang, "lobby", "leave"), players=slash(lang, "lobby", "players"), spectate=slash(lang, "lobby", "spectate"),
                start=slash(lang, "lobby", "start"))


# ---- the GM's briefing -------------------------------------------------------------------------
def local_time(at: datetime, tz: str) -> str:
    """A moment as the game's clock shows it (``01.12 18:00``)."""
    return at.astimezone(ZoneInfo(tz)).strftime("%d.%m %H:%M")


def briefing(game: Game, lang: str, title: str, tz: str, ends: list[tuple[int, datetime]], gm_commands: Iterable[str]) -> str:
    """The GM channel's briefing at the start: the schedule (``ends``: each tick and when its
    phase ends), every GM command (qualified names) with one line, and what GM tasks are and
    how to settle them."""
    r = Renderer(game, lang)
    lines = [text(lang, "brief.title", title=title), text(lang, "brief.schedule", tz=tz)]
    for tick, at in ends:
        lines.append(text(lang, "brief.phase", phase=r.label(game.clock.info(tick).label), when=local_time(at, tz),
                          left=f"<t:{int(at.timestamp())}:R>"))
    lines.append(text(lang, "brief.end_day", day=game.state.end_day, endday=slash(lang, "gm", "endday")))
    lines.append(text(lang, "brief.commands"))
    lines.extend(command_lines(lang, gm_commands))
    lines.append(text(lang, "brief.tasks", setstat=slash(lang, "gm", "setstat"), setstatus=slash(lang, "gm", "setstatus"),
                      tell=slash(lang, "gm", "tell"), settle=slash(lang, "gm", "settle"), tasks=slash(lang, "gm", "tasks")))
    undefined = gm_task_abilities(game)
    if undefined:
        lines.append(text(lang, "brief.task_abilities", abilities=", ".join(f"«{r.ability(k)}»" if lang == "ru" else f"“{r.ability(k)}”"
                                                                             for k in undefined)))
    else:
        lines.append(text(lang, "brief.no_task_abilities"))
    lines.append(text(lang, "brief.help", help=slash(lang, "help"), guide=text(lang, "help.guide_path")))
    return "\n".join(lines)
