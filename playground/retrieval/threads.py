"""The CPU threads of the engines the playground runs in process (torch for embedders, FAISS): $PLAYGROUND_THREADS
when it is set, as for llama.cpp. Their OpenMP threads spin at each barrier, so more threads than free cores (a
machine shared with other jobs, or one test worker per core) cost CPU seconds for the same result: measured on two
busy cores, 1.5x for embedding with torch and 6x for training an IVF-PQ index."""

from __future__ import annotations

import os
from typing import Optional


def threads_setting() -> Optional[int]:
    """$PLAYGROUND_THREADS as a count, or None when it is not set (each engine then picks its own)."""
    from playground.models.local import THREADS_ENV, default_threads

    return default_threads() if os.environ.get(THREADS_ENV, "").strip() else None


def hold_torch_threads() -> None:
    wanted = threads_setting()
    if wanted is not None:
        import torch

        if torch.get_num_threads() != wanted:
            torch.set_num_threads(wanted)


def hold_faiss_threads() -> None:
    wanted = threads_setting()
    if wanted is not None:
        import faiss

        if faiss.omp_get_max_threads() != wanted:
            faiss.omp_set_num_threads(wanted)
