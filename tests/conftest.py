"""Shared fixtures: a real SQLite workspace in a temporary folder, and a small real dataset in it."""

from __future__ import annotations

import copy
import json
import os
import shutil
from pathlib import Path

import pytest

from playground.data.records import Choice, Dataset, Passage, Question
from playground.store import open_workspace
from playground.store.datasets import save_dataset

SHARED_DATASETS = Path(__file__).resolve().parents[2] / "shared" / "datasets"

# The suite runs one xdist worker per core, so every core is already busy: a local model taking every core in each
# test process and in each run worker it starts would fight the others for them (llama.cpp's threads spin at every
# barrier; measured: a side-by-side browser test's run workers used 3.5 times the CPU). Tests of the default unset it.
os.environ.setdefault("PLAYGROUND_THREADS", "1")


def shared_dataset(*parts: str) -> Path:
    """A file under ../shared/datasets, or a skip with the reason when that folder is absent."""
    path = SHARED_DATASETS.joinpath(*parts)
    if not path.exists():
        pytest.skip(f"{path} is absent (real benchmark files live in ../shared/datasets beside the clone)")
    return path


@pytest.fixture
def workspace(empty_workspace_file, tmp_path, monkeypatch):
    """The workspace at tmp_path/sessions/playground.db; where no fixture of the test made it first, a copy of a new
    one made once per test process, which differs from a file made here only in when its migrations were recorded
    (each new file runs and commits every one)."""
    monkeypatch.delenv("PLAYGROUND_DB", raising=False)
    monkeypatch.delenv("PLAYGROUND_INDEXES", raising=False)
    path = tmp_path / "sessions" / "playground.db"
    if not path.exists():
        copied_file(empty_workspace_file, path)
    ws = open_workspace(path)
    yield ws
    ws.close()


@pytest.fixture(scope="session")
def empty_workspace_file(tmp_path_factory) -> Path:
    """A closed new workspace file, made once per test process."""
    path = tmp_path_factory.mktemp("empty-workspace-file") / "playground.db"
    open_workspace(path).close()
    return path


TINY_PASSAGES = [
    Passage("p1", "Paris", "Paris is the capital and largest city of France, on the river Seine."),
    Passage("p2", "Berlin", "Berlin is the capital of Germany and its largest city by population."),
    Passage("p3", "Madrid", "Madrid is the capital of Spain; the Prado museum is in Madrid."),
    Passage("p4", "Seine", "The Seine is a river in northern France that flows through Paris to the English Channel."),
    Passage("p5", "Python", "Python is a programming language created by Guido van Rossum and first released in 1991."),
    Passage("p6", "Rhine", "The Rhine flows from the Swiss Alps through Germany and the Netherlands to the North Sea."),
]

TINY_QUESTIONS = [
    Question("q1", "What is the capital of France?", ["Paris"], ["p1"], tags={"type": "city"}),
    Question("q2", "What is the capital of Germany?", ["Berlin"], ["p2"], tags={"type": "city"}),
    Question("q3", "Which river flows through Paris?", ["the Seine", "Seine"], ["p4"], tags={"type": "river"}),
    Question(
        "q4", "Who created the Python programming language?", ["Guido van Rossum"], ["p5"], tags={"type": "person"}
    ),
    Question("q5", "Where does the Rhine flow into?", ["the North Sea"], ["p6"], tags={"type": "river"}),
    Question(
        "q6",
        "In which city is the Prado museum?",
        ["Madrid"],
        ["p3"],
        tags={"type": "city"},
        choices=[Choice("A", "Paris"), Choice("B", "Madrid"), Choice("C", "Berlin"), Choice("D", "Rome")],
    ),
]


def tiny_dataset() -> Dataset:
    return Dataset(
        format="jsonl",
        source="tests/conftest.py",
        passages=copy.deepcopy(TINY_PASSAGES),
        questions=copy.deepcopy(TINY_QUESTIONS),
    )


@pytest.fixture(scope="session")
def smollm2():
    """The real local model, loaded once per process (programs, sweeps and judges share it)."""
    from playground.models.registry import load_model

    return load_model("local:smollm2")


@pytest.fixture
def tiny_workspace(workspace):
    """A workspace holding corpus and benchmark `tiny` (6 passages, 6 questions with gold passages)."""
    save_dataset(workspace, "tiny", tiny_dataset())
    return workspace


def workspace_file(path: Path, name: str, dataset: Dataset) -> Path:
    """A closed workspace file at `path` holding `dataset` as `name`, for fixtures that make it once and copy it:
    making a workspace runs (and commits) every migration, copying the file does not."""
    made = open_workspace(path)
    save_dataset(made, name, dataset)
    made.close()
    return path


def copied_file(source: Path, destination: Path) -> str:
    """A copy of a made-once workspace file at `destination` (its folder made), as the path string the CLI takes."""
    destination.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(source, destination)
    return str(destination)


@pytest.fixture(scope="session")
def tiny_workspace_file(tmp_path_factory) -> Path:
    """A closed workspace file holding `tiny`, made once per test process."""
    return workspace_file(tmp_path_factory.mktemp("tiny-workspace-file") / "playground.db", "tiny", tiny_dataset())


@pytest.fixture
def copied_tiny_workspace(tiny_workspace_file, tmp_path, monkeypatch):
    """What `tiny_workspace` gives (the same file at the same place), copied from tiny_workspace_file: for tests that
    need no workspace of their own making (its ids are the same in every copy)."""
    monkeypatch.delenv("PLAYGROUND_DB", raising=False)
    monkeypatch.delenv("PLAYGROUND_INDEXES", raising=False)
    path = tmp_path / "sessions" / "playground.db"
    made_here = path.exists()  # the test asked for `workspace` first: that one gets `tiny` as tiny_workspace does
    if not made_here:
        copied_file(tiny_workspace_file, path)
    ws = open_workspace(path)
    if made_here:
        save_dataset(ws, "tiny", tiny_dataset())
    yield ws
    ws.close()


def xdist_group_of(item) -> str:
    """The pytest-xdist group a test runs in (`make test` distributes with --dist loadgroup): its module, so a
    module's fixtures are built once; what every worker needs (the demo workspace) is built once per run, see
    shared_build."""
    return item.nodeid.split("::", 1)[0]


def shared_build(tmp_path_factory, name: str, build) -> Path:
    """A folder `build(folder)` fills once for the whole test run, whichever xdist worker asks first (the others
    wait on a file lock, then reuse it); without xdist, once per session."""
    from filelock import FileLock

    base = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        base = base.parent  # the folder every worker's basetemp sits in
    folder, done = base / name, base / f"{name}.done"
    with FileLock(str(base / f"{name}.lock")):
        if not done.exists():
            shutil.rmtree(folder, ignore_errors=True)
            folder.mkdir(parents=True)
            build(folder)
            done.touch()
    return folder


DEMO_BUILD_PROGRESS = "build-progress.json"


def built_demo(tmp_path_factory) -> Path:
    """The folder (sessions/, indexes/) of the demo workspace with its default indexes, built by
    ensure_demo_workspace once per test run and shared by the xdist workers: embedding the demo's chunks is the
    suite's costliest build. The progress calls the build reported are in its DEMO_BUILD_PROGRESS file."""

    def build(folder: Path) -> None:
        from playground.demo_workspace import ensure_demo_workspace

        calls: list = []
        saved = {name: os.environ.pop(name) for name in ("PLAYGROUND_DB", "PLAYGROUND_INDEXES") if name in os.environ}
        try:
            ensure_demo_workspace(folder / "sessions" / "playground.db", on_progress=lambda *a: calls.append(a)).close()
        finally:
            os.environ.update(saved)
        (folder / DEMO_BUILD_PROGRESS).write_text(json.dumps(calls), encoding="utf-8")

    return shared_build(tmp_path_factory, "demo-built", build)


@pytest.hookimpl(tryfirst=True)  # before pytest-xdist reads the groups into the node ids
def pytest_collection_modifyitems(items) -> None:
    """The app's page tests launch real runs of the local model: they belong to the slow tier, not `make check`.
    Each test gets its xdist group unless it names one."""
    app_tests = Path(__file__).resolve().parent / "app"
    for item in items:
        if app_tests in Path(str(item.fspath)).resolve().parents:
            item.add_marker(pytest.mark.slow)
        if not item.get_closest_marker("xdist_group"):
            item.add_marker(pytest.mark.xdist_group(xdist_group_of(item)))
