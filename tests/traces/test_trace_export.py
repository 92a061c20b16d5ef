"""`playground trace export`: a stored run's spans as OpenTelemetry spans with OpenInference attributes, written as
OTLP/JSON or sent to a real OTLP/HTTP receiver on 127.0.0.1."""

from __future__ import annotations

import json
import socket

import pytest

from playground.cli import main
from playground.store.runs import get_spans
from tests.traces.otlp_receiver import OTLPReceiver
from tests.traces.stored_runs import ANSWERS, stored_rag_run


def exported(path) -> list[dict]:
    """The spans of an OTLP/JSON lines file, each with its attributes as a plain dict."""
    spans = []
    for line in path.read_text(encoding="utf-8").splitlines():
        for resource_spans in json.loads(line)["resourceSpans"]:
            resource = {a["key"]: a["value"] for a in resource_spans["resource"]["attributes"]}
            for scope_spans in resource_spans["scopeSpans"]:
                for span in scope_spans["spans"]:
                    values = {a["key"]: next(iter(a["value"].values())) for a in span.get("attributes", [])}
                    spans.append({**span, "attributes": values, "resource": resource})
    return spans


def test_each_question_is_one_trace_with_openinference_spans(workspace, tmp_path, capsys):
    run_id = stored_rag_run(workspace)
    out = tmp_path / "spans.jsonl"
    assert main(["trace", "export", run_id, "-o", str(out), "--db", str(workspace.path)]) == 0
    assert "exported 15 spans of 3 traces" in capsys.readouterr().out
    spans = exported(out)
    assert len({span["traceId"] for span in spans}) == len(ANSWERS) == 3
    assert all(len(span["traceId"]) == 32 and len(span["spanId"]) == 16 for span in spans)
    assert spans[0]["resource"]["openinference.project.name"]["stringValue"] == "playground"
    by_kind = {}
    for span in spans:
        by_kind.setdefault(span["attributes"]["openinference.span.kind"], []).append(span)
    assert {kind: len(found) for kind, found in by_kind.items()} == {"CHAIN": 6, "RETRIEVER": 3, "PROMPT": 3, "LLM": 3}

    root = next(s for s in spans if s["name"] == "rag" and s["attributes"]["playground.question_id"] == "q1")
    assert "parentSpanId" not in root
    assert root["attributes"]["input.value"] == "What is the capital of France?"
    assert root["attributes"]["output.value"] == "Paris"
    children = [s for s in spans if s.get("parentSpanId") == root["spanId"]]
    assert [s["name"] for s in children] == ["retrieve", "render", "generate", "parse"]
    assert all(s["traceId"] == root["traceId"] for s in children)

    retrieve, _, generate, _ = children
    documents = retrieve["attributes"]
    assert documents["retrieval.documents.0.document.id"] == "p1"
    assert documents["retrieval.documents.0.document.content"].startswith("Paris is the capital")
    assert documents["retrieval.documents.1.document.content"].startswith("The Seine is a river")
    assert documents["retrieval.documents.0.document.score"] == pytest.approx(1.0)
    llm = generate["attributes"]
    assert llm["llm.model_name"] == "small" and llm["gen_ai.request.model"].startswith("openai:small@")
    assert llm["llm.input_messages.1.message.role"] == "user"
    assert llm["llm.input_messages.1.message.content"].startswith("What is the capital of France?")
    assert llm["llm.output_messages.0.message.content"] == "Paris"
    assert (llm["llm.token_count.prompt"], llm["llm.token_count.completion"], llm["llm.token_count.total"]) == (
        "30",
        "2",
        "32",
    )
    assert llm["llm.prompt_template.template"] == "rag-short-answer"
    assert llm["llm.prompt_template.version"] == "v-1"

    stored = get_spans(workspace, run_id, "q1")
    assert root["startTimeUnixNano"] == str(nanoseconds(stored[0]["started_at"]))
    assert int(root["endTimeUnixNano"]) - int(root["startTimeUnixNano"]) == int(stored[0]["duration_s"] * 1e9)


def nanoseconds(stamp: str) -> int:
    import datetime

    moment = datetime.datetime.fromisoformat(stamp)
    return int(moment.timestamp()) * 1_000_000_000 + moment.microsecond * 1000


def test_a_second_export_is_the_same_file(workspace, tmp_path):
    run_id = stored_rag_run(workspace)
    first, second = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    assert main(["trace", "export", run_id, "-o", str(first), "--db", str(workspace.path)]) == 0
    assert main(["trace", "export", run_id[:6], "-o", str(second), "--db", str(workspace.path)]) == 0
    assert first.read_bytes() == second.read_bytes()


def test_a_secret_known_at_export_never_leaves(workspace, tmp_path, monkeypatch):
    secret = "sk-planted-9f8e7d6c5b4a"
    run_id = stored_rag_run(workspace, secret=secret)  # stored before the key was known: the store kept it
    assert any(secret in json.dumps(span) for span in get_spans(workspace, run_id, "q1"))
    monkeypatch.setenv("OPENAI_API_KEY", secret)
    out = tmp_path / "spans.jsonl"
    assert main(["trace", "export", run_id, "-o", str(out), "--db", str(workspace.path)]) == 0
    text = out.read_text(encoding="utf-8")
    assert secret not in text and "[redacted]" in text


@pytest.mark.slow
def test_spans_reach_an_otlp_http_receiver_as_protobuf(workspace, capsys):
    run_id = stored_rag_run(workspace)
    with OTLPReceiver() as receiver:
        assert main(["trace", "export", run_id, "--otlp", receiver.url, "--db", str(workspace.path)]) == 0
    assert f"to {receiver.url}/v1/traces" in capsys.readouterr().out
    assert receiver.content_types == ["application/x-protobuf"]
    spans = receiver.spans()
    assert len(spans) == 15 and len({span.trace_id for span in spans}) == 3
    kinds = {a.key: a.value.string_value for span in spans for a in span.attributes if a.key.endswith("span.kind")}
    assert kinds == {"openinference.span.kind": kinds["openinference.span.kind"]}
    llm = next(span for span in spans if span.name == "generate")
    attributes = {a.key: a.value for a in llm.attributes}
    assert attributes["openinference.span.kind"].string_value == "LLM"
    assert attributes["llm.token_count.prompt"].int_value == 30


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def test_an_endpoint_that_refuses_is_one_line(workspace, capsys):
    run_id = stored_rag_run(workspace)
    url = f"http://127.0.0.1:{free_port()}"
    assert main(["trace", "export", run_id, "--otlp", url, "--timeout", "1", "--db", str(workspace.path)]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"could not send spans to {url}/v1/traces" in err and "refused" in err


@pytest.mark.parametrize(
    "argv, problem",
    [
        ([], "needs exactly one of --otlp URL and -o FILE"),
        (["--otlp", "http://127.0.0.1:9", "-o", "x.jsonl"], "needs exactly one of"),
        (["--otlp", "ftp://127.0.0.1:9"], "needs an http:// or https:// URL"),
        (["-o", "x.jsonl", "--timeout", "3"], "--timeout only applies"),
    ],
)
def test_usage_errors_are_one_line(workspace, capsys, argv, problem):
    run_id = stored_rag_run(workspace)
    assert main(["trace", "export", run_id, *argv, "--db", str(workspace.path)]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and problem in err


def test_a_missing_run_or_question_id_is_named(workspace, capsys):
    run_id = stored_rag_run(workspace)
    assert main(["trace", "export", "-o", "x.jsonl", "--db", str(workspace.path)]) == 1
    assert "`trace export` needs the RUN_ID" in capsys.readouterr().err
    assert main(["trace", run_id, "--db", str(workspace.path)]) == 1
    assert "needs the question's id" in capsys.readouterr().err


def test_a_judgment_is_an_evaluator_span_under_the_answer(workspace, tmp_path):
    from playground.programs.tracing import Tracer
    from playground.store.judgments import save_judge, save_judgment

    run_id = stored_rag_run(workspace)
    save_judge(workspace, "judge-1", "pointwise", "openai:judge@http://127.0.0.1:9/v1", "f", {}, {}, {})
    tracer = Tracer()
    with tracer.span("judge", "pointwise", {"answer": "Paris"}) as judge:
        with tracer.span("generate", "generate", {"model": "judge", "messages": [], "params": {}}) as call:
            call.outputs = {"text": '{"score": 5}', "model_id": "judge"}
        judge.outputs = {"score": 5}
    judgment = {"judge_id": "judge-1", "kind": "pointwise", "run_id": run_id, "question_id": "q1", "score": 1.0}
    judgment.update(result_repeat=0, sample_index=0)
    save_judgment(workspace, judgment, tracer.rows(run_id, "q1"))
    out = tmp_path / "spans.jsonl"
    assert main(["trace", "export", run_id, "-o", str(out), "--db", str(workspace.path)]) == 0
    spans = exported(out)
    root = next(s for s in spans if s["name"] == "rag" and s["attributes"]["playground.question_id"] == "q1")
    evaluator = next(s for s in spans if s["attributes"]["openinference.span.kind"] == "EVALUATOR")
    assert evaluator["parentSpanId"] == root["spanId"] and evaluator["traceId"] == root["traceId"]
    assert evaluator["attributes"]["playground.judgment.judge_id"] == "judge-1"
    assert evaluator["attributes"]["playground.judgment.score"] == pytest.approx(1.0)
    (inner,) = [s for s in spans if s.get("parentSpanId") == evaluator["spanId"]]
    assert inner["attributes"]["openinference.span.kind"] == "LLM" and inner["attributes"]["llm.model_name"] == "judge"
    assert len(spans) == 17
