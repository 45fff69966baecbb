"""Render engine events and errors as text, Russian first, English too.

Events carry a message key and arguments; this module looks the key up in the catalog
(``config/messages/<lang>.yaml``) and turns ids into names: players, stats, statuses,
abilities, roles and characters, each in the chosen language.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

import yaml

from config.loader import RULESETS_DIR
from engine import ActionError, Game
from engine.ruleset import SlotDef, StatDef
from engine.state import Event

from . import safe

MESSAGES_DIR = RULESETS_DIR.parent / "messages"
LANGS = ("ru", "en")
PLAYER_ARGS = {"player", "target", "actor", "inviter", "sender", "leader", "by", "voter"}
PLAYER_LIST_ARGS = {"players", "targets", "winners"}
USER_ARGS = {"old_user", "new_user", "user"}  # a Discord member by id (not a seat)


_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # the C parser when PyYAML has it


@lru_cache(maxsize=4)
def catalog(lang: str) -> dict[str, dict[str, str]]:
    """``<lang>.yaml`` merged with every ``<lang>.<part>.yaml`` beside it (one part per family
    of abilities, so that texts live next to their kind); a key defined twice is an error."""
    if lang not in LANGS:
        raise ValueError(f"unknown language {lang!r}")
    files = [MESSAGES_DIR / f"{lang}.yaml", *sorted(MESSAGES_DIR.glob(f"{lang}.*.yaml"))]
    merged: dict[str, dict[str, str]] = {}
    for f in files:
        data = yaml.load(f.read_text(encoding="utf-8"), Loader=_LOADER) or {}
        for section, entries in data.items():
            target = merged.setdefault(section, {})
            twice = set(target) & set(entries)
            if twice:
                raise ValueError(f"{f.name}: keys already defined: {sorted(twice)}")
            target.update(entries)
    return merged


class Renderer:
    def __init__(self, game: Game, lang: str = "ru") -> None:
        self.game = game
        self.lang = lang
        self.cat = catalog(lang)
        #: Discord members by id where the text goes to a file (``None``: to Discord: a mention)
        self.users: dict[int, str] | None = None

    # what people typed: data, never markup (altmafia.text.safe) --------------------------
    def typed_name(self, raw: str) -> str:
        """A name someone chose, for a line of the bot: markdown escaped, mentions broken (in
        a file, ``users`` set: as typed)."""
        return raw if self.users is not None else safe.name(raw)

    def said(self, raw: str) -> str:
        """A text someone typed (a PM, an anonymous post, a GM's note): escaped, several lines
        as a block quote of their own (in a file, ``users`` set: as typed)."""
        return raw if self.users is not None else safe.said(raw)

    # names ---------------------------------------------------------------------------
    def player(self, pid: Any) -> str:
        if isinstance(pid, int) and 0 <= pid < len(self.game.state.players):
            return self.typed_name(self.game.state.players[pid].name)
        if pid == "peace":
            return "«за мир»" if self.lang == "ru" else "“for peace”"
        if isinstance(pid, str):  # a named choice of a vote («против всех», «амнистия»)
            return self.cat.get("words", {}).get(f"choice.{pid}", pid)
        return str(pid)

    def user(self, key: str, uid: Any) -> str:
        """A Discord member: a mention in Discord; in a file their name (``users``), else the
        catalog's word for them («новый игрок»), never a raw ``<@…>``."""
        if not isinstance(uid, int):
            return "—"
        if self.users is None:
            return f"<@{uid}>"
        return self.users.get(uid) or self.word(f"user.{key}")

    def stat(self, sid: str) -> str:
        try:
            return getattr(self.game.rules.stat(sid).abbr, self.lang)
        except KeyError:
            return sid

    def status(self, sid: str) -> str:
        try:
            return getattr(self.game.rules.status(sid).names, self.lang)
        except KeyError:
            return sid

    def ability(self, key: str) -> str:
        """An ability by its name; a step's own word (``undertaker``: the Undertaker's passive
        healing) or a role by its name where an event names no ability key."""
        try:
            return getattr(self.game.ability_def(key).name, self.lang)
        except (KeyError, ValueError):
            word = self.cat.get("report", {}).get(f"cause.{key}")
            if word is not None:
                return word
            name = self.character(key)
            return name if name != str(key) else self.status(key)  # a status as a source («в больнице»)

    def character(self, cid: Any) -> str:
        for getter in (self.game.rules.character, self.game.rules.role):
            try:
                return getattr(getter(cid).name, self.lang)
            except KeyError:
                continue
        return str(cid)

    def label(self, text: str) -> str:
        """A phase label such as ``day 4.1`` or ``night 2`` in the reader's language."""
        kind, _, rest = text.partition(" ")
        if kind in ("day", "night", "any"):
            return f"{self.word(kind)} {rest}".strip()
        return text

    def word(self, w: str) -> str:
        return self.cat.get("words", {}).get(w, w)

    def since(self, text: str) -> str:
        """A phase after «с/со», in the genitive: ``day 4.1`` → «со дня 4.1», ``night 4`` →
        «с ночи 4» (words ``since.<kind>``); English «day 4.1»."""
        kind, _, rest = str(text).partition(" ")
        word = self.cat.get("words", {}).get(f"since.{kind}")
        return f"{word} {rest}".strip() if word else self.label(text)

    def number(self, v: Any) -> str:
        """A number as the reader writes it: a whole float without its point (2.0 → 2), a
        fraction with the language's decimal mark (2.5 → «2,5»)."""
        if isinstance(v, float) and v.is_integer():
            return str(int(v))
        if isinstance(v, float):
            return f"{v:g}".replace(".", self.cat.get("words", {}).get("decimal_point", "."))
        return str(v)

    # ids in words (the words of section ``report``, shared with the HTML report) -----------
    def faction(self, fid: Any) -> str:
        """A faction or team id in words: «Мафия», «№1», or the faction's own name."""
        fid = str(fid)
        rep = self.cat.get("report", {})
        if f"team.{fid}" in rep:
            return rep[f"team.{fid}"]
        m = re.fullmatch(r"f(\d+)", fid)
        if m:
            return rep.get("numbered_faction", "№{n}").format(n=m.group(1))
        f = self.game.state.factions.get(fid)
        return f.name if f and f.name else fid

    def vote_name(self, vid: str) -> str:
        for v in self.game.rules.votes:
            if v.id == vid:
                return getattr(v.names, self.lang)
        return vid

    def cause(self, value: Any) -> str:
        """A cause or reason: an ability key, ``vote:<id>``, or a word of the catalog."""
        v = str(value)
        if v.startswith(("role:", "character:")):
            return self.ability(v)
        if v.startswith("vote:"):
            return self.vote_name(v.partition(":")[2])
        rep = self.cat.get("report", {})
        if f"cause.{v}" in rep:
            return rep[f"cause.{v}"]
        return self.status(v)  # a status (hospital, coma…) by its name, else as it is

    def notice_cause(self, value: Any) -> str:
        """A cause of a player's own change (engine/resolve/notices.py): their own ability in
        quotes, a vote by its name, another word of the catalog; a step the catalog has no word
        for is «the rules of the game»."""
        v = str(value)
        if v.startswith(("role:", "character:", "vote:")):
            name = self.cause(v)  # an ability or a vote by its name
            return f"«{name}»" if self.lang == "ru" else f"“{name}”"
        rep = self.cat.get("report", {})
        if f"cause.{v}" in rep:
            return rep[f"cause.{v}"]
        name = self.status(v)  # a status that came or went («в Госпитале»)
        if name == v:
            return rep.get("cause.rules", v)
        return f"«{name}»" if self.lang == "ru" else f"“{name}”"

    def option(self, option: Any) -> str:
        """An action's option in words (a stat, a slot, a character, a word of the catalog)."""
        if option is None or option == "":
            return ""
        o = str(option)
        label = option_label(self.game, self.lang, o)
        if label != o or o.lstrip("+-").isdigit():
            return label
        name = self.character(o)
        return name if name != o else self.cat.get("report", {}).get(f"option.{o}", o)

    def reason(self, reason: str) -> str:
        """A reason of the GM trace (``kind`` or ``kind:arg``) in words."""
        kind, _, arg = str(reason).partition(":")
        template = self.cat.get("report", {}).get(f"reason.{kind}")
        if template is None:
            return self.cause(reason)
        if arg.lstrip("-").isdigit():
            value = self.player(int(arg))
        elif arg.startswith(("role:", "character:")):
            value = self.ability(arg)
        else:
            value = self.option(arg) if arg else ""
        return template.format(arg=value)

    # values --------------------------------------------------------------------------
    def value(self, key: str, args: dict[str, Any]) -> str:
        """One argument of an event as its line shows it (``player: 3`` reads «Дина»)."""
        return self._value(key, args)

    def _value(self, key: str, args: dict[str, Any]) -> str:
        v = args[key]
        if key in PLAYER_ARGS:
            return self.player(v)
        if key in PLAYER_LIST_ARGS:
            return ", ".join(self.player(x) for x in v) or self.word("nobody")
        if key == "stat":
            return self.stat(v)
        if key == "stats" and isinstance(v, list):  # a list of stat ids
            return ", ".join(self.stat(x) for x in v)
        if key == "status":
            return self.status(v)
        if key == "ability":
            return self.ability(v)
        if key in USER_ARGS:
            return self.user(key, v)
        if key == "delta":
            return f"{v:+d}" if isinstance(v, int) else str(v)
        if key in ("index", "task") and isinstance(v, int) and not isinstance(v, bool):
            return str(task_number(v))
        if key == "penalty":
            return ", ".join(f"{self.stat(k)} {n:+d}" for k, n in v.items())
        if key == "tally":
            return "; ".join(f"{self.player(c)}: {self.number(n)}" for c, n in v) or self.word("nobody")
        if key == "vote" and isinstance(v, str):  # a vote by its id: its name
            return next((getattr(x.names, self.lang) for x in self.game.rules.votes if x.id == v), v)
        if key == "ballots":  # how many ballots each choice got: «Даша — 2 голоса»
            return "; ".join(f"{self.player(c)} — {count(n, 'vote', self.lang)}" for c, n in v) or self.word("nobody")
        if key == "text" and isinstance(v, dict):  # a text of the ruleset, in each language
            return v.get(self.lang, "")
        if key == "text" and isinstance(v, str):  # a text someone typed
            return self.said(v)
        if key == "old" and isinstance(v, str):  # a seat's former name
            return self.typed_name(v)
        if key == "value":
            return self._fact(v)
        if key == "fact" and isinstance(v, str):  # what a check revealed: a word of the catalog
            return self.cat.get("words", {}).get(f"fact.{v}", v)
        if key == "options":
            return ", ".join(option_label(self.game, self.lang, str(x)) for x in v)
        if key == "reasons":  # the GM trace's reasons: « (исполнитель заблокирован; …)»
            return f" ({'; '.join(self.reason(x) for x in v)})" if v else ""
        if key == "option":  # « (действие лидера)», or nothing: in parentheses, as the bot shows it
            label = self.option(v)
            return f" ({label})" if label else ""
        if key == "fid":
            return self.faction(v)
        if key == "team" and isinstance(v, str):  # a team of the ruleset by its id: its name
            return next((getattr(t.names, self.lang) for t in self.game.rules.teams if t.id == v), v)
        if key in ("cause", "reason"):
            return self.cause(v)
        if key == "causes":  # [[cause, delta], …]: ««Рассказать слух» +1; голосование −2»
            if not isinstance(v, list):
                return self.cause(v)
            return "; ".join(f"{self.notice_cause(c)} {d:+d}" for c, d in v) or self.word("nobody")
        if key == "cycles" and isinstance(v, int):
            return count(v, "cycle", self.lang)
        if key in ("turn", "ready", "phase") and isinstance(v, str):
            return self.label(v)
        if key == "result" and isinstance(v, str):
            return self.word(f"result.{v}")
        if v is None:
            return ""
        return self.number(v)

    def _fact(self, v: Any) -> str:
        if isinstance(v, bool):
            return self.word("yes" if v else "no")
        if isinstance(v, dict):
            return ", ".join(f"{self.stat(k)} {self.number(n)}" for k, n in v.items())
        if isinstance(v, str):
            return self.character(v)
        return self.number(v)

    def _fill(self, template: str, args: dict[str, Any]) -> str:
        values = {k: self._value(k, args) for k in args}
        if isinstance(args.get("delta"), int):  # «+1 день», «−2 дня»
            d = args["delta"]
            values["delta_days"] = f"{d:+d} {plural(d, forms(self.lang, 'day'), self.lang)}"
        if isinstance(args.get("ready"), str):  # «снова доступно со дня 4.1»
            values["ready_since"] = self.since(args["ready"])
        return safe.tidy(template.format_map(values))

    def _takes_no_target(self, args: dict[str, Any]) -> bool:
        """An action line of an ability that has no targets at all (not one whose target was lost)."""
        if args.get("targets") != [] or not isinstance(args.get("ability"), str):
            return False
        try:
            return not self.game.ability_def(args["ability"]).targets
        except (KeyError, ValueError):
            return False

    def event(self, ev: Event) -> str:
        template = self.cat["event"].get(ev.key)
        if ev.args.get("correction"):  # a GM's correction of a stat: told as a correction
            template = self.cat["event"].get(f"{ev.key}_correction", template)
        elif ev.args.get("causes"):  # a change told with its causes (engine/resolve/notices.py)
            template = self.cat["event"].get(f"{ev.key}_why", template)
        elif isinstance(ev.args.get("reason"), str):  # a wording of its own for one reason
            template = self.cat["event"].get(f"{ev.key}_{ev.args['reason']}", template)
        template, args = self._one_reading(ev, template)
        if template is None:
            return f"{ev.key} {ev.args}"
        if self._takes_no_target(ev.args):  # «Аня: «Спровоцировать бунт»: сработало», not «→ никто»
            template = template.replace(" → {targets}", "")
        try:
            return self._fill(template, args)
        except (KeyError, IndexError):
            return f"{ev.key} {ev.args}"

    def _one_reading(self, ev: Event, template: str | None) -> tuple[str | None, dict[str, Any]]:
        """A line that would contradict itself read as it is: an action that "worked" on none of
        its targets («сработало (не подействовало: Борис)») reads «без эффекта»; a check whose
        answer is empty (it failed) has its own text (``<key>_failed``), not «ответ «»»."""
        args = ev.args
        if ev.key == "trace.action" and args.get("result") == "applied" and args.get("targets"):
            void = {r.partition(":")[2] for r in args.get("reasons") or [] if str(r).startswith("no_effect:")}
            if void and void >= {str(t) for t in args["targets"]}:
                rest = [r for r in args.get("reasons") or [] if not str(r).startswith("no_effect:")]
                return template, {**args, "result": "no_effect", "reasons": rest}
        if args.get("value") == "" and f"{ev.key}_failed" in self.cat["event"]:
            return self.cat["event"][f"{ev.key}_failed"], args
        return template, args

    def error(self, err: ActionError) -> str:
        template = self.cat["error"].get(err.key, err.key)
        try:
            return self._fill(template, err.args_)
        except (KeyError, IndexError):
            return template


def audience_of(game: Game, ev: Event) -> set[int] | None:
    """The pids an event is for (None: public; empty set: the GM only)."""
    if ev.audience == "public":
        return None
    if ev.audience == "players":
        return set(ev.ids)
    if ev.audience == "faction":
        out: set[int] = set()
        for fid in ev.ids:
            f = game.state.factions.get(fid)
            if f:
                out |= set(f.members)
        return out
    return set()


def task_number(index: int) -> int:
    """A GM task as people count it: the engine's first task (index 0) is «задача №1»."""
    return index + 1


# ---- the bot's own texts ---------------------------------------------------------------------
def plural(n: int, forms: list[str] | tuple[str, ...], lang: str = "ru") -> str:
    """The form of a noun for the number ``n``.

    Russian has three forms (one, few, many): 1, 21, 101 голос; 2–4, 22–24 голоса; 0, 5–20,
    11–14, 25… голосов. English has two (one, other). ``forms`` lists them in that order.
    """
    n = abs(int(n))
    if lang == "ru":
        one, few, many = forms
        if n % 10 == 1 and n % 100 != 11:
            return one
        if 2 <= n % 10 <= 4 and not 12 <= n % 100 <= 14:
            return few
        return many
    one, other = forms[0], forms[-1]
    return one if n == 1 else other


def forms(lang: str, noun: str) -> list[str]:
    """A noun's forms in the catalog's section ``plural``, the one section whose entries are
    lists (one, few, many; English: one, other) and not the texts ``catalog`` is typed as."""
    section: dict[str, Any] = catalog(lang)["plural"]
    return section[noun]


def count(n: int, noun: str, lang: str = "ru") -> str:
    """``5 голосов`` / ``5 votes``: a number and the catalog's noun (section ``plural``) in the
    right form."""
    return f"{n} {plural(n, forms(lang, noun), lang)}"


def option_label(game: Game, lang: str, option: str) -> str:
    """An ability's option as a reader sees it: a stat's abbreviation, a slot's name, a word."""
    for getter in (game.rules.stat, game.rules.slot, game.rules.character, game.rules.role):
        try:
            obj = getter(option)
        except KeyError:
            continue  # a secret role named by an option (seed 003: Саботаж, Кара) reads as its name
        names = obj.abbr if isinstance(obj, StatDef) else obj.names if isinstance(obj, SlotDef) else obj.name
        return getattr(names, lang)
    word = catalog(lang).get("words", {}).get(f"option.{option}")
    return word or option


def lang_of(locale: Any, default: str = "ru") -> str:
    """The language of a Discord locale: English for every ``en-*`` locale, Russian for ``ru``,
    otherwise ``default``."""
    value = str(getattr(locale, "value", locale) or "")
    if value.startswith("en"):
        return "en"
    if value.startswith("ru"):
        return "ru"
    return default


def text(lang: str, key: str, **args: Any) -> str:
    """A text of the bot (catalog section ``bot``), filled with ``args``; the key itself when
    the catalog lacks it (so that a missing text is seen, not a crash)."""
    template = catalog(lang).get("bot", {}).get(key)
    if template is None:
        return key
    try:
        return safe.tidy(template.format(**args))
    except (KeyError, IndexError, ValueError):
        return template
