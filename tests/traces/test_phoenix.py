"""A run's traces in a real Phoenix started on 127.0.0.1, and Phoenix's own span exports imported back as a
benchmark whose questions run and compare with production's answers."""

from __future__ import annotations

import json
import time

import pytest

from playground.cli import main
from playground.store.datasets import load_questions
from playground.store.runs import get_results
from tests.openai_server import OpenAIServer
from tests.traces.phoenix_server import PhoenixServer
from tests.traces.stored_runs import ANSWERS, stored_rag_run

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def phoenix(tmp_path_factory):
    server = PhoenixServer(tmp_path_factory.mktemp("phoenix")).start()
    yield server
    server.close()


def test_spans_of_a_run_appear_in_phoenix_with_their_attributes(phoenix, workspace, capsys):
    run_id = stored_rag_run(workspace)
    db = str(workspace.path)
    for _ in range(2):  # a second export sends the same ids: Phoenix keeps one copy
        assert main(["trace", "export", run_id, "--otlp", phoenix.url, "--project", "shown", "--db", db]) == 0
    assert "exported 15 spans of 3 traces" in capsys.readouterr().out
    spans = phoenix.wait_for_spans("shown", 15)
    time.sleep(0.5)  # a duplicate would be stored by now: Phoenix's bulk inserter looks for spans every 0.1 s
    spans = phoenix.spans("shown")
    assert len(spans) == 15 and len({s["context"]["trace_id"] for s in spans}) == 3
    assert sorted(s["span_kind"] for s in spans) == sorted(
        ["CHAIN"] * 6 + ["RETRIEVER"] * 3 + ["PROMPT"] * 3 + ["LLM"] * 3
    )
    root = next(s for s in spans if s["name"] == "rag" and s["attributes"]["playground.question_id"] == "q1")
    assert root["parent_id"] is None
    assert root["attributes"]["input.value"] == "What is the capital of France?"
    assert root["attributes"]["output.value"] == "Paris"
    children = {s["name"]: s for s in spans if s["parent_id"] == root["context"]["span_id"]}
    assert set(children) == {"retrieve", "render", "generate", "parse"}
    documents = children["retrieve"]["attributes"]
    assert documents["retrieval.documents.0.document.content"].startswith("Paris is the capital")
    llm = children["generate"]["attributes"]
    assert llm["llm.model_name"] == "small" and llm["llm.token_count.prompt"] == 30
    assert llm["llm.input_messages.1.message.content"].startswith("What is the capital of France?")
    assert llm["llm.prompt_template.template"] == "rag-short-answer"


def test_a_phoenix_export_becomes_a_benchmark_that_runs_and_compares(phoenix, workspace, tmp_path, capsys):
    run_id = stored_rag_run(workspace)
    db = str(workspace.path)
    assert main(["trace", "export", run_id, "--otlp", phoenix.url, "--project", "live", "--db", db]) == 0
    records = tmp_path / "live.jsonl"
    spans = phoenix.wait_for_spans("live", 15)
    records.write_text("".join(json.dumps(s) + "\n" for s in spans), encoding="utf-8")
    parquet = tmp_path / "live.parquet"
    phoenix.dataframe_export("live", parquet)
    capsys.readouterr()
    for name, path in (("from-records", records), ("from-frame", parquet)):
        assert main(["data", "import", "traces", str(path), "--name", name, "--db", db, "--json"]) == 0
        summary = json.loads(capsys.readouterr().out)
        assert (summary["questions"], summary["passages"], summary["model"]) == (3, 3, "small"), name
        questions = {q.id: q for q in load_questions(workspace, name)}
        assert {qid: q.answers for qid, q in questions.items()} == {qid: [a] for qid, (_, a) in ANSWERS.items()}
        answers = {r["question_id"]: r["prediction"] for r in get_results(workspace, summary["run_id"])}
        assert answers == {qid: a for qid, (_, a) in ANSWERS.items()}
    reference = summary["run_id"]
    server = OpenAIServer().start()
    try:
        argv = ["run", "--db", db, "--dataset", "from-frame", "--program", "rag", "--retriever", "bm25", "-k", "2"]
        assert main([*argv, "--model", server.spec(), "--max-tokens", "8", "--json"]) == 0
    finally:
        server.close()
    candidate = json.loads(capsys.readouterr().out)
    assert candidate["n"] == 3 and candidate["errors"] == 0
    assert main(["compare", reference, candidate["run_id"], "--db", db, "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["n"] == 3 and report["metrics"]["em"]["mean_a"] == pytest.approx(1.0)
