"""Reference-guided judging: does the answer imply the reference answer (true/false with a reason)?"""

from __future__ import annotations

import pytest

from playground.evaluation.judges.calls import JudgeOutputError
from playground.evaluation.judges.judge_config import JudgeConfig
from playground.evaluation.judges.reference import judge_run_reference, parse_implication
from playground.models.base import GenerationParams
from playground.store.judgments import get_judge_spans, list_judgments

from tests.evaluation.judges.conftest import ScriptedModel, make_run, user_text


@pytest.mark.parametrize(
    "text, implies",
    [
        ('{"implies": true, "reason": "It names Paris."}', True),
        ('```json\n{"Implies": "false", "reason": "Another city."}\n```', False),
        ("implies: yes\nreason: same city", True),
        ("No, the answer names Berlin.", False),
        ('{"correct": 1, "explanation": "ok"}', True),
    ],
)
def test_parse_implication(text, implies):
    parsed = parse_implication(text)
    assert parsed["implies"] is implies and parsed["reason"]


@pytest.mark.parametrize("text", ["", "The answer to check is Paris.", '{"implies": "maybe"}'])
def test_parse_implication_rejects_replies_without_a_verdict(text):
    with pytest.raises(JudgeOutputError, match="no true/false verdict"):
        parse_implication(text)


def _reference_judge(messages, params):
    text = user_text(messages)
    reference = text.split("Reference answer: ", 1)[1].split("\n", 1)[0].lower()
    answer = text.split("Answer to check: ", 1)[1].split("\n", 1)[0].lower()
    return f'{{"implies": {str(reference in answer).lower()}, "reason": "compared"}}'


def test_reference_judge_scores_share_implied_and_skips_failed_answers(judge_workspace):
    run_id = make_run(
        judge_workspace,
        {"q1": "It is Paris, on the Seine.", "q2": "Munich", "q4": "x"},
        errors={"q4": "ModelError: timeout"},
    )
    model = ScriptedModel(_reference_judge)
    report = judge_run_reference(judge_workspace, run_id, model=model)
    assert report["n_items"] == 2 and [s["question_id"] for s in report["skipped"]] == ["q4"]
    assert report["score"]["mean"] == pytest.approx(0.5) and report["n_failed"] == 0
    verdicts = {item["question_id"]: item["verdicts"] for item in report["items"]}
    assert verdicts == {"q1": ["true"], "q2": ["false"]}
    stored = {j["question_id"]: j for j in list_judgments(judge_workspace, run_id=run_id, kind="reference")}
    assert stored["q1"]["verdict"] == "true" and stored["q1"]["score"] == 1.0 and stored["q2"]["score"] == 0.0
    assert stored["q1"]["reason"] == "compared"
    kinds = [span["kind"] for span in get_judge_spans(judge_workspace, stored["q1"]["id"])]
    assert kinds == ["judge", "render", "generate", "parse"]


@pytest.mark.slow
def test_real_local_model_reference_judgment_has_a_verdict_or_a_recorded_reason(judge_workspace, smollm2):
    run_id = make_run(judge_workspace, {"q1": "Paris is the capital of France."})
    config = JudgeConfig(params=GenerationParams(max_tokens=24))
    report = judge_run_reference(judge_workspace, run_id, config, model=smollm2)
    (item,) = report["items"]
    (verdict,) = item["verdicts"]
    assert verdict in ("true", "false", None) and (item["reasons"][0] or item["errors"][0])
    (judgment,) = list_judgments(judge_workspace, run_id=run_id)
    assert (judgment["score"] in (0.0, 1.0)) != (judgment["error"] is not None)
    spans = get_judge_spans(judge_workspace, judgment["id"])
    (call,) = [span for span in spans if span["kind"] == "generate"]
    assert call["inputs"]["model"] == "local:smollm2" and call["completion_tokens"] > 0
    assert "Reference answer: Paris" in call["inputs"]["messages"][-1]["content"]
