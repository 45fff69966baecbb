"""The rulesets room: what a server's GMs uploaded, and every uploaded ruleset a game or lobby
still refers to, by fingerprint.

A server holds at most one upload per ruleset id (``guild_rulesets``); its rules, as the
engine reads them, are kept apart by fingerprint (``ruleset_texts``), so a re-upload or a
removal changes what new lobbies get and never what a game or an open lobby plays: they
refer to the fingerprint they began with. A kept ruleset goes only when nothing refers to it.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterable
from typing import Any

from engine import Ruleset

from .backend import Backend
from .records import Upload, fingerprint
from .state import StoreState

#: parsed rulesets kept in memory by fingerprint (the games in memory hold their own)
CACHED_RULESETS = 64

_UPLOAD_COLUMNS = "guild_id, ruleset_id, fingerprint, name_ru, name_en, file_name, uploader, uploaded_at"


def _upload(row: tuple[Any, ...]) -> Upload:
    gid, rid, fp, ru, en, file_name, uploader, at = row
    return Upload(guild_id=int(gid), ruleset_id=rid, fingerprint=fp, names={"ru": ru, "en": en}, file_name=file_name,
                  uploader=int(uploader), uploaded_at=at)


class Rulesets:
    """Uploaded rulesets: store one for a server, list, remove; read one back by fingerprint."""

    def __init__(self, state: StoreState) -> None:
        self.state = state
        self.db = state.db
        self._rules_cache: OrderedDict[str, Ruleset] = OrderedDict()  # uploaded rulesets by fingerprint (v9)

    async def upload_ruleset(self, guild_id: int, rules: Ruleset, *, source: str, file_name: str, uploader: int,
                             limit: int) -> tuple[Upload, Upload | None] | None:
        """Keep ``rules`` (checked by the loader) as the server's ruleset of its id, replacing
        an upload of the same id for new lobbies; one transaction. ``(upload, replaced)``, or
        None (nothing written) when the id is new and the server has ``limit`` uploads."""
        fp, stamp = fingerprint(rules), self.db.stamp()
        async with self.db.tx("ruleset") as db:
            have = [_upload(r) for r in await db.fetchall(
                db.sql(f"SELECT {_UPLOAD_COLUMNS} FROM guild_rulesets WHERE guild_id = ?"), (guild_id,))]
            old = next((u for u in have if u.ruleset_id == rules.id), None)
            if old is None and len(have) >= limit:
                return None
            await self.keep_rules(db, rules)
            row = (fp, rules.names.ru, rules.names.en, file_name, source, uploader, stamp)
            if old is None:
                await db.execute(
                    db.sql("INSERT INTO guild_rulesets (guild_id, ruleset_id, fingerprint, name_ru, name_en, file_name, source, "
                           "uploader, uploaded_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)"), (guild_id, rules.id, *row))
            else:
                await db.execute(
                    db.sql("UPDATE guild_rulesets SET fingerprint = ?, name_ru = ?, name_en = ?, file_name = ?, source = ?, "
                           "uploader = ?, uploaded_at = ? WHERE guild_id = ? AND ruleset_id = ?"), (*row, guild_id, rules.id))
                if old.fingerprint != fp:
                    await self._forget_unused(db, old.fingerprint)
        self._remember(fp, rules)
        return Upload(guild_id=guild_id, ruleset_id=rules.id, fingerprint=fp, names={"ru": rules.names.ru, "en": rules.names.en},
                      file_name=file_name, uploader=uploader, uploaded_at=stamp), old

    async def guild_rulesets(self, guild_id: int) -> list[Upload]:
        """A server's uploads, by id."""
        rows = await self.db.read(f"SELECT {_UPLOAD_COLUMNS} FROM guild_rulesets WHERE guild_id = ? ORDER BY ruleset_id",
                                  (guild_id,))
        return [_upload(r) for r in rows]

    async def guild_ruleset(self, guild_id: int, ruleset_id: str) -> Upload | None:
        rows = await self.db.read(f"SELECT {_UPLOAD_COLUMNS} FROM guild_rulesets WHERE guild_id = ? AND ruleset_id = ?",
                                  (guild_id, ruleset_id))
        return _upload(rows[0]) if rows else None

    async def uploaded_source(self, guild_id: int, ruleset_id: str) -> str | None:
        """The file of a server's upload as it was uploaded."""
        rows = await self.db.read("SELECT source FROM guild_rulesets WHERE guild_id = ? AND ruleset_id = ?", (guild_id, ruleset_id))
        return rows[0][0] if rows else None

    async def remove_ruleset(self, guild_id: int, ruleset_id: str) -> Upload | None:
        """Take a server's upload away from new lobbies (games and open lobbies keep theirs);
        the upload removed, or None when the server has none of that id."""
        async with self.db.tx("ruleset") as db:
            rows = await db.fetchall(db.sql(f"SELECT {_UPLOAD_COLUMNS} FROM guild_rulesets WHERE guild_id = ? AND ruleset_id = ?"),
                                     (guild_id, ruleset_id))
            if not rows:
                return None
            await db.execute(db.sql("DELETE FROM guild_rulesets WHERE guild_id = ? AND ruleset_id = ?"), (guild_id, ruleset_id))
            await self._forget_unused(db, rows[0][2])
        return _upload(rows[0])

    async def stored_rulesets(self, fingerprints: Iterable[str]) -> dict[str, Ruleset]:
        """The kept rulesets of these fingerprints (those kept: a shipped ruleset's is not)."""
        want = sorted(set(fingerprints))
        out = {fp: self._rules_cache[fp] for fp in want if fp in self._rules_cache}
        missing = [fp for fp in want if fp not in out]
        for i in range(0, len(missing), 100):
            chunk = missing[i:i + 100]
            rows = await self.db.read(f"SELECT fingerprint, rules FROM ruleset_texts WHERE fingerprint IN ({', '.join('?' * len(chunk))})",
                                      tuple(chunk))
            for fp, text in rows:
                out[fp] = Ruleset.model_validate_json(text)
                self._remember(fp, out[fp])
        return out

    async def stored_ruleset(self, fp: str) -> Ruleset | None:
        return (await self.stored_rulesets([fp])).get(fp)

    # ---- inside a transaction -------------------------------------------------------------
    async def keep_rules(self, db: Backend, rules: Ruleset) -> str:
        """The rules kept under their fingerprint (once: the same rules are the same row)."""
        fp = fingerprint(rules)
        if not await db.fetchall(db.sql("SELECT 1 FROM ruleset_texts WHERE fingerprint = ?"), (fp,)):
            await db.execute(db.sql("INSERT INTO ruleset_texts (fingerprint, ruleset_id, rules, created_at) VALUES (?, ?, ?, ?)"),
                             (fp, rules.id, rules.model_dump_json(), self.db.stamp()))
        return fp

    async def _forget_unused(self, db: Backend, fp: str) -> None:
        """A kept ruleset nothing refers to any more (no server's upload, no game, no open
        lobby: a lobby names its fingerprint in its data) is deleted."""
        await db.execute(
            db.sql("DELETE FROM ruleset_texts WHERE fingerprint = ? AND NOT EXISTS (SELECT 1 FROM guild_rulesets WHERE fingerprint = ?) "
                   "AND NOT EXISTS (SELECT 1 FROM games WHERE ruleset_fingerprint = ?) AND NOT EXISTS "
                   "(SELECT 1 FROM lobbies WHERE data LIKE ?)"), (fp, fp, fp, f"%{fp}%"))
        self._rules_cache.pop(fp, None)

    def _remember(self, fp: str, rules: Ruleset) -> None:
        self._rules_cache[fp] = rules
        self._rules_cache.move_to_end(fp)
        while len(self._rules_cache) > CACHED_RULESETS:
            self._rules_cache.popitem(last=False)
