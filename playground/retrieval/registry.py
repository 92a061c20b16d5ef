"""The retriever kinds (as registered by plugins, built-ins included), their parameters checked, and where a
corpus's indexes live."""

from __future__ import annotations

import copy
import hashlib
import json
import re
from pathlib import Path
from typing import Any, Optional

from playground import PlaygroundError


def retriever_kinds() -> list[str]:
    """The registered retriever kinds, built-ins first (playground.retrieval.plugin, then installed plugins)."""
    from playground.plugins import registry

    return list(registry().of("retrievers"))


def retriever_record(kind: str):
    """The registration of `kind` (a RetrieverKind), or a PlaygroundError naming the known kinds."""
    from playground.plugins import registry

    found = registry().of("retrievers").get(kind)
    if found is None:
        raise PlaygroundError(f"unknown retriever {kind!r} (choose one of: {', '.join(retriever_kinds())})")
    return found


def check_kind(kind: str) -> str:
    retriever_record(kind)
    return kind


def default_params(kind: str) -> dict[str, Any]:
    """A fresh copy of `kind`'s default parameters."""
    from playground.plugins.options import option_defaults

    return copy.deepcopy(option_defaults(retriever_record(kind).options))


def implementation(kind: str):
    """The class implementing `kind`, imported on first use so heavy libraries load only when needed."""
    from playground.plugins import load_ref

    return load_ref(retriever_record(kind).implementation, f"retriever {kind!r}")


def resolve_params(kind: str, params: Optional[dict] = None) -> dict[str, Any]:
    """The defaults of `kind` overlaid with `params`, each checked by its own option's type and bounds (never by
    another kind's); unknown keys are an error, not ignored. The kind's `check` then sees the whole set."""
    from playground.plugins import load_ref
    from playground.plugins.calls import call_plugin, instance_of
    from playground.plugins.options import resolve_options

    record = retriever_record(kind)
    resolved = resolve_options(record.options, params, f"retriever {kind!r}")
    if record.check is not None:
        check = load_ref(record.check, f"retriever {kind!r} check")
        resolved = call_plugin("retrievers", kind, "check", check, resolved, returns=instance_of(dict, "a dict"))
    return copy.deepcopy(resolved)


def resolve_fused(params: dict[str, Any]) -> dict[str, Any]:
    """hybrid: each side names another (non-hybrid) kind, and its parameters are resolved as that kind's."""
    resolved = dict(params)
    choices = [k for k in retriever_kinds() if k != "hybrid"]
    for side in ("first", "second"):
        child = resolved[side]
        if child not in choices:
            raise PlaygroundError(f"hybrid parameter {side!r}={child!r} must be one of: {', '.join(choices)}")
        resolved[f"{side}_params"] = resolve_params(child, resolved[f"{side}_params"])
    return resolved


def params_hash(kind: str, params: dict) -> str:
    canonical = json.dumps({"kind": kind, "params": params}, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()[:12]


def corpus_root(workspace, corpus: str) -> Path:
    """`workspace.indexes/<corpus>`; names unsafe as folder names get a slug plus a hash of the real name."""
    if re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9._-]{0,100}", corpus):
        folder = corpus
    else:
        slug = re.sub(r"[^A-Za-z0-9._-]+", "_", corpus).strip("._")[:60] or "corpus"
        folder = f"{slug}-{hashlib.sha256(corpus.encode('utf-8')).hexdigest()[:8]}"
    return Path(workspace.indexes) / folder


def document_text(title: str, text: str) -> str:
    """What every retriever indexes for a passage: its title (underscores as spaces) then its text."""
    title = (title or "").replace("_", " ").strip()
    return f"{title}\n{text}" if title else text


def top_hits(scores, ids: list[str], k: int, positive_only: bool = False):
    """The k best (highest-score) rows of a score vector as ranked Hits; ties keep corpus order."""
    import numpy as np

    from playground.retrieval.base import Hit

    scores = np.asarray(scores)
    if k <= 0 or scores.size == 0:
        return []
    k = min(k, scores.size)
    candidates = np.argpartition(-scores, k - 1)[:k] if k < scores.size else np.arange(scores.size)
    order = candidates[np.lexsort((candidates, -scores[candidates]))]
    if positive_only:
        order = order[scores[order] > 0]
    return [Hit(passage_id=ids[int(row)], score=float(scores[row]), rank=rank) for rank, row in enumerate(order, 1)]
