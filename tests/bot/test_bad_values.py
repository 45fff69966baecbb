"""Values a command cannot use, as the GM and the players meet them: each refused with one
sentence naming it and what to do, and nothing changed."""

from __future__ import annotations

from engine.game import GM_STAT_LIMIT

from .conftest import LOCALES
from .helpers import force_resolve, gather, start


async def test_a_stat_set_far_outside_the_books_range_is_refused(env):
    t = await start(await gather(env, 5, spectators=0))
    LOCALES[t.gm.id] = "ru"
    gm = t.channel("gm")
    before = {p.pid: dict(p.stats) for p in t.game.state.players}
    # ВО may be negative and has no bound in the book: a slip of the keyboard is still refused
    for value in (-1_000_000, 1_000_000_000, GM_STAT_LIMIT + 1):
        r = await t.gm.slash(gm, "gm setstat", player="2", stat="vo", value=value)
        assert r.response.ephemeral and r.response.content.startswith("⛔"), r.response.content
        assert f"ВО = {value} вне допустимого: от {-GM_STAT_LIMIT} до {GM_STAT_LIMIT}" in r.response.content, r.response.content
    # ТВ «Не может быть отрицательным» (min 0 in the ruleset): its own bound
    r = await t.gm.slash(gm, "gm setstat", player="2", stat="tv", value=-1)
    assert r.response.ephemeral and "ТВ = -1 вне допустимого: от 0 до" in r.response.content, r.response.content
    assert {p.pid: dict(p.stats) for p in t.game.state.players} == before
    assert not [m for m in t.channel("public").history() if "ВО" in m.content and "1000000" in m.content]
    # a correction within the range goes through
    r = await t.gm.slash(gm, "gm setstat", player="2", stat="vo", value=-12)
    assert not r.response.content.startswith("⛔"), r.response.content
    assert t.game.player(2).stats["vo"] == -12


async def test_an_unknown_ballot_is_named_with_the_open_votes(env):
    t = await start(await gather(env, 5, spectators=0))
    for m in t.players:
        LOCALES[m.id] = "ru"
    await t.gm.slash(t.channel("gm"), "gm setstat", player="2", stat="vo", value=-3)
    await force_resolve(t)  # the prison list opens after a period
    assert t.game.open_votes()
    name = t.game.open_votes()[0].names.ru
    before = len(t.channel("votes").history())
    r = await t.member(0).slash(t.hidden(0), "vote cast", candidate="2", ballot="zzz")
    assert r.response.ephemeral, r.response.content
    assert r.response.content == f"⛔ Голосования «zzz» нет. Сейчас открыты: «{name}». Выберите из подсказок.", r.response.content
    r = await t.member(0).slash(t.hidden(0), "vote remove", ballot="zzz")
    assert "Голосования «zzz» нет" in r.response.content, r.response.content
    assert len(t.channel("votes").history()) == before and not t.game.state.votes
    # the vote typed by its name, as the player reads it, is taken
    r = await t.member(0).slash(t.hidden(0), "vote cast", candidate="2", ballot=name)
    assert not r.response.content.startswith("⛔"), r.response.content
    assert [v.vote for v in t.game.state.votes] == [t.game.open_votes()[0].id]
