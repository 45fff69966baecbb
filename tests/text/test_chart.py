"""The reveal's chart (altmafia/text/chart.py, altmafia/text/reveal.py): every book gets one, its values
are the reveal's true values over the game, the winners are marked, names of every shape are
drawn (emoji, Arabic shaped, a character no font has replaced by the seat), and it is an Agg
figure that renders in a worker thread."""

from __future__ import annotations

import asyncio
import contextlib
import io
import random
import threading

import pytest
from PIL import Image

from altmafia.text import chart as chart_mod
from altmafia.text.reveal import chart, chart_png, revealed_stats, summary, true_series
from config import load_ruleset
from engine import DEAL, ActionError, PlayerSpec
from storage import Store
from storage.commands import Command, replay

NAMES = ["Аня", "Łukasz", "😀 Смайл", "👩‍💻🔥", "محمد علي", "שלום", "王小明", "Очень-очень длинное имя игрока номер семь",
         "Борис", "Вера", "Глеб", "Даша", "Егор", "Жанна", "Зоя", "Илья", "Кира", "Лев"]
SIZES = {"godfather": 13, "council": 16, "eternal_friday": 18, "stats_mafia": 15}


async def play(store: Store, ruleset: str, seed: int = 3, days: int = 2) -> tuple[str, list[dict[int, dict[str, int]]]]:
    """A game through a real store, every move one the engine offers (a seeded generator): the
    game's id and every player's reveal values after each resolve, read from the
    live game as it went."""
    rules = load_ruleset(ruleset)
    character = DEAL if rules.characters else None
    players = [PlayerSpec(name=NAMES[i], role=DEAL, character=character, user_id=1000 + i) for i in range(SIZES[ruleset])]
    gid = f"{ruleset}-g"
    await store.games.create_game(ruleset, seed, players, game_id=gid, settings={"days": days})
    rnd = random.Random(seed)
    g = store.games.game(gid)
    seen = [{p.pid: revealed_stats(g, p) for p in g.state.players}]
    for _ in range(60):
        g = store.games.game(gid)
        if g.state.over:
            break
        for p in g.living():
            acts = g.legal_actions(p.pid)
            if acts and rnd.random() < 0.8:
                a = rnd.choice(acts)
                k = a.ability.targets
                targets = rnd.sample(a.targets, k) if k and len(a.targets) >= k else []
                args = {"pid": p.pid, "ability": a.key, "targets": targets, "option": a.any_option(rnd)}
                if a.via:
                    args["via"] = a.via
                with contextlib.suppress(ActionError):
                    await store.games.apply(gid, Command("submit", args))
            for v in g.open_votes():
                with contextlib.suppress(ActionError):
                    await store.games.apply(gid, Command.vote(p.pid, v.id, rnd.choice([q.pid for q in g.living()])))
        await store.turns.resolve(gid)
        g = store.games.game(gid)
        seen.append({p.pid: revealed_stats(g, p) for p in g.state.players})
    return gid, seen


@pytest.mark.parametrize("ruleset", sorted(SIZES))
async def test_every_book_gets_a_chart_of_the_true_values(tmp_path, ruleset):
    store = Store(tmp_path / f"{ruleset}.sqlite3")
    await store.open()
    try:
        gid, seen = await play(store, ruleset)
        game, info, journal = store.games.game(gid), store.games.info(gid), await store.games.journal(gid)
        assert game.state.over, ruleset
        xs, points = true_series(replay(game, info, journal))
        assert points == seen  # the replay reads what the game had after every resolve
        assert len(xs) == len(points) and xs == sorted(xs)
        c = chart(game, replay(game, info, journal), "ru")
        assert c is not None and len(c.panels) == len(game.state.players)
        assert c.stats, ruleset
        for p, panel in zip(game.state.players, c.panels, strict=True):
            final = revealed_stats(game, p)
            for label, ys in panel.series.items():
                sid = next(s.id for s in game.rules.stats if s.abbr.ru == label)
                assert ys == [pt[p.pid][sid] for pt in seen]
                assert ys[-1] == final[sid]
            # the panel writes the final values exactly as the reveal's text does
            for s in game.rules.stats:
                assert f"{s.abbr.ru} {final[s.id]}" in panel.final
                assert f"{s.abbr.ru} {final[s.id]}" in summary(game, "ru")
            assert panel.winner == (p.pid in (game.state.winner or []))
            if panel.winner:
                assert panel.badge == "победитель"
        assert c.winner_label == ("победитель" if game.state.winner else "")
        png = chart_png(game, replay(game, info, journal), "en")
        img = Image.open(io.BytesIO(png))
        assert img.format == "PNG" and img.width >= 900
    finally:
        await store.close()


def test_names_of_every_shape():
    seat, named = "место 7", "{name} (место 7)"
    assert chart_mod.panel_name("Аня", seat, named) == "Аня"
    assert chart_mod.panel_name("👩‍💻🔥", seat, named) == "👩‍💻🔥"  # Noto Emoji has them (and joins them)
    assert chart_mod.panel_name("محمد علي", seat, named) == "محمد علي"
    assert chart_mod.panel_name("王小明", seat, named) == "место 7"  # no font has these: no boxes
    assert chart_mod.panel_name("王 Wang", seat, named) == "Wang (место 7)"
    long = chart_mod.panel_name("Очень-очень длинное имя игрока номер семь", seat, named)
    assert long == "Очень-очень длинное…" and len(long) <= chart_mod.NAME_WIDTH  # cut at a word, marked


def test_the_fonts_cover_cyrillic_emoji_arabic_hebrew():
    fams = chart_mod.families()
    assert fams[0] == "Noto Sans" and "Noto Emoji" in fams and "Noto Sans Arabic" in fams and fams[-1] == "DejaVu Sans"
    for ch in "ЯяŁ😀🔥محשל":
        assert chart_mod.drawable(ch), ch
    assert not chart_mod.drawable("王")


def _draw(s: str) -> bytes:
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=(3, 1), dpi=100)
    canvas = FigureCanvasAgg(fig)
    fig.text(0.1, 0.3, s, fontfamily=list(chart_mod.families()), fontsize=24)
    canvas.draw()
    return bytes(canvas.buffer_rgba())


def test_arabic_is_shaped():
    """The letters join: the word differs from the same letters kept apart by zero-width
    non-joiners (which a renderer drawing letter by letter would show alike)."""
    word = "محمد"
    apart = "\u200c".join(word)
    assert _draw(word) != _draw(apart)
    assert _draw(word) != _draw("")  # something was drawn


def _share(png: bytes, rgb: tuple[int, int, int]) -> float:
    """The share of the picture's pixels within a few levels of ``rgb``."""
    img = Image.open(io.BytesIO(png)).convert("RGB")
    px = [img.getpixel((x, y)) for x in range(0, img.width, 3) for y in range(0, img.height, 3)]
    return sum(all(abs(a - b) <= 4 for a, b in zip(p, rgb, strict=True)) for p in px) / len(px)


def test_winners_are_gold_and_the_dead_grey():
    c = chart_mod.Chart(title="ВО по дням", xs=[1.0, 1.5, 2.0], x_label="день", stats=["ВО"], winner_label="победитель")
    c.panels = [chart_mod.Panel("Аня", {"ВО": [0, 1, 2]}, "ВО 2", winner=True, badge="победитель"),
                chart_mod.Panel("Борис", {"ВО": [0, -1, -1]}, "ВО -1", dead=True, badge="смерть")]
    gold, grey = (0xFE, 0xF3, 0xC7), (0xEE, 0xEE, 0xEE)
    png = chart_mod.render(c)
    assert _share(png, gold) > 0.15 and _share(png, grey) > 0.15
    c.panels[0].winner = c.panels[1].dead = False
    png = chart_mod.render(c)
    assert _share(png, gold) < 0.01 and _share(png, grey) < 0.01


async def test_rendering_runs_in_a_worker_thread_while_the_loop_answers():
    """A big chart (30 panels) rendered the way the bot does it: the loop keeps ticking."""
    c = chart_mod.Chart(title="ВО", xs=[1 + i / 3 for i in range(40)], x_label="день", stats=["ВО", "ТВ"])
    c.panels = [chart_mod.Panel(f"Игрок {i}", {"ВО": list(range(40)), "ТВ": [i % 5] * 40}, "ВО 39 · ТВ 1") for i in range(30)]
    threads: list[threading.Thread] = []

    def work() -> bytes:
        threads.append(threading.current_thread())
        with pytest.raises(RuntimeError):
            asyncio.get_running_loop()  # no event loop in this thread
        return chart_mod.render(c)

    ticks = 0

    async def ticker() -> None:
        nonlocal ticks
        while True:
            await asyncio.sleep(0.01)
            ticks += 1

    task = asyncio.create_task(ticker())
    png = await asyncio.to_thread(work)
    task.cancel()
    assert threads and threads[0] is not threading.main_thread()
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    assert ticks >= 3  # the loop went on while the chart was drawn
