"""Many people at the same instant (asyncio.gather of real SimCord interactions, a real SQLite
file): sign-ups, lobbies per channel, the game's meta, GM retries, and which game a command in
a game's channel belongs to once that game is over."""

from __future__ import annotations

import json
import sqlite3
from datetime import timedelta

import pytest

from .conftest import LOCALES
from .helpers import NAMES, Table, burst, gather, start


def ephemeral_refusal(r, *words: str) -> None:
    assert r.response is not None and r.response.ephemeral, r
    assert r.response.content.startswith("⛔"), r.response.content
    for w in words:
        assert w in r.response.content, (w, r.response.content)


async def test_thirteen_joins_at_once_all_land(env):
    guild = env.create_guild("Мафия")
    lobby = guild.create_text_channel("набор")
    gm = guild.add_member(env.create_user("ведущий"))
    players = [guild.add_member(env.create_user(f"p{i}", global_name=NAMES[i])) for i in range(13)]
    watchers = [guild.add_member(env.create_user(f"s{i}", global_name=f"Зритель{i}")) for i in range(4)]
    await gm.slash(lobby, "lobby create")
    results = await burst(env, [*((p, lobby, "lobby join", {}) for p in players),
                                   *((s, lobby, "lobby spectate", {}) for s in watchers)])
    for r in results:
        assert r.response is not None and not r.response.content.startswith("⛔"), r.response.content
    (data,) = (await env.bot.store.lobbies.lobbies()).values()
    assert sorted(p["user_id"] for p in data["players"]) == sorted(p.id for p in players)
    assert sorted(data["spectators"]) == sorted(s.id for s in watchers)
    assert len({p["name"] for p in data["players"]}) == 13
    # the counts the answers gave are 1..13, each once: every join saw the ones before it
    counts = sorted(int(r.response.content.rsplit(":", 1)[1].split()[0]) for r in results[:13])
    assert counts == list(range(1, 14)), counts
    # six leave at once, while three more watchers arrive: the rest stays
    more = [guild.add_member(env.create_user(f"w{i}", global_name=f"Гость{i}")) for i in range(3)]
    results = await burst(env, [*((p, lobby, "lobby leave", {}) for p in players[:6]),
                                   *((w, lobby, "lobby spectate", {}) for w in more)])
    assert all(not r.response.content.startswith("⛔") for r in results)
    (data,) = (await env.bot.store.lobbies.lobbies()).values()
    assert sorted(p["user_id"] for p in data["players"]) == sorted(p.id for p in players[6:])
    assert sorted(data["spectators"]) == sorted(s.id for s in [*watchers, *more])
    # the same player twice at once: one joins, the other is told so
    r1, r2 = await burst(env, [(players[0], lobby, "lobby join", {})] * 2)
    assert sorted(r.response.content.startswith("⛔") for r in (r1, r2)) == [False, True]
    (data,) = (await env.bot.store.lobbies.lobbies()).values()
    assert [p["user_id"] for p in data["players"]].count(players[0].id) == 1


async def test_one_open_lobby_per_channel_and_the_gm_can_always_end_it(env):
    guild = env.create_guild("Мафия")
    here, there = guild.create_text_channel("набор"), guild.create_text_channel("другой")
    gm, gm2 = guild.add_member(env.create_user("ведущий")), guild.add_member(env.create_user("второй"))
    LOCALES[gm2.id] = "ru"
    a, b = await burst(env, [(gm, here, "lobby create", {}), (gm2, here, "lobby create", {})])
    opened = [r for r in (a, b) if not r.response.content.startswith("⛔")]
    refused = [r for r in (a, b) if r.response.content.startswith("⛔")]
    assert len(opened) == 1 and len(refused) == 1
    (lobby_id,) = await env.bot.store.lobbies.lobbies()
    ephemeral_refusal(refused[0], lobby_id)
    # a second one in another channel is fine; each channel's commands reach its own
    await gm2.slash(there, "lobby create")
    p = guild.add_member(env.create_user("p0", global_name="Аня"))
    await p.slash(there, "lobby join")
    lobbies = await env.bot.store.lobbies.lobbies()
    assert [len(d["players"]) for d in lobbies.values() if d["channel_id"] == there.id] == [1]
    assert [len(d["players"]) for d in lobbies.values() if d["channel_id"] == here.id] == [0]
    r = await p.slash(there, "lobby players")
    assert "Аня" in r.response.content
    owner = gm if a in opened else gm2
    r = await owner.slash(here, "lobby end")
    assert not r.response.content.startswith("⛔"), r.response.content
    assert [d["channel_id"] for d in (await env.bot.store.lobbies.lobbies()).values()] == [there.id]


async def test_two_lobbies_left_in_one_channel_from_before_can_be_ended(env):
    """A database from before the one-per-channel rule may hold two lobbies of one channel (a
    jam of lobbies): each GM can still end theirs with /lobby end."""
    guild = env.create_guild("Мафия")
    here = guild.create_text_channel("набор")
    gm, gm2 = guild.add_member(env.create_user("ведущий")), guild.add_member(env.create_user("второй"))
    store = env.bot.store
    # the rows as an older build wrote them: no channel column (the lobby is found from its data)
    con = sqlite3.connect(env.bot.settings.db_path)
    for n, (lid, owner) in enumerate((("aa0001", gm), ("bb0002", gm2))):
        data = {"guild_id": guild.id, "channel_id": here.id, "ruleset": "godfather", "creator": owner.id, "gms": [owner.id],
                "players": [], "spectators": [], "lang": "ru", "tz": "Europe/Moscow", "days": None, "seed": 1}
        con.execute("INSERT INTO lobbies (lobby_id, guild_id, data, created_at, updated_at) VALUES (?, ?, ?, ?, ?)",
                    (lid, guild.id, json.dumps(data), f"2026-01-0{n + 1}T00:00:00.000000Z", "2026-01-01T00:00:00.000000Z"))
    con.commit()
    con.close()
    r = await gm2.slash(here, "lobby end")
    assert not r.response.content.startswith("⛔"), r.response.content
    assert list(await store.lobbies.lobbies()) == ["aa0001"]
    r = await gm.slash(here, "lobby end")
    assert not r.response.content.startswith("⛔"), r.response.content
    assert await store.lobbies.lobbies() == {}


@pytest.mark.parametrize("after_start", [
    0,  # the start's first posts still go out (some wait out their channels' rate limits)
    5,  # they are out
])
async def test_a_burst_of_actions_pms_and_votes_all_land(env, after_start):
    t = await start(await gather(env, 13, spectators=0))
    await env.advance_time(after_start)
    g = t.game
    calls = []
    for p in g.living():
        m, ch = t.member(p.pid), t.hidden(p.pid)
        calls.append((m, ch, "pm send", {"to": g.player((p.pid + 1) % 13).name, "message": f"привет от {p.pid}"}))
        legal = [la for la in g.legal_actions(p.pid) if not la.ability.targets and not la.ability.options and not la.ability.number]
        if legal:
            calls.append((m, ch, "action submit", {"ability": (legal[0].via + "|" if legal[0].via else "") + legal[0].key}))
    version = t.info.version
    results = await burst(env, calls)
    accepted = [r for r in results if not r.response.content.startswith("⛔")]
    assert len(accepted) >= 13
    journal = await t.store.games.journal(t.game_id)
    assert len(journal) == version + len(accepted), "every accepted command is in the journal, once"
    assert len([e for e in journal if e["kind"] == "send_pm"]) == 13
    assert (await t.store.games.rebuild(t.game_id)).to_dict() == t.game.to_dict()


async def test_meta_changes_at_once_are_all_kept(env):
    """A GM's pause, a spectator's access and the players' remembered languages at the same
    instant: none of them replaces the others."""
    t = await start(await gather(env, 13, spectators=0, others=2))
    for i in range(6):
        LOCALES[t.member(i).id] = "en" if i % 2 else "ru"
    calls = [(t.gm, t.channel("gm"), "gm pause", {})]
    calls += [(o, t.lobby, "lobby spectate", {}) for o in t.others]
    calls += [(t.member(i), t.hidden(i), "action me", {}) for i in range(6)]
    calls += [(t.member(i), t.hidden(i), "action cancel", {}) for i in range(6, 9)]
    results = await burst(env, calls)
    assert not results[0].response.content.startswith("⛔"), results[0].response.content
    meta = t.info.meta
    assert meta["paused"] and meta["paused"]["tick"] == t.info.tick
    assert t.info.deadline is None
    assert sorted(meta["spectators"]) == sorted(o.id for o in t.others)
    assert all(str(o.id) in meta["access"]["public"] for o in t.others)
    for i in range(6):
        assert meta["langs"][str(i)] == ("en" if i % 2 else "ru")
    # what memory says is what the database holds
    con = sqlite3.connect(env.bot.settings.db_path)
    row = con.execute("SELECT meta, meta_version FROM games WHERE game_id = ?", (t.game_id,)).fetchall()
    con.close()
    assert json.loads(row[0][0]) == meta and row[0][1] == t.info.meta_version


async def test_a_gm_command_repeated_after_a_lost_reply_moves_the_deadline_once(env):
    t = await start(await gather(env, 5, spectators=0))
    LOCALES[t.gm.id] = "ru"
    gm = t.channel("gm")
    before = t.info.deadline
    r = await t.gm.slash(gm, "gm extend", minutes=60)
    assert r.response.ephemeral and not r.response.content.startswith("⛔")
    assert t.info.deadline == before + timedelta(minutes=60)
    # the reply was lost; the GM sends the same command again: not applied twice
    r = await t.gm.slash(gm, "gm extend", minutes=60)
    assert r.response.ephemeral and "уже сделан" in r.response.content, r.response.content
    assert t.info.deadline == before + timedelta(minutes=60)
    # another amount is another command
    r = await t.gm.slash(gm, "gm extend", minutes=30)
    assert t.info.deadline == before + timedelta(minutes=90)
    # two different changes at the same instant both count (computed from the fresh deadline)
    await burst(env, [(t.gm, gm, "gm extend", {"minutes": 15}), (t.gm, gm, "gm shorten", {"minutes": 5})])
    assert t.info.deadline == before + timedelta(minutes=100)
    moves = [e for e in await t.store.games.journal(t.game_id) if e["kind"] == "deadline"]
    assert len(moves) == 4
    # after the window the same change is a new one
    await env.advance_time(11 * 60)
    await t.gm.slash(gm, "gm extend", minutes=60)
    assert t.info.deadline == before + timedelta(minutes=160)
    # pause twice at once: paused once, the remaining time kept; resume twice: once
    a, b = await burst(env, [(t.gm, gm, "gm pause", {})] * 2)
    assert sorted(r.response.content.startswith("⛔") for r in (a, b)) == [False, True]
    remaining = t.info.meta["paused"]["remaining"]
    assert remaining > 60
    a, b = await burst(env, [(t.gm, gm, "gm resume", {})] * 2)
    assert sorted(r.response.content.startswith("⛔") for r in (a, b)) == [False, True]
    assert t.info.meta["paused"] is None and t.info.deadline is not None


async def build_two_games(env) -> tuple[Table, Table]:
    """Two games on one server with the same four players (the fixed seed deals both alike)."""
    guild = env.create_guild("Мафия")
    gm = guild.add_member(env.create_user("ведущий"))
    LOCALES[gm.id] = "ru"
    players = [guild.add_member(env.create_user(f"p{i}", global_name=NAMES[i])) for i in range(4)]
    tables = []
    for name in ("набор-1", "набор-2"):
        ch = guild.create_text_channel(name)
        await gm.slash(ch, "lobby create")
        for p in players:
            await p.slash(ch, "lobby join")
        before = {i.game_id for i in env.bot.store.games.games()}
        r = await gm.slash(ch, "lobby start")
        assert "<#" in r.response.content, r
        (gid,) = {i.game_id for i in env.bot.store.games.games()} - before
        tables.append(Table(env, guild, ch, gm, players, game_id=gid))
    return tables[0], tables[1]


async def test_a_command_in_a_finished_games_channel_stays_with_that_game(env):
    one, two = await build_two_games(env)
    p0 = one.players[0]
    LOCALES[p0.id] = "ru"
    seat1 = one.game.state.players[1].name
    hidden1, public1, gm1 = one.hidden(0), one.channel("public"), one.channel("gm")
    # both games running: each channel answers for its own game
    r = await p0.slash(hidden1, "action me")
    assert not r.response.content.startswith("⛔")
    r = await one.gm.slash(gm1, "lobby end")
    await one.gm.click(r.response, label="Завершить игру")
    assert (await one.store.games.find(one.game_id)).status == "over"
    pms_before = len([e for e in await two.store.games.journal(two.game_id) if e["kind"] == "send_pm"])
    version2 = two.info.version
    # in game 1's channels every command now says the game is over, and none reaches game 2
    ephemeral_refusal(await p0.slash(hidden1, "action me"), "окончена")
    ephemeral_refusal(await p0.slash(hidden1, "pm send", to=seat1, message="это для первой игры"), "окончена")
    ephemeral_refusal(await p0.slash(public1, "vote show"), "окончена")
    ephemeral_refusal(await one.gm.slash(gm1, "gm status"), "окончена")
    ephemeral_refusal(await one.gm.slash(gm1, "gm extend", minutes=10), "окончена")
    ephemeral_refusal(await one.gm.slash(gm1, "lobby end"), "окончена")
    assert await p0.autocomplete(hidden1, "pm send", "to", "") == []
    assert two.info.version == version2
    assert len([e for e in await two.store.games.journal(two.game_id) if e["kind"] == "send_pm"]) == pms_before
    assert not any("первой игры" in m.content for m in two.hidden(1).history())
    # in game 2's channels and in a channel of no game, game 2 (the player's one running game)
    r = await p0.slash(two.hidden(0), "action me")
    assert not r.response.content.startswith("⛔"), r.response.content
    r = await p0.slash(one.lobby, "action me")
    assert not r.response.content.startswith("⛔"), r.response.content
    # a restart keeps the channel map (the finished game is no longer loaded)
    await env.bot.store.close()
    from altmafia.bot.bot import create_bot

    await env.restart_bot(create_bot(env.bot.settings))
    assert not env.bot.store.games.has(one.game_id)
    ephemeral_refusal(await p0.slash(hidden1, "action me"), "окончена")
