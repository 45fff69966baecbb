"""Numbered migrations (``storage/migrations/NNNN_name.sql``) and the ``schema_version`` table.

Each migration runs in its own write transaction together with the row that records it, so a
crash during a migration leaves the database at the previous version, and the next start runs
the migration again. A database from a newer build (a version this build does not know), an
SQLite file holding someone else's tables, or a gap in the recorded versions stops the start
with a :class:`~storage.errors.StorageError`.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from .backend import Backend
from .errors import StorageError

MIGRATIONS_DIR = Path(__file__).resolve().parent / "migrations"
FILE_RE = re.compile(r"^(\d{4})_([a-z0-9_]+)\.sql$")


@dataclass(frozen=True)
class Migration:
    version: int
    name: str
    path: Path

    def statements(self) -> list[str]:
        """The file's statements: ``--`` comments dropped, split at a ``;`` ending a line."""
        lines = [ln for ln in self.path.read_text(encoding="utf-8").splitlines() if not ln.lstrip().startswith("--")]
        parts = re.split(r";[ \t]*(?:\n|$)", "\n".join(lines))
        return [p.strip() for p in parts if p.strip()]


def migrations(folder: Path = MIGRATIONS_DIR) -> list[Migration]:
    found = []
    for f in sorted(folder.glob("*.sql")):
        m = FILE_RE.match(f.name)
        if not m:
            raise StorageError(f"{f}: a migration file must be named NNNN_name.sql (lower case)")
        found.append(Migration(int(m.group(1)), m.group(2), f))
    if not found:
        raise StorageError(
            f"{folder}: no migration files; the installation is incomplete (storage/migrations/*.sql "
            "must be installed with the package)"
        )
    numbers = [m.version for m in found]
    if numbers != list(range(1, len(found) + 1)):
        raise StorageError(f"{folder}: migrations must be numbered 1, 2, 3… without gaps; found {numbers}")
    return found


def latest_version() -> int:
    return len(migrations())


async def current_version(db: Backend) -> int:
    """The version the database is at: 0 for an empty database."""
    tables = await db.tables()
    if "schema_version" not in tables:
        if tables:
            names = ", ".join(sorted(tables)[:5])
            raise StorageError(
                f"{db.location}: is a database, but not an altmafia one (it has tables {names} "
                "and no schema_version). Set ALTMAFIA_DB to another file."
            )
        return 0
    rows = await db.fetchall("SELECT version FROM schema_version ORDER BY version")
    versions = [r[0] for r in rows]
    if versions != list(range(1, len(versions) + 1)):
        raise StorageError(f"{db.location}: the schema_version table is inconsistent (versions {versions}); restore a backup.")
    return len(versions)


async def migrate(
    db: Backend,
    upto: int | None = None,
    on_transaction: Callable[[str], None] | None = None,
    hook: Callable[[str], None] | None = None,
) -> tuple[int, int]:
    """Bring the database to version ``upto`` (default: the latest); (from, to) versions."""
    known = migrations()
    target = len(known) if upto is None else upto
    start = await current_version(db)
    if start > len(known):
        raise StorageError(
            f"{db.location}: the database has schema version {start}, but this build of altmafia "
            f"knows versions up to {len(known)}: it was written by a newer altmafia. Upgrade "
            "altmafia, or restore a backup made for this version."
        )
    version = start
    for mig in known[start:target]:
        await db.begin()
        try:
            # re-read under the write lock: another process may have migrated meanwhile
            now_at = await current_version(db)
            if now_at >= mig.version:
                await db.rollback()
                version = now_at
                continue
            for stmt in mig.statements():
                await db.execute(stmt)
            stamp = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
            await db.execute(db.sql("INSERT INTO schema_version (version, name, applied_at) VALUES (?, ?, ?)"), (mig.version, mig.name, stamp))
            if hook:
                hook("migrate.before_commit")
            await db.commit()
        except BaseException as exc:
            await db.rollback()
            if db.is_driver_error(exc):
                raise StorageError(f"{db.location}: migration {mig.path.name} failed ({exc}); the database stays at version {version}.") from None
            raise
        if on_transaction:
            on_transaction("migrate")
        version = mig.version
    return start, version
