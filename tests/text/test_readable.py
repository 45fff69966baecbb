"""The checker of what people read (tests/text/readable.py) catches each kind of defect it looks
for, and passes the texts the bot should send."""

from __future__ import annotations

import pytest

from config import load_ruleset
from tests.text.readable import problems

NAMES = ["Аня", "Борис", "Глеб", "Даша", "Жанна", "Лев", "Jack", "🦊🦊"]
RULES = load_ruleset("godfather")

BAD_RU = [
    "Приглашение для Борис",  # a name after a preposition
    "Вы приняли приглашение Аня",
    "Аня голосует за Даша",
    "Глеб нет в списке голосования",
    "поровну у Жанна, Лев",
    "Голоса разделились поровну: Глеб получают урон.",  # one name, a plural verb
    "Пропуск стоит: vo -2, tv -2",  # raw stat ids, English in a Russian text
    "Фракция f1",
    "#фракция-mafia",
    "Аня: заблокировано blocked",
    "причина: via:leader",
    "(vote:prison)",
    "(character:vigilante:punishment)",
    "Сейчас: {phase}.",
    "Результат: None",
    "Цели: []",
    "Показатели: {'vo': 3}",
    "Изменение показателя ВО: +0 (теперь 3)",
    "Осталось: 1 голосов",
    "Игра продлится ещё 5 цикла",
    "Игроков: 2 игроков",
    "Статус: poisoned",
    "Способность tall_tales",
    "• **Аня**: Комиссар / —; ",  # an empty part
    "• **Борис**: Авторитет; ХП 20 (тяжёлое ранение (в больнице))",
]
GOOD_RU = [
    "Голос: Аня → Даша",
    "Приглашение отправлено: Борис",
    "Голоса разделились поровну. Урон получают: Глеб.",
    "Голоса разделились поровну. Урон получают: Аня, Глеб.",
    "**Аня**: убит",
    "Аня, Борис и Глеб получают по 1 голосу",
    "Изменение показателя ВО: +2 (теперь 7). Причина: «Упомянуть в местных байках»",
    "1 голос, 2 голоса, 5 голосов, 11 голосов, 21 голос",
    "<@1456074443980800015> Сделать ход: /ход сделать. Срок фазы: <t:1767268800:f> (<t:1767268800:R>).",
    "Голос: Jack → 🦊🦊",
    "не больше 2 раз за игру",
    "**Вечная пятница #bffbbb** начинается! Набор в игру (№abcdef).",
]


@pytest.mark.parametrize("text", BAD_RU)
def test_each_known_defect_is_caught(text):
    assert problems(text, "ru", NAMES, RULES), text


@pytest.mark.parametrize("text", GOOD_RU)
def test_good_russian_passes(text):
    assert problems(text, "ru", NAMES, RULES) == [], text


def test_english_texts_may_use_english_but_no_raw_ids():
    assert problems("Vote: Jack → Аня. Your role: Moneylender", "en", NAMES, RULES) == []
    assert problems("Penalty for skipping: vo -2, tv -2", "en", NAMES, RULES)
    assert problems("Cause: role:tavern_keeper:fine_rum", "en", NAMES, RULES)
    assert problems("PI +0 (now 3)", "en", NAMES, RULES)
    assert problems("Your role: Ростовщик", "en", NAMES, RULES)
