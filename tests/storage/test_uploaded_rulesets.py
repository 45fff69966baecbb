"""The rulesets room: a server's uploads, kept by fingerprint; a game created with one plays
those exact rules after a re-upload, a removal and a reopening; a kept ruleset goes only when
no upload, game or lobby refers to it. On SQLite and PostgreSQL."""

from __future__ import annotations

from config.loader import load_ruleset_text
from engine import DEAL, PlayerSpec
from storage import Store
from storage.records import fingerprint

from .conftest import sql

BASE = "extends: classic\nid: quiet_town\nnames: {{ru: Тихий город, en: Quiet town}}\ncalendar: {{days: {days}}}\n"
GUILD, OTHER, GM = 11 << 22, 12 << 22, 42


def variant(days: int, rid: str = "quiet_town"):
    text = BASE.format(days=days).replace("quiet_town", rid)
    return load_ruleset_text(text.encode(), f"{rid}.yaml"), text


def table(n: int = 5) -> list[PlayerSpec]:
    return [PlayerSpec(name=f"Игрок {i}", role=DEAL, character=DEAL, user_id=100 + i) for i in range(n)]


async def kept(db) -> set[str]:
    return {r[0] for r in await sql(db, "SELECT fingerprint FROM ruleset_texts")}


async def test_upload_replace_and_remove_per_server(db):
    seven, text7 = variant(7)
    nine, text9 = variant(9)
    async with Store(db) as store:
        up, old = await store.rulesets.upload_ruleset(GUILD, seven, source=text7, file_name="quiet_town.yaml", uploader=GM, limit=3)
        assert old is None and up.fingerprint == fingerprint(seven) and up.names == {"ru": "Тихий город", "en": "Quiet town"}
        assert [u.ruleset_id for u in await store.rulesets.guild_rulesets(GUILD)] == ["quiet_town"]
        assert await store.rulesets.guild_rulesets(OTHER) == [] and await store.rulesets.guild_ruleset(OTHER, "quiet_town") is None
        assert await store.rulesets.uploaded_source(GUILD, "quiet_town") == text7
        # a re-upload replaces it; the first rules, referred to by nothing, are not kept
        up9, old = await store.rulesets.upload_ruleset(GUILD, nine, source=text9, file_name="quiet_town.yaml", uploader=GM + 1, limit=3)
        assert old == up and up9.uploader == GM + 1
        assert await kept(db) == {fingerprint(nine)}
        assert (await store.rulesets.stored_ruleset(fingerprint(nine))).calendar.days == 9
        assert await store.rulesets.stored_ruleset(fingerprint(seven)) is None
        # the limit counts new ids only
        for i in range(2):
            r, t = variant(5, f"town_{i}")
            assert await store.rulesets.upload_ruleset(GUILD, r, source=t, file_name=f"town_{i}.yaml", uploader=GM, limit=3)
        r, t = variant(5, "town_9")
        assert await store.rulesets.upload_ruleset(GUILD, r, source=t, file_name="town_9.yaml", uploader=GM, limit=3) is None
        assert await store.rulesets.upload_ruleset(GUILD, seven, source=text7, file_name="quiet_town.yaml", uploader=GM, limit=3)
        # another server may hold the same id
        assert await store.rulesets.upload_ruleset(OTHER, nine, source=text9, file_name="quiet_town.yaml", uploader=GM, limit=3)
        gone = await store.rulesets.remove_ruleset(GUILD, "quiet_town")
        assert gone is not None and gone.fingerprint == fingerprint(seven)
        assert await store.rulesets.remove_ruleset(GUILD, "quiet_town") is None
        assert fingerprint(seven) not in await kept(db) and fingerprint(nine) in await kept(db)  # the other server's
        assert [u.ruleset_id for u in await store.rulesets.guild_rulesets(OTHER)] == ["quiet_town"]


async def test_a_game_plays_the_rules_it_began_with(db):
    seven, text7 = variant(7)
    nine, text9 = variant(9)
    async with Store(db) as store:
        await store.rulesets.upload_ruleset(GUILD, seven, source=text7, file_name="quiet_town.yaml", uploader=GM, limit=5)
        await store.games.create_game(seven, 5, table(), game_id="g1", guild_id=GUILD, gm_user_ids=[GM])
        # a lobby names the fingerprint it plays: kept while it is open
        await store.lobbies.create_lobby("l1", {"ruleset": "quiet_town", "fingerprint": fingerprint(seven)}, guild_id=GUILD, channel_id=5)
        await store.rulesets.upload_ruleset(GUILD, nine, source=text9, file_name="quiet_town.yaml", uploader=GM, limit=5)
        await store.rulesets.remove_ruleset(GUILD, "quiet_town")
        assert await kept(db) == {fingerprint(seven)}
        assert store.games.game("g1").rules.calendar.days == 7
    async with Store(db) as store:
        assert store.report.ruleset_changed == []
        info = store.games.info("g1")
        assert (info.ruleset, info.ruleset_fingerprint) == ("quiet_town", fingerprint(seven))
        assert store.games.game("g1").rules == seven
        assert (await store.games.rebuild("g1")).to_dict() == store.games.game("g1").to_dict()
        assert (await store.games.snapshot("g1"))["ruleset"] == "quiet_town"
        assert (await store.games.load("g1")).rules.calendar.days == 7
        await store.lobbies.delete_lobby("l1")
        # the game still refers to it
        await store.rulesets.upload_ruleset(GUILD, seven, source=text7, file_name="quiet_town.yaml", uploader=GM, limit=5)
        await store.rulesets.remove_ruleset(GUILD, "quiet_town")
        assert await kept(db) == {fingerprint(seven)}


async def test_a_shipped_game_is_kept_as_before(db):
    async with Store(db) as store:
        await store.games.create_game("classic", 5, table(), game_id="g2", guild_id=GUILD)
        assert await kept(db) == set()
    async with Store(db) as store:
        assert store.games.game("g2").rules.id == "classic"
