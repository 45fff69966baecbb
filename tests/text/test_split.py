"""The one rule that cuts a text into Discord messages (posts and replies alike): whole lines
where they fit, a long line between a list's items or at word boundaries, a word longer than a message where the limit
falls, a code block cut between two messages closed and opened again; nothing lost."""

from __future__ import annotations

import random

from altmafia.text.split import DISCORD_LIMIT, chunks, split


def words(text: str) -> list[str]:
    return text.replace("```", " ").split()


def test_lines_whole_where_they_fit():
    lines = [f"строка {i} " + "слово " * 20 for i in range(40)]
    out = chunks(lines, 500)
    assert all(len(c) <= 500 for c in out)
    assert [line for c in out for line in c.split("\n")] == lines, "no line cut: each fits a message"


def test_a_long_line_is_split_at_words_and_a_long_word_where_the_limit_falls():
    names = ", ".join(f"Очень-длинное-имя-игрока-номер{i:02d}" for i in range(64))  # 2 174 characters, one line
    out = split("Играют: " + names, 1900)
    assert len(out) == 2 and all(len(c) <= 1900 for c in out)
    assert words(" ".join(out)) == words("Играют: " + names), "every name whole, none lost"
    assert split("x" * 4500, DISCORD_LIMIT) == ["x" * 2000, "x" * 2000, "x" * 500]
    assert split("") == [""]


def test_a_list_of_names_with_spaces_is_cut_between_names():
    names = [f"Анна Мария {i:02d}" for i in range(200)]  # every name has two spaces
    out = split("Играют: " + ", ".join(names), 1900)
    assert len(out) == 2 and all(len(c) <= 1900 for c in out)
    assert out[0].endswith(",") and not out[1].startswith(" ")
    pieces = [n.strip() for c in out for n in c.removeprefix("Играют: ").split(",") if n.strip()]
    assert pieces == names, "no name broken across the two messages"


def test_a_code_block_cut_between_messages_is_closed_and_opened_again():
    quoted = ["Текст:", "```", *[f"строка игрока {i} @everyone **жирно**" for i in range(120)], "```", "Конец."]
    out = chunks(quoted, 1000)
    assert len(out) > 2 and all(len(c) <= 1000 for c in out)
    assert all(c.count("```") % 2 == 0 for c in out), "each message closes the block it opens"
    assert out[0].startswith("Текст:") and out[-1].endswith("Конец.")
    inner = [line for c in out for line in c.split("\n") if line != "```"]
    assert inner == [line for line in quoted if line != "```"]


def test_random_texts_fit_and_lose_nothing():
    rnd = random.Random(7)
    for _ in range(2000):
        limit = rnd.randint(40, 300)
        lines = []
        for _ in range(rnd.randint(0, 15)):
            k = rnd.random()
            if k < 0.1:
                lines.append("```")
            elif k < 0.2:
                lines.append("x" * rnd.randint(1, 3 * limit))
            else:
                lines.append(" ".join("w" * rnd.randint(1, 12) for _ in range(rnd.randint(0, 40))))
        out = chunks(lines, limit)
        assert all(len(c) <= limit for c in out), (limit, lines)
        assert "".join(words(" ".join(out))) == "".join(words(" ".join(lines))), (limit, lines)
        if sum(line.count("```") for line in lines) % 2 == 0:
            assert all(c.count("```") % 2 == 0 for c in out), (limit, lines)
