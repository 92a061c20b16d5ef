"""What a command imports: dense retrieval from the CLI must not pull sentence-transformers, pandas or their
heavy dependencies (seconds of start-up on every command)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from playground.retrieval.index import build_index

REPO = Path(__file__).resolve().parents[2]
HEAVY = ("sentence_transformers", "pandas", "sklearn", "scipy", "sympy")

PROBE = """
import io, json, sys
from contextlib import redirect_stdout
from playground.cli import main
with redirect_stdout(io.StringIO()) as out:
    code = main(sys.argv[1:])
heavy = sorted({name.split('.')[0] for name in sys.modules if name.split('.')[0] in %r})
print(json.dumps({"code": code, "heavy": heavy, "output": out.getvalue()}))
""" % (HEAVY,)


def run_probe(*argv: str) -> dict:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    done = subprocess.run([sys.executable, "-c", PROBE, *argv], capture_output=True, text=True, env=env, timeout=180)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_dense_eval_retrieval_imports_no_sentence_transformers_or_pandas(tiny_workspace):
    build_index(tiny_workspace, "tiny", "dense")
    result = run_probe("--db", str(tiny_workspace.path), "--json", "eval-retrieval", "--dataset", "tiny",
                       "--retriever", "dense", "-k", "3")
    assert result["code"] == 0
    assert json.loads(result["output"])["recall@k"] > 0.5  # it really searched
    assert result["heavy"] == []


def test_workspace_commands_import_no_pandas(tiny_workspace):
    result = run_probe("--db", str(tiny_workspace.path), "--json", "retrieve", "--dataset", "tiny", "-k", "2",
                       "capital of France")
    assert result["code"] == 0 and json.loads(result["output"])["hits"][0]["id"] == "p1"
    assert [name for name in result["heavy"] if name in ("pandas", "sentence_transformers")] == []  # bm25s needs scipy


def test_pandas_stays_importable_after_the_store_is_opened():
    code = "import playground.store.db, pandas, sqlite_utils; print(pandas.__name__, sqlite_utils.db.pd)"
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["pandas", "None"]
