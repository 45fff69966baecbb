"""A complete «Вечная пятница» (Eternal Friday) game of 18 members through slash commands:
public roles claimed at sign-up (the rest dealt), the teams' channels from the start (Mafia and
Yakuza each see only their own), the game starting at night, a teammate's order, the day
abilities and the lynch vote with «за мир» shown in the vote channel as they change, the
public health words, private results, GM resolves, the end."""

from __future__ import annotations

import random

from .conftest import LOCALES, perms
from .helpers import Table, act, force_resolve, start

NAMES = ["Аня", "Борис", "Вера", "Глеб", "Даша", "Егор", "Жанна", "Зоя", "Илья", "Кира", "Лев", "Маша", "Нина",
         "Олег", "Петя", "Рита", "Сева", "Таня"]
HEALTH = ("в полной силе", "без ранений", "лёгкое ранение", "тяжёлое ранение", "в коме")


async def gather_friday(env) -> Table:
    guild = env.create_guild("Мафия")
    lobby = guild.create_text_channel("набор")
    gm = guild.add_member(env.create_user("ведущий"))
    players = [guild.add_member(env.create_user(f"p{i}", global_name=n)) for i, n in enumerate(NAMES)]
    r = await gm.slash(lobby, "lobby create", ruleset="eternal_friday", days=3)
    assert r.response is not None and not r.response.ephemeral, r
    return Table(env, guild, lobby, gm, players)


async def test_eternal_friday_game(env):
    t = await gather_friday(env)
    for m in [t.gm, *t.players]:
        LOCALES[m.id] = "ru"
    rnd = random.Random(11)
    # the first six claim a public role from the free ones offered; the rest get theirs dealt
    claimed: dict[int, str] = {}
    for m in t.players[:6]:
        free = await m.autocomplete(t.lobby, "lobby join", "role", "")
        assert free and not {c["value"] for c in free} & set(claimed.values()), free
        role = rnd.choice(free)["value"]
        r = await m.slash(t.lobby, "lobby join", role=role)
        assert not r.response.ephemeral and "берёт явную роль" in r.response.content, r.response.content
        claimed[m.id] = role
    taken = next(iter(claimed.values()))
    r = await t.players[6].slash(t.lobby, "lobby join", role=taken)  # first come: the role is gone
    assert r.response.ephemeral and r.response.content.startswith("⛔"), r.response.content
    assert "⛔ ⛔" not in r.response.content and "уже взял" in r.response.content, r.response.content
    r = await t.players[6].slash(t.lobby, "lobby join", role="Астронавт")  # no such role: unknown, not taken
    assert r.response.ephemeral and r.response.content == "⛔ Нет роли «Астронавт». Выберите из подсказок.", r.response.content
    for m in t.players[6:]:
        r = await m.slash(t.lobby, "lobby join")
        assert not r.response.ephemeral, r.response.content
    await start(t)
    game = t.game
    assert game.info.kind == "night"  # «Игра начинается с ночи»
    for p in game.state.players:
        if p.user_id in claimed:
            assert p.role == claimed[p.user_id], (p.name, p.role)
    assert len({p.role for p in game.state.players}) == 18  # one player per public role

    # the teams' channels from the start: each team sees its own, nobody else sees either
    teams = {fid: set(f.members) for fid, f in game.state.factions.items()}
    assert set(teams) == {"mafia", "yakuza"} and all(len(v) == 3 for v in teams.values()), teams
    for fid, members in teams.items():
        ch = t.channel(f"faction:{fid}")
        for p in game.state.players:
            seen = perms(env, ch, t.member(p.pid))
            assert seen.view_channel == (p.pid in members), (fid, p.name)
            assert seen.send_messages or p.pid not in members, (fid, p.name)
        assert perms(env, ch, t.gm).view_channel
        assert any("команда" in m.content for m in ch.history())

    # a teammate's order: a mafioso gives the night action of another, the engine checks it
    boss, mate = sorted(teams["mafia"])[:2]
    m, ch = t.member(boss), t.hidden(boss)
    offered = await m.autocomplete(ch, "action submit", "for", "")
    assert {c["value"] for c in offered} == {str(x) for x in sorted(teams["mafia"]) if x != boss}
    abilities = await m.autocomplete(ch, "action submit", "ability", "", **{"for": str(mate)})
    assert {c["value"] for c in abilities} == {la.key for la in game.legal_actions(mate)}
    la = next(la for la in game.legal_actions(mate) if la.ability.targets <= 1)
    args = {"ability": la.key, "for": str(mate)}
    if la.ability.targets:
        args["target"] = str(la.targets[0])
    if la.ability.options:
        args["option"] = la.ability.options[0]
    r = await m.slash(ch, "action submit", **args)
    assert r.response.ephemeral and r.response.content.startswith(f"{game.player(mate).name} — ход от вас: ✅"), r.response.content
    assert any(i.pid == mate and i.by == boss for i in t.game.state.intents)
    yak = min(teams["yakuza"])  # not a teammate: refused by the engine
    r = await m.slash(ch, "action submit", ability=la.key, **{"for": str(yak)})
    assert r.response.content.startswith("⛔"), r.response.content

    resolves = peace_votes = day_actions = 0
    while t.info.status == "running":
        g = t.game
        for p in g.living():
            if p.pid == mate and g.info.kind == "night" and resolves == 0:
                continue  # the order stands for them
            if rnd.random() < 0.8:
                res = await act(t, p.pid, rnd)
                if res is not None:
                    assert res.response.ephemeral, res
                    day_actions += g.info.kind == "day" and not res.response.content.startswith("⛔")
        if g.info.kind == "day" and resolves == 1:  # a day ability taken back is shown too
            day = next(i for i in t.game.state.intents if i.tick == g.state.tick and i.by is None)
            m, ch = t.member(day.pid), t.hidden(day.pid)
            res = await m.slash(ch, "action cancel", which=day.lane)
            assert res.response.ephemeral and not res.response.content.startswith("⛔"), res.response.content
            assert "отменяет" in t.channel("votes").history()[-1].content
        if g.open_votes():
            for i, p in enumerate(g.living()):
                m, ch = t.member(p.pid), t.hidden(p.pid)
                cands = await m.autocomplete(ch, "vote cast", "candidate", "")
                if not cands:
                    continue  # in a coma: no vote
                values = [c["value"] for c in cands]
                assert "peace" in values, values  # «Разрешено также голосовать "За мир"»
                choice = "peace" if i % 3 == 0 else rnd.choice(values)
                res = await m.slash(ch, "vote cast", candidate=choice)
                if not res.response.content.startswith("⛔"):
                    peace_votes += choice == "peace"
        await force_resolve(t, label="Подсчитать")
        resolves += 1
        assert resolves <= 8
    assert t.info.status == "over"
    assert peace_votes and day_actions
    game = t.game
    print(f"{resolves} resolves, {peace_votes} peace votes, {day_actions} day actions, winners {game.state.winner}")

    # the public channel: the health words of the town, announced as they change
    public = "\n".join(m.content for m in t.channel("public").history())
    assert any(w in public for w in HEALTH), public[:2000]
    # the vote channel: the ballots with «за мир», and the day abilities as they were given
    votes = "\n".join(m.content for m in t.channel("votes").history())
    assert "«за мир»" in votes and "📢" in votes, votes[:2000]
    # private results reached the hidden channels (beyond the role cards)
    # (the action panels excepted: altmafia/bot/panel.py, buttons ``amy:…``)
    private = sum(len([m for m in t.hidden(p.pid).history()
                       if not any(getattr(c, "custom_id", "").startswith("amy:") for row in m.components for c in row.children)]) > 1
                  for p in game.state.players)
    assert private >= 3, private
    reveal = next(m for m in t.channel("public").history() if "Кто был кем" in m.content)
    assert all(p.name in reveal.content for p in game.state.players)


async def test_roles_not_claimed_where_the_rules_deal_them(env):
    guild = env.create_guild("Мафия")
    lobby = guild.create_text_channel("набор")
    gm = guild.add_member(env.create_user("ведущий"))
    p = guild.add_member(env.create_user("p0", global_name="Аня"))
    await gm.slash(lobby, "lobby create")  # Godfather's Legacy: roles are secret and dealt
    assert await p.autocomplete(lobby, "lobby join", "role", "") == []
    r = await p.slash(lobby, "lobby join", role="don")
    assert r.response.ephemeral and r.response.content.startswith("⛔"), r.response.content
    assert "do not let players choose roles" in r.response.content and "⛔ ⛔" not in r.response.content, r.response.content
