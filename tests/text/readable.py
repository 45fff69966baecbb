"""One checker of what people read: a text the bot sent (a message, a reply, a file) is
readable by a person in the game's language, with any name.

``problems(text, lang, names, rules)`` lists what is wrong with one text: a raw id (snake_case
words, ``role:``/``character:`` keys, an unfilled ``{placeholder}``, ``None``, ``[]``, ``{'``, an
id of one of the ruleset's stats, statuses, abilities, roles or characters), an English word in
a Russian text or Russian in an English one (names and Discord syntax aside), «+0», a number with the wrong plural form, a
name where Russian needs another case (the rule of ``tests/text/test_names.py``), and a single
name with a plural verb (or a list of names with a singular one)."""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from tests.text.test_names import NOMINATIVE_BEFORE, RAW, SNAKE

# Discord syntax, links, code and a game's number (#bffbbb) a text may carry whatever its language
DISCORD = re.compile(r"[#№][0-9a-f]{6}\b|<(?:#|@[!&]?|t:)\d+(?::[a-zA-Z])?>|https?://\S+|`[^`\n]*`|\b[\w./-]+\.(?:png|txt|html|md)\b")
LATIN_WORD = re.compile(r"\b[A-Za-z][A-Za-z']*\b")
# Latin that Russian texts use on purpose: the books' own words («VIP») and a few abbreviations
LATIN_OK = {"VIP", "GM", "ID", "PM", "HTML", "UTC", "PNG", "Discord", "Europe", "Moscow"}
PLUS_ZERO = re.compile(r"(?<![\d+])[+±]0(?![\d.,])")
# nouns and their three forms (one, few, many): «1 голос», «2 голоса», «5 голосов»
FORMS = [
    ("голос", "голоса", "голосов"), ("цикл", "цикла", "циклов"), ("день", "дня", "дней"),
    ("игрок", "игрока", "игроков"), ("зритель", "зрителя", "зрителей"), ("ход", "хода", "ходов"),
    ("час", "часа", "часов"), ("минута", "минуты", "минут"), ("приват", "привата", "приватов"),
    ("письмо", "письма", "писем"), ("ночь", "ночи", "ночей"),
    ("участник", "участника", "участников"), ("член", "члена", "членов"), ("очко", "очка", "очков"),
    ("сообщение", "сообщения", "сообщений"), ("действие", "действия", "действий"),
    ("фракция", "фракции", "фракций"), ("секунда", "секунды", "секунд"), ("сутки", "суток", "суток"),
]
FORM_OF = {w: (i, forms) for forms in FORMS for i, w in enumerate(forms)}
NUMBER_WORD = re.compile(r"(?<![\d.,:+−-])(\d+)\s+([а-яё]+)")
PLURAL_VERB = re.compile(r"^[а-яё]+(?:ют|ают|яют|уют|ят|ат|ут)$")
SINGULAR_VERB = re.compile(r"^[а-яё]+(?:ет|ёт|ит|ует)$")
NOT_VERBS = {"брат", "результат", "будут", "кандидат", "депутат", "автомат", "солдат", "адресат", "формат", "штат",
             "итог", "ут", "ат", "мат", "пат", "сват", "зат"}


def plural_index(n: int) -> int:
    if n % 10 == 1 and n % 100 != 11:
        return 0
    if 2 <= n % 10 <= 4 and not 12 <= n % 100 <= 14:
        return 1
    return 2


def ruleset_ids(rules: Any) -> set[str]:
    """Ids of the ruleset a person should never read: stats, statuses, abilities, roles, characters."""
    ids = {s.id for s in rules.stats} | {s.id for s in rules.statuses}
    for holder in [*rules.roles, *rules.characters]:
        ids.add(holder.id)
        ids |= {a.id for a in getattr(holder, "abilities", []) or []}
    return {i for i in ids if len(i) > 1}


def _around(text: str, at: Any, width: int = 50) -> str:
    start = at if isinstance(at, int) else at.start()
    return text[max(0, start - width): start + width].replace("\n", " / ")


def _strip(text: str, names: Iterable[str]) -> str:
    out = DISCORD.sub(" ", text)
    for n in sorted(names, key=len, reverse=True):
        out = out.replace(n, " ")
    return out


def problems(text: str, lang: str, names: Iterable[str], rules: Any = None) -> list[str]:
    names = [n for n in names if n]
    bare = _strip(text, names)
    found: list[str] = []
    if m := RAW.search(bare):
        found.append(f"raw id {m.group()!r}")
    if m := SNAKE.search(bare):
        found.append(f"snake_case {m.group()!r}")
    for raw in (r"\b(?:role|character|ability|status):[a-z]", r"\[\]", r"\{'", r"\bNone\b"):
        if m := re.search(raw, bare):
            found.append(f"raw {m.group()!r}")
    if rules is not None:
        # an id in the Latin script of a Russian text, or in a word that is not English
        for i in ruleset_ids(rules):
            m = re.search(rf"(?<![\w-]){re.escape(i)}(?![\w-])", bare)
            if m and (lang == "ru" or "_" in i or len(i) <= 3):
                found.append(f"ruleset id {i!r} in «{_around(bare, m)}»")
    for line in text.split("\n"):
        if re.search(r"[;,]\s*$|[;,]\s*[;,(]", line):  # an empty part: «Аня: Комиссар / —; »
            found.append(f"an empty part in «{line[:120]}»")
        unquoted = re.sub(r"«[^«»]*»|“[^“”]*”|\"[^\"]*\"", "«»", DISCORD.sub("", line))  # a name in quotes may hold brackets
        if re.search(r"\([^()]*\([^()]*\)[^()]*\)", unquoted):  # «(тяжёлое ранение (в больнице))»
            found.append(f"brackets in brackets in «{line[:120]}»")
    if PLUS_ZERO.search(bare):
        found.append("«+0»")
    if lang == "en" and (cyr := re.search(r"[А-Яа-яЁё]+", bare)):
        found.append(f"Russian words in «{_around(bare, cyr)}»")
    if lang == "ru":
        latin = [m for m in LATIN_WORD.finditer(bare) if m.group() not in LATIN_OK]
        if latin:
            found.append(f"English words {[m.group() for m in latin[:5]]} in «{_around(bare, latin[0])}»")
        for num, word in NUMBER_WORD.findall(bare):
            if word in FORM_OF:
                idx, forms = FORM_OF[word]
                want = forms[plural_index(int(num))]
                if word != want and not (forms[1] == forms[2] == word):
                    found.append(f"plural «{num} {word}» (want «{num} {want}») in «{_around(bare, bare.find(num + ' ' + word))}»")
        found += _cases(text, names)
    return found


def _cases(text: str, names: list[str]) -> list[str]:
    """Names after a word that governs another case; a name's verb in the wrong number."""
    found = []
    for line in text.split("\n"):
        for n in names:
            for m in re.finditer(rf"(?<![\w]){re.escape(n)}(?![\w])", line):
                before = re.sub(r"[*_~|]+\s*$", "", DISCORD.sub("", line[: m.start()]))  # markdown around a name
                if not NOMINATIVE_BEFORE.search(before) and not re.search(r"[-–>\[\]]\s*$", before):
                    found.append(f"name after «{before[-20:]}»: {line[:120]}")
                after = line[m.end():]
                if re.match(r"\s+нет\b", after):  # «Глеб нет в списке»: the genitive
                    found.append(f"name before «нет»: {line[:120]}")
                word = re.match(r"\s+([а-яё]+)", after)
                if word and PLURAL_VERB.match(word.group(1)) and word.group(1) not in NOT_VERBS \
                        and not re.match(r"\s*(?:,|и\s)", line[m.end():]) and not re.search(r"(?:,|\bи)\s*$", before):
                    found.append(f"one name, plural verb «{n} {word.group(1)}»: {line[:120]}")
    return found
