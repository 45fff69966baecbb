"""The reveal, the timeline and the report as their readers read them: a member named, never a
raw ``<@…>`` in a file; a substituted seat says who played it; an anonymous post of two lines
keeps them; a long name cut at a word with «…», an empty one named in words."""

from __future__ import annotations

import pytest

from altmafia.text.i18n import Renderer
from altmafia.text.names import seat_name, shorten
from altmafia.text.report import render_report
from altmafia.text.reveal import summary, timeline
from config import load_ruleset
from engine import Game, PlayerSpec

POEM = "Кто-то здесь не тот,\nкем кажется."


@pytest.fixture
def game():
    g = Game.new(load_ruleset("godfather"), 7, [
        PlayerSpec("Аня", "Хозяин трактира", "Умный", user_id=101), PlayerSpec("Борис", "Ростовщик", "Тактик", user_id=102),
        PlayerSpec("Вера", "Хозяин плантации", "Одиночка", user_id=103)])
    g.post_anon(0, POEM)
    g.gm_substitute(1, 202)  # Борис's seat passes to member 202, the name stays
    g.resolve()
    return g


def test_a_file_names_the_members_of_a_substitution(game):
    names = {102: "Боря из Тулы", 202: "Жанна К."}
    txt = timeline(game, game.state.events, "ru", names)
    assert "<@" not in txt
    assert "Замена: Борис выбывает, место получает Жанна К. (в игре — Борис)." in txt
    assert "Замена: место Борис (Боря из Тулы) передано: Жанна К.; в игре — Борис." in txt
    page = render_report(game, lang="ru", users=names)
    assert "<@" not in page and "&lt;@" not in page and "Жанна К." in page


def test_a_member_the_bot_could_not_name_is_said_in_words(game):
    txt = timeline(game, game.state.events, "ru")
    assert "<@" not in txt and "место получает новый игрок" in txt and "(прежний игрок)" in txt
    assert "the seat goes to the new player" in timeline(game, game.state.events, "en")


def test_discord_still_gets_a_mention(game):
    ev = next(e for e in game.state.events if e.key == "public.substituted")
    assert Renderer(game, "ru").event(ev) == "Замена: Борис выбывает, место получает <@202> (в игре — Борис)."


def test_the_reveal_says_every_member_who_played_a_seat(game):
    lines = summary(game, "ru").splitlines()
    boris = next(x for x in lines if "Борис" in x)
    assert boris.endswith("; место играли по очереди: <@102> → <@202>")
    assert not any("играли" in x for x in lines if "Аня" in x or "Вера" in x)


def test_a_two_line_anonymous_post_keeps_its_lines(game):
    txt = timeline(game, game.state.events, "ru")
    assert "Анонимное сообщение: Кто-то здесь не тот,\n    кем кажется." in txt  # the second line under the first
    page = render_report(game, lang="ru")
    assert "Кто-то здесь не тот,<br>кем кажется." in page


@pytest.mark.parametrize(("name", "cut"), [
    ("Александр Сергеевич Пушкин-Гончаров из Болдино", "Александр Сергеевич…"),
    ("Аааааааааааааааааааааааааааааааааааааааааааа", "Ааааааааааааааааааааааааааааааа…"),
    ("  Мария   Ивановна  ", "Мария Ивановна"),
])
def test_a_long_name_is_cut_at_a_word_and_says_so(name, cut):
    assert shorten(name, 32) == cut and len(cut) <= 32


def test_an_empty_name_is_a_word_of_the_catalog():
    assert seat_name("   ", "ru") == "Игрок" and seat_name("", "en") == "Player"


def test_a_lobby_seat_takes_the_name_so_shortened():
    from altmafia.bot.lobbies import unique_name

    lobby = {"lang": "ru", "players": [{"name": "Игрок"}]}
    assert unique_name(lobby, "   ") == "Игрок 2"  # a second nameless member: numbered, in Russian
    assert unique_name(lobby, "Александр Сергеевич Пушкин-Гончаров из Болдино") == "Александр Сергеевич…"
    assert unique_name({"lang": "en", "players": []}, "") == "Player"
