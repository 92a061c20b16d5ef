"""The demo workspace: dataset "demo" (playground.data.demo) stored once, and its default indexes built.

It sits above data, store and retrieval, so the data package stays free of them.
"""

from __future__ import annotations

import json
from typing import Optional

from playground.data.demo import DEMO_INDEX_KINDS, DEMO_NAME, build_demo_dataset
from playground.data.records import Dataset
from playground.progress import ProgressCallback, report


def _is_current(workspace, dataset: Dataset) -> bool:
    from playground.store.datasets import corpus_fingerprint

    row = next(workspace.db.query("SELECT fingerprint, metadata FROM corpora WHERE name = ?", [DEMO_NAME]), None)
    if row is None or row["fingerprint"] != corpus_fingerprint(dataset.passages):
        return False
    stored = json.loads(row["metadata"] or "{}")
    return stored.get("questions_fingerprint") == dataset.metadata["questions_fingerprint"]


def build_demo_indexes(workspace, kinds=DEMO_INDEX_KINDS, on_progress: Optional[ProgressCallback] = None) -> list[dict]:
    """Build (or load when up to date) the demo's default indexes; returns their manifests."""
    from playground.retrieval.index import open_retriever

    manifests = []
    for kind in kinds:
        retriever = open_retriever(workspace, DEMO_NAME, kind, on_progress=on_progress)
        manifests.append(dict(retriever.manifest))
    return manifests


def ensure_demo_workspace(db_path=None, on_progress: Optional[ProgressCallback] = None, build_indexes: bool = True):
    """Open (creating when needed) the workspace with dataset "demo" and its default indexes.

    The dataset is stored once; it is replaced only when this Python's reference or the questions file differ
    from what is stored. Indexes are rebuilt only when missing or stale.
    """
    from playground.store import open_workspace
    from playground.store.datasets import save_dataset

    workspace = open_workspace(db_path)
    try:
        report(on_progress, 0, 0, "reading the language reference")
        dataset = build_demo_dataset()
        if not _is_current(workspace, dataset):
            report(on_progress, 0, 0, "storing the demo dataset")
            save_dataset(workspace, DEMO_NAME, dataset, replace=True)
        if build_indexes:
            build_demo_indexes(workspace, on_progress=on_progress)
    except BaseException:
        workspace.close()
        raise
    return workspace
