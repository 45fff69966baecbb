"""Visibility: who may read and write where — the engine's view of a game's channels.

The rules decide who talks: the living talk in public unless a status cuts them off (or the
ruleset talks in public by day only); a faction's members talk among themselves; a team the
ruleset gives a channel (``settings.team_talk``: team -> the nights its members may talk,
seed 003's «мафия может общаться между собой в первую ночь») talks on those nights only; the
dead read but no longer write; spectators read the public channels; each seat writes in its
own hidden channel. :func:`channels` says all of it as plain data, by seat; the bot
(``altmafia/bot/channels.py``) turns it into Discord overwrites and nothing more. The GMs read
and write everywhere and ``@everyone`` sees nothing: that is not a rule of any book, and the
bot says so itself.

| key | kind | readers | writers | spectators |
| --- | --- | --- | --- | --- |
| ``public`` | public | every seat | the seats that may talk (:func:`may_talk`) | read |
| ``votes`` | votes | every seat | none (the bot posts the votes) | read |
| ``spectators`` | spectators | none | none | read |
| ``gm`` | gm | none | none | no |
| ``player:<pid>`` | player | that seat | that seat | no |
| ``faction:<fid>`` | faction | its members | its members who may talk | no |
| ``team:<team>`` | team | the team's members | its members who may talk, on its nights | no |
| ``dead`` | dead | the seats out of play | the same | read and write |

The channel of the dead and the spectators exists where the game has ``settings.dead_channel``
(the GM's choice in the lobby) and the book lets the dead talk (``settings.dead_talk``, false
for seed 003, whose dead must keep out of the game and its discussion).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from .state import Event
from .world import World

Kind = Literal["public", "votes", "spectators", "gm", "player", "faction", "team", "dead"]
RW, RO, NONE = "rw", "ro", "-"


@dataclass(frozen=True)
class ChannelView:
    """One channel of a game as the rules see it: who reads, who writes (seats), and whether
    spectators read. ``writers`` is always within ``readers``."""

    key: str
    kind: Kind
    readers: frozenset[int]
    writers: frozenset[int]
    spectators: bool = False
    owner: int | str | None = None  # the seat of a hidden channel, a faction id, a team id
    spectators_write: bool = False  # spectators write there too (the channel of the dead)

    def access(self, pid: int) -> str:
        """``rw``, ``ro`` or ``-`` for seat ``pid``."""
        if pid in self.writers:
            return RW
        return RO if pid in self.readers else NONE


def in_public_report(ev: Event) -> bool:
    """Whether the public report of a finished game shows ``ev``: everything but what only its
    readers and the GM may read in words, a non-public event carrying a player's own text
    (a PM, a letter, a note, the GM's copy of an anonymous post, which names its author)."""
    return ev.audience == "public" or "text" not in ev.args


def may_talk(w: World, pid: int, where: str = "public") -> bool:
    """Whether a player may write in the public (``where="public"``) or a faction's or team's
    channel now. The living talk; a status that cuts its holder off (``can_communicate: false``)
    silences them, and so does a status listed in ``settings.silenced_statuses``; a ruleset
    whose public talk is for the day only says ``settings.public_chat: day``. After the end
    everyone still living may talk it over."""
    p = w.player(pid)
    if not w.alive(p):
        return False
    if w.state.over:
        return True
    silenced = set(w.settings.silenced_statuses)
    for flag in w.status_flags(p):
        if not flag.can_communicate or flag.id in silenced:
            return False
    return not (where == "public" and w.settings.public_chat == "day" and w.info.kind != "day")


def faction_channels_on(w: World) -> bool:
    """Factions get a channel of their own unless ``settings.faction_channels: false`` (or the
    game has no factions): player-made factions, or the teams a ruleset makes at the start
    (Eternal Friday's Mafia and Yakuza) when players cannot make factions."""
    if not w.settings.faction_channels:
        return False
    return w.rules.factions.enabled or bool(w.state.factions)


def talk_teams(w: World) -> dict[str, list[int]]:
    """The teams with a channel of their own (``settings.team_talk``): team -> its nights."""
    return {team: list(nights) for team, nights in (w.settings.team_talk or {}).items() if nights}


def team_members(w: World, team: str) -> list[int]:
    """Every seat of ``team`` (by character, else role), the dead included."""
    return [p.pid for p in w.state.players if w.team(p) == team]


def team_talks_now(w: World, team: str) -> bool:
    nights = talk_teams(w).get(team, [])
    return not w.state.over and w.info.kind == "night" and w.info.day in nights


def dead_channel_on(w: World) -> bool:
    """The game has a channel for the dead and the spectators (see the module's table)."""
    return w.settings.dead_channel and w.settings.dead_talk


def channels(w: World) -> list[ChannelView]:
    """Every channel the game has now, in a fixed order: public, votes, spectators, gm, each
    seat's hidden channel, each faction's (when factions get channels), each talking team's,
    the channel of the dead (where the game has one)."""
    seats = frozenset(p.pid for p in w.state.players)
    out = [
        ChannelView("public", "public", seats, frozenset(pid for pid in seats if may_talk(w, pid)), spectators=True),
        ChannelView("votes", "votes", seats, frozenset(), spectators=True),
        ChannelView("spectators", "spectators", frozenset(), frozenset(), spectators=True),
        ChannelView("gm", "gm", frozenset(), frozenset()),
    ]
    for pid in sorted(seats):
        out.append(ChannelView(f"player:{pid}", "player", frozenset({pid}), frozenset({pid}), owner=pid))
    if faction_channels_on(w):
        for fid in sorted(w.state.factions):
            members = frozenset(w.state.factions[fid].members)
            out.append(ChannelView(f"faction:{fid}", "faction", members,
                                   frozenset(pid for pid in members if may_talk(w, pid, "faction")), owner=fid))
    for team in sorted(talk_teams(w)):
        members = frozenset(team_members(w, team))
        talks = team_talks_now(w, team)
        out.append(ChannelView(f"team:{team}", "team", members,
                               frozenset(pid for pid in members if talks and may_talk(w, pid, "faction")), owner=team))
    if dead_channel_on(w):
        dead = frozenset(p.pid for p in w.state.players if not w.alive(p))
        out.append(ChannelView("dead", "dead", dead, dead, spectators=True, spectators_write=True))
    return out


def channel(w: World, key: str) -> ChannelView | None:
    return next((c for c in channels(w) if c.key == key), None)
