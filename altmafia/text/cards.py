"""A player's role card (their role and character, what each ability does, their features, the
stats and what they mean, how to win, the calendar and the message quotas, posted at the start)
and the texts of abilities and options as a reader sees them.

Every rule the card states comes from the ruleset (its texts, slots, thresholds) or from the
engine (quotas: ``Game.mail_quotas``); the card only arranges them, and lists only what the
ruleset has: no PM line where a ruleset has letters instead."""

from __future__ import annotations

from engine import Game
from engine.ruleset import AbilityDef, Names, RoleDef

from .i18n import Renderer, catalog, count, option_label, text

__all__ = ["ability_details", "ability_text", "option_label", "player_commands", "role_card"]


def _in(names: Names | None, lang: str) -> str | None:
    return getattr(names, lang, None) if names is not None else None


def ability_text(game: Game, key: str, lang: str) -> str | None:
    """What the ability ``key`` (``role|character:<source id>:<ability id>``) does, in the book's
    words (``ru``) or their translation (``en``): the ruleset's ``text``; None when the ruleset
    gives it none (a GM's own table without texts) or there is no such ability."""
    try:
        ab = game.ability_def(key)
    except (KeyError, ValueError):
        return None
    return _in(ab.text or ab.description, lang)


def ability_details(game: Game, ab: AbilityDef, lang: str) -> list[str]:
    """The rule lines of one ability: its slot, targets, options, cooldown, uses, thresholds."""
    r = Renderer(game, lang)
    rules = game.rules
    slot = rules.slot(ab.slot)
    details = [getattr(slot.names, lang)]
    if ab.targets:
        details.append(count(ab.targets, "target", lang))
    if ab.options:
        details.append(text(lang, "card.options", options=", ".join(option_label(game, lang, o) for o in ab.options)))
    cd = ab.cooldown_cycles if ab.cooldown_cycles is not None else slot.cooldown_cycles
    if cd:
        details.append(text(lang, "card.cooldown", cycles=count(cd, "cycle", lang)))
    if ab.uses_per_game:
        details.append(text(lang, "card.uses", uses=ab.uses_per_game))
    for req in [*slot.requires, *ab.requires]:
        if req.stat and req.at_least is not None:
            details.append(text(lang, "card.needs", stat=r.stat(req.stat), value=req.at_least))
        if req.in_faction is True:
            details.append(text(lang, "card.in_faction"))
        if req.in_faction is False:
            details.append(text(lang, "card.no_faction"))
    return details


def _features(src: RoleDef, lang: str) -> list[str]:
    return [t for t in (_in(pas.text, lang) for pas in src.passives) if t]


def _calendar(game: Game, lang: str, tz: str | None) -> str:
    cal = game.rules.calendar
    parts = []
    for per in cal.periods:
        name = _in(per.names, lang) or Renderer(game, lang).word(per.kind).capitalize()
        parts.append(text(lang, "card.period", name=name, end=per.end))
    return text(lang, "card.calendar", tz=tz or cal.timezone, periods="; ".join(parts))


def _win(game: Game, src_team: str | None, lang: str) -> str | None:
    rules = game.rules
    team = rules.team(src_team) if src_team else None
    if team is not None and team.text is not None:
        return text(lang, "card.win_team", team=getattr(team.names, lang), text=getattr(team.text, lang))
    what = _in(rules.victory.text, lang)
    return None if what is None else text(lang, "card.win", text=what)


def _quota(kind: str, n: int | None, lang: str) -> str:
    return text(lang, f"card.quota.{kind}", n="∞" if n is None else n)


def _own(lang: str, key: str, ruleset: str) -> str:
    """A ruleset's own wording of a text where its book has one (``<key>.<ruleset id>``): seeds
    002 and 003 call the role «явная роль» and the character «тайная роль»."""
    own = f"{key}.{ruleset}"
    return own if own in catalog(lang)["bot"] else key


def role_card(game: Game, pid: int, lang: str, tz: str | None = None) -> str:
    """The role card of player ``pid`` in ``lang``; ``tz`` the game's time zone for the calendar
    (None: the ruleset's)."""
    p = game.player(pid)
    r = Renderer(game, lang)
    rules = game.rules
    role = rules.role(p.role)
    lines = [text(lang, _own(lang, "card.role", rules.id), role=r.character(p.role))]
    if (summary := _in(role.text, lang)) is not None:
        lines.append(summary)
    character = rules.character(p.character) if p.character else None
    if character is not None:
        lines.append(text(lang, _own(lang, "card.character", rules.id), character=r.character(p.character)))
        if (summary := _in(character.text, lang)) is not None:
            lines.append(summary)
    visible = game.visible_stats(p, pid)
    if visible:
        lines.append(text(lang, "card.stats", stats=", ".join(f"{r.stat(k)} {v}" for k, v in visible.items())))
    # what each stat means, a hidden one too (seed 002: «Игроки не знают своих хп», yet health
    # decides their status): the meaning is no secret, only the value
    for sd in rules.stats:
        if (meaning := _in(sd.text, lang)) is not None:
            abbr, name = r.stat(sd.id), getattr(sd.names, lang)
            if abbr.casefold() == name.casefold():
                lines.append(text(lang, "card.stat_meaning_same", stat=abbr, text=meaning))
            else:
                lines.append(text(lang, "card.stat_meaning", stat=abbr, name=name, text=meaning))
    abilities = game.abilities(p)
    if abilities:
        lines.append(text(lang, "card.abilities"))
    for key, ab in abilities:
        line = text(lang, "card.ability", name=r.ability(key), details="; ".join(ability_details(game, ab, lang)))
        if (what := ability_text(game, key, lang)) is not None:
            line += "\n" + text(lang, "card.ability_text", text=what)
        lines.append(line)
    features = [f for src in game.sources(p) for f in _features(src, lang)]
    if features:
        lines.append(text(lang, "card.features"))
        lines += ["• " + f for f in features]
    choice = game.bonus_choice(p)
    if choice is not None:  # Стратег: «+2 ВО или +2 ТВ. Выбирает в начале игры» (the buttons under the card)
        lines.append(text(lang, "card.bonus", amount=choice["amount"], choices=" / ".join(r.stat(s) for s in choice["choices"]),
                          stat=r.stat(choice["stat"])))
    if (win := _win(game, game.team(p), lang)) is not None:
        lines.append(win)
    lines.append(_calendar(game, lang, tz))
    quotas = game.mail_quotas(p)
    if quotas:
        lines.append(text(lang, "card.mail", quotas="; ".join(_quota(k, n, lang) for k, n in quotas.items())))
    lines.append(text(lang, "card.help"))
    return "\n".join(lines)


def _command(lang: str, *path: str) -> str:
    names = catalog(lang).get("commands", {})
    return "/" + " ".join(names.get(".".join(path[: i + 1]) + ".name", path[i]) for i in range(len(path)))


def player_commands(game: Game, lang: str) -> str:
    """The commands a player of this ruleset has, as the start post lists them: votes only
    where the ruleset has a vote, PMs and anonymous posts only where it has them (seed 003:
    letters through the same two commands), factions only where players make them."""
    rules = game.rules
    parts = [_command(lang, "action", "submit"), _command(lang, "action", "me")]
    if rules.votes:
        parts.append(_command(lang, "vote", "cast"))
    quotas = game.mail_quotas(game.state.players[0]) if game.state.players else {}
    if rules.mail:
        if quotas:
            parts.append(text(lang, "start.letters", pm=_command(lang, "pm", "send"), anon=_command(lang, "anon", "post")))
    else:
        if "pm_per_day" in quotas:
            parts.append(_command(lang, "pm", "send"))
        if quotas.get("anon_per_day", 1) != 0:
            parts.append(_command(lang, "anon", "post"))
    if rules.factions.enabled:
        parts.append(_command(lang, "faction"))
    return ", ".join(parts)
