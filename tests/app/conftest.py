"""App fixtures: a real workspace file holding the tiny dataset, named by $PLAYGROUND_DB as `playground app` does."""

from __future__ import annotations

import functools
import os
import sqlite3
import time
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from playground.runs.config import RunConfig

APP_DIR = Path(__file__).resolve().parents[2] / "playground" / "app"
ENTRY = APP_DIR / "streamlit_app.py"


def _scan_installed_components_once() -> None:
    """Every new AppTest scans the metadata of every installed distribution for Streamlit components (about 0.2 s of
    CPU, most of a page's first run); a server scans once when it starts and shares what it found with every session.
    The installed packages do not change during a test run: scan once per process, as a server does."""
    from streamlit.components.v2 import manifest_scanner

    scan = manifest_scanner.scan_component_manifests
    if not hasattr(scan, "cache_info"):
        manifest_scanner.scan_component_manifests = functools.lru_cache(maxsize=None)(scan)


_scan_installed_components_once()


@pytest.fixture
def app_workspace(tiny_workspace, monkeypatch):
    """The tiny workspace (6 passages, 6 questions) the app opens; indexes are built beside it in tmp."""
    monkeypatch.setenv("PLAYGROUND_DB", str(tiny_workspace.path))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    return tiny_workspace


def page_path(slug: str) -> str:
    from playground.app.state import page_file

    return str(page_file(slug))


RUN_PARAMS = {"max_tokens": 8}
_BUILT: dict = {}


def run_config(program: str = "direct", **extra) -> RunConfig:
    return RunConfig(dataset="tiny", program=program, params=dict(RUN_PARAMS), sample=3, seed=0, **extra)


def _build_runs_workspace(folder: Path) -> None:
    """The tiny benchmark and the two runs in `folder`/sessions/playground.db (indexes beside it); their ids in
    `folder`/runs.json."""
    import json

    from playground.runs.execute import start_run
    from playground.store import open_workspace
    from playground.store.datasets import save_dataset
    from tests.conftest import tiny_dataset

    ws = open_workspace(folder / "sessions" / "playground.db")
    try:
        save_dataset(ws, "tiny", tiny_dataset())
        direct = start_run(ws, run_config("direct"), label="direct")
        rag = start_run(ws, run_config("rag", retriever="bm25", k=2), label="rag")
    finally:
        ws.close()
    assert direct.status == rag.status == "done"
    (folder / "runs.json").write_text(json.dumps({"direct": direct.run_id, "rag": rag.run_id}), encoding="utf-8")


def runs_workspace(tmp_path_factory) -> dict:
    """{"path", "direct", "rag"}: a workspace with the tiny benchmark and two real local:smollm2 runs (max_tokens 8)
    on the same seeded sample of 3 questions, "direct" and "rag" (bm25, k=2); built once per test run
    (tests.conftest.shared_build), each test process working on a copy of its own."""
    import json
    import shutil

    from tests.conftest import shared_build

    if not _BUILT:
        built = shared_build(tmp_path_factory, "app-runs", _build_runs_workspace)
        root = tmp_path_factory.mktemp("app_runs")
        shutil.copytree(built, root, dirs_exist_ok=True)
        ids = json.loads((root / "runs.json").read_text(encoding="utf-8"))
        _BUILT.update(path=root / "sessions" / "playground.db", direct=ids["direct"], rag=ids["rag"])
    return dict(_BUILT)


def page_test(name: str, timeout: int = 120) -> AppTest:
    return AppTest.from_file(page_path(name), default_timeout=timeout)


@pytest.fixture
def runs_env(tmp_path_factory, monkeypatch):
    """The shared run workspace, opened by the app through $PLAYGROUND_DB (tests must not change it)."""
    built = runs_workspace(tmp_path_factory)
    monkeypatch.setenv("PLAYGROUND_DB", str(built["path"]))
    monkeypatch.delenv("PLAYGROUND_INDEXES", raising=False)
    return built


@pytest.fixture
def private_runs_env(tmp_path_factory, tmp_path, monkeypatch):
    """A private copy (SQLite backup) of the shared run workspace, for tests that add or delete things."""
    built = runs_workspace(tmp_path_factory)
    copy = tmp_path / "sessions" / "playground.db"
    copy.parent.mkdir(parents=True)
    source, target = sqlite3.connect(built["path"]), sqlite3.connect(copy)
    try:
        source.backup(target)
    finally:
        source.close()
        target.close()
    monkeypatch.setenv("PLAYGROUND_DB", str(copy))
    monkeypatch.delenv("PLAYGROUND_INDEXES", raising=False)
    return {**built, "path": copy}


def plain(value: str) -> str:
    """Markdown source as a reader sees it: the backslash escapes of stored text removed."""
    import re

    return re.sub(r"\\(.)", r"\1", value)


def shown_text(at: AppTest) -> str:
    """The text of every st.html block (stored text is shown there, escaped) with the tags dropped."""
    import html
    import re

    return "\n".join(html.unescape(re.sub(r"<style>.*?</style>|<[^>]+>", " ", h.value, flags=re.S)) for h in at.html)


def html_block(at: AppTest, css_class: str) -> str:
    """The text inside the first st.html element of class `css_class` (e.g. "pg-answer", "pg-question")."""
    import html
    import re

    for block in at.html:
        found = re.search(rf"<div class='[^']*\b{re.escape(css_class)}\b[^']*'[^>]*>(.*?)</div>", block.value, re.S)
        if found:
            return html.unescape(found.group(1))
    raise AssertionError(f"no st.html block of class {css_class!r}")


def until_finished(ws, run_ids, limit_s: float = 240.0) -> dict:
    """{run id: run} once none of them is running (their workers end them), as the database has them then."""
    from playground.runs.jobs import checked_run

    deadline = time.monotonic() + limit_s
    while True:
        runs = {run_id: checked_run(ws, run_id) for run_id in run_ids}
        if all(run.status != "running" for run in runs.values()) or time.monotonic() > deadline:
            return runs
        time.sleep(0.05)


def finished_judge_job(ws, run_id: str, limit_s: float = 240.0) -> dict:
    """The one judge job of `run_id` once its worker has ended it, as its record has it then."""
    from playground.runs.judge_jobs import checked_job, list_judge_jobs

    jobs = list_judge_jobs(ws, run_id)
    assert len(jobs) == 1, jobs
    deadline = time.monotonic() + limit_s
    while (job := checked_job(ws, jobs[0]["id"]))["status"] == "running" and time.monotonic() < deadline:
        time.sleep(0.05)
    return job


def assert_detached(ws, run) -> None:
    """The run belongs to a worker process, not to this process (which runs the page script): it is running under
    the worker's pid, or already done, and the worker has its log (a run answered in the page has neither)."""
    from playground.runs.jobs import log_path

    assert run.status in ("running", "done"), run
    if run.status == "running":
        assert run.worker_pid and run.worker_pid != os.getpid(), run
    assert log_path(ws, run.id).exists(), f"run {run.id} has no worker log"


def worker_log(ws, run_id: str) -> str:
    from playground.runs.jobs import log_path

    return log_path(ws, run_id).read_text()
