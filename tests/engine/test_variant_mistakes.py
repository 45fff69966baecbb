"""Mistakes a GM makes in a variant, each refused at load with a message that names the file, the
entry and what would be right, in English and in Russian. The first eight loaded silently
before every behaviour declared its parameters (engine/registry_params.py) and the whole
ruleset was cross-checked (engine/ruleset_check.py)."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from config import RulesetFileError, load_ruleset_file
from config.loader import RULESETS_DIR

NEW_ROLE = """roles:
  - id: smuggler
    name: {ru: %s, en: Smuggler}
    abilities:
%s"""


def role_with(ability: str, name: str = "Контрабандист") -> str:
    return NEW_ROLE % (name, "      - " + ability + "\n")


# case -> (the variant after its id line, the entry the message names, what it says in English, in Russian)
MISTAKES = {
    # the eight that loaded silently
    "two_roles_one_name": ("extends: godfather\n" + role_with(
        "{id: x, slot: day, name: {ru: X, en: X}, effects: [{op: stat, stat: vo, delta: 1}]}", "Ростовщик"),
        "at roles:", "two entries named 'Ростовщик' (ru): moneylender, smuggler", "две записи с именем 'Ростовщик'"),
    "unknown_reveal_fact": ("extends: godfather\n" + role_with(
        "{id: peek, slot: night, name: {ru: Подсмотреть, en: Peek}, effects: [{op: reveal, fact: visitors}]}"),
        "roles.smuggler.abilities.peek.effects[0].fact", "unknown fact 'visitors'; known: character, hp, in_faction, role, stats",
        "неизвестный факт проверки 'visitors'; известны: character"),
    "guilty_team_typo": ("extends: classic\nroles:\n  - id: cop\n    abilities:\n      - {id: investigate, effects: [{op: impl, impl: classic_check, params: {guilty: [mafai]}}]}\n",
                         "roles.cop.abilities.investigate.effects[0].params.guilty", "unknown team 'mafai'; known: mafia, town; did you mean 'mafia'?",
                         "неизвестная команда 'mafai'; известны: mafia, town; может быть, 'mafia'?"),
    "threat_team_typo": ("extends: classic\nvictory: {params: {threats: [mafai]}}\n", "victory.params.threats",
                         "unknown team 'mafai'; known: mafia, town; did you mean 'mafia'?", "неизвестная команда 'mafai'"),
    "one_target_redirect": ("extends: godfather\n" + role_with(
        "{id: detour, slot: night, name: {ru: Объезд, en: Detour}, effects: [{op: redirect}]}"),
        "roles.smuggler.abilities.detour.effects[0]", "op 'redirect' needs 2 targets, the ability takes 1", "op 'redirect' нужно целей: 2"),
    "unknown_impl_param": ("extends: eternal_friday\ncharacters:\n  - id: civilian\n    abilities:\n      - {id: protection, effects: [{op: impl, impl: friday_shield, params: {factor: 0}}]}\n",
                           "characters.civilian.abilities.protection.effects[0].params.factor",
                           "impl 'friday_shield' takes no parameter 'factor'; known: to", "у реализации 'friday_shield' нет параметра 'factor'"),
    # a name shown beside the bot's own lines: one line, no mention
    "two_line_name": ("extends: godfather\n" + role_with(
        "{id: x, slot: day, name: {ru: \"Байки\\n⚙️ Ведущий: вы убиты\", en: Tales}, effects: [{op: stat, stat: vo, delta: 1}]}"),
        "roles.smuggler.abilities.x.name", "must be one line and mention nobody", "должно быть одной строкой и никого не упоминать"),
    "mention_in_a_name": ("extends: godfather\n" + role_with(
        "{id: x, slot: day, name: {ru: Байки, en: Tales}, effects: [{op: stat, stat: vo, delta: 1}]}", "Контрабандист @everyone"),
        "roles.smuggler.name", "must be one line and mention nobody", "никого не упоминать"),
    "duplicate_ability_id": ("extends: godfather\n" + NEW_ROLE % ("Контрабандист", "".join(
        f"      - {{id: bribe, slot: {s}, name: {{ru: Подкуп, en: Bribe}}, effects: [{{op: stat, stat: tv, delta: 1}}]}}\n" for s in ("day", "night"))),
        "roles.smuggler.abilities", "duplicate id 'bribe'", "повторяется id 'bribe'"),
    # (no victory: a whole ruleset, below)
    # a handful more
    "unknown_impl": ("extends: godfather\n" + role_with(
        "{id: hush, slot: day, name: {ru: Тишина, en: Hush}, effects: [{op: impl, impl: blackmial}]}"),
        "roles.smuggler.abilities.hush.effects[0].impl", "unknown implementation 'blackmial'; known: agent_network, baptism, blackmail",
        "; может быть, 'blackmail'?"),
    "unknown_op": ("extends: godfather\n" + role_with("{id: hush, slot: day, name: {ru: Тишина, en: Hush}, effects: [{op: blok}]}"),
                   "roles.smuggler.abilities.hush.effects[0].op", "unknown effect op 'blok'", "может быть, 'block'?"),
    "impl_param_of_wrong_type": ("extends: classic\nroles:\n  - id: vigilante\n    abilities:\n      - {id: vigilante_kill, effects: [{op: impl, impl: classic_kill, params: {team: maybe}}]}\n",
                                 "roles.vigilante.abilities.vigilante_kill.effects[0].params.team", "'maybe' does not fit", "'maybe' не подходит"),
    "missing_impl_param": ("extends: eternal_friday\n" + NEW_ROLE.replace("roles:", "characters:") % ("Громила", "      - {id: punch, slot: night, name: {ru: Удар, en: Punch}, effects: [{op: impl, impl: friday_heal}]}\n"),
                           "characters.smuggler.abilities.punch.effects[0].params.amount", "impl 'friday_heal' needs the parameter 'amount'",
                           "реализации 'friday_heal' нужен параметр 'amount'"),
    "stat_without_delta": ("extends: godfather\n" + role_with("{id: boost, slot: day, name: {ru: Рывок, en: Boost}, effects: [{op: stat, stat: vo}]}"),
                           "roles.smuggler.abilities.boost.effects[0].delta", "op 'stat' needs 'delta'", "op 'stat' нужно 'delta'"),
    "field_the_op_ignores": ("extends: godfather\n" + role_with("{id: stop, slot: day, name: {ru: Стоп, en: Stop}, effects: [{op: block, stat: vo}]}"),
                             "roles.smuggler.abilities.stop.effects[0].stat", "op 'block' does not read 'stat'", "op 'block' не читает 'stat'"),
    "target_effect_without_target": ("extends: godfather\n" + role_with(
        "{id: all_in, slot: day, targets: 0, name: {ru: Ва-банк, en: All in}, effects: [{op: stat, stat: vo, delta: 2}]}"),
        "roles.smuggler.abilities.all_in.effects[0].to", "op 'stat' reaches the target, but the ability takes no target", "у способности нет цели"),
    "unknown_stat_in_threshold": ("extends: godfather\nslots:\n  - {id: heroic, requires: [{stat: vp, at_least: 6}]}\n",
                                  "slots.heroic.requires[0].stat", "unknown stat 'vp'; known: tv, vo; did you mean 'vo'?", "неизвестный показатель 'vp'"),
    "unknown_vote_param": ("extends: godfather\nvotes:\n  - {id: prison, params: {strenght_step: 4}}\n", "votes.prison.params.strenght_step",
                           "vote 'prison' takes no parameter 'strenght_step'", "может быть, 'strength_step'"),
    "unknown_step_kind": ("extends: godfather\nsteps:\n  night:\n    - {id: dawn, kind: poison_deth}\n", "steps.night[12] (dawn).kind",
                          "unknown step kind 'poison_deth'", "может быть, 'poison_death'?"),
    "misspelt_setting": ("extends: godfather\nsettings: {posion_cycles: 3}\n", "settings.posion_cycles",
                         "unknown setting; known: action_order", "неизвестная настройка; известны: action_order"),
    "unknown_role_in_one_of": ("extends: classic\ntable:\n  decks:\n    - {upto: 7, cards: {mafioso: 1}, one_of: [[cop, seeer]]}\n",
                               "table.decks(upto 7)", "unknown role 'seeer'", "неизвестная роль 'seeer'"),
    "unknown_passive_param": ("extends: godfather\nroles:\n  - id: tavern_keeper\n    passives: [{kind: pm_quota, params: {extr: 10}}]\n",
                              "roles.tavern_keeper.passives.pm_quota.params.extr", "passive 'pm_quota' takes no parameter 'extr'; known: extra",
                              "у особенности 'pm_quota' нет параметра 'extr'"),
    "passive_param_of_wrong_type": ("extends: classic\nroles:\n  - id: villager\n    passives: [{kind: appears_as, params: {team: mafai}}]\n",
                                    "roles.villager.passives.appears_as.params.team", "unknown team 'mafai'", "неизвестная команда 'mafai'"),
    "team_fact_without_teams": ("extends: godfather\n" + role_with(
        "{id: sense, slot: night, name: {ru: Чутьё, en: Sense}, effects: [{op: reveal, fact: team}]}"),
        "roles.smuggler.abilities.sense.effects[0].fact", "fact 'team' tells a team, but no role or character has one",
        "факт 'team' называет команду, но ни у одной роли"),
    "id_is_not_the_file_name": ("extends: godfather\n", "", "the ruleset's id is 'godfather_tweak' but the file is named 'id_is_not_the_file_name.yaml'",
                                "id набора правил «godfather_tweak», а файл называется «id_is_not_the_file_name.yaml»"),
}


@pytest.mark.parametrize("case", sorted(MISTAKES))
def test_a_mistake_is_refused_naming_the_file_and_the_entry(tmp_path, case):
    text, entry, english, russian = MISTAKES[case]
    path = tmp_path / f"{case}.yaml"
    ident = "godfather_tweak" if case == "id_is_not_the_file_name" else case
    path.write_text(f"id: {ident}\n{text}", encoding="utf-8")
    with pytest.raises(RulesetFileError) as exc:
        load_ruleset_file(path)
    en, ru = str(exc.value), exc.value.render("ru")
    assert en.startswith(f"{path}: ") and ru.startswith(f"{path}: "), en
    assert entry in en and entry.replace("at ", "в ", 1) in ru, en
    assert english in en, en
    assert russian in ru, ru
    if case == "misspelt_setting":
        assert en.endswith("did you mean 'poison_cycles'?") and ru.endswith("может быть, 'poison_cycles'?")


def test_a_ruleset_without_victory_is_refused(tmp_path):
    data = yaml.safe_load((RULESETS_DIR / "classic.yaml").read_text(encoding="utf-8"))
    del data["victory"]
    path = tmp_path / "no_victory.yaml"
    path.write_text(yaml.safe_dump({**data, "id": "no_victory"}, allow_unicode=True), encoding="utf-8")
    with pytest.raises(RulesetFileError) as exc:
        load_ruleset_file(path)
    assert f"{path}: the ruleset is not valid (1 problem):\n  - at victory: Field required" == str(exc.value)
    assert "  - в victory: обязательное поле не задано" in exc.value.render("ru")


def test_each_mistake_is_one_problem(tmp_path):
    """A mistake is named once, not buried among problems it does not cause."""
    for case in ("guilty_team_typo", "unknown_impl_param", "one_target_redirect"):
        path = tmp_path / f"{case}.yaml"
        path.write_text(f"id: {case}\n{MISTAKES[case][0]}", encoding="utf-8")
        with pytest.raises(RulesetFileError) as exc:
            load_ruleset_file(path)
        assert "(1 problem)" in str(exc.value), str(exc.value)


def test_the_texts_of_the_loader_exist_in_both_languages():
    from config.texts import table

    ru, en = table("ru"), table("en")
    assert set(ru) == set(en)
    for key in ru:
        # (the English may have more: the plural ending of «problem{s}»)
        assert set(_fields(ru[key])) <= set(_fields(en[key])), key


def _fields(template: str) -> list[str]:
    import string

    return [f for _, f, _, _ in string.Formatter().parse(template) if f]


def test_every_engine_problem_key_has_texts():
    """Each key the engine's checks give a problem (``add(where, "<key>"``, ``refuse("<key>"``)
    is in the loader's table, so that no problem falls back to English in Russian."""
    import re

    from config.texts import table

    keys = set()
    for f in (Path(__file__).resolve().parents[2] / "engine").glob("ruleset*.py"):
        src = f.read_text(encoding="utf-8")
        keys |= set(re.findall(r'self\.add\([^,]+, f?"([a-z_.]+)"', src)) | set(re.findall(r'refuse\(f?"([a-z_.]+)"', src))
    keys = {k for k in keys if not k.endswith((".", "_"))}  # (a key built from a name: below)
    from engine.registry_params import TABLES
    from engine.ruleset_check import Checker

    keys |= {f"{k}.{t}" for k in ("unknown_param", "missing_param") for t in TABLES}
    keys |= {f"unknown_{kind}" for kind in Checker(load_ruleset_file(RULESETS_DIR / "classic.yaml")).refs}
    keys |= {f"unknown_{w}" for w in ("effect_op", "implementation", "step_kind", "vote_kind", "victory_kind", "check", "mail_policy")}
    assert len(keys) > 30
    missing = {k for k in keys if f"problem.{k}" not in table("ru")}
    assert not missing, missing
