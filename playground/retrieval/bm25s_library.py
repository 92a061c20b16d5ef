"""bm25s, imported without numba: bm25s imports numba whenever it is installed (about 0.2 s of CPU in every process
that searches or indexes with bm25) for JIT backends BM25Retriever never selects (it scores with get_scores: numpy and
scipy). numba stays importable for everything else."""

from __future__ import annotations

from types import ModuleType

from playground.packages import import_hiding


def bm25s() -> ModuleType:
    return import_hiding("bm25s", "numba")
