"""What players type is data, never markup: a PM, an anonymous post or a name cannot pass for a
line of the bot, close its formatting or ping anyone; names are normalised at sign-up; a text
that shows nothing is refused before anything is spent."""

from __future__ import annotations

import re

from altmafia.text import safe

from .conftest import LOCALES
from .helpers import Table, force_resolve, gather, start
from .test_panel import cid, panel

#: a PM typed in the form to forge the bot's own lines in the recipient's channel
FORGED_PM = (
    "до встречи\n"
    "**День 2** — начался\n"
    "Приват. Отправитель: Ведущий. Текст: вы убиты, напишите роль ведущему\n"
    "• PM from the GM: you are dead\n"
    "```\n"
    "всё ниже — код"
)
#: an anonymous post forging a line of the public results
FORGED_ANON = "ну что ж\n• Аня выбывает из игры (модкилл) (№1)"
#: a fence at the end of a text that would swallow every line of the bot after it
OPEN_FENCE = re.compile(r"(?<!\\)```")


def lines_of(channel, marker: str) -> list[str]:
    """The lines of the channel's messages that hold ``marker``, and every line after it in them."""
    out = []
    for m in channel.history():
        if marker in m.content:
            out += m.content.split("\n")
    return out


async def test_a_forged_pm_reads_as_a_quote_in_the_recipients_channel(env):
    t = await start(await gather(env, 6, spectators=0))
    msg = panel(t, 1)
    r = await t.member(1).click(msg, custom_id=cid(msg, "amy:pm"))
    r = await t.member(1).submit_modal(r, {"to": ["2"], "text": FORGED_PM})
    assert r.ephemeral, r
    got = [m.content for m in t.hidden(2).history() if "до встречи" in m.content]
    assert len(got) == 1, got
    body = got[0]
    # the bot's own line names the real sender (the recipient reads English: SimCord's locale);
    # the forged lines are quoted, each on its own
    assert f"• PM from {t.game.player(1).name}:" in body, body
    forged = [line for line in body.split("\n") if any(w in line for w in ("Ведущий", "День 2", "код", "the GM"))]
    assert forged and all(line.startswith("> ") for line in forged), body
    assert "\\*\\*День 2\\*\\*" in body, body  # bold typed by a player shows as typed
    assert not OPEN_FENCE.search(body), body  # the fence cannot open: the bot's lines stay lines
    # every line of the bot that starts like the PM line is the one real PM line
    starts = [line for line in body.split("\n") if line.startswith(("Приват.", "• PM from", "PM from"))]
    assert len(starts) == 1, body
    # the sender's copy is quoted the same way
    copy = [m.content for m in t.hidden(1).history() if "до встречи" in m.content]
    assert copy and all(line.startswith("> ") for line in copy[0].split("\n") if "Ведущий" in line), copy
    # the multi-line text is still all there, readable in order
    quoted = [line[2:] for line in body.split("\n") if line.startswith("> ")]
    assert quoted[0] == "до встречи" and quoted[-1] == "всё ниже — код", quoted


async def test_a_forged_anonymous_post_cannot_add_a_line_to_the_results(env):
    t = await start(await gather(env, 6, spectators=0))
    for m in t.players:
        LOCALES[m.id] = "ru"
    msg = panel(t, 3)
    r = await t.member(3).click(msg, custom_id=cid(msg, "amy:an"))
    r = await t.member(3).submit_modal(r, {"text": FORGED_ANON})
    assert r.ephemeral, r
    await force_resolve(t)
    public = lines_of(t.channel("public"), "ну что ж")
    assert public, [m.content for m in t.channel("public").history()]
    fake = [line for line in public if "выбывает из игры" in line]
    # the one line that says so is inside the quote: the results hold no bullet of the kind
    assert fake == ["> • Аня выбывает из игры (модкилл) (№1)"], public
    assert not any(line.startswith("•") and "выбывает" in line for line in public), public
    assert all(t.game.alive(p) for p in t.game.state.players if p.name == "Аня")


async def test_markdown_and_mentions_in_names_are_shown_as_typed(env):
    guild = env.create_guild("Мафия")
    lobby = guild.create_text_channel("набор")
    gm = guild.add_member(env.create_user("ведущий"))
    typed = ["||Аня||", "**Борис**", "`Вера`", "Глеб", "Даша", "Егор"]
    players = [guild.add_member(env.create_user(f"p{i}", global_name=n)) for i, n in enumerate(typed)]
    await gm.slash(lobby, "lobby create")
    for p in players:
        r = await p.slash(lobby, "lobby join")
        assert r.response is not None and not r.response.ephemeral
    t = await start(Table(env, guild, lobby, gm, players))
    # the seat keeps the name as typed; every message shows it escaped, never as markup
    assert [p.name for p in t.game.state.players] == typed
    intro = next(m.content for m in t.channel("public").history() if safe.name("||Аня||") in m.content)
    for raw in typed[:3]:
        assert safe.name(raw) in intro and raw not in intro.replace(safe.name(raw), ""), intro
    assert "\\|\\|Аня\\|\\|" in intro and "\\*\\*Борис\\*\\*" in intro and "\\`Вера\\`" in intro, intro
    # the player's own summary too; a choice offered by autocomplete is plain text, as typed
    pid = next(p.pid for p in t.game.state.players if p.name == "||Аня||")
    r = await t.member(pid).slash(t.hidden(pid), "action me")
    assert r.response is not None and r.response.content.startswith("**\\|\\|Аня\\|\\|**"), r.response.content
    offered = await t.member(pid).autocomplete(t.hidden(pid), "pm send", "to", "")
    assert "**Борис**" in [c["name"] for c in offered], offered


def reply_mentions(env, n0: int, content_part: str) -> list:
    """The ``allowed_mentions`` of the bot's interaction answers since request ``n0`` that hold
    ``content_part``."""
    out = []
    for e in env.http_requests[n0:]:
        data = (e.json or {}).get("data", e.json) if isinstance(e.json, dict) else None
        if isinstance(data, dict) and content_part in (data.get("content") or ""):
            out.append(data.get("allowed_mentions"))
    return out


async def test_sign_up_names_are_normalised_and_never_ping(env):
    guild = env.create_guild("Мафия")
    lobby = guild.create_text_channel("набор")
    gm = guild.add_member(env.create_user("ведущий"))
    role = guild.create_role("Все игроки", mentionable=True)
    typed = [
        "Аня",
        "Ан\u200bя",  # looks like «Аня»: a zero-width space inside
        "аня",  # the same name in other letters' case: the commands would not tell them apart
        "@everyone",
        f"<@&{role.id}> \u202eвереВ",  # a role mention and a right-to-left override
        "\u200b\u200d",  # nothing visible at all
        "Ｋｉｒａ  " + "я" * 40,  # full-width letters, a double space, too long
    ]
    players = [guild.add_member(env.create_user(f"p{i}", global_name=n)) for i, n in enumerate(typed)]
    await gm.slash(lobby, "lobby create")
    for p in players:
        n0 = len(env.http_requests)
        r = await p.slash(lobby, "lobby join")
        assert r.response is not None and not r.response.ephemeral, r
        assert "@everyone" not in r.response.content and "<@&" not in r.response.content, r.response.content
        sent = reply_mentions(env, n0, "вступает в игру")
        assert sent and all(a is not None and a.get("parse") == [] and not a.get("roles") for a in sent), sent
    lobby_row = next(iter((await env.bot.store.lobbies.lobbies()).values()))
    names = [p["name"] for p in lobby_row["players"]]
    assert names[:3] == ["Аня", "Аня 2", "аня 3"], names
    assert names[3] == "everyone" and names[4] == "вереВ", names
    assert names[5] == "Игрок", names  # the catalog's word for a player, not an id
    assert names[6].startswith("Kira я") and names[6].endswith("…") and len(names[6]) == 32, names
    assert all(not re.search("[\u200b-\u200f\u202a-\u202e]", n) for n in names), names
    # leaving says the seat's name, not the raw display name, and pings nobody
    n0 = len(env.http_requests)
    r = await players[3].slash(lobby, "lobby leave")
    assert r.response is not None and not r.response.ephemeral
    assert r.response.content.startswith("everyone покидает набор"), r.response.content
    sent = reply_mentions(env, n0, "покидает набор")
    assert sent and all(a is not None and a.get("parse") == [] for a in sent), sent
    r = await players[6].slash(lobby, "lobby leave")
    assert r.response.content.startswith(names[6] + " покидает"), r.response.content


async def test_a_text_that_shows_nothing_is_refused_and_spends_nothing(env):
    t = await start(await gather(env, 6, spectators=0))
    for m in t.players:
        LOCALES[m.id] = "ru"
    to = t.game.player(2).name
    before = dict(t.game.player(1).pm_sent)
    for blank in ("\u200b", "   ", "\u200b\u2060\u202e \ufeff"):
        r = await t.member(1).slash(t.hidden(1), "pm send", to=to, message=blank)
        assert r.response.ephemeral and "ни одного видимого знака" in r.response.content, r.response.content
        msg = panel(t, 3)
        r = await t.member(3).click(msg, custom_id=cid(msg, "amy:an"))
        r = await t.member(3).submit_modal(r, {"text": blank})
        assert r.response.ephemeral and "ни одного видимого знака" in r.response.content, r.response.content
    assert t.game.player(1).pm_sent == before and not t.game.state.pms
    assert not t.game.state.anons
    # a real text still goes through afterwards
    r = await t.member(1).slash(t.hidden(1), "pm send", to=to, message="привет")
    assert r.response.ephemeral and t.game.state.pms, r.response.content


async def test_a_substitutes_name_is_normalised_like_a_sign_up(env):
    t = await start(await gather(env, 6, spectators=0, others=1))
    LOCALES[t.gm.id] = "ru"
    newcomer = t.others[0]
    gm = t.channel("gm")
    taken = t.game.player(0).name
    # nothing visible, or another seat's name in other letters' case: refused, the seat unchanged
    r = await t.gm.slash(gm, "gm substitute", player="2", member=newcomer, name="\u200b\u202e")
    assert r.response.ephemeral and "ничего не остаётся" in r.response.content, r.response.content
    r = await t.gm.slash(gm, "gm substitute", player="2", member=newcomer, name=taken.upper())
    assert r.response.ephemeral and "уже занято" in r.response.content, r.response.content
    assert t.game.player(2).user_id != newcomer.id
    # a name with invisible characters and a mention: kept without them
    r = await t.gm.slash(gm, "gm substitute", player="2", member=newcomer, name=" Ник\u200bита @everyone ")
    assert not r.response.content.startswith("⛔"), r.response.content
    assert t.game.player(2).name == "Никита everyone" and t.game.player(2).user_id == newcomer.id
