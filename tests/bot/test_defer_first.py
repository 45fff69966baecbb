"""Discord drops an interaction not answered within 3 seconds: no command makes a REST call
before its first response (the answer itself, a deferral or a modal). Checked on SimCord's
transcript over a game's commands: between an INTERACTION_CREATE and that interaction's
callback, nothing else is sent."""

from __future__ import annotations

import random

import pytest

from .helpers import act, force_resolve, gather, start

pytestmark = pytest.mark.settings(gm_role="Ведущие")


def late_answers(env) -> tuple[int, list[tuple[str, list[str]]]]:
    """How many interactions were answered, and each whose handler sent a request before its
    callback: (command, requests)."""
    out, waiting, answered = [], None, 0
    for kind, name, payload in env.backend.transcript:
        if kind == "GATEWAY" and name == "INTERACTION_CREATE":
            data = payload.get("data") or {}
            waiting = (str(payload["id"]), data.get("name") or data.get("custom_id") or "?", [])
        elif kind == "HTTP" and waiting is not None:
            iid, what, before = waiting
            if name.startswith("POST /interactions/") and name.split("/")[2] == iid:
                if before:
                    out.append((what, before))
                waiting, answered = None, answered + 1
            else:
                before.append(name)
    return answered, out


async def test_every_command_answers_before_any_other_request(env):
    t = await gather(env, 8, spectators=1, others=1)
    t.guild.create_role("Ведущие")
    await start(t)
    rnd = random.Random(5)
    gm_ch = t.channel("gm")
    for pid in range(4):
        await act(t, pid, rnd)
    await t.member(0).slash(t.hidden(0), "action me")
    await t.member(1).slash(t.hidden(1), "vote show")
    await t.member(2).slash(t.hidden(2), "pm send", to="3", message="привет")
    await t.member(3).slash(t.hidden(3), "anon post", message="слух")
    for name, opts in [("gm status", {}), ("gm extend", {"minutes": 30}), ("gm pause", {}), ("gm resume", {}),
                       ("gm setstatus", {"player": "5", "status": "dead"}), ("gm tell", {"player": "1", "message": "слово"}),
                       ("gm tasks", {}), ("gm preview", {})]:
        await t.gm.slash(gm_ch, name, **opts)
    await t.others[0].slash(t.lobby, "lobby spectate")
    await force_resolve(t)
    await t.member(0).slash(t.hidden(0), "vote cast", candidate="1")
    await force_resolve(t)
    assert len([r for r in env.http_requests if r.method == "GET" and "/members/" in r.path]) >= 8  # the GM role's check ran
    answered, late = late_answers(env)
    assert answered > 30 and not late, (answered, late)
