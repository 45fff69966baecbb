"""``/gm undo`` through the simulated Discord: a forced resolve taken back leaves the game
exactly as before it (snapshot compare), the phase open again with its deadline, a correction
notice once in every channel the resolve had posted in; a restart between the confirmation and
the click, and one after the undo was committed but before its notices went out; the refusals
of the wrong person and the wrong time."""

from __future__ import annotations

from .conftest import LOCALES
from .helpers import force_resolve, gather, start
from .test_restart import restart


def posts(ch) -> int:
    """Messages in a channel with news, the action panels posted alone aside (a new phase has
    one in each hidden channel: on the seat's news when it has some, else alone)."""
    return sum(1 for m in ch.history()
               if not (m.content.startswith("🎛")
                       and any(str(getattr(c, "custom_id", "")).startswith("amy:") for row in m.components for c in row.children)))


def notices(ch) -> list[str]:
    return [m.content for m in ch.history() if m.content.startswith(("⚠️ Поправка", "⚠️ Correction"))]


async def submit_one(t, pid: int) -> None:
    la = next(la for la in t.game.legal_actions(pid) if la.ability.targets == 1 and not la.ability.options and not la.via)
    r = await t.member(pid).slash(t.hidden(pid), "action submit", ability=la.key, target=str(la.targets[0]))
    assert r.response.content.startswith("✅"), r.response.content


def sizes(t) -> dict[str, int]:
    return {k: posts(t.channel(k)) for k in t.info.meta["channels"]}


def grown(t, before: dict[str, int]) -> list[str]:
    return sorted(k for k, n in sizes(t).items() if n > before[k])


def reopened(t) -> list[str]:
    return [m.content for m in t.channel("public").history() if m.content.startswith("↩️")]


async def test_a_forced_resolve_taken_back(env, settings):
    t = await start(await gather(env, 6, spectators=1))
    LOCALES[t.gm.id] = "ru"
    await submit_one(t, 0)
    await submit_one(t, 2)
    before, tick, deadline = t.game.to_dict(), t.info.tick, t.info.deadline
    counts = {k: posts(t.channel(k)) for k in t.info.meta["channels"]}
    await force_resolve(t, label="Подсчитать")
    assert t.info.tick == tick + 1
    grew = sorted(k for k in t.info.meta["channels"] if posts(t.channel(k)) > counts[k])
    assert "public" in grew and "gm" in grew, grew
    r = await t.gm.slash(t.channel("gm"), "gm undo")
    assert r.response.ephemeral and "Отменить подсчёт фазы" in r.response.content, r.response.content
    await t.gm.click(r.response, label="Отменить подсчёт")
    assert t.game.to_dict() == before, "the game exactly as before the resolve"
    assert t.info.tick == tick and t.info.deadline == deadline
    assert (await t.store.games.rebuild(t.game_id)).to_dict() == before
    for k in grew:  # a correction where the resolve had posted, once
        assert len(notices(t.channel(k))) == 1, k
        assert "https://discord.com/channels/" in notices(t.channel(k))[0]
    assert any(m.content.startswith("↩️ Ведущий отменил подсчёт") for m in t.channel("public").history())
    assert any("подсчёт фазы" in m.content and "отменён" in m.content for m in t.channel("gm").history())
    assert (await t.store.games.gm_actions(t.game_id))[-1]["action"] == "undo"
    # the phase goes on: the submissions stand, and a new resolve delivers afresh
    assert t.game.pending(0)
    public_before = len(list(t.channel("public").history()))
    await force_resolve(t, label="Подсчитать")
    assert t.info.tick == tick + 1 and len(list(t.channel("public").history())) > public_before
    await restart(env, settings)  # nothing is posted twice after a restart
    for k in grew:
        assert len(notices(t.channel(k))) == 1, k


async def test_a_restart_between_the_confirmation_and_the_click(env, settings):
    t = await start(await gather(env, 6, spectators=0))
    await submit_one(t, 0)
    await submit_one(t, 2)
    before, tick, counts = t.game.to_dict(), t.info.tick, sizes(t)
    await force_resolve(t)
    grew = grown(t, counts)
    assert "player:0" in grew, grew
    r = await t.gm.slash(t.channel("gm"), "gm undo")
    assert "Take back the resolve" in r.response.content, r.response.content
    prompt = r.response
    await restart(env, settings)
    await t.gm.click(prompt, label="Take it back")
    assert t.game.to_dict() == before and t.info.tick == tick
    assert all(len(notices(t.channel(k))) == 1 for k in grew) and len(reopened(t)) == 1
    # the confirmation lost its buttons; asked again: only one step back, and which it was
    r = await t.gm.slash(t.channel("gm"), "gm undo")
    assert r.response.content.startswith("⛔ Only one step back: the resolve of “day 1.1” is undone already"), r.response.content
    assert t.info.tick == tick and len(notices(t.hidden(0))) == 1 and len(reopened(t)) == 1


async def test_a_restart_after_the_undo_before_its_notices(env, settings):
    t = await start(await gather(env, 6, spectators=0))
    await submit_one(t, 0)
    before, counts = t.game.to_dict(), sizes(t)
    await force_resolve(t)
    grew = grown(t, counts)
    # the undo committed (with its record of the corrections owed), then the bot died
    target = await t.store.turns.undo_target(t.game_id)

    def record(meta, posted):
        meta["undo_notices"] = {"resolve_seq": target["seq"], "tick": target["tick"], "posted": posted, "gm": "ведущий"}

    await t.store.turns.undo_resolve(t.game_id, user_id=t.gm.id, meta_fn=record)
    assert not notices(t.hidden(0)) and not reopened(t)
    await restart(env, settings)
    assert t.game.to_dict() == before
    assert len(reopened(t)) == 1 and grew and all(len(notices(t.channel(k))) == 1 for k in grew)
    assert "undo_notices" not in t.info.meta
    await restart(env, settings)
    assert len(reopened(t)) == 1 and all(len(notices(t.channel(k))) == 1 for k in grew)


async def test_undo_refusals(env):
    t = await start(await gather(env, 5, spectators=0))
    LOCALES[t.gm.id] = "ru"
    gm = t.channel("gm")
    r = await t.gm.slash(gm, "gm undo")
    assert r.response.content.startswith("⛔") and "ещё не было подсчёта" in r.response.content
    await force_resolve(t, label="Подсчитать")
    r = await t.member(0).slash(t.hidden(0), "gm undo")
    assert r.response.content.startswith("⛔"), "a player is not the GM"
    prompt = (await t.gm.slash(gm, "gm undo")).response
    tick = t.info.tick
    await t.member(1).slash(t.hidden(1), "pm send", to="2", message="после подсчёта")
    r = await t.gm.slash(gm, "gm undo")
    assert r.response.content.startswith("⛔") and "Поздно" in r.response.content
    await t.gm.click(prompt, label="Отменить подсчёт")  # the button shown before the PM
    assert t.info.tick == tick, "a PM since: nothing taken back"
    assert not reopened(t)
