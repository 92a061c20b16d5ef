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

from playground.retrieval.index import build_index
from playground.runs import run_summary
from playground.store import open_workspace
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

PROBE = """
import io, json, sys
from contextlib import redirect_stdout
from playground.cli import main
with redirect_stdout(io.StringIO()) as out:
    code = main(sys.argv[1:])
heavy = sorted({name.split('.')[0] for name in sys.modules if name.split('.')[0] in %r})
print(json.dumps({"code": code, "heavy": heavy, "output": out.getvalue()}))
"""

SCORING_PROBE = """
import json, sys
import playground.runs
from playground.evaluation.scoring import score_prediction
from playground.evaluation.text_metrics import metric_signatures
scores, signatures = score_prediction("It is the Seine.", ["the Seine", "Seine"]), metric_signatures()
heavy = sorted({name.split('.')[0] for name in sys.modules if name.split('.')[0] in %r})
print(json.dumps({"scores": scores, "signatures": signatures, "heavy": heavy}))
""" % (RUN_HEAVY,)


def run_probe(*argv: str, heavy: tuple[str, ...] = HEAVY) -> dict:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    done = subprocess.run(
        [sys.executable, "-c", PROBE % (heavy,), *argv], capture_output=True, text=True, env=env, timeout=180
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_dense_eval_retrieval_imports_no_sentence_transformers_or_pandas(tiny_workspace):
    build_index(tiny_workspace, "tiny", "dense")
    result = run_probe(
        "--db",
        str(tiny_workspace.path),
        "--json",
        "eval-retrieval",
        "--dataset",
        "tiny",
        "--retriever",
        "dense",
        "-k",
        "3",
    )
    assert result["code"] == 0
    assert json.loads(result["output"])["recall@k"] > 0.5  # it really searched
    assert result["heavy"] == []


def test_workspace_commands_import_no_pandas(tiny_workspace):
    result = run_probe(
        "--db", str(tiny_workspace.path), "--json", "retrieve", "--dataset", "tiny", "-k", "2", "capital of France"
    )
    assert result["code"] == 0 and json.loads(result["output"])["hits"][0]["id"] == "p1"
    assert [name for name in result["heavy"] if name in ("pandas", "sentence_transformers")] == []  # bm25s needs scipy


def test_pandas_stays_importable_after_the_store_is_opened():
    code = "import playground.store.db, pandas, sqlite_utils; print(pandas.__name__, sqlite_utils.db.pd)"
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["pandas", "None"]


def test_scoring_a_run_imports_no_rouge_score_nltk_or_scipy():
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    done = subprocess.run([sys.executable, "-c", SCORING_PROBE], capture_output=True, text=True, env=env, timeout=120)
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["scores"]["em"] == 0.0 and result["scores"]["cover_em"] == 1.0
    assert result["scores"]["rougeL"] == 2 * 0.5 * 1.0 / 1.5  # LCS "the seine": 2 of 4 and of 2 tokens
    assert result["signatures"]["rougeL"].startswith("rouge-score:")
    assert result["heavy"] == []


def test_a_direct_run_imports_only_what_it_uses(tiny_workspace):
    server = OpenAIServer().start()
    try:
        result = run_probe(
            "--db",
            str(tiny_workspace.path),
            "--json",
            "run",
            "--dataset",
            "tiny",
            "--program",
            "direct",
            "--model",
            server.spec(),
            "--sample",
            "3",
            "--max-tokens",
            "8",
            heavy=RUN_HEAVY,
        )
    finally:
        server.close()
    assert result["code"] == 0
    summary = json.loads(result["output"])
    assert summary["status"] == "done" and summary["n"] == 3 and {"em", "f1", "rougeL"} <= set(summary["metrics"])
    assert len(server.requests) == 3
    assert result["heavy"] == []


def imported_packages(importtime_log: str) -> set[str]:
    """Top-level names in the lines `python -X importtime` (or PYTHONPROFILEIMPORTTIME=1) writes to stderr."""
    return {match.group(1).split(".")[0] for match in re.finditer(r"^import time:.*\| +(\S+)$", importtime_log, re.M)}


def test_a_detached_runs_worker_imports_only_what_it_uses(tiny_workspace):
    server = OpenAIServer().start()
    env = {**os.environ, "PYTHONPATH": str(REPO), "PYTHONPROFILEIMPORTTIME": "1"}  # reaches the worker too
    try:
        started = subprocess.run(
            [
                sys.executable,
                "-m",
                "playground",
                "--db",
                str(tiny_workspace.path),
                "--json",
                "run",
                "--dataset",
                "tiny",
                "--program",
                "direct",
                "--model",
                server.spec(),
                "--sample",
                "2",
                "--max-tokens",
                "8",
                "--detach",
            ],
            capture_output=True,
            text=True,
            env=env,
            timeout=120,
        )
        assert started.returncode == 0, started.stderr
        run_id = json.loads(started.stdout)["run_id"]
        workspace = open_workspace(tiny_workspace.path, create=False)
        try:
            deadline = time.monotonic() + 120
            while (summary := run_summary(workspace, run_id)).status == "running" and time.monotonic() < deadline:
                time.sleep(0.1)
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
