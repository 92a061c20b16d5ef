"""Heavy things load once per process (st.cache_resource) and show a spinner the first time.

Editing a template reruns the page but never reloads these: their cache keys are the model spec and the
index identity, not the template text.
"""

from __future__ import annotations

import contextlib
import os
import threading
from typing import Iterator, Mapping, Optional

import streamlit as st

from playground.store import Workspace

_remote_env_lock = threading.Lock()


@st.cache_resource(show_spinner="Loading the model (once per process)...")
def model(spec: str):
    from playground.models.registry import load_model

    return load_model(spec)


@st.cache_resource
def model_lock(spec: str) -> threading.Lock:
    """llama.cpp contexts are not safe to share between concurrent browser sessions: one call at a time per model."""
    return threading.Lock()


def is_local(spec: str) -> bool:
    return spec.strip().startswith("local:")


@contextlib.contextmanager
def _typed_keys_in_env(keys: Mapping[str, str]) -> Iterator[None]:
    """The typed keys in os.environ only while the caller holds _remote_env_lock, then the environment as it was.

    The providers read keys from the environment when a model is made, and the response cache and redaction
    check the environment's secrets; holding the lock for the whole call keeps one browser session's keys from
    being seen by another session's call.
    """
    saved = {name: os.environ.get(name) for name in keys}
    try:
        for name, value in keys.items():
            os.environ[name] = value
        yield
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


@contextlib.contextmanager
def using_model(spec: str, api_keys: Optional[Mapping[str, str]] = None) -> Iterator[object]:
    """The model for `spec`, held for one call: local models are shared (one call at a time), remote ones are made
    for this call with this browser session's typed keys (else the environment's)."""
    if is_local(spec):
        loaded = model(spec)
        with model_lock(spec):
            yield loaded
        return
    from playground.models.registry import load_model

    typed = {name: value for name, value in (api_keys or {}).items() if value}
    with _remote_env_lock, _typed_keys_in_env(typed):
        yield load_model(spec)


def retriever(ws: Workspace, corpus: str, kind: str, params_key: tuple = ()):
    """The retriever for (corpus, kind, params); building an index shows progress the first time."""
    return _retriever(str(ws.path), corpus, kind, params_key, _fingerprint(ws, corpus))


def _fingerprint(ws: Workspace, corpus: str) -> str:
    row = next(ws.db.query("SELECT fingerprint FROM corpora WHERE name = ?", [corpus]), None)
    return row["fingerprint"] if row else ""


@st.cache_resource(show_spinner="Loading the index (built once, then reused)...")
def _retriever(db_path: str, corpus: str, kind: str, params_key: tuple, fingerprint: str):
    from playground.retrieval.index import open_retriever
    from playground.store import open_workspace

    ws = open_workspace(db_path)
    bar = st.progress(0.0, text=f"Preparing {kind} over {corpus}")

    def on_progress(done: int, total: int, message: str = "") -> None:
        bar.progress(min(1.0, done / total) if total else 0.0, text=message or f"{kind}: {done}/{total}")

    try:
        return open_retriever(ws, corpus, kind, dict(params_key) or None, on_progress=on_progress)
    finally:
        bar.empty()
        ws.close()
