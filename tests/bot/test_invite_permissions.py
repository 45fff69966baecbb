"""The bot's permissions come from one definition (altmafia/bot/permissions.py): the README's
invite list and the token help are that list, and every overwrite the bot sends (at a start,
in a sync after a death, for a faction's channel, at the archive) allows and denies only bits
of it, since Discord refuses a bot setting a bit it does not hold."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from altmafia.bot import permissions
from altmafia.cli import TOKEN_HELP

from .helpers import force_resolve, gather, start

ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.settings(gm_role="Ведущие")


def readme_invite() -> list[str]:
    body = (ROOT / "README.md").read_text(encoding="utf-8")
    found = re.search(r"<!-- invite permissions -->(.*?)<!-- end of invite permissions -->", body, re.S)
    assert found, "the README's invite list is marked <!-- invite permissions --> … <!-- end of invite permissions -->"
    return [" ".join(b.split()) for b in re.findall(r"\*\*(.+?)\*\*", found.group(1), re.S)]


def test_the_readme_and_the_token_help_list_the_invite():
    assert readme_invite() == permissions.invite_names()
    quoted = re.findall(r'"([^"]+)"', " ".join(TOKEN_HELP.split("permissions", 1)[1].split("Where to put it")[0].split()))
    assert quoted == permissions.invite_names(), quoted


def test_every_overwrite_set_is_within_the_invite():
    for name, bits in permissions.SETS.items():
        assert permissions.within_invite(bits.value), (name, [b for b, on in bits if on and not getattr(permissions.INVITE, b)])
    # read-only means no thread and no reaction either (@everyone holds them by default)
    assert permissions.NO_WRITE.add_reactions and permissions.NO_WRITE.send_messages_in_threads
    assert permissions.NO_WRITE.create_public_threads and permissions.NO_WRITE.create_private_threads


def sent_overwrites(env) -> list[tuple[str, str, int, int]]:
    """Every overwrite in the request log: (method, path, allow, deny)."""
    out = []
    for r in env.http_requests:
        body = r.json if isinstance(r.json, dict) else {}
        if r.method == "PUT" and "/permissions/" in r.path:
            out.append((r.method, r.path, int(body.get("allow", 0)), int(body.get("deny", 0))))
        for ow in body.get("permission_overwrites") or []:
            out.append((r.method, r.path, int(ow.get("allow", 0)), int(ow.get("deny", 0))))
    return out


async def test_a_whole_game_sends_only_invited_bits(env):
    t = await gather(env, 6, spectators=2, others=1)
    t.guild.create_role("Ведущие")
    env.http_requests.clear()
    await start(t)
    gm_ch = t.channel("gm")
    r = await t.gm.slash(gm_ch, "gm setstatus", player="0", status="dead")  # a death: the public channel's PUT
    assert not r.response.content.startswith("⛔"), r.response.content
    await force_resolve(t)
    await force_resolve(t)
    await t.gm.slash(gm_ch, "gm setstat", player="2", stat="tv", value=5)
    await t.member(2).slash(t.hidden(2), "faction invite", player="3")
    await t.member(3).slash(t.hidden(3), "faction accept", inviter="2")
    await force_resolve(t)  # the faction exists: its channel is created
    late = t.guild.add_member(env.create_user("поздний", global_name="Поздний"))
    await late.slash(t.lobby, "lobby spectate")  # a late spectator: PUTs
    assert await env.bot.channel_manager.archive(t.info)  # the archive's PATCH of every channel
    sent = sent_overwrites(env)
    assert {m for m, _, _, _ in sent} == {"POST", "PUT", "PATCH"}
    outside = [(m, p, a, d) for m, p, a, d in sent if not permissions.within_invite(a) or not permissions.within_invite(d)]
    assert not outside, outside[:5]
    assert any("faction" in key for key in t.info.meta["channels"]), t.info.meta["channels"]
