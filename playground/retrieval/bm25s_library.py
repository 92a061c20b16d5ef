"""bm25s, imported without numba: bm25s imports numba whenever it is installed (about 0.2 s of CPU in every process
that searches or indexes with bm25) for JIT backends BM25Retriever never selects (it scores with get_scores: numpy and
scipy). numba stays importable for everything else."""

from __future__ import annotations

import sys
from types import ModuleType


def bm25s() -> ModuleType:
    """The bm25s package; the first import in a process that has not imported numba keeps numba out of it."""
    if "bm25s" not in sys.modules and "numba" not in sys.modules:
        sys.modules["numba"] = None  # type: ignore[assignment]  # makes `import numba` raise ImportError
        try:
            import bm25s as library
        finally:
            del sys.modules["numba"]
    import bm25s as library

    return library
