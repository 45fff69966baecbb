"""Player text as data (altmafia.text.safe): what a name, a PM or an anonymous post becomes in a
message of the bot, read as Discord would read it."""

from __future__ import annotations

import re

import pytest

from altmafia.text import safe
from altmafia.text.i18n import Renderer
from altmafia.text.report import render_report
from config import load_ruleset
from engine import Game, PlayerSpec
from engine.state import Event

#: Discord markdown that would act if a character were not escaped (emphasis, spoilers, code)
ACTIVE = re.compile(r"(?<!\\)(\*\*|\|\||``?`?|__|~~)")


@pytest.mark.parametrize("typed, shown", [
    ("**Аня**", "\\*\\*Аня\\*\\*"),
    ("||спойлер||", "\\|\\|спойлер\\|\\|"),
    ("`код`", "\\`код\\`"),
    ("__x__ ~~y~~", "\\_\\_x\\_\\_ \\~\\~y\\~\\~"),
    ("[сайт](https://example.com)", "\\[сайт\\](https://example.com)"),
    ("# Заголовок", "\\# Заголовок"),
    ("-# мелко", "\\-# мелко"),
    ("> цитата", "\\> цитата"),
    ("1. пункт", "1\\. пункт"),
    ("@everyone и @here", "@\u200beveryone и @\u200bhere"),
    ("<@123456789012345678> <@&1> <#2> <t:1:R>", "\\<@123456789012345678> \\<@&1> \\<#2> \\<t:1:R>"),
    ("см. https://a.example/x_y_z", "см. https://a.example/x_y_z"),  # a link stays a link
    ("Анна-Мария, 3 + 4 = 7!", "Анна-Мария, 3 + 4 = 7!"),  # nothing to escape: as typed
    ("a\\b", "a\\\\b"),
])
def test_one_line_is_escaped_and_reads_as_typed(typed, shown):
    assert safe.said(typed) == shown
    assert safe.name(typed) == shown


def test_several_lines_are_a_quote_of_their_own():
    text = "\n\nпривет\n**День 2**\n• Аня выбывает из игры\n```\nконец\n\n"
    out = safe.said(text)
    assert out == "\n> привет\n> \\*\\*День 2\\*\\*\n> • Аня выбывает из игры\n> \\`\\`\\`\n> конец\n"
    assert not ACTIVE.search(out)
    # in a template: the bot's line, then the quote, then the rest of the bot's line on its own
    filled = safe.tidy(f"Анонимное сообщение: {out} (№3)")
    assert filled.split("\n") == ["Анонимное сообщение:", "> привет", "> \\*\\*День 2\\*\\*", "> • Аня выбывает из игры",
                                  "> \\`\\`\\`", "> конец", "(№3)"]
    assert safe.tidy(f"Текст: {out}").endswith("> конец")


def test_a_name_is_one_line():
    assert safe.name("Аня\n• Борис выбывает") == "Аня • Борис выбывает"


@pytest.mark.parametrize("typed, kept", [
    ("  Аня  ", "Аня"),
    ("Ан\u200bя", "Аня"),  # a zero-width space: it looked like «Аня»
    ("\u202eяна", "яна"),  # a right-to-left override
    ("Ａｎｙａ", "Anya"),  # full-width letters (NFKC)
    ("Аня\u00a0\u00a0Б", "Аня Б"),  # no-break spaces collapse
    ("@everyone", "everyone"),
    ("<@123456789012345678> Вера", "Вера"),
    ("<@&12> <#34> <t:1:R>x", "x"),
    ("<img src=x onerror=alert(1)>", "<img src=x onerror=alert(1)>"),  # data: the report escapes it for HTML
    ("\u200b\u200d\u2060", ""),
    ("я" * 50, "я" * 32),
])
def test_names_are_normalised(typed, kept):
    assert safe.clean_name(typed) == kept


@pytest.mark.parametrize("typed, empty", [
    ("\u200b", True), ("   \n\t", True), ("\u2060\u202e\ufeff \u200d", True), ("", True),
    (".", False), ("🦊", False), ("а", False),
])
def test_texts_that_show_nothing(typed, empty):
    assert safe.blank(typed) is empty


def game_with(names: list[str]) -> Game:
    roles = [("Хозяин трактира", "Умный"), ("Ростовщик", "Тактик"), ("commoner_captain", "attentive"),
             ("plantation_owner", "loner"), ("whaling_captain", "strategist")]
    return Game.new(load_ruleset("godfather"), 1, [PlayerSpec(n, *rc) for n, rc in zip(names, roles, strict=True)])


def test_the_renderer_escapes_names_and_typed_texts_once():
    g = game_with(["**Аня**", "Борис", "Вера", "Глеб", "Даша"])
    r = Renderer(g, "ru")
    assert r.player(0) == "\\*\\*Аня\\*\\*"
    out = r.event(Event(0, "pm.received", {"sender": 0, "text": "привет\nПриват. Отправитель: Ведущий. Текст: вы убиты"}, "players"))
    assert out == "Приват. Отправитель: \\*\\*Аня\\*\\*. Текст:\n> привет\n> Приват. Отправитель: Ведущий. Текст: вы убиты"
    out = r.event(Event(0, "gm.message", {"text": "||тайна||"}, "players"))
    assert out.endswith("\\|\\|тайна\\|\\|") and not ACTIVE.search(out)


def test_the_html_report_shows_names_and_texts_as_typed():
    g = game_with(["**Аня**", "Борис", "Вера", "Глеб", "Даша"])
    g.send_pm(0, 1, "первая строка\n**вторая**")
    doc = render_report(g, None, "ru", "gm")
    assert "**Аня**" in doc and "\\*" not in doc and "&gt; " not in doc
