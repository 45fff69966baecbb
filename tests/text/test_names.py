"""Every catalog text is correct Russian (and English) with any player name.

Player names are arbitrary (Cyrillic of either gender, Latin, emoji, right-to-left, long), so
a name must stand where Russian needs the nominative: at the start, after a colon, a dash or an
arrow («Голос: Аня → Даша»), in a list, or as the subject. Nothing agrees with a name's gender.
Every template renders with every placeholder filled and no raw id left.
"""

from __future__ import annotations

import re
import string

import pytest

from altmafia.text import safe
from altmafia.text.i18n import Renderer, catalog, text
from config import load_ruleset
from engine import ActionError, Game, PlayerSpec
from engine.state import Event

# placeholders that hold a player's name (or a list of names)
NAME_ARGS = {
    "player", "target", "actor", "inviter", "sender", "leader", "by", "voter", "name", "gm", "to",
    "players", "targets", "winners", "names", "members", "spectators", "slowpokes",
}
# what may stand right before a name: the nominative positions
NOMINATIVE_BEFORE = re.compile(
    r"(^|[:→⇄—(«•*,;.\n]|📢|🗳|✉|🛠|\b(?:и|ни|Ни|а|ли|теперь|лидер|Гений|Тактик|Фракция|скрытый|Играют"
    r"|отправляется|выходит|вступает|покидает|состоит))\s*$"
)
# words that agree with a name's gender: «убит(а)», «сделал(а)», «пытался(-ась)», «ему (ей)»
GENDERED = re.compile(r"\((?:а|-ась|на|ей|ла)\)")
SNAKE = re.compile(r"\b[a-z]+_[a-z_]+\b")
RAW = re.compile(r"\b(?:None|via:|vote:|character:|f\d+)\b|\{[a-z_0-9]*\}")

SECTIONS = ("error", "event", "bot", "words", "report")


def fields(template: str) -> list[tuple[str, str]]:
    """(text before, placeholder name) for each placeholder of a template."""
    out, before = [], ""
    for lit, name, _spec, _conv in string.Formatter().parse(template):
        before += lit
        if name is not None:
            out.append((before, name))
            before += "{" + name + "}"
    return out


def templates(lang: str):
    cat = catalog(lang)
    for section in SECTIONS:
        for key, value in cat.get(section, {}).items():
            if isinstance(value, str):
                yield section, key, value


@pytest.mark.parametrize("lang", ["ru"])
def test_names_stand_in_the_nominative(lang):
    bad = []
    for section, key, tmpl in templates(lang):
        for before, name in fields(tmpl):
            if name in NAME_ARGS and not NOMINATIVE_BEFORE.search(before):
                bad.append(f"{section}.{key}: {tmpl}")
                break
    assert not bad, "\n".join(bad)


def test_nothing_agrees_with_a_names_gender():
    bad = [f"{s}.{k}: {t}" for s, k, t in templates("ru") if GENDERED.search(t)]
    bad += [f"{s}.{k}: {t}" for s, k, t in templates("en") if re.search(r"\b(?:he|she|his|her)\b|\(s\)he", t)]
    assert not bad, "\n".join(bad)


NAMES = ["Аня", "Борис", "Jack", "🦊🦊", "محمد", "Константин-Очень-Длинное-Имя Константинопольский", "x_y"]


@pytest.fixture(scope="module")
def game():
    people = [
        ("Аня", "Хозяин трактира", "Умный"), ("Борис", "Ростовщик", "Тактик"),
        ("Jack", "commoner_captain", "attentive"), ("🦊🦊", "plantation_owner", "loner"),
        ("محمد", "whaling_captain", "strategist"),
        ("Константин-Очень-Длинное-Имя Константинопольский", "privateer_seller", "vile"),
        ("x_y", "learned_pirate", "influential"), ("Зоя", "courtier", None),
    ]
    return Game.new(load_ruleset("godfather"), 1, [PlayerSpec(*p) for p in people])


def sample_args(template: str, pid: int) -> dict:
    """Raw arguments as the engine gives them, by placeholder name."""
    args: dict = {}
    for _before, name in fields(template):
        if name in ("players", "targets", "winners"):
            args[name] = [pid, (pid + 1) % 7]
        elif name in NAME_ARGS or name == "arg":
            args[name] = pid
        elif name in ("stat",):
            args[name] = "vo"
        elif name == "stats":
            args[name] = ["vo", "tv"]
        elif name == "penalty":
            args[name] = {"vo": -2, "tv": -2}
        elif name == "tally":
            args[name] = [(pid, 2), ((pid + 1) % 7, 1)]
        elif name == "ballots":
            args[name] = [(pid, 3)]
        elif name == "text":
            args[name] = "привет"
        elif name in ("phase", "turn", "ready"):
            args[name] = "night 2"
        elif name == "result":
            args[name] = "blocked"
        elif name == "delta_days":  # derived by the renderer from «delta»
            args["delta"] = 1 - pid
        elif name == "ability":
            args[name] = "role:tavern_keeper:fine_rum"
        elif name == "status":
            args[name] = "poisoned"
        elif name in ("cause", "reason"):
            args[name] = ("vote:prison", "role:tavern_keeper:fine_rum", "poison")[pid % 3]
        elif name == "option":
            args[name] = ("leader", "-1", None)[pid % 3]
        elif name == "fid":
            args[name] = "f1"
        elif name == "fact":
            args[name] = "role"
        elif name == "value":
            args[name] = ("tavern_keeper", True, {"vo": 3})[pid % 3]
        elif name == "options":
            args[name] = ["1", "2"]
        elif name == "reasons":
            args[name] = [["blocked", f"protected:{pid}", "via:leader"], [], ["role:tavern_keeper:tall_tales", "vote:prison"]][pid % 3]
        else:
            args[name] = 3
    return args


@pytest.mark.parametrize("lang", ["ru", "en"])
def test_every_event_and_error_renders_with_names_of_every_shape(game, lang):
    r = Renderer(game, lang)
    bad = []
    for section in ("event", "error"):
        for key, tmpl in catalog(lang)[section].items():
            for pid in range(len(NAMES)):
                args = sample_args(tmpl, pid)
                out = r.event(Event(0, key, args, "public")) if section == "event" else r.error(ActionError(key, **args))
                # a name is shown escaped for Discord's markdown (altmafia.text.safe): «x\_y»
                leftover = RAW.search(out) or SNAKE.search(out.replace(safe.name("x_y"), ""))
                if leftover or (("{player}" in tmpl or "{target}" in tmpl) and safe.name(NAMES[pid]) not in out):
                    bad.append(f"{section}.{key}: {out}")
                    break
    assert not bad, "\n".join(bad)


@pytest.mark.parametrize("lang", ["ru", "en"])
def test_every_bot_text_fills_its_placeholders(lang):
    bad = []
    for key, tmpl in catalog(lang)["bot"].items():
        args = {name: NAMES[i % len(NAMES)] for i, (_b, name) in enumerate(fields(tmpl))}
        out = text(lang, key, **args)
        if re.search(r"\{[a-z_0-9]*\}", out):
            bad.append(f"{key}: {out}")
    assert not bad, "\n".join(bad)



def test_a_gm_correction_reads_as_a_correction_and_never_as_plus_zero():
    g = Game.new(load_ruleset("godfather"), 1, [PlayerSpec("Аня", "Хозяин трактира", "Умный"),
                                                PlayerSpec("Борис", "Ростовщик", "Тактик")])
    n = len(g.state.events)
    g.gm_set_stat(0, "vo", g.player(0).stats["vo"])  # unchanged: nothing told but the GM's line
    assert [e.key for e in g.state.events[n:]] == ["gm.set_stat"]
    g.gm_set_stat(0, "vo", 7)
    told = [e for e in g.state.events[n:] if e.key == "report.stat"]
    assert len(told) == 1
    assert Renderer(g, "ru").event(told[0]) == "Поправка ведущего — Аня: ВО теперь 7."
    assert Renderer(g, "en").event(told[0]) == "The GM's correction — Аня: PI is now 7."
