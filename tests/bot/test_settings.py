"""The bot's settings: a value it cannot run on stops the start with a line naming the variable."""

from __future__ import annotations

import pytest

from altmafia.bot.settings import Settings, SettingsError


def test_defaults_and_good_values():
    s = Settings.from_env({})
    assert (s.remind_minutes, s.min_phase_minutes, s.scheduler_seconds) == (60, 30, 60.0)
    s = Settings.from_env({"ALTMAFIA_SCHEDULER_SECONDS": "1", "ALTMAFIA_MIN_PHASE_MINUTES": "1440",
                           "ALTMAFIA_REMIND_MINUTES": "0", "ALTMAFIA_GUILD_ID": "123456789012345678", "DISCORD_TOKEN": "abc.def-ghi_j"})
    assert (s.scheduler_seconds, s.min_phase_minutes, s.remind_minutes, s.guild_id) == (1.0, 1440, 0, 123456789012345678)


BAD = {
    # the issue: ``inf`` killed the scheduler loop while the bot stayed up with no deadlines
    ("ALTMAFIA_SCHEDULER_SECONDS", "inf"): "ALTMAFIA_SCHEDULER_SECONDS='inf' is not a finite number",
    ("ALTMAFIA_SCHEDULER_SECONDS", "nan"): "ALTMAFIA_SCHEDULER_SECONDS='nan' is not a finite number",
    ("ALTMAFIA_SCHEDULER_SECONDS", "0.2"): "ALTMAFIA_SCHEDULER_SECONDS=0.2 is out of range: use 1 to 3600",
    ("ALTMAFIA_SCHEDULER_SECONDS", "1e9"): "ALTMAFIA_SCHEDULER_SECONDS=1000000000.0 is out of range: use 1 to 3600",
    ("ALTMAFIA_SCHEDULER_SECONDS", "often"): "ALTMAFIA_SCHEDULER_SECONDS='often' is not a number",
    # the issue: accepted, then every deadline was years away (or overflowed)
    ("ALTMAFIA_MIN_PHASE_MINUTES", "99999999999999"): "ALTMAFIA_MIN_PHASE_MINUTES=99999999999999 is out of range: use 0 to 1440",
    ("ALTMAFIA_MIN_PHASE_MINUTES", "-5"): "ALTMAFIA_MIN_PHASE_MINUTES='-5' must not be negative",
    ("ALTMAFIA_MIN_PHASE_MINUTES", "30.5"): "ALTMAFIA_MIN_PHASE_MINUTES='30.5' is not a whole number",
    ("ALTMAFIA_REMIND_MINUTES", "100000"): "ALTMAFIA_REMIND_MINUTES=100000 is out of range: use 0 to 1440",
    ("ALTMAFIA_GUILD_ID", "my server"): "ALTMAFIA_GUILD_ID='my server' is not a server id (a number)",
    ("ALTMAFIA_GUILD_ID", "١٢٣"): "ALTMAFIA_GUILD_ID='١٢٣' is not a server id (a number)",
    ("ALTMAFIA_GUILD_ID", "1" + "0" * 30): "ALTMAFIA_GUILD_ID=1" + "0" * 30 + " is not a server id",
    ("ALTMAFIA_LANG", "de"): "ALTMAFIA_LANG='de': use one of ru, en",
    ("ALTMAFIA_TZ", "Moscow"): "ALTMAFIA_TZ='Moscow' is not a known time zone",
    ("ALTMAFIA_DB_SYNC", "sometimes"): "ALTMAFIA_DB_SYNC='SOMETIMES': use FULL or NORMAL",
    ("DISCORD_TOKEN", "Bot abc.def"): 'DISCORD_TOKEN starts with "Bot ": write the token alone',
    ("DISCORD_TOKEN", "abc def"): "DISCORD_TOKEN has spaces or characters a Discord token never has",
    ("DISCORD_TOKEN", "токен"): "DISCORD_TOKEN has spaces or characters a Discord token never has",
    ("ALTMAFIA_SHARD_COUNT", "many"): "ALTMAFIA_SHARD_COUNT='many': a whole number of shards, or auto",
    ("ALTMAFIA_SHARD_COUNT", "0"): "ALTMAFIA_SHARD_COUNT=0 is out of range: use 1 to 1000, or auto",
    ("ALTMAFIA_SHARD_IDS", "0;1"): "ALTMAFIA_SHARD_IDS='0;1': shard numbers separated by commas (0,2)",
    ("ALTMAFIA_SHARD_IDS", "1"): "ALTMAFIA_SHARD_IDS=1: each id once, from 0 to 0",
    ("ALTMAFIA_DB_URL", "mysql://x/y"): "ALTMAFIA_DB_URL must be a postgresql://… URL",
    ("ALTMAFIA_SYNC_COMMANDS", "maybe"): "ALTMAFIA_SYNC_COMMANDS='maybe': use yes or no",
}


def test_database_and_shards():
    s = Settings.from_env({})
    assert s.database == s.db_path and s.shards == (1, (0,)) and s.syncs_commands
    s = Settings.from_env({"ALTMAFIA_DB_URL": "postgresql://bot:secret@db.local/mafia", "ALTMAFIA_SHARD_COUNT": "4",
                           "ALTMAFIA_SHARD_IDS": "2,3"})
    assert s.database == "postgresql://bot:secret@db.local/mafia" and s.shards == (4, (2, 3)) and not s.syncs_commands
    s = Settings.from_env({"ALTMAFIA_SHARD_COUNT": "4", "ALTMAFIA_SHARD_IDS": "0,1", "ALTMAFIA_SYNC_COMMANDS": "no"})
    assert s.shards == (4, (0, 1)) and not s.syncs_commands
    assert Settings.from_env({"ALTMAFIA_SHARD_COUNT": "auto"}).shards is None
    with pytest.raises(SettingsError, match="ALTMAFIA_SHARD_IDS needs ALTMAFIA_SHARD_COUNT"):
        Settings.from_env({"ALTMAFIA_SHARD_COUNT": "auto", "ALTMAFIA_SHARD_IDS": "0"})


@pytest.mark.parametrize("name,value", sorted(BAD), ids=[f"{k}={v}" for k, v in sorted(BAD)])
def test_a_bad_value_names_the_variable(name, value):
    with pytest.raises(SettingsError) as exc:
        Settings.from_env({name: value})
    assert str(exc.value).startswith(BAD[name, value]), str(exc.value)


def test_settings_built_in_code_are_checked_too():
    with pytest.raises(SettingsError, match="ALTMAFIA_SCHEDULER_SECONDS=inf is out of range"):
        Settings(scheduler_seconds=float("inf"))
    with pytest.raises(SettingsError, match="ALTMAFIA_MIN_PHASE_MINUTES=10000000000"):
        Settings(min_phase_minutes=10**10)
