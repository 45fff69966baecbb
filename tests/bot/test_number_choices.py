"""A number an ability takes (Eternal Friday's «Дополнительные голоса»: 1 … 3): the cog offers
exactly the numbers the engine accepts, and a number it does not offer is refused."""

from __future__ import annotations

from .conftest import LOCALES
from .helpers import force_resolve, start
from .test_eternal_friday_game import gather_friday


async def test_the_cog_offers_exactly_the_numbers_the_engine_accepts(env):
    t = await gather_friday(env)
    for m in [t.gm, *t.players]:
        LOCALES[m.id] = "ru"
    rev = t.players[0]
    free = await rev.autocomplete(t.lobby, "lobby join", "role", "")
    pick = next(c["value"] for c in free if "Революционер" in c["name"])
    r = await rev.slash(t.lobby, "lobby join", role=pick)
    assert not r.response.ephemeral, r.response.content
    for m in t.players[1:]:
        await m.slash(t.lobby, "lobby join")
    await start(t)
    await force_resolve(t, label="Подсчитать")  # the first night: nobody acts
    game = t.game
    assert game.info.kind == "day"
    pid = next(p.pid for p in game.state.players if p.user_id == rev.id)
    la = next(la for la in game.legal_actions(pid) if la.ability.number is not None)
    assert (la.number.min, la.number.max, la.number.step) == (1, 3, 1)
    ch = t.hidden(pid)
    offered = [c["value"] for c in await rev.autocomplete(ch, "action submit", "option", "", ability=la.key)]
    assert offered == ["1", "2", "3"]
    assert [c["value"] for c in await rev.autocomplete(ch, "action submit", "option", "2", ability=la.key)] == ["2"]
    for typed in ("4", "0", "-1", "²"):  # what the engine refuses is never offered
        assert await rev.autocomplete(ch, "action submit", "option", typed, ability=la.key) == [], typed
    for v in offered:  # every number offered is accepted
        r = await rev.slash(ch, "action submit", ability=la.key, option=v)
        assert r.response.ephemeral and not r.response.content.startswith("⛔"), (v, r.response.content)
    r = await rev.slash(ch, "action submit", ability=la.key, option="4")
    assert r.response.ephemeral and r.response.content == "⛔ Укажите число от 1 до 3.", r.response.content
