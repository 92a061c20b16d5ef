"""`playground data import traces`: exported spans (OTLP/JSON, Phoenix's span records) back in as a benchmark, a
corpus of the passages retrieved, and production's answers as a reference run."""

from __future__ import annotations

import json

import pytest

from playground.cli import main
from playground.store.datasets import get_benchmark, get_passages, load_questions
from playground.store.runs import get_results, get_run, get_spans, list_runs
from tests.openai_server import OpenAIServer
from tests.traces.stored_runs import ANSWERS, stored_rag_run


def exported_file(workspace, tmp_path) -> tuple[str, str]:
    run_id = stored_rag_run(workspace)
    out = tmp_path / "spans.jsonl"
    assert main(["trace", "export", run_id, "-o", str(out), "--db", str(workspace.path)]) == 0
    return run_id, str(out)


def test_an_exported_run_comes_back_as_benchmark_corpus_and_reference_run(workspace, tmp_path, capsys):
    run_id, path = exported_file(workspace, tmp_path)
    capsys.readouterr()
    assert main(["data", "import", "traces", path, "--name", "prod", "--db", str(workspace.path), "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert (summary["questions"], summary["passages"], summary["model"]) == (3, 3, "small")

    questions = {q.id: q for q in load_questions(workspace, "prod")}
    assert list(questions) == list(ANSWERS)
    assert questions["q1"].text == "What is the capital of France?"
    assert questions["q3"].answers == ["the Seine"] and questions["q3"].metadata["answer_source"] == "production"
    assert get_benchmark(workspace, "prod")["corpus"] == "prod"
    shown = questions["q3"].metadata["retrieved_passage_ids"]
    passages = get_passages(workspace, "prod", shown)
    assert [passages[pid].title for pid in shown] == ["Seine", "Paris"]  # p1 shown twice, stored once
    assert questions["q1"].metadata["retrieved_passage_ids"] == list(reversed(shown))

    reference = get_run(workspace, summary["run_id"])
    assert reference.config["program"] == "production" and reference.config["model"] == "small"
    assert reference.status == "done" and reference.metrics["em"] == pytest.approx(1.0)
    results = {r["question_id"]: r for r in get_results(workspace, reference.id)}
    assert {qid: r["prediction"] for qid, r in results.items()} == {qid: a for qid, (_, a) in ANSWERS.items()}
    assert results["q4"]["prompt_tokens"] == 32 and results["q4"]["latency_s"] > 0
    spans = get_spans(workspace, reference.id, "q1")
    assert [s["kind"] for s in spans] == ["program", "retrieve", "render", "generate", "parse"]
    assert spans[3]["inputs"]["messages"][1]["role"] == "user" and spans[3]["outputs"]["text"] == "Paris"
    assert get_spans(workspace, run_id, "q1")[0]["started_at"] == spans[0]["started_at"]
    assert main(["trace", reference.id, "q1", "--db", str(workspace.path)]) == 0
    assert "retrieve" in capsys.readouterr().out


def test_phoenix_span_records_import_like_otlp(workspace, tmp_path, capsys):
    """The shape Phoenix's client and REST API give (`get_spans`): context ids, span_kind, flat attributes."""
    records = [
        {
            "name": "query",
            "context": {"trace_id": "aa" * 16, "span_id": "01" * 8},
            "span_kind": "CHAIN",
            "parent_id": None,
            "start_time": "2026-11-01T10:00:00+00:00",
            "end_time": "2026-11-01T10:00:02.5+00:00",
            "status_code": "OK",
            "attributes": {"input.value": json.dumps({"question": "Wo liegt Köln?"}), "output.value": "Am Rhein"},
        },
        {
            "name": "retrieve",
            "context": {"trace_id": "aa" * 16, "span_id": "02" * 8},
            "span_kind": "RETRIEVER",
            "parent_id": "01" * 8,
            "start_time": "2026-11-01T10:00:00.1+00:00",
            "end_time": "2026-11-01T10:00:00.2+00:00",
            "attributes": {
                "retrieval": {"documents": [{"document": {"content": "Köln liegt am Rhein.", "id": "d9"}}]},
            },
        },
        {
            "name": "ChatCompletion",
            "context": {"trace_id": "aa" * 16, "span_id": "03" * 8},
            "span_kind": "LLM",
            "parent_id": "01" * 8,
            "start_time": "2026-11-01T10:00:00.3+00:00",
            "end_time": "2026-11-01T10:00:02.4+00:00",
            "attributes": {"llm.model_name": "gpt-4o-mini", "llm.token_count.prompt": 12},
        },
        {
            "name": "health check",
            "context": {"trace_id": "bb" * 16, "span_id": "04" * 8},
            "span_kind": "CHAIN",
            "parent_id": None,
            "attributes": {},
        },
    ]
    path = tmp_path / "phoenix.json"
    path.write_text(json.dumps({"data": records}), encoding="utf-8")
    assert main(["data", "import", "traces", str(path), "--name", "live", "--db", str(workspace.path)]) == 0
    out = capsys.readouterr().out
    assert "1 questions" in out and "1 traces without an input question left out" in out and "gpt-4o-mini" in out
    (question,) = load_questions(workspace, "live")
    assert (question.id, question.text, question.answers) == ("aa" * 16, "Wo liegt Köln?", ["Am Rhein"])
    (passage,) = get_passages(workspace, "live", question.metadata["retrieved_passage_ids"]).values()
    assert passage.text == "Köln liegt am Rhein." and passage.metadata["source_id"] == "d9"
    (result,) = get_results(workspace, list_runs(workspace)[0].id)
    assert result["latency_s"] == pytest.approx(2.5) and result["prompt_tokens"] == 12


@pytest.mark.parametrize(
    "text, where",
    [
        ('{"resourceSpans": []}\n{"resourceSpans": [\n', "line 2"),
        (
            '{"resourceSpans": [{"scopeSpans": [{"spans": [{"spanId": "0102030405060708"}]}]}]}\n',
            "span 0102030405060708",
        ),
        ('[{"context": {"trace_id": "ab"}, "name": "x"}]', "span has no span id"),
        ('{"resourceSpans": []}\n', "no spans found"),
        (
            '{"resourceSpans": [{"scopeSpans": [{"spans": [{"traceId": "ab", "spanId": "cd", '
            '"startTimeUnixNano": "soon"}]}]}]}\n',
            "line 1, span cd: unreadable time",
        ),
        ('[{"context": {"trace_id": "ab", "span_id": "ef"}, "start_time": 1e30}]', "span ef: unreadable time"),
    ],
)
def test_malformed_spans_are_one_line_and_store_nothing(workspace, tmp_path, capsys, text, where):
    stored_rag_run(workspace)
    runs_before = len(list_runs(workspace))
    path = tmp_path / "bad.jsonl"
    path.write_text(text, encoding="utf-8")
    assert main(["data", "import", "traces", str(path), "--name", "bad", "--db", str(workspace.path)]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and str(path) in err and where in err
    assert len(list_runs(workspace)) == runs_before
    assert not list(workspace.db.query("SELECT name FROM benchmarks WHERE name = 'bad'"))


def test_a_failure_while_storing_leaves_nothing(workspace, tmp_path, capsys):
    _, path = exported_file(workspace, tmp_path)
    assert main(["data", "import", "traces", path, "--name", "tiny", "--db", str(workspace.path)]) == 1
    assert "exists" in capsys.readouterr().err
    assert len(list_runs(workspace)) == 1  # the exported run only: no reference run without its benchmark


@pytest.mark.slow
def test_the_imported_questions_run_and_compare_with_production(workspace, tmp_path, capsys):
    _, path = exported_file(workspace, tmp_path)
    db = str(workspace.path)
    capsys.readouterr()
    assert main(["data", "import", "traces", path, "--name", "prod", "--db", db, "--json"]) == 0
    reference = json.loads(capsys.readouterr().out)["run_id"]
    server = OpenAIServer().start()
    try:
        argv = ["run", "--db", db, "--dataset", "prod", "--program", "rag", "--retriever", "bm25", "-k", "2"]
        assert main([*argv, "--model", server.spec(), "--max-tokens", "8", "--json"]) == 0
    finally:
        server.close()
    candidate = json.loads(capsys.readouterr().out)
    assert candidate["n"] == 3 and candidate["errors"] == 0
    assert main(["compare", reference, candidate["run_id"], "--db", db, "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["n"] == 3 and report["metrics"]["em"]["mean_a"] == pytest.approx(1.0)
    assert 0.0 <= report["metrics"]["em"]["mean_b"] <= 1.0


def test_the_traces_importer_is_registered_like_the_other_formats(workspace, tmp_path):
    from playground.data.importers import importer_names, read_dataset

    _, path = exported_file(workspace, tmp_path)
    assert "traces" in importer_names()
    dataset = read_dataset("traces", path)
    assert [q.id for q in dataset.questions] == list(ANSWERS) and len(dataset.passages) == 3
