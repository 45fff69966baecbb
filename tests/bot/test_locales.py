"""Russian by default, English for English locales: command names and descriptions, replies,
role cards, and the plural forms (1 голос, 2 голоса, 5 голосов)."""

from __future__ import annotations

import pytest

from altmafia.text.i18n import count, lang_of, plural

from .conftest import LOCALES
from .helpers import force_resolve, gather, start


@pytest.mark.parametrize(
    ("n", "ru", "en"),
    [(0, "0 голосов", "0 votes"), (1, "1 голос", "1 vote"), (2, "2 голоса", "2 votes"), (4, "4 голоса", "4 votes"),
     (5, "5 голосов", "5 votes"), (11, "11 голосов", "11 votes"), (12, "12 голосов", "12 votes"), (14, "14 голосов", "14 votes"),
     (21, "21 голос", "21 votes"), (22, "22 голоса", "22 votes"), (25, "25 голосов", "25 votes"), (101, "101 голос", "101 votes"),
     (111, "111 голосов", "111 votes"), (1002, "1002 голоса", "1002 votes")],
)
def test_plural_forms(n, ru, en):
    assert count(n, "vote", "ru") == ru
    assert count(n, "vote", "en") == en


def test_plural_helper_and_locales():
    assert [plural(n, ["сутки", "суток", "суток"]) for n in (1, 2, 5)] == ["сутки", "суток", "суток"]
    assert plural(3, ["игрок", "игрока", "игроков"]) == "игрока"
    assert lang_of("ru") == "ru" and lang_of("en-US") == "en" and lang_of("en-GB") == "en"
    assert lang_of("de", default="ru") == "ru"


async def test_command_names_and_descriptions_are_localized(env):
    payloads = [e.json for e in env.http_requests if e.method == "PUT" and e.path.endswith("/commands")]
    assert payloads, "commands were synced"
    commands = {c["name"]: c for c in payloads[-1]}
    assert set(commands) == {"lobby", "action", "vote", "faction", "pm", "anon", "gm", "help"}
    assert commands["help"]["name_localizations"]["ru"] == "помощь"
    for c in payloads[-1]:  # guild-only: not offered in DMs, but /help (it says games are in a server)
        if c["name"] == "help":
            assert c["contexts"] == [0, 1], c.get("contexts")
        else:
            assert c["dm_permission"] is False and c["contexts"] == [0], (c["name"], c.get("contexts"))
    lobby = commands["lobby"]
    assert lobby["name_localizations"]["ru"] == "набор"
    assert lobby["description"].startswith("Набор")  # Russian by default
    assert lobby["description_localizations"]["en-US"].startswith("Gather")
    join = next(o for o in lobby["options"] if o["name"] == "join")
    assert join["name_localizations"] == {"ru": "вступить", "en-US": "join", "en-GB": "join"}
    submit = next(o for o in commands["action"]["options"] if o["name"] == "submit")
    ability = next(o for o in submit["options"] if o["name"] == "ability")
    assert ability["name_localizations"]["ru"] == "действие" and ability["autocomplete"]
    for c in payloads[-1]:  # every name and description has both languages
        stack = [c]
        while stack:
            node = stack.pop()
            assert node.get("name_localizations", {}).get("ru"), node["name"]
            assert node.get("description_localizations", {}).get("en-US"), node["name"]
            stack += [o for o in node.get("options", []) if "description" in o]


async def test_replies_follow_each_users_locale(env):
    t = await gather(env, 4, spectators=0)
    ru, en = t.players[0], t.players[1]
    LOCALES[ru.id] = "ru"
    LOCALES[en.id] = "en-GB"
    LOCALES[t.gm.id] = "ru"
    # refusals: in the user's language
    r = await ru.slash(t.lobby, "lobby join")
    assert r.response.ephemeral and "Вы уже записаны" in r.response.content
    r = await en.slash(t.lobby, "lobby join")
    assert r.response.ephemeral and "already signed up" in r.response.content
    await start(t)
    # the role cards were written in each player's language at sign-up (en-US by default here)
    ru2 = t.players[2]
    LOCALES[ru2.id] = "ru"
    card_en = t.hidden(1).history()[0].content
    assert "Your role" in card_en
    r = await ru2.slash(t.hidden(2), "action me")
    assert "Показатели" in r.response.content and r.response.ephemeral
    r = await en.slash(t.hidden(1), "action me")
    assert "Stats" in r.response.content
    # the shared channels speak the game's language (Russian by default)
    assert "начинается" in t.channel("public").history()[0].content
    # the GM's confirmation button in Russian
    r = await t.gm.slash(t.channel("gm"), "gm resolve")
    assert "Подвести итоги" in r.response.content
    await t.gm.click(r.response, label="Подсчитать")
    assert t.info.tick == 1
    # news in a player's channel are in that player's language
    await force_resolve(t, label="Подсчитать")
    news = [m.content for m in t.hidden(1).history()[1:]]
    assert not any("Вы не" in n for n in news), news


async def test_a_game_in_english(env):
    t = await start(await gather(env, 3, spectators=0, language="en"))
    assert "begins" in t.channel("public").history()[0].content
    assert t.channel("public").name == "game"
