"""The largest realistic tables, under the strict test Discord (``strict_discord.py``): every
request the bot makes must be one the real Discord accepts, or the ``env`` fixture fails the
test. Classic at 64 seats with 32-character names full of emoji and 90 spectators, through a
night and a day with every command that replies; three games at once in one server; an Eternal
Friday of 20 seats played to its end; a server near its 500 channels.

The whole 64-seat table runs by default (CI-sized already); ``ALTMAFIA_LONG=1`` plays the
Eternal Friday with more random turns and the three games through more phases."""

from __future__ import annotations

import os
import random

from altmafia.text.i18n import text

from .conftest import LOCALES, perms
from .helpers import NAMES, Table, act, force_resolve
from .test_panel import cid, panel
from .test_panel_pages import selects, within_discord

LONG = os.environ.get("ALTMAFIA_LONG") == "1"
SEATS, SPECTATORS = 64, 90


def emoji_name(i: int) -> str:
    """32 characters (Discord's longest display name), emoji among them, unique by the number
    at the end (so a cut name would show)."""
    name = f"🎭🌙 Ночной-🔪-игрок-с-эмодзи-{i:02d}"
    name = name[:-2].ljust(30, "🌟") + f"{i:02d}"
    assert len(name) == 32, name
    return name


def refused(env) -> list[str]:
    return env.strict.problems()


async def gather_big(env, guild, lobby, n: int, spectators: int = 0, *, tag: str = "", ruleset: str = "classic",
                     name=emoji_name, **options) -> Table:
    gm = guild.add_member(env.create_user(f"gm{tag}", global_name=f"Ведущий{tag}"))
    players = [guild.add_member(env.create_user(f"p{tag}{i}", global_name=name(i))) for i in range(n)]
    specs = [guild.add_member(env.create_user(f"s{tag}{i}", global_name=f"Зритель-👀-{tag}{i}")) for i in range(spectators)]
    r = await gm.slash(lobby, "lobby create", ruleset=ruleset, **options)
    assert r.response is not None and not r.response.ephemeral, r
    for p in players:
        r = await p.slash(lobby, "lobby join")
        assert not r.response.content.startswith("⛔"), r.response.content
    for s in specs:
        r = await s.slash(lobby, "lobby spectate")
        assert not r.response.content.startswith("⛔"), r.response.content
    return Table(env, guild, lobby, gm, players, specs)


async def start_one(t: Table) -> Table:
    """``/lobby start`` of this table's lobby; its game found among the server's."""
    before = {g.game_id for g in t.store.games.games()}
    r = await t.gm.slash(t.lobby, "lobby start")
    assert r.response is not None and "<#" in r.response.content, r.response.content
    new = [g.game_id for g in t.store.games.games() if g.game_id not in before]
    assert len(new) == 1, new
    t.game_id = new[0]
    return t


async def via_panel(t: Table, pid: int) -> bool:
    """A seat's one-target ability chosen and submitted from its action panel."""
    game = t.game
    la = next((la for la in game.legal_actions(pid) if la.ability.targets == 1 and la.targets and not la.via
               and not la.ability.options and la.ability.number is None), None)
    if la is None:
        return False
    member, msg = t.member(pid), panel(t, pid)
    within_discord(msg)
    await member.select(msg, [la.key], custom_id=cid(msg, "amx:ab"))
    msg = panel(t, pid)
    within_discord(msg)
    select = next(s for s in selects(msg) if s.custom_id.startswith("amx:t0"))
    target = next(o.value for o in select.options if not o.value.startswith("page:"))
    await member.select(msg, [target], custom_id=select.custom_id)
    msg = panel(t, pid)
    r = await member.click(msg, custom_id=cid(msg, "amy:go"))
    assert r.response.content.startswith("✅"), r.response.content
    return True


async def every_reply(t: Table, rnd: random.Random, actors: int) -> set[str]:
    """The commands that reply, from the GM, some players and a spectator: ``/gm status``,
    ``/gm tasks``, ``/action submit`` with its autocomplete, the panel, and in a vote
    ``/vote cast`` and ``/vote show``; the ones used returned."""
    used = {"gm status", "gm tasks"}
    gm = t.channel("gm")
    for command in ("gm status", "gm tasks"):
        r = await t.gm.slash(gm, command)
        assert r.response is not None and r.response.ephemeral, (command, r)
    living = [p.pid for p in t.game.living()]
    panelled = False
    for pid in rnd.sample(living, min(actors, len(living))):
        if not panelled:
            panelled = await via_panel(t, pid)
            if panelled:
                used.add("panel")
                continue
        res = await act(t, pid, rnd)
        assert res is None or res.response.ephemeral, res
        if res is not None:
            used.add("action submit")
    if t.game.open_votes():
        for pid in living[:actors]:
            m, ch = t.member(pid), t.hidden(pid)
            cands = await m.autocomplete(ch, "vote cast", "candidate", "")
            assert len(cands) <= 25, len(cands)
            if cands:
                await m.slash(ch, "vote cast", candidate=rnd.choice(cands)["value"])
        voter = living[0]
        r = await t.member(voter).slash(t.hidden(voter), "vote show")
        assert r.response is not None and r.response.ephemeral, r
        used |= {"vote cast", "vote show"}
    return used


async def test_classic_at_64_seats_emoji_names_and_90_spectators(env):
    guild = env.create_guild("Мафия 🎲")
    lobby = guild.create_text_channel("набор")
    t = await gather_big(env, guild, lobby, SEATS, SPECTATORS)
    LOCALES[t.gm.id] = "ru"
    for who in (t.gm, t.players[-1]):
        r = await who.slash(lobby, "lobby players")
        assert r.response is not None and not r.response.content.startswith("⛔"), r.response.content
    await start_one(t)
    # every name announced, none cut (a long line is split at a space, which may be one in a name:
    # the messages joined by a space give the line back)
    announced = " ".join(m.content for m in t.channel("public").history())
    assert all(emoji_name(i) in announced for i in range(SEATS)), "every name announced whole"
    # the spectators read the shared channels (the overwrites past 100 put after the create)
    assert all(perms(env, t.channel("public"), s).view_channel for s in t.spectators)
    rnd = random.Random(64)
    kinds, used = set(), set()
    for _ in range(3):  # classic's night, then its day with the lynch, then the next night
        kinds.add(t.game.info.kind)
        used |= await every_reply(t, rnd, actors=12)
        await force_resolve(t, label="Подсчитать")
        assert t.info.status == "running"
    assert {"day", "night"} <= kinds, kinds
    assert used == {"gm status", "gm tasks", "panel", "action submit", "vote cast", "vote show"}, used
    assert refused(env) == []


async def test_three_games_at_once_in_one_server(env):
    guild = env.create_guild("Мафия")
    rnd = random.Random(3)
    tables = []
    for n, tag in ((13, "a"), (16, "b"), (10, "c")):
        lobby = guild.create_text_channel(f"набор-{tag}")
        t = await gather_big(env, guild, lobby, n, 3, tag=tag, name=lambda i, tag=tag: f"{NAMES[i]}-{tag}")
        tables.append(await start_one(t))
    games = [t.game_id for t in tables]
    assert len(set(games)) == 3 and len(t.store.games.games()) == 3
    owned = [set(map(int, t.info.meta["channels"].values())) for t in tables]
    assert not (owned[0] & owned[1] or owned[0] & owned[2] or owned[1] & owned[2]), "each game its own channels"
    for t in tables:  # nobody of one game sees another game's hidden channels
        others = [o for o in tables if o is not t]
        for o in others:
            assert not perms(env, o.hidden(0), t.member(t.game.state.players[0].pid)).view_channel
    for _ in range(4 if LONG else 2):
        for t in tables:
            if t.info.status != "running":
                continue
            await every_reply(t, rnd, actors=5)
            await force_resolve(t)
    assert refused(env) == []


async def test_eternal_friday_of_20_seats_to_its_end(env):
    guild = env.create_guild("Мафия")
    lobby = guild.create_text_channel("набор")
    t = await gather_big(env, guild, lobby, 20, 2, ruleset="eternal_friday", days=3,
                         name=lambda i: f"Игрок-пятницы-{i:02d}")
    for m in [t.gm, *t.players]:
        LOCALES[m.id] = "ru"
    await start_one(t)
    assert len(t.game.state.players) == 20
    rnd = random.Random(20)
    resolves = 0
    while t.info.status == "running":
        g = t.game
        if resolves % 2 == 0:
            for command in ("gm status", "gm tasks"):
                await t.gm.slash(t.channel("gm"), command)
        for p in g.living():
            if rnd.random() < (0.9 if LONG else 0.7):
                res = await act(t, p.pid, rnd)
                assert res is None or res.response.ephemeral, res
        if g.open_votes():
            for p in g.living():
                m, ch = t.member(p.pid), t.hidden(p.pid)
                cands = await m.autocomplete(ch, "vote cast", "candidate", "")
                if cands:
                    await m.slash(ch, "vote cast", candidate=rnd.choice(cands)["value"])
            voter = g.living()[0].pid
            await t.member(voter).slash(t.hidden(voter), "vote show")
        await force_resolve(t, label="Подсчитать")
        resolves += 1
        assert resolves <= 12
    assert t.info.status == "over"
    reveal = next(m for m in t.channel("public").history() if "Кто был кем" in m.content)
    assert all(p.name in reveal.content for p in t.game.state.players)
    assert refused(env) == []


async def test_a_server_near_500_channels(env):
    """440 channels and a 64-seat game: 71 more would pass Discord's 500 (the Mafia's channel
    of the first night counted too), so the start is
    refused before anything is made, saying how many to remove; with that many removed the
    same lobby starts and the server holds at most 500."""
    guild = env.create_guild("Мафия")
    lobby = guild.create_text_channel("набор")
    t = await gather_big(env, guild, lobby, SEATS, name=lambda i: f"Игрок{i:02d}")
    filler = [guild.create_text_channel(f"старый-{i}") for i in range(439)]
    await env.settle()
    before = set(env.backend.channels)
    r = await t.gm.slash(lobby, "lobby start")
    have = len(env.bot.get_guild(guild.id).channels)
    assert have == 440
    assert r.response.ephemeral and r.response.content.startswith("⛔ "), r.response.content
    need = 2 + 4 + SEATS + 1  # two categories, the four shared channels, a hidden one a seat, the Mafia's
    assert r.response.content == "⛔ " + text("en", "start.too_many_channels", need=need, have=have, max=500,
                                              remove=have + need - 500), r.response.content
    assert set(env.backend.channels) == before and not t.store.games.games()
    for ch in filler[: have + need - 500]:
        env.backend.delete_channel(ch.id)
    await env.settle()
    await start_one(t)
    assert len(env.bot.get_guild(guild.id).channels) == 500
    assert refused(env) == []

