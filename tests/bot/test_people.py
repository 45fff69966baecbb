"""The GM's people tools through the simulated Discord: announcements, a seat handed to
another member (also cut short by a restart), a player taken out, a spectator taken away; every
channel's permissions after each, and the refusals of the wrong person and the wrong time."""

from __future__ import annotations

from storage import Command

from .conftest import LOCALES, perms
from .helpers import gather, start
from .test_restart import restart


def can(env, channel, member) -> tuple[bool, bool]:
    p = perms(env, channel, member)
    return p.view_channel, p.view_channel and p.send_messages


def check_seats(t, env, outsiders=()) -> None:
    """Every channel, for every seat's holder now and for each outsider (no access anywhere)."""
    for key in t.info.meta["channels"]:
        ch = t.channel(key)
        for p in t.game.state.players:
            m = next(x for x in [*t.players, *t.others, *t.spectators] if x.id == p.user_id)
            alive = t.game.alive(p)
            want = {"public": (True, alive), "votes": (True, False), f"player:{p.pid}": (True, True)}.get(key, (False, False))
            assert can(env, ch, m) == want, (key, p.pid)
        for o in outsiders:
            assert can(env, ch, o) == (False, False), (key, o.name)


async def test_gm_say_posts_as_the_bot_and_refuses_others(env):
    t = await start(await gather(env, 5, spectators=0))
    LOCALES[t.gm.id] = "ru"
    r = await t.gm.slash(t.channel("gm"), "gm say", where="public", message="Завтра игра начнётся в 10:00.")
    assert r.response.ephemeral and not r.response.content.startswith("⛔"), r.response.content
    assert any(m.content == "📢 Ведущий: Завтра игра начнётся в 10:00." for m in t.channel("public").history())
    await t.gm.slash(t.channel("gm"), "gm say", where="votes", message="Голосование до полуночи.")
    assert any("Голосование до полуночи." in m.content for m in t.channel("votes").history())
    assert any("объявление (общий канал)" in m.content for m in t.channel("gm").history())
    r = await t.member(0).slash(t.hidden(0), "gm say", where="public", message="я ведущий")
    assert r.response.ephemeral and r.response.content.startswith("⛔")
    assert not any("я ведущий" in m.content for m in t.channel("public").history())


async def test_a_substitution_hands_the_seat_over(env):
    t = await start(await gather(env, 6, spectators=1, others=2))
    LOCALES[t.gm.id] = "ru"
    newcomer, outsider = t.others
    g = t.game
    la = next(la for la in g.legal_actions(2) if la.ability.targets == 1 and not la.ability.options and not la.via)
    r = await t.member(2).slash(t.hidden(2), "action submit", ability=la.key, target=str(la.targets[0]))
    assert r.response.content.startswith("✅"), r.response.content
    old = t.member(2)
    before = (t.game.player(2).role, t.game.player(2).character, dict(t.game.player(2).stats), t.game.pending(2))
    name = t.game.player(2).name
    r = await t.gm.slash(t.channel("gm"), "gm substitute", player="2", member=newcomer)
    assert r.response.ephemeral and not r.response.content.startswith("⛔"), r.response.content
    p = t.game.player(2)
    assert p.user_id == newcomer.id and p.name == name, "the seat keeps its name"
    assert (p.role, p.character, dict(p.stats), t.game.pending(2)) == before
    # the hidden channel moved: the newcomer reads and writes it, the old member nothing at all
    t.players.append(newcomer)
    check_seats(t, env, outsiders=[old, outsider])
    # the role card again, with the newcomer's mention; the public told who replaces whom
    cards = [m.content for m in t.hidden(2).history() if m.content.startswith(f"<@{newcomer.id}>")]
    assert cards, [m.content for m in t.hidden(2).history()]
    assert any(f"Замена: {name} выбывает, место получает <@{newcomer.id}>" in m.content for m in t.channel("public").history())
    assert any("замена: место" in m.content for m in t.channel("gm").history())
    # the newcomer acts for the seat; the old member is nobody now
    r = await newcomer.slash(t.hidden(2), "action me")
    assert not r.response.content.startswith("⛔"), r.response.content
    r = await old.slash(t.lobby, "action me")
    assert r.response.content.startswith("⛔"), r.response.content
    # refusals: a member already seated, a GM, a player, an unknown seat
    r = await t.gm.slash(t.channel("gm"), "gm substitute", player="3", member=newcomer)
    assert r.response.content.startswith("⛔") and t.game.player(3).user_id != newcomer.id
    r = await t.gm.slash(t.channel("gm"), "gm substitute", player="3", member=t.gm)
    assert r.response.content.startswith("⛔") and "Ведущий" in r.response.content
    r = await t.member(0).slash(t.hidden(0), "gm substitute", player="3", member=outsider)
    assert r.response.content.startswith("⛔") and t.game.player(3).user_id != outsider.id
    r = await t.gm.slash(t.channel("gm"), "gm substitute", player="Никто", member=outsider)
    assert r.response.content.startswith("⛔")
    # a spectator may take a seat: they stop being a spectator, in the same step
    spec = t.spectators[0]
    r = await t.gm.slash(t.channel("gm"), "gm substitute", player="4", member=spec, name="Новенький")
    assert not r.response.content.startswith("⛔"), r.response.content
    assert spec.id not in t.info.meta["spectators"] and t.game.player(4).name == "Новенький"
    t.players.append(spec)
    assert can(env, t.channel("spectators"), spec) == (False, False)
    assert can(env, t.hidden(4), spec) == (True, True)


async def test_a_restart_in_the_middle_of_a_substitution(env, settings):
    t = await start(await gather(env, 5, spectators=0, others=2))
    newcomer, _ = t.others
    old = t.member(1)
    # the engine took the substitution (journaled), then the bot died before the channels moved
    await t.store.games.apply(t.game_id, Command("gm_substitute", {"pid": 1, "user_id": newcomer.id, "name": None}, user_id=t.gm.id))
    assert can(env, t.hidden(1), old) == (True, True), "nothing moved yet"
    await restart(env, settings)
    assert t.game.player(1).user_id == newcomer.id
    t.players.append(newcomer)
    check_seats(t, env, outsiders=[old])
    cards = [m for m in t.hidden(1).history() if m.content.startswith(f"<@{newcomer.id}>")]
    assert len(cards) == 1
    assert any(f"<@{newcomer.id}>" in m.content and "Замена" in m.content for m in t.channel("public").history())
    await restart(env, settings)  # a second restart posts nothing again
    assert len([m for m in t.hidden(1).history() if m.content.startswith(f"<@{newcomer.id}>")]) == 1


async def test_a_removal_takes_the_player_out(env):
    t = await start(await gather(env, 6, spectators=0, others=0))
    LOCALES[t.gm.id] = "ru"
    name = t.game.player(3).name
    r = await t.gm.slash(t.channel("gm"), "gm remove", player="3", mode="modkill")
    assert r.response.ephemeral and not r.response.content.startswith("⛔"), r.response.content
    assert not t.game.alive(t.game.player(3))
    check_seats(t, env)
    assert can(env, t.channel("public"), t.member(3)) == (True, False), "the removed read, and write no more"
    assert any(f"Ведущий выводит из игры (модкилл): {name}" in m.content for m in t.channel("public").history())
    assert any(f"вывод из игры: {name} (модкилл)" in m.content for m in t.channel("gm").history())
    # twice: refused; by a player: refused
    r = await t.gm.slash(t.channel("gm"), "gm remove", player="3", mode="left")
    assert r.response.content.startswith("⛔"), r.response.content
    r = await t.member(0).slash(t.hidden(0), "gm remove", player="1", mode="left")
    assert r.response.content.startswith("⛔") and t.game.alive(t.game.player(1))
    assert can(env, t.hidden(3), t.member(3)) == (True, True), "the seat's hidden channel stays theirs"
    await t.gm.slash(t.channel("gm"), "gm remove", player="1", mode="left")
    assert any("Уход из игры насовсем" in m.content for m in t.channel("public").history())
    check_seats(t, env)


async def test_the_gm_takes_a_spectator_away(env):
    t = await start(await gather(env, 4, spectators=2, others=1))
    LOCALES[t.gm.id] = "ru"
    gone, stays = t.spectators
    r = await t.gm.slash(t.channel("gm"), "gm unspectate", member=gone)
    assert r.response.ephemeral and not r.response.content.startswith("⛔"), r.response.content
    for key in t.info.meta["channels"]:
        ch = t.channel(key)
        assert can(env, ch, gone) == (False, False), key
        assert can(env, ch, stays) == (key in ("public", "votes", "spectators"), False), key
    check_seats(t, env, outsiders=[gone])
    assert any("зритель убран" in m.content for m in t.channel("gm").history())
    r = await t.gm.slash(t.channel("gm"), "gm unspectate", member=t.others[0])
    assert r.response.content.startswith("⛔") and "не зритель" in r.response.content
    r = await stays.slash(t.channel("public"), "gm unspectate", member=stays)
    assert r.response.content.startswith("⛔") and stays.id in t.info.meta["spectators"]
