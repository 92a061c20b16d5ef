"""Heavy things load once per process (st.cache_resource) and show a spinner the first time.

Editing a template reruns the page but never reloads these: their cache keys are the model spec and the
index identity, not the template text.
"""

from __future__ import annotations

import contextlib
import threading
from typing import Iterator, Mapping, Optional

import streamlit as st

from playground.store import Workspace


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
def using_model(spec: str, api_keys: Optional[Mapping[str, str]] = None) -> Iterator[object]:
    """The model for `spec`, held for one call: local models are shared (one call at a time); remote ones are made
    for this call with this browser session's typed key for the provider (else the environment's), with no lock
    and without touching os.environ, so sessions call remote providers concurrently."""
    if is_local(spec):
        loaded = model(spec)
        with model_lock(spec):
            yield loaded
        return
    from playground.models.registry import load_model

    yield load_model(spec, api_key=typed_key(spec, api_keys))


def typed_key(spec: str, api_keys: Optional[Mapping[str, str]]) -> Optional[str]:
    """The typed key for the spec's provider (OPENAI_API_KEY, HF_TOKEN or CO_API_KEY), or None to use the env."""
    from playground.models.registry import key_env_for

    name = key_env_for(spec)
    value = (api_keys or {}).get(name, "") if name else ""
    return value.strip() or None


def retriever(ws: Workspace, corpus: str, kind: str, params_key: tuple = ()):
    """The retriever for (corpus, kind, params); building an index shows progress the first time."""
    return _retriever(str(ws.path), corpus, kind, params_key, _fingerprint(ws, corpus))


def _fingerprint(ws: Workspace, corpus: str) -> str:
    from playground import PlaygroundError
    from playground.store.datasets import get_corpus

    try:
        return get_corpus(ws, corpus)["fingerprint"] or ""
    except PlaygroundError:
        return ""


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
