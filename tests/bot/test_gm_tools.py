"""The GM's tools and the players' other commands: preview, tell, tasks, status, cancel, the
vote display, a riot that ends the day at once, ending the game, deleting the channels."""

from __future__ import annotations

from .conftest import LOCALES
from .helpers import force_resolve, gather, start

TAVERN, PRIVATEER = 3, 7  # the deal of the tests' fixed seed with 13 players


async def test_preview_commits_nothing_and_the_gm_tools_work(env):
    t = await start(await gather(env, 13, spectators=0))
    LOCALES[t.gm.id] = "ru"
    gm = t.channel("gm")
    p7 = t.member(PRIVATEER)
    LOCALES[p7.id] = "ru"
    quarrel = "role:privateer_seller:quarrel"
    r = await p7.slash(t.hidden(PRIVATEER), "action submit", ability=quarrel, target="0")
    assert r.response.content.startswith("✅"), r.response.content
    # a player may take it back, then submit again
    r = await p7.slash(t.hidden(PRIVATEER), "action cancel")
    assert "отменено" in r.response.content
    assert not t.game.pending(PRIVATEER)
    await p7.slash(t.hidden(PRIVATEER), "action submit", ability=quarrel, target="0")
    version, tick = t.info.version, t.info.tick
    r = await t.gm.slash(gm, "gm preview")
    assert r.response.ephemeral and "Предпросмотр" in r.response.content
    assert "Задача для ведущего" in r.response.content
    assert (t.info.version, t.info.tick) == (version, tick), "a preview commits nothing"
    assert not t.game.state.gm_tasks
    r = await t.gm.slash(gm, "gm status")
    assert t.game.player(PRIVATEER).name in r.response.content.split("Ещё не сходили")[0]
    await force_resolve(t, label="Подсчитать")
    r = await t.gm.slash(gm, "gm tasks")
    assert "⏳" in r.response.content and "№1" in r.response.content
    await t.gm.slash(gm, "gm settle", task=1, note="англичане поссорились")
    r = await t.gm.slash(gm, "gm tasks")
    assert "✅" in r.response.content and "англичане" in r.response.content
    await t.gm.slash(gm, "gm tell", player="0", message="Вы слышите шум у пристани.")
    assert any("шум у пристани" in m.content for m in t.hidden(0).history())
    assert not any("шум у пристани" in m.content for m in t.channel("public").history())
    log = "\n".join(m.content for m in gm.history())
    assert "предпросмотр" in log and "задача №1 решена" in log and "шум у пристани" in log


async def test_a_riot_ends_the_day_at_once(env):
    t = await start(await gather(env, 13, spectators=0))
    gm = t.channel("gm")
    await t.gm.slash(gm, "gm setstat", player=str(TAVERN), stat="vo", value=9)
    riot = "role:tavern_keeper:riot"
    assert any(la.key == riot for la in t.game.legal_actions(TAVERN))
    r = await t.member(TAVERN).slash(t.hidden(TAVERN), "action submit", ability=riot)
    assert r.response.content.startswith("✅"), r.response.content
    # day 1.1 and day 1.2 are resolved right away: the night has begun
    assert t.game.info.kind == "night", t.game.info


async def test_votes_are_shown_as_the_ruleset_allows(env):
    t = await start(await gather(env, 5, spectators=1))
    gm = t.channel("gm")
    await t.gm.slash(gm, "gm setstat", player="2", stat="vo", value=-3)
    await force_resolve(t)  # the prison list opens after a period
    assert t.game.open_votes()
    voter = t.member(0)
    cands = await voter.autocomplete(t.hidden(0), "vote cast", "candidate", "")
    assert [c["value"] for c in cands] == ["2"]
    r = await voter.slash(t.hidden(0), "vote cast", candidate="2")
    assert r.response.ephemeral
    await t.member(1).slash(t.hidden(1), "vote cast", candidate="2")
    posts = [m.content for m in t.channel("votes").history()]
    name = t.game.player(2).name
    assert any(f"{name} — 2 голоса" in p for p in posts), posts
    r = await t.member(0).slash(t.hidden(0), "vote show")
    assert name in r.response.content
    # the spectator reads the vote channel
    assert t.channel("votes").history(viewer=t.spectators[0])


async def test_ending_the_game_and_deleting_its_channels(env):
    t = await start(await gather(env, 4, spectators=0))
    LOCALES[t.gm.id] = "ru"
    r = await t.gm.slash(t.channel("gm"), "lobby end")
    assert "Завершить игру" in r.response.content
    await t.gm.click(r.response, label="Завершить игру")
    assert t.info.status == "over"
    assert any("Победители" in m.content for m in t.channel("public").history())
    ask = next(m for m in t.channel("gm").history() if m.components and "Что сделать с каналами" in m.content)  # (the review has a button too)
    ids = [int(v) for v in t.info.meta["channels"].values()]
    await t.gm.click(ask, label="Удалить каналы")
    left = {c.id for c in t.guild.channels.values()}
    assert not set(ids) & left
