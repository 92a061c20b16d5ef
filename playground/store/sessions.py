"""Sessions: named explorations grouping runs, prompt versions, ratings and notes; export and import.

The work is split by job: session_records (create, read, switch, delete), session_export, session_import, and the
file format with its validation in session_format / session_schema. This module is the one import path the CLI, the
app and the tests use for the session operations (`__all__`); the parts' other names are imported from them.
"""

from playground.store.session_export import export_session
from playground.store.session_import import import_session
from playground.store.session_records import (
    add_note,
    current_session,
    delete_session,
    get_session,
    list_sessions,
    new_session,
    notes,
    rename_session,
    use_session,
)

__all__ = [
    "add_note",
    "current_session",
    "delete_session",
    "export_session",
    "get_session",
    "import_session",
    "list_sessions",
    "new_session",
    "notes",
    "rename_session",
    "use_session",
]
