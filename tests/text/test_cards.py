"""The role card says what each ability does, in the book's words, and only what the ruleset has.

Each ability's effect in the book's words (Russian; English translation), its slot, cooldown
and thresholds; the role's and the character's passive features; what the stats mean; the win
condition; the calendar. The start post and the role card list only what the ruleset has
(stats mafia has letters, not PM commands or «Приватов в день: ∞»); the quotas on the card
come from the engine.
"""

from __future__ import annotations

import pytest

from altmafia.text.cards import ability_text, player_commands, role_card
from config import load_ruleset
from engine import DEAL, Game, PlayerSpec

BOOKS = ("godfather", "council", "eternal_friday", "stats_mafia", "classic")


def dealt(ruleset: str, seed: int = 7) -> Game:
    rules = load_ruleset(ruleset)
    n = rules.table.default if rules.table.practice_min is None else rules.table.min
    people = [PlayerSpec(f"Игрок {i}", DEAL, DEAL if rules.characters else None) for i in range(n)]
    return Game.new(rules, seed, people)


@pytest.mark.parametrize("ruleset", BOOKS)
@pytest.mark.parametrize("lang", ["ru", "en"])
def test_every_ability_on_every_card_has_its_text(ruleset: str, lang: str) -> None:
    g = dealt(ruleset)
    for p in g.state.players:
        card = role_card(g, p.pid, lang)
        for key, ab in g.abilities(p):
            what = ability_text(g, key, lang)
            assert what, f"{key} has no {lang} text"
            assert what == getattr(ab.text, lang)
            assert what in card, f"{p.name}'s card lacks the text of {key}"


def test_ability_text_is_the_book_s_words_and_none_for_no_ability() -> None:
    g = dealt("godfather")
    # the seed 000 table: «Хозяин трактира ... Упомянуть в местных байках 3 ВО»
    assert ability_text(g, "role:tavern_keeper:tall_tales", "ru") == "3 ВО"
    assert ability_text(g, "role:tavern_keeper:tall_tales", "en") == "+3 PI"
    assert ability_text(g, "role:tavern_keeper:no_such_ability", "ru") is None
    assert ability_text(g, "nonsense", "ru") is None


def test_godfather_card_has_stats_meaning_features_win_and_calendar_in_the_game_zone() -> None:
    g = Game.new(load_ruleset("godfather"), 1, [PlayerSpec("Аня", "Хозяин трактира", "Одиночка"),
                                                 PlayerSpec("Борис", "Ростовщик", "Стратег")])
    card = role_card(g, 0, "ru", "Asia/Yekaterinburg")
    assert "ВО — влияние на общественность: видимое всем" in card
    assert "ТВ — тайное влияние: известное только самому игроку" in card
    # the character's feature, in the book's words
    assert "Не может победить будучи членом фракции. Лимит привата больше на 10 сообщений" in card
    assert "🏆 Победа: добиться наибольшего ВО" in card
    assert "часовой пояс Asia/Yekaterinburg" in card
    assert "День, первый период — до 15:00; День, второй период — до 21:00; Ночь — до 09:00" in card
    # the slot, the cooldown and the threshold stay
    assert "геройское; откат 3 суток; нужно ВО ≥ 8" in card
    en = role_card(g, 0, "en")
    assert "PI — public influence: seen by everyone" in en and "time zone Europe/Moscow" in en


def test_quotas_on_the_card_are_the_engine_s() -> None:
    # Одиночка: «Лимит привата больше на 10 сообщений»; Стратег: «Лимит анонимок в день - 2»
    g = Game.new(load_ruleset("godfather"), 1, [PlayerSpec("Аня", "Хозяин трактира", "Одиночка"),
                                                 PlayerSpec("Борис", "Ростовщик", "Стратег"),
                                                 PlayerSpec("Вера", "Капитан китобойного судна", "Внимательный")])
    seen = set()
    for p in g.state.players:
        q = g.mail_quotas(p)
        assert q == {"pm_per_day": g.pm_quota(p), "anon_per_day": g.anon_quota(p)}
        card = role_card(g, p.pid, "ru")
        assert f"приватов в день: {q['pm_per_day']}; анонимок в день: {q['anon_per_day']}." in card
        seen.add((q["pm_per_day"], q["anon_per_day"]))
    assert seen == {(30, 1), (20, 2), (20, 1)}


def test_stats_mafia_card_has_letters_and_no_pm_line() -> None:
    g = dealt("stats_mafia")
    for p in g.state.players:
        q = g.mail_quotas(p)
        assert set(q) == {"letters_per_phase", "notes_per_phase"}
        ru, en = role_card(g, p.pid, "ru"), role_card(g, p.pid, "en")
        assert "приватов в день" not in ru.lower() and "анонимок в день" not in ru.lower()
        assert "pms a day" not in en.lower()
        assert f"писем за фазу: {q['letters_per_phase']}" in ru
        assert f"letters a phase: {q['letters_per_phase']}" in en
    # the groups' win conditions: «Мафия достигает победы, если мертв весь Закон и Маньяк.»
    g = Game.new(load_ruleset("stats_mafia"), 1, [PlayerSpec("Аня", "Политик", "Босс"), PlayerSpec("Борис", "Миллионер", "Сыщик"),
                                                   PlayerSpec("Вера", "Прокурор", "Маньяк")])
    assert "🏆 Победа — команда «Мафия»: Мафия достигает победы, если мертв весь Закон и Маньяк." in role_card(g, 0, "ru")
    assert "🏆 Победа — команда «Закон»: Закон достигает победы, если мертва вся Мафия и Маньяк." in role_card(g, 1, "ru")


def test_a_secret_role_named_by_an_option_reads_as_its_name() -> None:
    g = Game.new(load_ruleset("stats_mafia"), 1, [PlayerSpec("Аня", "Политик", "Агент"), PlayerSpec("Борис", "Миллионер", "Босс"),
                                                   PlayerSpec("Вера", "Прокурор", "Маньяк")])
    card = role_card(g, 0, "ru")
    assert "варианты: Босс, Киллер, Агент, Криминалист" in card
    assert "criminalist" not in card


def test_team_win_condition_in_eternal_friday() -> None:
    g = dealt("eternal_friday")
    for p in g.state.players:
        team = g.rules.team(g.team(p))
        assert team is not None and team.text is not None
        assert team.text.ru in role_card(g, p.pid, "ru")
        assert team.text.en in role_card(g, p.pid, "en")


def test_start_post_lists_only_the_ruleset_s_commands() -> None:
    gf = player_commands(dealt("godfather"), "ru")
    assert gf == "/ход сделать, /ход я, /голос отдать, /приват написать, /анонимка отправить, /фракция"
    sm = player_commands(dealt("stats_mafia"), "ru")
    assert "/фракция" not in sm and "письма: /приват написать (одному игроку) и /анонимка отправить (всем)" in sm
    ef = player_commands(dealt("eternal_friday"), "en")
    assert "/faction" not in ef and "/vote cast" in ef


def test_a_ruleset_without_pms_or_texts_shows_neither() -> None:
    import yaml

    from config.loader import RULESETS_DIR, parse_ruleset

    data = yaml.safe_load((RULESETS_DIR / "godfather.yaml").read_text(encoding="utf-8"))
    data["quotas"]["pm_per_day"] = 0  # a GM's table without private messages
    for group in ("roles", "characters"):
        for src in data[group]:
            src.pop("text", None)
            for ab in src.get("abilities", []):
                ab.pop("text", None)
    data["victory"].pop("text")
    rules = parse_ruleset(data, "own.yaml")
    g = Game.new(rules, 1, [PlayerSpec("Аня", "Хозяин трактира", "Умный"), PlayerSpec("Борис", "Ростовщик", "Стратег")])
    assert g.mail_quotas(g.player(0)) == {"anon_per_day": g.anon_quota(g.player(0))}
    card = role_card(g, 0, "ru")
    assert "приватов" not in card and "анонимок в день: 2" in card  # Умный: «(исключение - Умный)»
    assert "Победа" not in card and "None" not in card
    assert "• **Упомянуть в местных байках** — дневное рядовое; 1 цель\n" in card
    assert "/приват" not in player_commands(g, "ru")
