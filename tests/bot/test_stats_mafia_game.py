"""«Мафия со статами» (ruleset stats_mafia) through the simulated Discord: a full game from
`/lobby create`, mail instead of PMs (anonymous letters delivered with the next report, no PM
channel), the Mafia's channel open on the first night only, phases that end early once
nobody is waited for, and the GM's secret Слоупок mark."""

from __future__ import annotations

import random
from typing import Any

from .conftest import LOCALES, perms
from .helpers import NAMES, Table, act, force_resolve, start

LETTER = "Знаю, кто ты, и молчу"
RUMOUR = "Повар что-то подсыпает в суп"


async def gather_stats(env: Any, n: int, *, spectators: int = 1) -> Table:
    guild = env.create_guild("Мафия")
    lobby = guild.create_text_channel("набор")
    gm = guild.add_member(env.create_user("ведущий"))
    players = [guild.add_member(env.create_user(f"p{i}", global_name=NAMES[i])) for i in range(n)]
    specs = [guild.add_member(env.create_user(f"s{i}", global_name=f"Зритель{i}")) for i in range(spectators)]
    for u in [gm, *players]:
        LOCALES[u.id] = "ru"
    r = await gm.slash(lobby, "lobby create", ruleset="stats_mafia")
    assert r.response is not None and not r.ephemeral, r
    for p in players:
        await p.slash(lobby, "lobby join")
    for s in specs:
        await s.slash(lobby, "lobby spectate")
    return Table(env, guild, lobby, gm, players, specs)


def team(game: Any, pid: int) -> str:
    return game.rules.character(game.player(pid).character).team


def contents(ch: Any) -> list[str]:
    return [m.content for m in ch.history()]


async def vote_all(t: Table, rnd: random.Random) -> int:
    n = 0
    for p in t.game.living():
        m, ch = t.member(p.pid), t.hidden(p.pid)
        cands = await m.autocomplete(ch, "vote cast", "candidate", "")
        if cands and t.game.open_votes():
            res = await m.slash(ch, "vote cast", candidate=rnd.choice(cands)["value"])
            n += not res.response.content.startswith("⛔")
    return n


async def test_full_stats_mafia_game(env):
    t = await start(await gather_stats(env, 15))
    g = t.game
    assert g.rules.id == "stats_mafia" and g.info.kind == "night" and g.info.day == 1
    gm_ch, public = t.channel("gm"), t.channel("public")

    # the channels: no PM channel of any kind; the Mafia's channel, open to the Mafia only
    keys = set(t.info.meta["channels"])
    assert all(k in {"category", "public", "votes", "gm", "spectators", "team:mafia"} or k.startswith("player:") for k in keys), keys
    mafia = [p.pid for p in g.state.players if team(g, p.pid) == "mafia"]
    town = [p.pid for p in g.state.players if team(g, p.pid) != "mafia"]
    assert len(mafia) >= 2, mafia
    mafia_ch = t.channel("team:mafia")
    assert mafia_ch.name == "мафия"
    for pid in mafia:
        p = perms(env, mafia_ch, t.member(pid))
        assert p.view_channel and p.send_messages, pid
    for pid in town:
        assert not perms(env, mafia_ch, t.member(pid)).view_channel, pid
    assert not perms(env, mafia_ch, t.spectators[0]).view_channel
    assert perms(env, mafia_ch, t.gm).send_messages

    # night 1: the Mafia talk (signed, at once); anyone else writes anonymous letters
    a, b = mafia[0], mafia[1]
    r = await t.member(a).slash(t.hidden(a), "pm send", to=g.player(b).name, message="встречаемся у пристани")
    assert not r.response.content.startswith("⛔"), r.response.content
    assert any("встречаемся у пристани" in c and g.player(a).name in c for c in contents(t.hidden(b)))
    writer, reader = town[0], town[1]
    r = await t.member(writer).slash(t.hidden(writer), "pm send", to=g.player(reader).name, message=LETTER)
    assert r.response.ephemeral and "Письмо отправлено: " in r.response.content, r.response.content
    assert not any(LETTER in c for c in contents(t.hidden(reader))), "a letter waits for the next phase"
    r = await t.member(writer).slash(t.hidden(writer), "pm send", to=g.player(town[2]).name, message="ещё одно")
    assert r.response.content.startswith("⛔"), "one letter a phase"
    r = await t.member(town[2]).slash(t.hidden(town[2]), "anon post", message=RUMOUR)
    assert not r.response.content.startswith("⛔"), r.response.content

    r = await t.gm.slash(gm_ch, "gm endday", day=3)
    assert r.response.content == "Готово.", r.response.content
    rnd = random.Random(3)
    resolves = votes = 0
    while t.info.status == "running":
        tick = t.info.tick
        for p in t.game.living():
            if t.info.tick != tick or t.info.status != "running":
                break
            if rnd.random() < 0.8:
                res = await act(t, p.pid, rnd)
                if res is not None:
                    assert res.response is not None and res.response.ephemeral, res
        if t.info.tick == tick and t.info.status == "running" and t.game.open_votes():
            votes += await vote_all(t, rnd)
        if t.info.tick == tick and t.info.status == "running":
            r = await t.gm.slash(gm_ch, "gm status")
            assert "Фаза ждёт" in r.response.content, r.response.content
            await force_resolve(t, label="Подсчитать")
        resolves += 1
        if resolves == 1:
            # the letter arrived without its author; the rumour went to the whole town
            got = [c for c in contents(t.hidden(reader)) if LETTER in c]
            assert len(got) == 1 and "Анонимное письмо" in got[0], got
            assert g.player(writer).name not in got[0] and f"<@{t.member(writer).id}>" not in got[0].split(":")[0]
            assert any(RUMOUR in c and "всему городу" in c and g.player(town[2]).name not in c for c in contents(public))
            assert any(LETTER in c and g.player(writer).name in c for c in contents(gm_ch)), "the GM learns the author"
            # after the first night the Mafia's channel is read-only
            for pid in mafia:
                p = perms(env, mafia_ch, t.member(pid))
                assert p.view_channel and not p.send_messages, pid
        assert resolves <= 12
    assert t.info.status == "over"
    assert votes
    game = t.game
    # the public report of every phase and the reveal
    reports = contents(public)
    assert any("Вече" in c for c in reports), reports
    assert any("Кто был кем" in c for c in reports)
    # private results only in hidden channels: a check's answer reaches its checker and nobody else
    checks = [(pid, c) for pid in range(15) for c in contents(t.hidden(pid)) if "Проверка " in c]
    assert checks, "some check was made"
    assert not any("Проверка " in c for c in reports)
    print(f"{resolves} resolves, {votes} votes, winners {game.state.winner}")


async def test_phases_end_early_and_slowpokes_hold_up_nobody(env):
    t = await start(await gather_stats(env, 9, spectators=0))
    gm_ch = t.channel("gm")
    g = t.game
    rnd = random.Random(5)
    able = [p.pid for p in g.living() if g.legal_actions(p.pid)]
    assert len(able) >= 4, able
    slow = able[-1]
    # the GM marks a Слоупок: a secret status, told to them and shown on their sheet and to the GM only
    r = await t.gm.slash(gm_ch, "gm setstatus", player=g.player(slow).name, status="slowpoke")
    assert not r.response.content.startswith("⛔"), r.response.content
    assert t.game.active(t.game.player(slow), "slowpoke")
    assert not any("Слоупок" in c for c in contents(t.channel("public")))
    assert any("Слоупок" in c for c in contents(t.hidden(slow))), contents(t.hidden(slow))
    assert not any("Слоупок" in c for pid in able if pid != slow for c in contents(t.hidden(pid)))
    r = await t.member(slow).slash(t.hidden(slow), "action me")
    assert "Слоупок" in r.response.content, r.response.content
    r = await t.gm.slash(gm_ch, "gm status")
    assert f"Слоупоки не задерживают: {g.player(slow).name}" in r.response.content, r.response.content
    # night 1 ends as soon as everyone who may act has submitted, the Слоупок aside
    idle = able[-2]
    for pid in able[:-2]:
        res = await act(t, pid, rnd)
        assert res is not None and not res.response.content.startswith("⛔"), res
    assert t.info.tick == 0, "the night waits for those who have not submitted"
    assert t.bot.scheduler.waiting(t.game_id) == [idle]
    # «Если вы ничего не делаете в эту ночь, напишите Мастеру»: the GM tells the bot
    r = await t.gm.slash(gm_ch, "gm idle", player=g.player(idle).name)
    assert r.response.ephemeral and r.response.content == "Готово.", r.response.content
    # «мафия может общаться между собой в первую ночь»: nobody is waited for, yet the night lasts
    # its hour (min_next_phase_minutes) — it is not closed within seconds
    assert t.bot.scheduler.waiting(t.game_id) == []
    assert t.info.tick == 0, "the night lasts the ruleset's minimum"
    assert any("идёт не меньше 60 минут" in c for c in contents(gm_ch)), contents(gm_ch)
    r = await t.gm.slash(gm_ch, "gm idle", player=g.player(idle).name)
    assert r.response.ephemeral and r.response.content.startswith("⛔ Уже отмечено"), r.response.content
    await t.env.advance_time(61 * 60)
    assert t.info.tick == 1, "the night ended early once its hour was over"
    assert any("закончена досрочно" in c for c in contents(gm_ch))
    assert (t.info.deadline - t.env.now()).total_seconds() >= 59 * 60, "the next phase gets at least the minimum"
    # day 1 ends once the vote is complete
    assert t.info.status == "running" and t.game.info.kind == "day"
    voters = t.bot.scheduler.waiting(t.game_id)
    assert voters, "every free player must vote"
    for pid in voters:
        assert t.info.tick == 1
        m, ch = t.member(pid), t.hidden(pid)
        cands = await m.autocomplete(ch, "vote cast", "candidate", "")
        assert cands, (pid, [c for c in contents(ch)])
        res = await m.slash(ch, "vote cast", candidate=cands[0]["value"])
        assert not res.response.content.startswith("⛔"), res.response.content
    assert t.info.tick == 1, "the day lasts its hour"
    await t.env.advance_time(61 * 60)
    assert t.info.tick == 2, "the day ended when the vote was complete"
    assert sum("закончена досрочно" in c for c in contents(gm_ch)) == 2, "both phases ended early, not at their deadline"
