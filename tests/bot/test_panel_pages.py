"""The action panel at 64 seats: a select holds at most 25 options (Discord's limit), so a
longer list of targets or ballots is shown in pages, turned by an option at each end; every
target is reachable, chosen and submitted; ``/action submit``'s autocomplete narrows to any
target by what is typed."""

from __future__ import annotations

from .helpers import Table, force_resolve, start
from .test_panel import cid, panel

SEATS = 64


async def classic_table(env) -> Table:
    guild = env.create_guild("Мафия")
    lobby = guild.create_text_channel("набор")
    gm = guild.add_member(env.create_user("ведущий"))
    players = [guild.add_member(env.create_user(f"p{i}", global_name=f"Игрок{i}")) for i in range(SEATS)]
    await gm.slash(lobby, "lobby create", ruleset="classic")
    for p in players:
        await p.slash(lobby, "lobby join")
    return await start(Table(env, guild, lobby, gm, players))


def selects(message) -> list:
    return [c for row in message.components for c in row.children if hasattr(c, "options")]


def within_discord(message) -> None:
    assert len(message.components) <= 5
    for s in selects(message):
        assert 1 <= len(s.options) <= 25, (s.custom_id, len(s.options))


async def turn_to(t: Table, pid: int, prefix: str, value: str):
    """Turn a select's pages (its last option, «▶ More») until ``value`` is offered."""
    member = t.member(pid)
    for _ in range(SEATS):
        msg = panel(t, pid)
        within_discord(msg)
        select = next(s for s in selects(msg) if s.custom_id.startswith(prefix))
        values = [o.value for o in select.options]
        if value in values:
            return msg, select
        more = [v for v in values if v.startswith("page:")]
        assert more, values
        await member.select(msg, [more[-1]], custom_id=select.custom_id)
    raise AssertionError(f"{value} never offered")


async def test_every_target_and_ballot_is_reachable_at_64_seats(env):
    t = await classic_table(env)
    game = t.game
    pid, la = next((p.pid, la) for p in game.living() for la in game.legal_actions(p.pid)
                   if la.ability.targets == 1 and len(la.targets) > 25 and not la.via and not la.ability.options
                   and la.ability.number is None)
    member, last = t.member(pid), str(la.targets[-1])
    msg = panel(t, pid)
    await member.select(msg, [la.key], custom_id=cid(msg, "amx:ab"))
    first = next(s for s in selects(panel(t, pid)) if s.custom_id.startswith("amx:t0"))
    assert len(first.options) == 24 and first.options[-1].value == "page:1", [o.value for o in first.options]
    assert "▶" in first.options[-1].label and f"of {len(la.targets)}" in first.options[-1].label, first.options[-1].label
    msg, select = await turn_to(t, pid, "amx:t0", last)
    assert select.options[0].value.startswith("page:")  # and back from the last page
    await member.select(msg, [last], custom_id=select.custom_id)
    msg = panel(t, pid)
    assert game.player(int(last)).name in msg.content
    r = await member.click(msg, custom_id=cid(msg, "amy:go"))
    assert r.response.content.startswith("✅"), r.response.content
    assert [(i.pid, i.targets) for i in t.game.pending(pid)] == [(pid, [int(last)])]
    # the slash command's autocomplete: 25 at most, and typing narrows to any target
    offered = await member.autocomplete(t.hidden(pid), "action submit", "target", "", ability=la.key)
    assert len(offered) == 25
    typed = await member.autocomplete(t.hidden(pid), "action submit", "target", game.player(int(last)).name, ability=la.key)
    assert [c["value"] for c in typed] == [last], typed
    # the day's lynch: 64 candidates in pages, the last one voted from the panel
    while t.game.info.kind != "day":
        await force_resolve(t)
    voter = next(p.pid for p in t.game.living())
    pool = [str(p.pid) for p in t.game.living() if p.pid != voter]
    msg, select = await turn_to(t, voter, "amx:v0", pool[-1])
    r = await t.member(voter).select(msg, [pool[-1]], custom_id=select.custom_id)
    assert r.ephemeral and "Your vote" in r.response.content, r.response.content
    assert [(v.pid, v.choice) for v in t.game.state.votes] == [(voter, int(pool[-1]))]
