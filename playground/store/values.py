"""How the store writes a time and a JSON value, so every table's text sorts and compares the same way."""

from __future__ import annotations

import datetime as _dt
import json
from typing import Any


def now() -> str:
    """UTC timestamp with microseconds, sortable as text."""
    return _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="microseconds")


def to_json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, sort_keys=True)


PERSON = "person"  # who acted when a person did (a review, a label moved in the app), as against a command
