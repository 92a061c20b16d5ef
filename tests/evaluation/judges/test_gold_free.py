"""The gold-free judges against a real local HTTP server playing the answering model and the judge: planted answers
with an unsupported, a contradicted and an uncited claim get the expected verdicts and scores; a judge that replies
prose or answers too late gives recorded errors left out of the means; the passages are the render span's."""

from __future__ import annotations

import pytest

from playground.evaluation.judges.answers import judge_answers
from playground.evaluation.judges.judge_config import JudgeConfig
from playground.models.base import GenerationParams
from playground.runs import RunConfig, start_run
from playground.store.judgments import get_judge_spans, list_judgments
from tests.evaluation.judges.gold_free_server import JudgeServer

QUESTIONS = ["q1", "q2", "q3", "q4"]


@pytest.fixture
def server():
    running = JudgeServer()
    yield running
    running.close()


def rag_run(workspace, server, questions=QUESTIONS) -> str:
    config = RunConfig(
        dataset="tiny",
        program="rag",
        templates={"main": "rag-citations"},
        retriever="bm25",
        k=2,
        model=server.spec("answerer"),
        params=GenerationParams(max_tokens=64),
        question_ids=list(questions),
    )
    return start_run(workspace, config).run_id


def judge(workspace, kind, run_id, server, **settings):
    config = JudgeConfig(model=server.spec("judge"), params=GenerationParams(max_tokens=256))
    return judge_answers(workspace, kind, run_id, config, **settings)


def by_question(report) -> dict:
    return {item["question_id"]: item for item in report["items"]}


def test_faithfulness_verdicts_scores_and_claim_spans(tiny_workspace, server):
    run_id = rag_run(tiny_workspace, server)
    report = judge(tiny_workspace, "faithfulness", run_id, server)
    items = by_question(report)
    q1, q2, q3, q4 = (items[q] for q in QUESTIONS)
    assert [(c["claim"], c["verdict"]) for c in q1["details"]["claims"]] == [
        ("Paris is the capital of France.", "supported"),
        ("Paris has ten million people.", "not found"),
    ]
    contradicted = q2["details"]["claims"][1]
    assert contradicted["verdict"] == "contradicted" and contradicted["passage_id"] == "p2"
    assert q1["score"]["mean"] == q2["score"]["mean"] == 0.5 and q3["score"]["mean"] == 1.0
    assert q4["verdicts"] == ["no claims"] and q4["score"]["mean"] is None and q4["details"]["no_claims"]
    assert report["metrics"]["faithfulness"]["mean"] == pytest.approx(2 / 3)  # q4 is marked, not scored
    assert report["n_failed"] == 0 and report["n_unscored"] == 1
    (stored,) = list_judgments(tiny_workspace, run_id=run_id, kind="faithfulness", question_id="q2")
    spans = get_judge_spans(tiny_workspace, stored["id"])
    claims = [span for span in spans if span["kind"] == "claim"]
    assert [span["outputs"]["verdict"] for span in claims] == ["supported", "contradicted"]
    assert claims[1]["inputs"]["claim"] == "Berlin is the smallest city of Germany."
    assert stored["details"]["passages_from"] == "trace"


def test_no_claims_scores_as_configured(tiny_workspace, server):
    run_id = rag_run(tiny_workspace, server, ["q4"])
    report = judge(tiny_workspace, "faithfulness", run_id, server, no_claims="1")
    (item,) = report["items"]
    assert item["score"]["mean"] == 1.0 and item["details"]["no_claims"] and item["verdicts"] == ["no claims"]


def test_faithfulness_reads_the_render_span_not_the_changed_index(tiny_workspace, server):
    run_id = rag_run(tiny_workspace, server, ["q1", "q2"])
    before = judge(tiny_workspace, "faithfulness", run_id, server)
    db = tiny_workspace.db
    with db.atomic():  # the corpus and its index change after the run: Paris and Berlin now say something else
        db.execute("UPDATE passages SET title = 'Rome', text = 'Rome is the capital of Italy.' WHERE id = 'p1'")
        db.execute("UPDATE passages SET title = 'Oslo', text = 'Oslo is the capital of Norway.' WHERE id = 'p2'")
    server.prompts.clear()
    after = judge(tiny_workspace, "faithfulness", run_id, server, use_cache=False)
    assert [i["score"] for i in after["items"]] == [i["score"] for i in before["items"]]
    assert after["metrics"]["faithfulness"]["mean"] == before["metrics"]["faithfulness"]["mean"] == 0.5
    claim_prompts = [p for p in server.prompts if "Claim: " in p]
    assert claim_prompts and all("Rome" not in p and "Oslo" not in p for p in claim_prompts)


def test_context_precision_and_the_judges_recall_against_gold(tiny_workspace, server):
    run_id = rag_run(tiny_workspace, server, ["q1", "q3"])
    report = judge(tiny_workspace, "context-precision", run_id, server)
    items = by_question(report)
    for item in items.values():
        verdicts = item["details"]["passages"]
        relevant = [v["relevant"] for v in verdicts]
        assert len(verdicts) == 2 and item["score"]["mean"] == sum(relevant) / 2
        first = relevant.index(True) + 1 if any(relevant) else None
        expected_ap = 0.0 if first is None else (1.0 if relevant == [True, True] else 1 / first)
        assert item["details"]["metrics"]["context_precision_ranked"] == pytest.approx(expected_ap)
    gold = report["against_gold"]
    assert gold["questions"] == 2 and gold["gold_shown"] >= 1
    assert gold["judge_recall"] == gold["gold_judged_relevant"] / gold["gold_shown"]


def test_citations_flag_uncited_unsupported_and_unshown(tiny_workspace, server):
    run_id = rag_run(tiny_workspace, server, ["q1", "q2", "q3"])
    report = judge(tiny_workspace, "citations", run_id, server)
    items = by_question(report)
    q1, q2, q3 = items["q1"]["details"], items["q2"]["details"], items["q3"]["details"]
    assert q1["uncited"] == 1 and items["q1"]["score"]["mean"] == 0.5
    assert q1["metrics"]["citation_precision"] == 1.0
    assert [s["supported"] for s in q2["sentences"]] == [True, False] and q2["metrics"]["citation_precision"] == 0.5
    assert q3["out_of_range"] == [7] and q3["metrics"]["citation_recall"] == 0.0
    assert q3["metrics"]["citation_precision"] == 0.0


def test_answer_relevance_is_graded_with_a_reason(tiny_workspace, server):
    run_id = rag_run(tiny_workspace, server, ["q1", "q4"])
    items = by_question(judge(tiny_workspace, "answer-relevance", run_id, server))
    assert items["q1"]["score"]["mean"] == 1.0 and items["q4"]["score"]["mean"] == 0.0
    assert items["q1"]["reasons"] == ["graded"]


def test_prose_and_timeouts_are_recorded_errors_left_out_of_the_mean(tiny_workspace):
    server = JudgeServer(prose=("Berlin is the capital",), slow=("Seine flows",), delay_s=3.0)
    try:
        run_id = rag_run(tiny_workspace, server, ["q1", "q2", "q3"])
        report = judge(tiny_workspace, "faithfulness", run_id, server, deadline_s=1.0)
    finally:
        server.close()
    errors = {e["question_id"]: e["error"] for e in report["errors"]}
    assert set(errors) == {"q2", "q3"} and report["n_failed"] == 2
    assert "I think this answer is mostly fine" in errors["q2"]
    assert "time" in errors["q3"].lower() or "deadline" in errors["q3"].lower()
    assert report["metrics"]["faithfulness"]["mean"] == 0.5  # q1 alone: never a 0 or a default for the others
    stored = {j["question_id"]: j for j in list_judgments(tiny_workspace, run_id=run_id, kind="faithfulness")}
    assert stored["q2"]["score"] is None and stored["q3"]["score"] is None and stored["q2"]["error"]
