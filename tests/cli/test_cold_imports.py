"""What a command imports: dense retrieval from the CLI must not pull sentence-transformers, pandas or their
heavy dependencies, and a run pays only for what it uses: ROUGE-L without rouge-score's nltk, scipy and scikit-learn
(2 s), no torch, model runtime, retriever or chart library for a `direct` run against an HTTP model, in the command
and in a detached run's worker (seconds of start-up on every command)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest

from playground.runs import run_summary
from playground.store import open_workspace
from playground.store.datasets import save_dataset
from tests.conftest import tiny_dataset
from tests.openai_server import OpenAIServer

REPO = Path(__file__).resolve().parents[2]
HEAVY = ("sentence_transformers", "pandas", "sklearn", "scipy", "sympy")
# Nothing a `direct` run against an HTTP model uses: rouge-score's chain, torch and models, model runtimes, indexes
# (httpx is what it does use: models/bounded_http.py talks to the server through it).
RUN_HEAVY = HEAVY + (
    "rouge_score",
    "nltk",
    "torch",
    "transformers",
    "llama_cpp",
    "cohere",
    "faiss",
    "annoy",
    "bm25s",
    "plotly",
    "streamlit",
)

# One fresh interpreter measures the six cases below in turn (building the dense index is one), each case's heavy
# modules read after it: a cold process costs seconds of CPU, and the cases are ordered so that sharing one loses
# nothing. Each case forbids a subset of what the cases before it forbid (RUN_HEAVY, then HEAVY, then pandas and
# sentence-transformers, then pandas is imported last), and each earlier case is asserted to have imported none of its
# own: so nothing an earlier case imported can hide a later case's forbidden import. A case that fails is recorded with
# its traceback and the next still runs.
PROBE = """
import io, json, sys, traceback
from contextlib import redirect_stdout

def heavy(names):
    return sorted({name.split('.')[0] for name in sys.modules if name.split('.')[0] in names})

results = {}
for case in json.loads(sys.argv[1]):
    try:
        if case["kind"] == "scoring":
            import playground.runs
            from playground.evaluation.scoring import score_prediction
            from playground.evaluation.text_metrics import metric_signatures
            result = {"scores": score_prediction("It is the Seine.", ["the Seine", "Seine"]),
                      "signatures": metric_signatures()}
        elif case["kind"] == "build":  # the dense index the next case searches, built here: no heavy module of its
            from playground.retrieval.index import build_index  # own (asserted), so it hides none of that case's
            from playground.store import open_workspace
            workspace = open_workspace(case["db"], create=False)
            try:
                build_index(workspace, "tiny", "dense")
            finally:
                workspace.close()
            result = {}
        elif case["kind"] == "cli":
            from playground.cli import main
            with redirect_stdout(io.StringIO()) as out:
                code = main(case["argv"])
            result = {"code": code, "output": out.getvalue()}
        else:  # "pandas": importable after the store, and sqlite-utils still sees none
            import playground.store.db, pandas, sqlite_utils
            result = {"names": [pandas.__name__, repr(sqlite_utils.db.pd)]}
        result["heavy"] = heavy(case["heavy"])
    except BaseException:
        result = {"error": traceback.format_exc()}
    results[case["name"]] = result
print(json.dumps(results))
"""


@pytest.fixture(scope="module")
def probed(tmp_path_factory) -> dict:
    """Each case's result in the one probe process: a dense index (built by the probe) and an HTTP model over the
    tiny workspace."""
    db = tmp_path_factory.mktemp("cold-imports") / "sessions" / "playground.db"
    env = {k: v for k, v in os.environ.items() if k not in ("PLAYGROUND_DB", "PLAYGROUND_INDEXES")}
    with pytest.MonkeyPatch.context() as patch:
        for name in ("PLAYGROUND_DB", "PLAYGROUND_INDEXES"):
            patch.delenv(name, raising=False)
        workspace = open_workspace(db)
        try:
            save_dataset(workspace, "tiny", tiny_dataset())
        finally:
            workspace.close()
    on_db = ["--db", str(db), "--json"]
    server = OpenAIServer().start()
    try:
        direct = [*on_db, "run", "--dataset", "tiny", "--program", "direct", "--model", server.spec()]
        cases = [
            {"name": "scoring", "kind": "scoring", "heavy": RUN_HEAVY},
            {"name": "direct", "kind": "cli", "heavy": RUN_HEAVY, "argv": [*direct, "--sample", "3", "--max-tokens", "8"]},
            {"name": "dense-index", "kind": "build", "heavy": HEAVY, "db": str(db)},
            {"name": "dense", "kind": "cli", "heavy": HEAVY,
             "argv": [*on_db, "eval-retrieval", "--dataset", "tiny", "--retriever", "dense", "-k", "3"]},
            {"name": "bm25", "kind": "cli", "heavy": HEAVY,
             "argv": [*on_db, "retrieve", "--dataset", "tiny", "-k", "2", "capital of France"]},
            {"name": "pandas", "kind": "pandas", "heavy": ()},
        ]  # fmt: skip
        done = subprocess.run(
            [sys.executable, "-c", PROBE, json.dumps(cases)],
            capture_output=True,
            text=True,
            env={**env, "PYTHONPATH": str(REPO)},
            timeout=300,
        )
        requests = len(server.requests)
    finally:
        server.close()
    assert done.returncode == 0, done.stderr
    results = json.loads(done.stdout.strip().splitlines()[-1])
    results["direct"]["requests"] = requests
    return results


def case(probed: dict, name: str) -> dict:
    result = probed[name]
    assert "error" not in result, result["error"]
    return result


def test_dense_eval_retrieval_imports_no_sentence_transformers_or_pandas(probed):
    assert case(probed, "dense-index")["heavy"] == []  # built in the probe before it: it hides no import of the search
    result = case(probed, "dense")
    assert result["code"] == 0
    assert json.loads(result["output"])["recall@k"] > 0.5  # it really searched
    assert result["heavy"] == []


def test_workspace_commands_import_no_pandas(probed):
    result = case(probed, "bm25")
    assert result["code"] == 0 and json.loads(result["output"])["hits"][0]["id"] == "p1"
    assert [name for name in result["heavy"] if name in ("pandas", "sentence_transformers")] == []  # bm25s needs scipy


def test_pandas_stays_importable_after_the_store_is_opened(probed):
    assert case(probed, "pandas")["names"] == ["pandas", "None"]


def test_scoring_a_run_imports_no_rouge_score_nltk_or_scipy(probed):
    result = case(probed, "scoring")
    assert result["scores"]["em"] == 0.0 and result["scores"]["cover_em"] == 1.0
    assert result["scores"]["rougeL"] == 2 * 0.5 * 1.0 / 1.5  # LCS "the seine": 2 of 4 and of 2 tokens
    assert result["signatures"]["rougeL"].startswith("rouge-score:")
    assert result["heavy"] == []


def test_a_direct_run_imports_only_what_it_uses(probed):
    result = case(probed, "direct")
    assert result["code"] == 0
    summary = json.loads(result["output"])
    assert summary["status"] == "done" and summary["n"] == 3 and {"em", "f1", "rougeL"} <= set(summary["metrics"])
    assert result["requests"] == 3
    assert result["heavy"] == []


def imported_packages(importtime_log: str) -> set[str]:
    """Top-level names in the lines `python -X importtime` (or PYTHONPROFILEIMPORTTIME=1) writes to stderr."""
    return {match.group(1).split(".")[0] for match in re.finditer(r"^import time:.*\| +(\S+)$", importtime_log, re.M)}


def test_a_detached_runs_worker_imports_only_what_it_uses(tiny_workspace, monkeypatch, capsys):
    """The run is started in this process: its worker is a fresh process all the same, and inherits the setting."""
    from playground.cli import main

    server = OpenAIServer().start()
    monkeypatch.setenv("PYTHONPROFILEIMPORTTIME", "1")  # read at start-up: by the worker, not by this process
    try:
        argv = ["--db", str(tiny_workspace.path), "--json", "run", "--dataset", "tiny", "--program", "direct"]
        code = main([*argv, "--model", server.spec(), "--sample", "2", "--max-tokens", "8", "--detach"])
        started = capsys.readouterr()
        assert code == 0, started.err
        run_id = json.loads(started.out)["run_id"]
        workspace = open_workspace(tiny_workspace.path, create=False)
        try:
            deadline = time.monotonic() + 120
            while (summary := run_summary(workspace, run_id)).status == "running" and time.monotonic() < deadline:
                time.sleep(0.05)
        finally:
            workspace.close()
    finally:
        server.close()
    assert summary.status == "done" and summary.n == 2 and "rougeL" in summary.metrics
    logs = [path for path in tiny_workspace.path.parent.rglob("*.log") if run_id in path.name]
    assert len(logs) == 1, logs
    worker_imports = imported_packages(logs[0].read_text())
    assert "playground" in worker_imports  # the log really holds the worker's imports
    assert sorted(worker_imports & set(RUN_HEAVY)) == []
