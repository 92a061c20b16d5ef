"""The Traces page opens a run's question from ?run= and ?question= and shows its spans and waterfall."""

from __future__ import annotations

import json


from playground.store import open_workspace
from playground.store.runs import get_results, get_spans
from tests.app.conftest import html_block, page_test, plain


def test_a_linked_question_shows_every_span_kind_and_the_waterfall(runs_env):
    ws = open_workspace(runs_env["path"])
    result = get_results(ws, runs_env["rag"])[-1]
    spans = get_spans(ws, runs_env["rag"], result["question_id"])
    at = page_test("traces")
    at.query_params["run"] = runs_env["rag"]
    at.query_params["question"] = result["question_id"]
    at.run()
    assert not at.exception, at.exception
    assert at.selectbox(key="traces_run").value == runs_env["rag"]
    assert at.selectbox(key="traces_question").value == f"{result['question_id']}#0"
    titles = [plain(e.label) for e in at.expander]
    assert len(titles) == len(spans)
    for kind in ("program", "retrieve", "render", "generate", "parse"):
        assert any(title.lstrip("│└ ").startswith(f"{kind}:") for title in titles), kind
    # The raw model output and the rendered prompt are shown.
    generate = next(s for s in spans if s["kind"] == "generate")
    codes = [c.value for c in at.code]
    assert generate["outputs"]["text"] in codes
    render = next(s for s in spans if s["kind"] == "render")
    assert render["outputs"]["messages"][-1]["content"] in codes
    # The waterfall has one bar per span.
    figure = json.loads(at.get("plotly_chart")[0].proto.spec)
    assert sum(len(trace["y"]) for trace in figure["data"]) == len(spans)
    assert html_block(at, "pg-answer") == result["prediction"]


def test_a_link_to_a_question_the_run_lacks_warns_and_falls_back(runs_env):
    at = page_test("traces")
    at.query_params["run"] = runs_env["direct"]
    at.query_params["question"] = "no-such-question"
    at.run()
    assert not at.exception, at.exception
    assert any("no-such-question" in plain(w.value) for w in at.warning)
    assert at.selectbox(key="traces_question").value.endswith("#0")


def test_an_unknown_run_in_the_link_is_a_warning_not_a_traceback(runs_env):
    at = page_test("traces")
    at.query_params["run"] = "zzzz"
    at.run()
    assert not at.exception, at.exception
    assert any("zzzz" in w.value for w in at.warning)


def test_the_answers_judgments_show_under_its_trace(private_runs_env):
    from playground.store.judgments import save_judgment

    runs_env = private_runs_env
    ws = open_workspace(runs_env["path"])
    result = get_results(ws, runs_env["rag"])[0]
    save_judgment(
        ws,
        {
            "judge_id": "judge000001",
            "kind": "reference",
            "run_id": runs_env["rag"],
            "question_id": result["question_id"],
            "result_repeat": 0,
            "sample_index": 0,
            "verdict": "true",
            "reason": "the answer names the reference",
        },
        [
            {
                "id": "span-j1",
                "run_id": runs_env["rag"],
                "question_id": result["question_id"],
                "repeat": 0,
                "position": 0,
                "kind": "generate",
                "name": "verdict",
                "inputs": "{}",
                "outputs": json.dumps({"text": "TRUE: it implies the reference"}),
                "duration_s": 0.5,
                "cached": 0,
            }
        ],
    )
    at = page_test("traces")
    at.query_params["run"] = runs_env["rag"]
    at.query_params["question"] = result["question_id"]
    at.run()
    assert not at.exception, at.exception
    assert "Judgments" in [h.value for h in at.subheader]
    assert any(
        plain(e.label).startswith("reference judge judge000001:") and "(true)" in plain(e.label) for e in at.expander
    )
    assert "TRUE: it implies the reference" in [c.value for c in at.code]
