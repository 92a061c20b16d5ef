"""Sessions: named explorations grouping runs, prompt versions, ratings and notes; export and import.

The work is split by job: session_records (create, read, switch, delete), session_export, session_import, and the
file format with its validation in session_format / session_schema. This module keeps the one import path callers use.
"""

from playground.store.session_export import export_session  # noqa: F401
from playground.store.session_import import import_session  # noqa: F401
from playground.store.session_records import (  # noqa: F401
    CURRENT_KEY, DEFAULT_NAME, MAX_NAME_CHARS, add_note, current_session, delete_session, get_session, list_sessions,
    new_id, new_session, notes, rename_session, use_session, write_transaction,
)
