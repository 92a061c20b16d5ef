"""How a workspace's schema is brought up to date: named migrations, each applied once in its own transaction and
recorded in table `_migrations`. The migrations themselves: the first schema in playground/store/db.py, every
later one appended to playground/store/later_migrations.py (`@migration`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable, Optional

from playground import PlaygroundError
from playground.store.integrity import APPLICATION_ID, ensure_undamaged, mark
from playground.store.schema import create_table
from playground.store.values import now

if TYPE_CHECKING:
    import sqlite_utils

Migration = Callable[["sqlite_utils.Database"], None]
MIGRATIONS: list[Migration] = []


def migration(function: Migration) -> Migration:
    """Register `function` as the next migration; a workspace records it under its name once applied."""
    MIGRATIONS.append(function)
    return function


# What `PRAGMA user_version` N meant before migrations were recorded by name: the first N of these had been applied.
USER_VERSION_NAMES = (
    "create_first_schema",
    "add_llm_judges",
    "add_demonstration_sets",
    "add_foreign_keys",
    "add_run_workers",
    "add_retrieval_runs",
    "add_editor_drafts",
)


def applied_migrations(db: sqlite_utils.Database) -> list[str]:
    """Names of the migrations this file has had, in the order they were applied."""
    if "_migrations" not in db.table_names():
        return []
    return [row[0] for row in db.execute("SELECT name FROM _migrations ORDER BY rowid")]


def _record(db: sqlite_utils.Database, name: str, applied_at: Optional[str]) -> None:
    db.execute("INSERT INTO _migrations (name, applied_at) VALUES (?, ?)", [name, applied_at])


def _start_recording(db: sqlite_utils.Database, legacy: list[str]) -> None:
    """Create `_migrations` in a file that lacks it, recording what its user_version says it had (time unknown)."""
    with db.atomic():
        create_table(db, "_migrations")
        for name in legacy:
            _record(db, name, None)


def _legacy_migrations(db: sqlite_utils.Database) -> list[str]:
    """What a file from before the names had, by its `PRAGMA user_version`; refused when newer than this code."""
    legacy = db.execute("PRAGMA user_version").fetchone()[0]
    if legacy > len(USER_VERSION_NAMES):
        raise PlaygroundError(
            f"workspace schema version {legacy} is newer than this playground "
            f"({len(USER_VERSION_NAMES)}); upgrade playground"
        )
    return list(USER_VERSION_NAMES[:legacy])


def migrate(db: sqlite_utils.Database, migrations: list[Migration]) -> list[str]:
    """Apply the `migrations` (MIGRATIONS, as registered) this file has not had, in order, each in its own
    transaction with its record; returns the names applied now.

    Before the first write, a file that has tables is checked for damage (`PRAGMA quick_check`) and refused if
    damaged; the file is then marked as a playground workspace (`PRAGMA application_id`). Foreign keys are off while
    migrations run (SQLite's recipe for rebuilding a table) and checked before each commit, so a migration that would
    leave a dangling reference is rolled back. A file that has had a migration this code does not know was migrated
    by a newer playground, and is refused. `PRAGMA user_version` keeps the count of migrations had, so a playground
    from before the names refuses a file it cannot read.
    """
    tables = db.table_names()
    recorded = "_migrations" in tables
    applied = applied_migrations(db) if recorded else _legacy_migrations(db)
    names = [function.__name__ for function in migrations]
    unknown = [name for name in applied if name not in names]
    if unknown:
        raise PlaygroundError(
            f"workspace has had migrations this playground does not know ({', '.join(unknown)}): "
            "it was opened by a newer playground; upgrade playground"
        )
    pending = [function for function in migrations if function.__name__ not in applied]
    if recorded and not pending and db.execute("PRAGMA application_id").fetchone()[0] == APPLICATION_ID:
        return []
    if tables:  # a new file has nothing to damage
        ensure_undamaged(db, "migrate it")
    mark(db)
    if not recorded:
        _start_recording(db, applied)
    if not pending:
        return []
    db.execute("PRAGMA foreign_keys = OFF")
    try:
        for function in pending:
            with db.atomic():
                function(db)
                broken = db.execute("PRAGMA foreign_key_check").fetchall()
                if broken:
                    table, rowid, parent, _ = broken[0]
                    raise PlaygroundError(
                        f"migration {function.__name__} left {len(broken)} dangling reference(s), "
                        f"e.g. {table} row {rowid} -> {parent}"
                    )
                _record(db, function.__name__, now())
                db.execute(f"PRAGMA user_version = {len(applied_migrations(db))}")
    finally:
        db.execute("PRAGMA foreign_keys = ON")
    return [function.__name__ for function in pending]
