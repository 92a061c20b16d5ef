"""`playground eval experiment.toml`: the variants run as runs tagged with the file's digest, the comparison is
printed, the same file again is served from the stored runs (no model call), an unfinished variant is resumed,
and a malformed file is one line naming the file's line and the key."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys

import pytest

import playground.cli as cli
from playground.demo_workspace import build_demo_indexes, ensure_demo_workspace
from playground.store import runs as run_store
from tests.openai_server import OpenAIServer

EXPERIMENT = """\
benchmark = "demo"
sample = 10
seed = 4
metrics = ["em", "f1"]

[variants.closed]
program = "direct"
template = "direct-short-answer"
model = "{model}"
params = {{ max_tokens = 16 }}

[variants.retrieving]
program = "rag"
template = "rag-short-answer"
retriever = "bm25"
k = 3
model = "{model}"
params = {{ max_tokens = 16 }}
"""


@pytest.fixture(scope="module")
def demo_folder(tmp_path_factory):
    """The demo workspace with its BM25 index (sessions/, indexes/), made once for the module; tests copy it."""
    folder = tmp_path_factory.mktemp("demo-bm25")
    with pytest.MonkeyPatch.context() as patch:
        patch.delenv("PLAYGROUND_DB", raising=False)
        patch.setenv("PLAYGROUND_INDEXES", str(folder / "indexes"))
        workspace = ensure_demo_workspace(folder / "sessions" / "demo.db", build_indexes=False)
        build_demo_indexes(workspace, kinds=("bm25",))
        workspace.close()
    return folder


@pytest.fixture
def demo_db(demo_folder, tmp_path, monkeypatch):
    monkeypatch.delenv("PLAYGROUND_DB", raising=False)
    monkeypatch.setenv("PLAYGROUND_INDEXES", str(tmp_path / "indexes"))
    for part in ("sessions", "indexes"):
        shutil.copytree(demo_folder / part, tmp_path / part)
    return tmp_path / "sessions" / "demo.db"


def eval_json(capsys, db, file) -> dict:
    assert cli.main(["eval", str(file), "--db", str(db), "--json"]) == 0
    return json.loads(capsys.readouterr().out)


@pytest.mark.slow
def test_two_variants_on_the_demo_run_compare_and_come_back_from_the_stored_runs(demo_db, tmp_path, capsys):
    server = OpenAIServer().start()
    try:
        file = tmp_path / "experiment.toml"
        file.write_text(EXPERIMENT.format(model=server.spec()), encoding="utf-8")
        assert cli.main(["eval", str(file), "--db", str(demo_db)]) == 0
        first = capsys.readouterr().out
        calls = len(server.requests)
        again = eval_json(capsys, demo_db, file)
        assert len(server.requests) == calls  # no model call the second time
    finally:
        server.close()
    assert calls == 20
    assert "closed: run" in first and "retrieving: run" in first and "ran" in first
    assert "retrieving against closed:" in first and "B-A" in first and "\nem " in first
    assert "B differs in program" in first
    assert again["model_seconds"] == 0.0
    assert [run["reused"] for run in again["variants"]] == [True, True]
    assert again["comparisons"][0]["report"]["n"] == 10
    workspace = cli_workspace(demo_db)
    try:
        tags = [run_store.get_run(workspace, run["run_id"]).config["experiment"] for run in again["variants"]]
    finally:
        workspace.close()
    assert {tag["variant"] for tag in tags} == {"closed", "retrieving"}
    assert {tag["digest"] for tag in tags} == {again["digest"]} and len(again["digest"]) == 64


def cli_workspace(db):
    from playground.store import open_workspace

    return open_workspace(db, create=False)


@pytest.mark.slow
def test_an_unfinished_variant_is_resumed_and_a_changed_file_runs_anew(demo_db, tmp_path, capsys):
    server = OpenAIServer().start()
    try:
        file = tmp_path / "experiment.toml"
        file.write_text(EXPERIMENT.format(model=server.spec()), encoding="utf-8")
        first = eval_json(capsys, demo_db, file)
        closed, retrieving = (run["run_id"] for run in first["variants"])
        killed = subprocess.Popen([sys.executable, "-c", "pass"])
        killed.wait()  # a pid no process has: the worker of a run left `running` by a killed process
        workspace = cli_workspace(demo_db)
        try:
            for run_id in (closed, retrieving):
                kept = sorted(run_store.run_question_ids(workspace, run_id))[:6]
                marks = ",".join("?" * len(kept))
                workspace.db.execute(
                    f"DELETE FROM results WHERE run_id = ? AND question_id NOT IN ({marks})", [run_id, *kept]
                )
            workspace.db.conn.commit()
            run_store.set_run_status(workspace, closed, "stopped", "stopped by a test")
            workspace.db.execute(
                "UPDATE runs SET status = 'running', worker_pid = ? WHERE id = ?", [killed.pid, retrieving]
            )
            workspace.db.conn.commit()
        finally:
            workspace.close()
        resumed = eval_json(capsys, demo_db, file)
        file.write_text(EXPERIMENT.format(model=server.spec()).replace("sample = 10", "sample = 9"), encoding="utf-8")
        changed = eval_json(capsys, demo_db, file)
    finally:
        server.close()
    for run, run_id in zip(resumed["variants"], (closed, retrieving)):
        assert run["run_id"] == run_id and run["resumed"] and run["status"] == "done" and run["n"] == 10
    assert all(not run["reused"] for run in changed["variants"])
    assert changed["digest"] != first["digest"]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            'benchmark = "demo"\n\n[variants.a]\nprogram = "direct"\n\n[variants.b]\ntempalte = "x"\n',
            ":7: variants.b.tempalte: unknown key",
        ),
        ('benchmark = "demo"\n[variants.a]\nk = "five"\n', ":3: variants.a.k: must be a whole number, not str"),
        (
            'benchmark = "demo"\n[variants.a]\nparams = { temperatur = 1 }\n',
            ":3: variants.a.params.temperatur: unknown key",
        ),
        ('benchmark = "demo"\n[variants.a]\nk = 99999\n', ":3: variants.a.k: k must be between"),
        ('benchmark = "demo"\nsampel = 3\n[variants.a]\n', ":2: sampel: unknown key"),
        ('benchmark = "demo"\n[variants.a]\nmodel = "nosuch:thing"\n', ":3: variants.a.model:"),
        ('benchmark = "demo"\n[variants.a]\nk = = 3\n', ":3: k: Invalid value"),
        ("sample = 3\n[variants.a]\n", ":1: benchmark: missing"),
        ('benchmark = "demo"\njudges = ["fairness"]\n[variants.a]\n', ":2: judges: no judge 'fairness'"),
        ('benchmark = "demo"\njudge_model = "x"\n[variants.a]\n', ":2: judge_model:"),
        (
            'benchmark = "demo"\n[variants.a]\n[[comparisons]]\nbaseline = "a"\ncandidate = "z"\n',
            ":5: comparisons.candidate: 'z' is no variant",
        ),
    ],
)
def test_a_malformed_experiment_file_is_one_line_naming_the_line_and_key(tmp_path, capsys, text, expected):
    file = tmp_path / "bad.toml"
    file.write_text(text, encoding="utf-8")
    db = tmp_path / "w.db"
    assert cli.main(["eval", str(file), "--db", str(db)]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith(f"error: {file}"), err
    assert expected in err, err


def test_the_documented_experiment_file_reads_and_its_documented_error_is_what_a_typo_gives(tmp_path, capsys):
    import re
    from pathlib import Path

    from playground.runs.experiment_files import read_experiment

    doc = (Path(__file__).resolve().parents[2] / "docs" / "ci.md").read_text(encoding="utf-8")
    text = re.search(r"```toml\n(.*?)```", doc, re.S).group(1)
    file = tmp_path / "experiment.toml"
    file.write_text(text, encoding="utf-8")
    experiment = read_experiment(file)
    assert list(experiment.variants) == ["prod", "shorter"] and experiment.comparisons == [("prod", "shorter")]
    assert experiment.variants["shorter"].config.options == {"self_consistency": 3}
    documented = re.search(r"```text\n(error: experiment\.toml:.*?) \(known", doc).group(1)
    file.write_text(text.replace('template = "templates/shorter.jinja"', 'tempalte = "templates/shorter.jinja"'))
    assert cli.main(["eval", str(file), "--db", str(tmp_path / "w.db")]) == 1
    assert capsys.readouterr().err.replace(str(tmp_path) + "/", "").startswith(documented)


@pytest.mark.slow
def test_the_files_judges_score_every_variant_and_the_comparison_holds_their_metric(workspace, tmp_path, capsys):
    from tests.evaluation.judges.graded_server import GradedJudgeServer
    from tests.runs.planted_models import PlantedModels, gold, planted_benchmark

    ids = planted_benchmark(workspace, 20)
    models = {name: {qid: f"{gold(qid)} grade {grade}" for qid in ids} for name, grade in (("a", 2), ("b", 4))}
    server, judge = PlantedModels(models).start(), GradedJudgeServer()
    try:
        file = tmp_path / "judged.toml"
        file.write_text(
            f'benchmark = "planted"\njudges = ["answer-relevance"]\njudge_model = "{judge.spec()}"\n'
            f'metrics = ["answer_relevance"]\n[variants.a]\nmodel = "{server.spec("a")}"\n'
            f'[variants.b]\nmodel = "{server.spec("b")}"\n',
            encoding="utf-8",
        )
        result = eval_json(capsys, workspace.path, file)
    finally:
        server.close()
        judge.close()
    row = result["comparisons"][0]["report"]["metrics"]["answer_relevance"]
    assert row["n"] == 20 and row["mean_a"] == pytest.approx(0.25) and row["mean_b"] == pytest.approx(0.75)
