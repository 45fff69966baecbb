"""«Мафия со статами»: «Приказ» and «В свои руки» never raise the same stat of the same
character twice (``once_per: target_option``). Once a pair is used, the option autocomplete
for that target leaves the stat out, the target autocomplete for that stat leaves the target
out, the panel offers only the stats left for the drafted target; the same pair typed by
hand gets the engine's ephemeral refusal, in Russian and in English."""

from __future__ import annotations

from typing import Any

from .conftest import LOCALES
from .helpers import Table, force_resolve, start
from .test_panel import cid, panel
from .test_stats_mafia_game import gather_stats

STATS = ["initiative", "defense", "stealth"]


def booster(t: Table) -> tuple[int, Any]:
    """A seat holding an ability used once per target and stat, and that legal action."""
    for p in t.game.state.players:
        for la in t.game.legal_actions(p.pid):
            if la.ability.once_per == "target_option" and la.via is None:
                return p.pid, la
    raise AssertionError("no «Приказ» or «В свои руки» dealt")


def values(choices: list[dict[str, Any]]) -> list[str]:
    return [c["value"] for c in choices]


def select_values(message: Any, prefix: str) -> list[str]:
    """The values a panel's select offers (its custom id starts with ``prefix``)."""
    want = cid(message, prefix)
    return next([o.value for o in c.options] for row in message.components for c in row.children
                if getattr(c, "custom_id", None) == want)


async def night_two(t: Table) -> None:
    await force_resolve(t, label="Подсчитать")  # night 1
    await force_resolve(t, label="Подсчитать")  # day 2
    assert t.game.info.kind == "night" and not t.game.state.over


async def _booster_and_two_targets(env):
    """A stats_mafia game, a player with a «raise a stat» ability, their member and hidden
    channel, and two targets other than themselves."""
    t = await start(await gather_stats(env, 15))
    pid, la = booster(t)
    aim = next(x for x in la.targets if x != pid)
    other = next(x for x in la.targets if x not in (pid, aim))
    return t, pid, la, t.member(pid), t.hidden(pid), aim, other


async def test_a_used_stat_is_not_offered_for_that_target_and_typed_is_refused(env):
    t, pid, la, m, ch, aim, other = await _booster_and_two_targets(env)
    name = t.game.player(aim).name
    assert values(await m.autocomplete(ch, "action submit", "option", "", ability=la.key, target=str(aim))) == STATS
    r = await m.slash(ch, "action submit", ability=la.key, target=str(aim), option="defense")
    assert r.response.ephemeral and r.response.content.startswith("✅"), r.response.content
    await night_two(t)
    assert t.game.player(pid).uses.get(f"once:{la.ability.id}:{aim}:defense") == 1

    # the option autocomplete for the chosen target: the stat already raised is left out
    offered = values(await m.autocomplete(ch, "action submit", "option", "", ability=la.key, target=str(aim)))
    assert offered == ["initiative", "stealth"]
    assert values(await m.autocomplete(ch, "action submit", "option", "", ability=la.key, target=str(other))) == STATS
    assert values(await m.autocomplete(ch, "action submit", "option", "", ability=la.key)) == STATS  # no target yet
    # the target autocomplete for the chosen stat: that target is left out, only for that stat
    for_defense = values(await m.autocomplete(ch, "action submit", "target", "", ability=la.key, option="defense"))
    assert str(aim) not in for_defense and str(other) in for_defense
    assert str(aim) in values(await m.autocomplete(ch, "action submit", "target", "", ability=la.key, option="stealth"))

    # typed by hand all the same: the engine's refusal, ephemeral, in the player's language
    r = await m.slash(ch, "action submit", ability=la.key, target=str(aim), option="defense")
    assert r.response.ephemeral and r.response.content == (f"⛔ Для этой цели ({name}) это уже выбиралось: «Защита». "
                                                                     "Второй раз то же нельзя, другой вариант — можно.")
    LOCALES[m.id] = "en"
    r = await m.slash(ch, "action submit", ability=la.key, target=str(aim), option="defense")
    assert r.response.ephemeral and r.response.content == f"⛔ Defense was already chosen for {name}: not a second time (another choice is still open)."
    assert not t.game.pending(pid)
    r = await m.slash(ch, "action submit", ability=la.key, target=str(aim), option="stealth")  # another stat: accepted
    assert r.response.ephemeral and r.response.content.startswith("✅"), r.response.content


async def test_the_panel_offers_only_the_stats_left_for_the_drafted_target(env):
    t, pid, la, m, ch, aim, other = await _booster_and_two_targets(env)
    r = await m.slash(ch, "action submit", ability=la.key, target=str(aim), option="defense")
    assert r.response.content.startswith("✅"), r.response.content
    await night_two(t)

    msg = panel(t, pid)
    await m.select(msg, [la.key], custom_id=cid(msg, "amx:ab"))
    msg = panel(t, pid)
    assert select_values(msg, "amx:op") == STATS  # no target drafted yet
    await m.select(msg, ["defense"], custom_id=cid(msg, "amx:op"))
    msg = panel(t, pid)
    await m.select(msg, [str(other)], custom_id=cid(msg, "amx:t0"))
    msg = panel(t, pid)
    assert select_values(msg, "amx:op") == STATS
    assert t.info.meta["panel"][str(pid)]["option"] == "defense"  # left for this target: kept
    await m.select(msg, [str(aim)], custom_id=cid(msg, "amx:t0"))
    msg = panel(t, pid)
    assert select_values(msg, "amx:op") == ["initiative", "stealth"]
    assert t.info.meta["panel"][str(pid)]["option"] is None  # used on this target already: dropped from the draft
    await m.select(msg, ["stealth"], custom_id=cid(msg, "amx:op"))
    msg = panel(t, pid)
    r = await m.click(msg, custom_id=cid(msg, "amy:go"))
    assert r.ephemeral and r.response.content.startswith("✅"), r.response.content
    assert [(i.ability, i.targets, i.option) for i in t.game.pending(pid)] == [(la.key, [aim], "stealth")]
