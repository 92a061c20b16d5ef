"""Progress reporting that the engine can call without knowing who draws it (tqdm, st.progress)."""

from __future__ import annotations

from typing import Callable, Optional

# on_progress(done, total, message): total may be 0 when unknown.
ProgressCallback = Callable[[int, int, str], None]


def report(callback: Optional[ProgressCallback], done: int, total: int, message: str = "") -> None:
    if callback is not None:
        callback(done, total, message)
