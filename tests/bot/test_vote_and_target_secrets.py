"""What the public vote channel shows of a counted vote, the same ballot cast again, and a
target under a secret status (seed 000's «на крещении индейцев»): offered, accepted, failing at
the resolve like a blocked action; a PM to them waits for their return."""

from __future__ import annotations

from .conftest import LOCALES
from .helpers import force_resolve, gather, start


def texts(ch, viewer=None) -> str:
    return "\n".join(m.content for m in (ch.history(viewer=viewer) if viewer else ch.history()))


async def test_public_vote_channel_shows_ballots_not_strengths(env):
    t = await start(await gather(env, 5, spectators=1))
    for m in t.players:
        LOCALES[m.id] = "ru"
    gm = t.channel("gm")
    await t.gm.slash(gm, "gm setstat", player="2", stat="vo", value=-3)
    await t.gm.slash(gm, "gm setstat", player="0", stat="tv", value=10)   # strength 3: secret
    await t.gm.slash(gm, "gm setstat", player="1", stat="tv", value=0)    # 1, +1 if Влиятельный
    await force_resolve(t)  # the prison list opens after a period, the strengths fixed
    assert t.game.open_votes()
    votes = t.channel("votes")
    r = await t.member(0).slash(t.hidden(0), "vote cast", candidate="2")
    assert r.response.ephemeral
    await t.member(1).slash(t.hidden(1), "vote cast", candidate="2")
    posted = len(votes.history())
    # the same ballot again: acknowledged privately, not a change, nothing posted
    r = await t.member(0).slash(t.hidden(0), "vote cast", candidate="2")
    assert r.response.ephemeral and "не изменение" in r.response.content, r.response.content
    assert len(votes.history()) == posted
    assert t.game.player(0).uses.get("vote_change:prison", 0) == 0
    await force_resolve(t)  # the day's end: the count
    name = t.game.player(2).name
    shown = texts(votes, t.spectators[0])
    assert f"«Голосование на посадку», поданные голоса: {name} — 2 голоса" in shown, shown
    weight = 3 + 1 + (t.game.player(1).character == "influential")
    assert "Итоги голосования" not in shown and f"{name}: {weight}" not in shown, shown
    assert f"Итоги голосования: {name}: {weight}" in texts(gm), texts(gm)   # the GM's tally


async def test_secret_status_target_is_offered_and_fails_at_the_resolve(env):
    t = await start(await gather(env, 5, spectators=0))
    for m in t.players:
        LOCALES[m.id] = "ru"
    gm = t.channel("gm")
    await t.gm.slash(gm, "gm setstatus", player="2", status="absent")
    g = t.game
    assert g.player(2).has("absent")
    la = next(a for a in g.legal_actions(0) if a.ability.targets == 1 and a.via is None)
    assert 2 in la.targets
    m0, h0 = t.member(0), t.hidden(0)
    offered = await m0.autocomplete(h0, "action submit", "target", "", ability=la.key)
    assert "2" in {c["value"] for c in offered}, offered
    r = await m0.slash(h0, "action submit", ability=la.key, target="2")
    assert r.response.content.startswith("✅"), r.response.content
    # a PM to them is accepted like any other, and waits
    r = await t.member(1).slash(t.hidden(1), "pm send", to="2", message="ты где?")
    assert not r.response.content.startswith("⛔"), r.response.content
    assert "ты где?" not in texts(t.hidden(2))
    await force_resolve(t)
    ability = la.ability.name.ru
    assert f"Ваше действие «{ability}» не возымело эффекта." in texts(h0), texts(h0)
    assert "крещени" not in texts(h0)
    assert "Цель недоступна" in texts(gm), texts(gm)
    assert "ты где?" not in texts(t.hidden(2))
    await t.gm.slash(gm, "gm clearstatus", player="2", status="absent")
    await force_resolve(t)
    assert "ты где?" in texts(t.hidden(2)), texts(t.hidden(2))
