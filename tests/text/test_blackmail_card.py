"""The Шантаж card names its options in words: «target» (the blackmailed player's choice of
move, aimed at the blackmailer's second target) is no raw identifier on the card."""

from __future__ import annotations

from altmafia.text.cards import ability_details
from config import load_ruleset
from engine import DEAL, Game, PlayerSpec


def test_the_blackmail_card_names_its_options_in_words():
    for ruleset in ("godfather", "council"):
        rules = load_ruleset(ruleset)
        game = Game.new(rules, 1, [PlayerSpec(f"P{i}", DEAL, DEAL) for i in range(rules.table.default)])
        ab = game.ability_def("role:courtier:blackmail")
        for lang, word in (("ru", "только цель (ход на его выбор)"), ("en", "the target only (any move of theirs)")):
            options = next(line for line in ability_details(game, ab, lang) if line.startswith(("варианты", "options")))
            assert options.endswith(word) and "target" not in options.replace(word, ""), options
