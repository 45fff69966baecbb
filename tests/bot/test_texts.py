"""Every text the bot says exists in Russian and English; channel plans stay within Discord's
limits (50 channels a category)."""

from __future__ import annotations

import re
from pathlib import Path

from altmafia.bot.channels import PER_CATEGORY, Audience, game_plan
from altmafia.text.i18n import catalog

ROOT = Path(__file__).resolve().parents[2]
# the bot, its cogs, the texts, the tools; not the bench's modules, whose row ids
# (``deadline.commit_ratio``, ``pm.transactions``) share prefixes with catalog keys
SOURCES = sorted(p for top in ("altmafia", "cogs") for p in (ROOT / top).rglob("*.py")
                 if not (p.parent.name == "tools" and (p.name.startswith("bench") or p.name == "deadline.py")))
PREFIXES = "err|lobby|channel|deadline|delivery|start|card|action|me|vote|faction|pm|anon|remind|gm|public|btn|cleanup|reveal"
KEY = re.compile(rf'(?<![ND]\()"((?:{PREFIXES})\.[a-z_]+)"')
CMD = re.compile(r'\b[ND]\("([a-z_.0-9]+)"\)')


def test_both_languages_have_the_same_bot_texts():
    ru, en = catalog("ru"), catalog("en")
    for section in ("bot", "commands", "plural"):
        assert set(ru[section]) == set(en[section]), section
    for key, forms in ru["plural"].items():
        assert len(forms) == 3 and len(en["plural"][key]) == 2, key


def test_every_text_key_in_the_code_exists():
    ru = catalog("ru")
    used, commands = set(), set()
    for f in SOURCES:
        src = f.read_text(encoding="utf-8")
        used |= set(KEY.findall(src))
        commands |= set(CMD.findall(src))
    assert len(used) > 100 and len(commands) > 60
    missing = {k for k in used if k not in ru["bot"] and k not in ru["event"]}
    # keys built at run time: faction.<op>, reveal.tag_<audience>
    assert not missing, sorted(missing)
    for k in commands:
        assert f"{k}.name" in ru["commands"] and f"{k}.desc" in ru["commands"], k
    for op in ("invite", "accept", "decline", "leave", "kick", "overthrow"):
        assert f"faction.{op}" in ru["bot"]


def test_command_names_are_valid_discord_names():
    name = re.compile(r"^[-_\w]{1,32}$", re.UNICODE)
    for lang in ("ru", "en"):
        for key, value in catalog(lang)["commands"].items():
            if key.endswith(".name"):
                assert name.match(value) and value == value.lower(), (lang, key, value)
            else:
                assert 1 <= len(value) <= 100, (lang, key)


def test_a_big_table_gets_a_second_category():
    aud = Audience(guild_id=1, bot_id=2, gms=[3], players={i: 100 + i for i in range(60)}, spectators=[7])
    plan = game_plan("Игра", "ru", aud, {i: f"Игрок {i}" for i in range(60)})
    cats = [s for s in plan if s.type == 4]
    assert [c.key for c in cats] == ["category", "category:2"]
    for c in cats:
        children = [s for s in plan if s.parent == c.key]
        assert 0 < len(children) <= PER_CATEGORY
    assert sum(1 for s in plan if s.type == 0) == 64
    # every channel hides itself from @everyone in the same call that creates it
    for s in plan:
        assert any(o["id"] == "1" and int(o["deny"]) & 1024 for o in s.overwrites), s.key
