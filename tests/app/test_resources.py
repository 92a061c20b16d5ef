"""resources.using_model: remote models get this browser session's typed key, with no env change and no global lock."""

from __future__ import annotations

import os
from pathlib import Path
import threading
import uuid

from playground.app import resources
from playground.models.base import GenerationParams
from tests.models.conftest import CohereStub

MESSAGES = [{"role": "user", "content": "Capital of France?"}]


def test_typed_keys_go_to_their_provider_only():
    keys = {"OPENAI_API_KEY": "sk-typed-openai", "HF_TOKEN": "hf-typed-token", "CO_API_KEY": "co-typed-key"}
    assert resources.typed_key("openai:m@http://127.0.0.1:1/v1", keys) == "sk-typed-openai"
    assert resources.typed_key("hf:org/model", keys) == "hf-typed-token"
    assert resources.typed_key("cohere:command-r", keys) == "co-typed-key"
    assert resources.typed_key("cohere:command-r", {"OPENAI_API_KEY": "sk-typed-openai"}) is None
    assert resources.typed_key("local:smollm2", keys) is None


def test_concurrent_sessions_use_their_own_keys_without_touching_the_environment(monkeypatch):
    stub = CohereStub()
    monkeypatch.setenv("CO_API_URL", stub.url)
    monkeypatch.delenv("CO_API_KEY", raising=False)
    keys = [f"co-session-{i}-{uuid.uuid4().hex}" for i in range(2)]
    both_inside = threading.Barrier(2, timeout=30)  # a process-wide lock around remote calls would break this
    errors: list[BaseException] = []

    def session(key: str) -> None:
        try:
            with resources.using_model("cohere:command-r", {"CO_API_KEY": key}) as model:
                both_inside.wait()
                assert "CO_API_KEY" not in os.environ
                model.generate(MESSAGES, GenerationParams(max_tokens=4))
        except BaseException as error:  # noqa: BLE001 - reported by the main thread
            errors.append(error)

    threads = [threading.Thread(target=session, args=(key,)) for key in keys]
    try:
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(60)
    finally:
        stub.close()
    assert not errors, errors
    assert sorted(r["headers"]["Authorization"] for r in stub.requests) == sorted(f"Bearer {k}" for k in keys)
    assert "CO_API_KEY" not in os.environ


def test_the_app_s_db_is_where_indexes_go_and_nothing_lands_in_the_current_folder(tmp_path, monkeypatch):
    """`streamlit run streamlit_app.py -- --db PATH` from another folder: the retriever's index is written beside
    PATH and the local model's derived file in the user cache, never under the current folder."""
    import sys

    from streamlit.testing.v1 import AppTest

    from playground.store import open_workspace
    from playground.store.datasets import save_dataset
    from tests.app.conftest import ENTRY
    from tests.conftest import tiny_dataset

    db = tmp_path / "elsewhere" / "ws.db"
    ws = open_workspace(db)
    save_dataset(ws, "tiny", tiny_dataset())
    cwd = tmp_path / "cwd"
    cwd.mkdir()
    monkeypatch.chdir(cwd)
    for name in ("PLAYGROUND_DB", "PLAYGROUND_INDEXES", "PLAYGROUND_MODELS"):
        monkeypatch.delenv(name, raising=False)
    from playground.models.local_files import models_dir

    cache = models_dir()
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setattr(sys, "argv", [str(ENTRY), "--db", str(db)])
    at = AppTest.from_file(str(ENTRY), default_timeout=60).run()
    assert not at.exception, at.exception
    resources.model.clear()  # a model loaded by an earlier test would hide where this one's file goes
    try:
        loaded = resources.model("local:smollm2")
        index = resources.retriever(ws, "tiny", "bm25")
    finally:
        resources.model.clear()
        ws.close()
    beside = tmp_path / "elsewhere" / "indexes"
    assert Path(loaded.path).parent == cache and not str(cache).startswith(str(cwd))
    assert Path(index.manifest["path"]).parent == beside / "tiny"
    assert not (cwd / "indexes").exists() and not list(cwd.rglob("*"))
