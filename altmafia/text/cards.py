"""A player's role card (their role, character, stats, abilities and quotas, posted at the
start) and the names of ability options as a reader sees them."""

from __future__ import annotations

from engine import Game

from .i18n import Renderer, count, option_label, text

__all__ = ["option_label", "role_card"]


def role_card(game: Game, pid: int, lang: str) -> str:
    p = game.player(pid)
    r = Renderer(game, lang)
    rules = game.rules
    lines = [text(lang, "card.role", role=r.character(p.role))]
    if p.character:
        lines.append(text(lang, "card.character", character=r.character(p.character)))
    stats = ", ".join(f"{r.stat(k)} {v}" for k, v in game.visible_stats(p, pid).items())
    lines.append(text(lang, "card.stats", stats=stats or "—"))
    lines.append(text(lang, "card.abilities"))
    for key, ab in game.abilities(p):
        slot = getattr(rules.slot(ab.slot).names, lang)
        details = [slot]
        if ab.targets:
            details.append(count(ab.targets, "target", lang))
        if ab.options:
            details.append(text(lang, "card.options", options=", ".join(option_label(game, lang, o) for o in ab.options)))
        cd = ab.cooldown_cycles if ab.cooldown_cycles is not None else rules.slot(ab.slot).cooldown_cycles
        if cd:
            details.append(text(lang, "card.cooldown", cycles=count(cd, "cycle", lang)))
        if ab.uses_per_game:
            details.append(text(lang, "card.uses", uses=ab.uses_per_game))
        for req in [*rules.slot(ab.slot).requires, *ab.requires]:
            if req.stat and req.at_least is not None:
                details.append(text(lang, "card.needs", stat=r.stat(req.stat), value=req.at_least))
            if req.in_faction is True:
                details.append(text(lang, "card.in_faction"))
            if req.in_faction is False:
                details.append(text(lang, "card.no_faction"))
        lines.append(text(lang, "card.ability", name=r.ability(key), details="; ".join(details)))
    quota = game.pm_quota(p)
    anon = rules.quotas.anon_per_day
    if anon is not None:
        anon += sum(int(x.get("extra", 0)) for x in game.passives(p, "anon_quota"))
    lines.append(text(lang, "card.quotas", pm="∞" if quota is None else quota, anon="∞" if anon is None else anon))
    choice = game.bonus_choice(p)
    if choice is not None:  # Стратег: «+2 ВО или +2 ТВ. Выбирает в начале игры» (the buttons under the card)
        lines.append(text(lang, "card.bonus", amount=choice["amount"], choices=" / ".join(r.stat(s) for s in choice["choices"]),
                          stat=r.stat(choice["stat"])))
    for src in game.sources(p):
        for pas in src.passives:
            if pas.text:
                lines.append("• " + getattr(pas.text, lang))
    lines.append(text(lang, "card.help"))
    return "\n".join(lines)
