"""The three games of docs/variants.md («Three games»), as a GM makes them: each file uploaded
into the running bot (``/gm ruleset upload``), a lobby opened with it, the table filled, the
game started and played through the bot, every seat acting by its slash commands, resolve
after resolve. The files are the ones the guide shows; their scenarios play their rules
(tests/scenarios/<id>/)."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from config.loader import load_ruleset_file

from .helpers import NAMES, Table, act, force_resolve, start
from .test_ruleset_upload import admin_of, ok, upload

RULESETS = Path(__file__).resolve().parents[1] / "rulesets"

GAMES = {
    # (a) a Godfather's Legacy tweak: a new role from two abilities, a threshold, quotas, the calendar
    "godfather_tweak": "smuggler",
    # (b) an Eternal Friday with a bodyguard (a character of the law)
    "eternal_friday_bodyguard": "bodyguard",
    # (c) a classic game with a sheriff, doctor, vigilante, jester, serial killer, a majority lynch
    "classic_killer": "serial_killer",
}


def names(n: int) -> list[str]:
    return [NAMES[i] if i < len(NAMES) else f"{NAMES[i % len(NAMES)]} {i // len(NAMES) + 1}" for i in range(n)]


@pytest.mark.parametrize("ruleset", sorted(GAMES))
async def test_a_gm_uploads_the_guide_s_game_and_it_plays(env, ruleset):
    path = RULESETS / f"{ruleset}.yaml"
    rules = load_ruleset_file(path)
    guild = env.create_guild("Мафия")
    lobby = guild.create_text_channel("набор")
    gm = admin_of(env, guild)
    said = ok(await upload(gm, lobby, path.name, path.read_text(encoding="utf-8")))
    assert rules.names.ru in said, said

    seats = rules.table.max if ruleset == "godfather_tweak" else rules.table.default  # the tweak's new seat
    players = [guild.add_member(env.create_user(f"p{i}", global_name=name)) for i, name in enumerate(names(seats))]
    r = await gm.slash(lobby, "lobby create", ruleset=ruleset)
    assert r.response is not None and not r.response.ephemeral and rules.names.ru in r.response.content, r.response.content
    for p in players:
        r = await p.slash(lobby, "lobby join")
        assert r.response is not None and not r.response.ephemeral, r.response.content
    t = await start(Table(env, guild, lobby, gm, players))
    game = t.game
    assert t.info.ruleset == ruleset and game.rules.names.ru == rules.names.ru
    new = GAMES[ruleset]  # the guide's new role or character is in the game's rules, and dealt
    assert any(p.role == new or p.character == new for p in game.state.players), [(p.role, p.character) for p in game.state.players]

    rnd = random.Random(ruleset)
    for _ in range(3):
        tick = t.game.state.tick
        for p in t.game.living():
            reply = await act(t, p.pid, rnd)
            if reply is not None:
                text = (reply.response.content if reply.response is not None and reply.response.content
                        else reply.followups[0].content)
                assert "⚠" not in text and "Something went wrong" not in text and "Что-то пошло не так" not in text, text
        await force_resolve(t, label="Подсчитать")
        assert t.game.state.tick == tick + 1 or t.game.state.over
        if t.game.state.over:
            break
