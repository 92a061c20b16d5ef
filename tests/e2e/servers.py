"""What the end-to-end tests serve: app servers over workspaces built here with real runs, and a beacon server.

A workspace with runs is built with the real local model (local:smollm2, max_tokens 8, 3 questions per run), so
the pages show stored runs, traces and results as a person's workspace would.
"""

from __future__ import annotations

import dataclasses
import json
import os
import shutil
import threading
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Iterator, Optional

from playground.app.launch import streamlit_command

from tests.e2e.conftest import STARTUP_SECONDS
from tests.openai_server import SHUTDOWN_POLL_S
from tests.processes import free_port, served

RUN_PARAMS = {"max_tokens": 8}


class Beacon:
    """A local HTTP server that records every request it gets (a tracking pixel's host, in a test)."""

    def __init__(self) -> None:
        self.requests: list[str] = []
        beacon = self

        class Handler(BaseHTTPRequestHandler):
            disable_nagle_algorithm = True  # as real servers do (tests/openai_server.py says why)

            def do_GET(self) -> None:  # noqa: N802 - http.server's name
                beacon.requests.append(self.path)
                self.send_response(200)
                self.send_header("Content-Type", "image/png")
                self.end_headers()

            def log_message(self, *args) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", free_port()), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, args=(SHUTDOWN_POLL_S,), daemon=True)
        self.thread.start()

    def markdown(self, what: str) -> str:
        """Markdown that would make a browser fetch from this server, and a live link, if rendered as Markdown."""
        return f" ![{what}]({self.url}/{what}.png) [click]({self.url}/{what}-link)"

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def tiny_with(suffix: Optional[callable] = None):
    """The tiny dataset; with `suffix(kind)` appended to every question, answer, passage title and text."""
    from tests.conftest import tiny_dataset

    dataset = tiny_dataset()
    if suffix is None:
        return dataset
    dataset.passages = [
        dataclasses.replace(p, title=p.title + suffix("title"), text=p.text + suffix("passage"))
        for p in dataset.passages
    ]
    dataset.questions = [
        dataclasses.replace(q, text=q.text + suffix("question"), answers=[a + suffix("answer") for a in q.answers])
        for q in dataset.questions
    ]
    return dataset


def build_runs_workspace(db: Path, beacon: Optional[Beacon] = None) -> dict:
    """The tiny benchmark and two real runs ("direct" and "rag", bm25 k=2) on the same 3 questions.

    With a beacon, every stored text carries its Markdown: questions, answers, passages, run labels, and (through a
    session export edited and imported again, as a shared file would arrive) predictions and a session name.
    """
    from playground.runs.config import RunConfig
    from playground.runs.execute import start_run
    from playground.store import open_workspace
    from playground.store.datasets import save_dataset
    from playground.sessionfile import export_session, import_session, records_digest
    from playground.store.sessions import current_session, use_session

    suffix = beacon.markdown if beacon else None
    ws = open_workspace(db)
    try:
        save_dataset(ws, "tiny", tiny_with(suffix))
        label = (lambda name: name + suffix("label")) if suffix else (lambda name: name)
        direct = start_run(
            ws,
            RunConfig(dataset="tiny", program="direct", params=dict(RUN_PARAMS), sample=3, seed=0),
            label=label("direct"),
        )
        rag = start_run(
            ws,
            RunConfig(dataset="tiny", program="rag", retriever="bm25", k=2, params=dict(RUN_PARAMS), sample=3, seed=0),
            label=label("rag"),
        )
        assert direct.status == rag.status == "done"
        built = {"db": db, "direct": direct.run_id, "rag": rag.run_id, "session": current_session(ws)["id"]}
        if beacon:
            payload = export_session(ws, built["session"])
            for result in payload["results"]:
                result["prediction"] = (result.get("prediction") or "") + suffix("prediction")
            payload["session"]["name"] = "shared" + suffix("session")
            payload["digest"] = records_digest(payload)  # edited after export, as a hostile sharer would
            imported = import_session(ws, payload)
            use_session(ws, imported)
            runs = {
                r["label"]: r["id"] for r in ws.db.query("SELECT id, label FROM runs WHERE session_id = ?", [imported])
            }
            built.update(session=imported, direct=runs[label("direct")], rag=runs[label("rag")])
        return built
    finally:
        ws.close()


def shared_runs_workspace(tmp_path_factory, root: Path) -> dict:
    """build_runs_workspace's workspace (no beacon) copied under `root` (sessions/, indexes/): built once per test run
    for every xdist worker (tests.conftest.shared_build), as the local model answers the same way each time."""
    from tests.conftest import shared_build

    def build(folder: Path) -> None:
        built = build_runs_workspace(folder / "sessions" / "playground.db")
        ids = {key: value for key, value in built.items() if key != "db"}
        (folder / "built.json").write_text(json.dumps(ids), encoding="utf-8")

    folder = shared_build(tmp_path_factory, "e2e-runs-built", build)
    shutil.copytree(folder, root, dirs_exist_ok=True)
    return dict(json.loads((root / "built.json").read_text(encoding="utf-8")), db=root / "sessions" / "playground.db")


@contextmanager
def app_server(db: Path, log: Path, extra_env: Optional[dict] = None, cwd: Optional[Path] = None) -> Iterator[str]:
    """`streamlit run` (as `playground app` does) over `db` on a free port, from `cwd` (default the workspace's
    folder); yields its base URL."""
    port = free_port()
    env = {key: value for key, value in os.environ.items() if key not in ("PLAYGROUND_INDEXES",)}
    env.update(PLAYGROUND_DB=str(db), HF_HUB_OFFLINE="1", PYTHONUNBUFFERED="1", **(extra_env or {}))
    url = f"http://127.0.0.1:{port}"
    with served(
        "streamlit",
        streamlit_command(db, port=port),
        f"{url}/_stcore/health",
        log,
        STARTUP_SECONDS,
        env=env,
        cwd=cwd or db.parent,
    ):
        yield url


@contextmanager
def cli_app_server(db: Path, log: Path, cwd: Path) -> Iterator[str]:
    """`playground app --db DB` as a person types it in `cwd` (no $PLAYGROUND_DB, _INDEXES or _MODELS); yields its
    base URL."""
    import sys

    port = free_port()
    repo = Path(__file__).resolve().parents[2]
    places = ("PLAYGROUND_DB", "PLAYGROUND_INDEXES", "PLAYGROUND_MODELS")
    env = {key: value for key, value in os.environ.items() if key not in places}
    env.update(PYTHONPATH=str(repo), HF_HUB_OFFLINE="1", PYTHONUNBUFFERED="1")
    url = f"http://127.0.0.1:{port}"
    command = [sys.executable, "-m", "playground", "app", "--db", str(db), "--port", str(port)]
    with served("playground app", command, f"{url}/_stcore/health", log, STARTUP_SECONDS, env=env, cwd=cwd):
        yield url
