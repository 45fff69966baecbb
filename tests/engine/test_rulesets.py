"""Every shipped ruleset loads; a broken file gives an error naming the file and the entry."""

from __future__ import annotations

import pytest

from config import RulesetFileError, available_rulesets, load_ruleset_file
from config.loader import RULESETS_DIR

SHIPPED = sorted(RULESETS_DIR.glob("*.yaml"))
ALL = available_rulesets(include_tests=True)


def test_godfather_is_shipped():
    assert "godfather" in {p.stem for p in SHIPPED}


@pytest.mark.parametrize("rid", sorted(ALL))
def test_every_ruleset_loads(rid):
    r = load_ruleset_file(ALL[rid])
    assert r.id == rid
    assert r.roles
    assert r.calendar.timezone == "Europe/Moscow"
    for kind in {p.kind for p in r.calendar.periods}:
        assert r.steps[kind], f"{rid} has no {kind} steps"


def test_broken_ruleset_names_file_and_entry(tmp_path):
    text = (RULESETS_DIR / "godfather.yaml").read_text(encoding="utf-8")
    text = text.replace("{id: angry_speech, slot: day,", "{id: angry_speech, slot: dya,", 1)
    bad = tmp_path / "broken.yaml"
    bad.write_text(text, encoding="utf-8")
    with pytest.raises(RulesetFileError) as exc:
        load_ruleset_file(bad)
    msg = str(exc.value)
    assert "broken.yaml" in msg
    assert "commoner_captain" in msg and "angry_speech" in msg and "dya" in msg


def test_schema_error_shows_the_path(tmp_path):
    text = (RULESETS_DIR / "godfather.yaml").read_text(encoding="utf-8")
    text = text.replace("visibility: secret, min: 0", "visibility: sekret, min: 0", 1)
    bad = tmp_path / "schema.yaml"
    bad.write_text(text, encoding="utf-8")
    with pytest.raises(RulesetFileError) as exc:
        load_ruleset_file(bad)
    assert "stats[1] (tv).visibility" in str(exc.value)


def test_not_yaml(tmp_path):
    bad = tmp_path / "oops.yaml"
    bad.write_text("id: x\nroles: [\n", encoding="utf-8")
    with pytest.raises(RulesetFileError, match=r"oops.yaml: not valid YAML at line"):
        load_ruleset_file(bad)


def test_missing_file(tmp_path):
    with pytest.raises(RulesetFileError, match="cannot read"):
        load_ruleset_file(tmp_path / "nope.yaml")


def test_short_names_of_the_shipped_rulesets():
    from config import load_ruleset

    assert load_ruleset("friday").id == "eternal_friday"
    assert load_ruleset("stats").id == "stats_mafia"


def test_test_only_rulesets_and_files_are_served_only_when_asked():
    """The loader's default (what the bot uses) is the shipped rulesets by id or short name;
    the tests and the tools ask for tests/rulesets/ and for file paths."""
    from config import load_ruleset
    from config.loader import RULESETS_DIR, TEST_RULESETS_DIR

    shipped, everything = available_rulesets(), available_rulesets(include_tests=True)
    assert set(shipped) == {f.stem for f in RULESETS_DIR.glob("*.yaml")}
    assert set(everything) - set(shipped) == {f.stem for f in TEST_RULESETS_DIR.glob("*.yaml")} != set()
    for rid in sorted(set(everything) - set(shipped)):
        with pytest.raises(RulesetFileError, match=f"no ruleset '{rid}'; known: "):
            load_ruleset(rid)
        assert load_ruleset(rid, include_tests=True).id
    path = str(TEST_RULESETS_DIR / "stats_mafia_mini.yaml")
    for kw in ({}, {"include_tests": True}):
        with pytest.raises(RulesetFileError, match="no ruleset"):
            load_ruleset(path, **kw)
    assert load_ruleset(path, files=True) == load_ruleset("stats_mafia_mini", include_tests=True)


# ---- bad input: every value the engine cannot play is refused at load, naming the entry ----
def _godfather() -> dict:
    import yaml

    return yaml.safe_load((RULESETS_DIR / "godfather.yaml").read_text(encoding="utf-8"))


def _set(path: str, value):
    """An edit of the godfather data: ``a.b[0].c`` set to ``value``."""
    import re

    def edit(d: dict) -> None:
        keys = [int(k) if k.isdigit() else k for k in re.findall(r"[^.\[\]]+", path)]
        node = d
        for k in keys[:-1]:
            node = node[k]
        node[keys[-1]] = value

    return edit


BAD_RULESETS = {
    "no_periods": (_set("calendar.periods", []), "calendar.periods: a calendar needs at least one period"),
    "unknown_op": (_set("roles.0.abilities.0.effects.0", {"op": "explode"}),
                   "roles.tavern_keeper.abilities.tall_tales.effects[0].op: unknown effect op 'explode'; known: block"),
    "unknown_impl": (_set("roles.0.abilities.0.effects.0", {"op": "impl", "impl": "no_such_thing"}),
                     "roles.tavern_keeper.abilities.tall_tales.effects[0].impl: unknown implementation 'no_such_thing'"),
    "huge_table": (_set("table.max", 10**30), "table.max: 100000… (a number of 31 digits) is out of range: use 1 to 200"),
    "huge_quota": (_set("quotas.pm_per_day", 10**40), "quotas.pm_per_day: 100000… (a number of 41 digits) is out of range: use 0 to 10000"),
    "negative_quota": (_set("quotas.anon_per_day", -5), "quotas.anon_per_day: -5 is out of range: use 0 to 10000"),
    "max_days": (_set("calendar.max_days", 10**12), "calendar.max_days: 1000000000000 is out of range: use 1 to 366"),
    "min_over_max_days": (lambda d: d["calendar"].update(min_days=10, max_days=2), "calendar: min_days 10 is greater than max_days 2"),
    "days_outside": (_set("calendar.days", 40), "calendar: days 40 must lie within min_days..max_days (1..30)"),
    "table_min_over_max": (_set("table", {"default": 5, "min": 9, "max": 4}), "table: default 5 must lie within min..max (9..4)"),
    "faction_sizes": (_set("factions.min_size", 5), "factions: min_size 5 is greater than max_size 3"),
    "period_25_99": (_set("calendar.periods.0.end", "25:99"), "calendar.periods[0] (day1).end: '25:99' is not a time of day"),
    "period_words": (_set("calendar.periods.2.start", "evening"), "calendar.periods[2] (night).start: 'evening' is not a time of day"),
    "victory_status": (_set("victory.params.no_win_status", ["jail"]), "victory.params.no_win_status: unknown status 'jail'"),
    "victory_stat": (_set("victory.params.stat", "gold"), "victory.params.stat: unknown stat 'gold'"),
    "victory_kind": (_set("victory.kind", "most_money"), "victory.kind: unknown victory kind 'most_money'"),
    "stat_default": (_set("stats.0.default", 10**400), "stats[0] (vo).default: 100000… (a number of 401 digits) is out of range"),
    "stat_min_max": (lambda d: d["stats"][1].update(min=5, max=1), "stats[1] (tv): stat tv: min 5 is greater than max 1"),
    "role_stat": (_set("roles.0.stats.vo", 10**9), "roles[0] (Хозяин трактира).stats.vo: 1000000000 is out of range"),
    "effect_delta": (_set("roles.0.abilities.0.effects.0.delta", -(10**8)), "roles[0] (Хозяин трактира).abilities[0] (Упомянуть в местных байках).effects[0].delta: -100000000 is out of range"),
    "cooldown": (_set("roles.0.abilities.0.cooldown_cycles", -1), "roles[0] (Хозяин трактира).abilities[0] (Упомянуть в местных байках).cooldown_cycles: -1 is out of range: use 0 to 366"),
    "timezone": (_set("calendar.timezone", "Mars/Olympus"), "calendar.timezone: 'Mars/Olympus' is not a known time zone"),
    "night_steps_missing": (lambda d: d["steps"].pop("night"), "steps.night: the calendar has night periods but the ruleset no night steps", 100),
    "no_day_period": (lambda d: [p.update(kind="night") for p in d["calendar"]["periods"]],
                      "steps.day: the calendar has no day period, so these steps would never run"),
    "step_kind": (lambda d: d["steps"]["day"].append({"id": "extra", "kind": "fireworks"}), "steps.day[13] (extra).kind: unknown step kind 'fireworks'"),
    "vote_kind": (_set("votes.0.kind", "duel"), "votes.prison.kind: unknown vote kind 'duel'; known: amnesty"),
    "status_blocks": (lambda d: d["statuses"][0].update(blocks_slots=["dya"]), "statuses.poisoned.blocks_slots: unknown slot 'dya'"),
    "inactivity_stat": (_set("inactivity.stats", {"gold": -1}), "inactivity.stats: unknown stat 'gold'"),
    "duplicate_status": (lambda d: d["statuses"].append(dict(d["statuses"][0])), "statuses: duplicate id"),
}


@pytest.mark.parametrize("case", sorted(BAD_RULESETS))
def test_bad_values_are_refused_at_load(tmp_path, case):
    import yaml

    edit, expected, *count = BAD_RULESETS[case]
    data = _godfather()
    edit(data)
    bad = tmp_path / f"{case}.yaml"
    bad.write_text(yaml.safe_dump(data, allow_unicode=True), encoding="utf-8")
    with pytest.raises(RulesetFileError) as exc:
        load_ruleset_file(bad)
    msg = str(exc.value)
    n = count[0] if count else 1
    assert msg.startswith(f"{bad}: the ruleset is not valid ({n} problem{'s' if n > 1 else ''}):\n  - at "), msg
    assert "\n  - at " + expected in msg, msg


def test_not_utf8_names_the_file_and_the_byte(tmp_path):
    bad = tmp_path / "cp1251.yaml"
    bad.write_bytes("id: x\nnames: {ru: Крёстный, en: x}\n".encode("cp1251"))
    with pytest.raises(RulesetFileError) as exc:
        load_ruleset_file(bad)
    assert str(exc.value) == f"{bad}: not UTF-8 text (byte 0xca at line 2, column 13); save the file as UTF-8"
