"""The response cache (table llm_cache): a repeated request costs nothing and is flagged cached=True."""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict

from playground.models.base import Completion, GenerationParams, Message
from playground.models.errors import ModelError
from playground.redaction import known_secrets

CACHE_FORMAT = 1
STORED_FIELDS = ("text", "finish_reason", "prompt_tokens", "completion_tokens", "latency_s", "model_id", "samples")


def cache_request(model, messages: list[Message], params: GenerationParams, sample_index: int = 0) -> dict:
    """Everything that decides a response. A local model's file hash is in it, so a replaced file misses."""
    return {
        "format": CACHE_FORMAT,
        "model": model.spec,
        "fingerprint": getattr(model, "fingerprint", "") or "",
        "params": params.to_dict(),
        "messages": [{"role": m["role"], "content": m["content"]} for m in messages],
        "sample_index": int(sample_index),
    }


def cache_key(request: dict) -> str:
    canonical = json.dumps(request, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


def _contains_secret(*texts: str) -> bool:
    return any(secret in text for secret in known_secrets() for text in texts)


def lookup(workspace, key: str) -> Completion | None:
    rows = list(workspace.db.query("SELECT response FROM llm_cache WHERE key = ?", [key]))
    if not rows:
        return None
    stored = json.loads(rows[0]["response"])
    return Completion(**{name: stored[name] for name in STORED_FIELDS}, cached=True)


def store(workspace, key: str, request: dict, completion: Completion) -> bool:
    """Write one entry; refuses (returns False) if any environment secret would end up in the row."""
    from playground.store.values import now, to_json

    request_json = to_json(request)
    response_json = to_json({name: asdict(completion)[name] for name in STORED_FIELDS})
    if _contains_secret(request_json, response_json):
        return False
    with workspace.db.atomic():
        # One statement, not sqlite_utils' upsert: on a connection's first upsert that probes SQLite by creating and
        # dropping a table, a schema change every other connection then reloads (a run's recorder is a new one).
        workspace.db.execute(
            "INSERT INTO llm_cache (key, model, request, response, created_at) VALUES (?, ?, ?, ?, ?)"
            " ON CONFLICT (key) DO UPDATE SET model = excluded.model, request = excluded.request,"
            " response = excluded.response, created_at = excluded.created_at",
            [key, request["model"], request_json, response_json, now()],
        )
    return True


def generate(
    workspace,
    model,
    messages: list[Message],
    params: GenerationParams,
    use_cache: bool = True,
    sample_index: int = 0,
    writer=None,
) -> Completion:
    """Serve from the cache when the same request was answered before, else call the model and store the answer.

    A hit carries the original tokens and latency with cached=True; totals must leave hits out.
    use_cache=False skips the lookup and calls the model; its fresh answer replaces the stored one.
    `writer` (same signature as `store`) writes the entry instead, e.g. a run's one writer thread.
    """
    request = cache_request(model, messages, params, sample_index)
    key = cache_key(request)
    if use_cache:
        hit = lookup(workspace, key)
        if hit is not None:
            return hit
    completion = model.generate(messages, params)
    if not isinstance(completion, Completion):
        raise ModelError(f"{model.spec}: generate returned {type(completion).__name__}, not a Completion")
    (writer or store)(workspace, key, request, completion)
    return completion
