"""The one comparison of runs: repeats averaged per question, three-way comparisons Holm-adjusted, every interval
naming its method, resamples and seed; answer runs and retrieval runs compare the same way."""

from __future__ import annotations

import json

import pytest

from playground import PlaygroundError
from playground.evaluation.compare import (
    compare_runs,
    compare_scores,
    describe_interval,
    holm,
    question_scores,
)
from playground.evaluation.stats import compare_paired
from playground.store.values import now
from playground.store.runs import create_run, save_result


def test_holm_matches_the_step_down_definition():
    # sorted p: 0.01, 0.02, 0.04 -> 3*0.01=0.03, max(0.03, 2*0.02=0.04)=0.04, max(0.04, 1*0.04)=0.04
    assert holm([0.04, 0.01, 0.02]) == pytest.approx([0.04, 0.03, 0.04])
    assert holm([0.5, None, 0.6]) == [pytest.approx(1.0), None, pytest.approx(1.0)]
    assert holm([0.3, 0.6]) == pytest.approx([0.6, 0.6])  # 2*0.3=0.6; max(0.6, 0.6)
    assert holm([0.9]) == [0.9]


def test_repeats_are_averaged_per_question_not_counted_as_questions():
    results = [
        {"question_id": "q1", "repeat": 0, "scores": {"em": 1.0}, "error": None},
        {"question_id": "q1", "repeat": 1, "scores": {"em": 0.0}, "error": None},
        {"question_id": "q2", "repeat": 0, "scores": {}, "error": "ModelError: down"},
        {"question_id": "q2", "repeat": 1, "scores": {"em": 1.0}, "error": None},
        {"question_id": "q3", "repeat": 0, "scores": {}, "error": "ModelError: down"},
    ]
    scores, failed, repeats = question_scores(results)
    assert scores == {"q1": {"em": 0.5}, "q2": {"em": 1.0}}
    assert failed == ["q3"] and repeats == 2


def test_three_variants_are_compared_with_the_baseline_and_holm_adjusted():
    a = {f"q{i}": {"em": float(i % 2)} for i in range(12)}
    b = {f"q{i}": {"em": 1.0} for i in range(12)}
    c = {f"q{i}": {"em": float(i % 3 == 0)} for i in range(12)}
    report = compare_scores([a, b, c], seed=3, n_resamples=500)
    assert report["p_adjustment"] == "holm" and report["n"] == 12
    raw = [compare_paired(a, other, seed=3, n_resamples=500)["metrics"]["em"]["p_value"] for other in (b, c)]
    adjusted = [comparison["em"]["p_holm"] for comparison in report["comparisons"]]
    assert adjusted == pytest.approx(holm(raw))
    assert adjusted[0] > raw[0] or adjusted[0] == 1.0
    assert report["interval"] == {
        "method": "paired percentile bootstrap over questions",
        "level": 0.95,
        "resamples": 500,
        "seed": 3,
    }
    assert (
        describe_interval(report["interval"])
        == "95% intervals: paired percentile bootstrap over questions, 500 resamples, seed 3"
    )
    two = compare_scores([a, b])
    assert two["p_adjustment"] is None and "p_holm" not in two["comparisons"][0]["em"]


def _run(ws, scores_by_repeat: dict[int, dict[str, float]], label: str) -> str:
    run_id = create_run(ws, {"dataset": "tiny", "program": "direct", "model": "local:smollm2", "label": label}, None)
    for repeat, scores in scores_by_repeat.items():
        for position, (qid, em) in enumerate(scores.items()):
            save_result(
                ws,
                {
                    "run_id": run_id,
                    "question_id": qid,
                    "repeat": repeat,
                    "position": position,
                    "prediction": "x",
                    "output": "x",
                    "scores": {"em": em, "f1": em / 2},
                    "error": None,
                    "prompt_tokens": 0,
                    "completion_tokens": 0,
                    "latency_s": 0.0,
                    "cached": 0,
                    "created_at": now(),
                },
                [],
            )
    ws.db.execute("UPDATE runs SET status = 'done' WHERE id = ?", [run_id])
    return run_id


def test_compare_runs_of_answer_runs_refuses_mixed_kinds_and_same_run(tiny_workspace):
    from playground.evaluation.retrieval import evaluate_retriever

    ws = tiny_workspace
    first = _run(ws, {0: {"q1": 1.0, "q2": 0.0}}, "a")
    second = _run(ws, {0: {"q1": 1.0, "q2": 1.0}}, "b")
    report = compare_runs(ws, [first, second], seed=1, n_resamples=300)
    assert report["kind"] == "answer" and report["metrics"]["em"]["diff"] == pytest.approx(0.5)
    assert report["interval"]["resamples"] == 300 and report["interval"]["seed"] == 1
    stored = evaluate_retriever(ws, "tiny", "bm25", 2, None, 0, store=True)
    with pytest.raises(PlaygroundError, match="cannot compare answer runs with retrieval runs"):
        compare_runs(ws, [first, stored["run_id"]])
    with pytest.raises(PlaygroundError, match="same run"):
        compare_runs(ws, [first, first[:6]])


def test_only_metrics_every_run_scored_are_compared(tiny_workspace):
    ws = tiny_workspace
    first = _run(ws, {0: {"q1": 1.0, "q2": 0.0}}, "a")
    second = create_run(ws, {"dataset": "tiny", "program": "direct"}, None)
    for position, qid in enumerate(("q1", "q2")):
        save_result(
            ws,
            {
                "run_id": second,
                "question_id": qid,
                "repeat": 0,
                "position": position,
                "prediction": "x",
                "output": "x",
                "scores": {"em": 1.0, "retrieval_recall": 0.5},
                "error": None,
                "prompt_tokens": 0,
                "completion_tokens": 0,
                "latency_s": 0.0,
                "cached": 0,
                "created_at": now(),
            },
            [],
        )
    assert list(compare_runs(ws, [first, second])["metrics"]) == ["em"]  # f1 and retrieval_recall: one run only
    assert compare_scores([{"q1": {"a": 1.0}}, {"q1": {"b": 1.0}}], metrics=[])["comparisons"] == [{}]


def test_runs_scored_under_different_answer_definitions_are_compared_with_a_warning(tiny_workspace):
    from playground.evaluation.answer_rules import AnswerRule, answer_signatures

    ws = tiny_workspace
    squad, chinese = _run(ws, {0: {"q1": 1.0, "q2": 0.0}}, "a"), _run(ws, {0: {"q1": 1.0, "q2": 1.0}}, "b")
    signatures = answer_signatures(AnswerRule("mlqa", "zh"))
    config = {"dataset": "tiny", "program": "direct", "model": "local:smollm2", "metric_signatures": signatures}
    ws.db.execute("UPDATE runs SET config = ? WHERE id = ?", [json.dumps(config), chinese])
    warnings = compare_runs(ws, [squad, chinese])["warnings"]
    (warning,) = [w for w in warnings if "different definitions" in w]
    assert warning.startswith("em was scored under different definitions")
    assert f"{squad}: squad-v1.1|lang:en" in warning and f"{chinese}: mlqa-v1|lang:zh" in warning
    assert not [w for w in compare_runs(ws, [squad, _run(ws, {0: {"q1": 0.0}}, "c")])["warnings"] if "definitions" in w]
