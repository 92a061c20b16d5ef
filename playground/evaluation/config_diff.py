"""Which settings two run configs differ in: an A/B comparison is clean when exactly one setting changed.

Config keys (see playground/runs/config.py) are grouped into the settings a person thinks in: program, template,
retriever, k, model, params, sample, and for retrieval runs the corpus searched (a chunking of a documents set: its
name, chunking and digest). Keys that do not change results (package versions, cache use, index build times and
paths, a sweep's bookkeeping) are ignored; unknown keys count as a setting of their own name.
"""

from __future__ import annotations

from typing import Any

SETTING_OF_KEY = {
    "program": "program",
    "options": "program",
    "templates": "template",
    "prompt_versions": "template",
    "template_names": "template",
    "retriever": "retriever",
    "retriever_params": "retriever",
    "retriever_manifest": "retriever",
    "k": "k",
    "model": "model",
    "params": "params",
    "dataset": "sample",
    "sample": "sample",
    "seed": "sample",
    "question_ids": "sample",
    "repeats": "sample",
    "index_manifest": "retriever",
    "corpus": "corpus",
    "benchmark_corpus": "corpus",
    "chunking": "corpus",
    "gold": "corpus",
    "corpus_digest": "corpus",
}
IGNORED_KEYS = {"versions", "metric_signatures", "use_cache", "label", "run_id", "created_at", "sweep", "experiment"}
# A retrieval run's index manifest: what follows from the corpus searched is compared under "corpus", and the
# index files' sizes and checksums follow from the corpus and the retriever's settings.
CORPUS_MANIFEST_KEYS = ("corpus", "corpus_digest", "fingerprint")
# Fields of an index manifest that describe the build, not the retriever.
IGNORED_MANIFEST_KEYS = {
    "built_at",
    "build_seconds",
    "build_time",
    "created_at",
    "path",
    "size",
    "size_bytes",
    "versions",
    "seconds",
    "index_path",
}
MISSING = None


def _flatten(value: Any, prefix: str, out: dict) -> None:
    if isinstance(value, dict) and value:
        for key, item in value.items():
            _flatten(item, f"{prefix}.{key}" if prefix else str(key), out)
    else:
        out[prefix] = value


def _comparable(config: dict) -> dict:
    config = dict(config or {})
    manifest = config.get("retriever_manifest")
    if isinstance(manifest, dict):
        config["retriever_manifest"] = {k: v for k, v in manifest.items() if k not in IGNORED_MANIFEST_KEYS}
    index = config.get("index_manifest")
    if isinstance(index, dict):
        config["corpus_digest"] = index.get("corpus_digest") or index.get("fingerprint")
        dropped = IGNORED_MANIFEST_KEYS | {"files", *CORPUS_MANIFEST_KEYS}
        config["index_manifest"] = {k: v for k, v in index.items() if k not in dropped}
    if not config.get("retriever"):
        config.pop("k", None)  # k means nothing without a retriever
    return {k: v for k, v in config.items() if k not in IGNORED_KEYS}


def diff_configs(config_a: dict, config_b: dict) -> list[dict]:
    """The settings that differ, in a stable order: [{"setting", "changes": [{"path", "a", "b"}, ...]}, ...]."""
    a, b = _comparable(config_a), _comparable(config_b)
    if a.get("prompt_versions") and b.get("prompt_versions"):
        # The version ids say exactly what was rendered; the refs used to pick them ("name" vs "name@id") do not.
        a.pop("templates", None)
        b.pop("templates", None)
    flat_a: dict = {}
    flat_b: dict = {}
    _flatten(a, "", flat_a)
    _flatten(b, "", flat_b)
    grouped: dict[str, list] = {}
    for path in sorted(set(flat_a) | set(flat_b)):
        value_a, value_b = flat_a.get(path, MISSING), flat_b.get(path, MISSING)
        if value_a == value_b:
            continue
        top = path.split(".", 1)[0]
        setting = SETTING_OF_KEY.get(top, top)
        grouped.setdefault(setting, []).append({"path": path, "a": value_a, "b": value_b})
    order = list(dict.fromkeys(SETTING_OF_KEY.values()))
    return [
        {"setting": setting, "changes": grouped[setting]}
        for setting in sorted(grouped, key=lambda s: (order.index(s) if s in order else len(order), s))
    ]


def differing_settings(config_a: dict, config_b: dict) -> list[str]:
    """Just the names of the settings that differ."""
    return [entry["setting"] for entry in diff_configs(config_a, config_b)]


def confound_warning(config_a: dict, config_b: dict) -> str | None:
    """A one-line warning when more than one setting differs (the difference cannot be pinned on one change)."""
    settings = differing_settings(config_a, config_b)
    if len(settings) > 1:
        return (
            f"the runs differ in {len(settings)} settings ({', '.join(settings)}): "
            "a difference in scores cannot be attributed to one of them"
        )
    return None
