"""The snapshot a command stores (``encode_game``: orjson over ``Game.to_encodable``) is the
same text as the full encode of ``Game.to_dict`` — after every kind of command, in every
ruleset, and in the store's ``games.state`` row."""

from __future__ import annotations

import contextlib
import random

import pytest

from config import available_rulesets, load_ruleset_file
from engine import ActionError, Game, PlayerSpec
from storage import Command
from storage.store import decode_snapshot, encode_game, encode_snapshot

from ..players import submit_random
from .conftest import new_game

RULESETS = available_rulesets(include_tests=True)


def full(game: Game) -> str:
    return encode_snapshot(game.to_dict())


def check(game: Game, what: str) -> None:
    assert encode_game(game) == full(game), what


def tried(game: Game, what: str, call, *args, **kw) -> None:
    """Run one engine command (refused or not) and compare both encodes after it."""
    with contextlib.suppress(ActionError):
        call(*args, **kw)
    check(game, what)


def new(rules, seed: int) -> Game:
    chars = [c.id for c in rules.characters] or [None]
    specs = [PlayerSpec(name=f"P{i}", role=r.id, character=chars[i % len(chars)]) for i, r in enumerate(rules.roles[: rules.table.max])]
    return Game.new(rules, seed, specs)


@pytest.mark.parametrize("rid", sorted(RULESETS))
def test_every_kind_of_command_encodes_as_the_full_snapshot(rid):
    rules = load_ruleset_file(RULESETS[rid])
    g = new(rules, 3)
    rnd = random.Random(3)
    check(g, "new game")
    stats = [s.id for s in rules.stats]
    statuses = [s.id for s in rules.statuses]
    for _ in range(12):
        if g.state.over:
            break
        for p in g.living():
            legal = g.legal_actions(p.pid)
            if legal:
                tried(g, "submit", lambda p=p, legal=legal: submit_random(g, p.pid, rnd, legal))
            if rnd.random() < 0.2:
                tried(g, "cancel", lambda p=p: g.cancel(p.pid))
            for v in g.open_votes():
                choice = rnd.choice([q.pid for q in g.living()] + (["peace"] if v.params.get("peace") else []))
                tried(g, "vote", lambda p=p, v=v, choice=choice: g.vote(p.pid, v.id, choice))
                if rnd.random() < 0.1:
                    tried(g, "unvote", lambda p=p, v=v: g.unvote(p.pid, v.id))
            others = [q.pid for q in g.living() if q.pid != p.pid]
            if others and rnd.random() < 0.3:
                tried(g, "send_pm", lambda p=p, others=others: g.send_pm(p.pid, rnd.choice(others), "привет «Аня»"))
            if rnd.random() < 0.2:
                tried(g, "post_anon", lambda p=p: g.post_anon(p.pid, "кто-то лжёт"))
            if stats and rnd.random() < 0.1:
                tried(g, "choose_bonus", lambda p=p: g.choose_bonus(p.pid, rnd.choice(stats)))
        victim = rnd.choice(g.living()).pid
        if stats:
            tried(g, "gm_set_stat", g.gm_set_stat, victim, stats[0], 3)
        if statuses:
            sid = rnd.choice(statuses)
            tried(g, "gm_set_status", g.gm_set_status, victim, sid, cycles=1)
            tried(g, "gm_clear_status", g.gm_clear_status, victim, sid)
        tried(g, "gm_message", g.gm_message, victim, "от ведущего")
        tried(g, "declare_idle", lambda: g.declare_idle(rnd.choice(g.living()).pid))
        tried(g, "gm_substitute", g.gm_substitute, victim, 777_000 + g.state.tick)
        with contextlib.suppress(ActionError):
            g.resolve()
        check(g, "resolve")
    tried(g, "gm_remove", lambda: g.gm_remove(g.living()[0].pid) if g.living() else None)


async def test_the_stored_snapshot_is_the_full_encode(store):
    gid = await new_game(store)
    rnd = random.Random(5)
    for _ in range(6):
        g = store.games.game(gid)
        for p in g.living():
            legal = g.legal_actions(p.pid)
            if not legal:
                continue
            a = rnd.choice(legal)
            targets = rnd.sample(a.targets, a.ability.targets) if a.ability.targets else []
            with contextlib.suppress(ActionError):
                await store.games.apply(gid, Command("submit", {"pid": p.pid, "ability": a.key, "targets": targets,
                                                          "option": a.any_option(rnd), "via": a.via}))
            live = store.games.live(gid)
            assert live.text == full(live.game)
            assert decode_snapshot(live.text) == decode_snapshot(full(live.game))
        with contextlib.suppress(ActionError):
            await store.games.apply(gid, Command("send_pm", {"sender": 0, "recipient": 1, "text": "привет"}))
        assert store.games.live(gid).text == full(store.games.live(gid).game)
        await store.turns.resolve(gid)
