"""Pointwise G-Eval judging: criteria and weights, steps expanded once and reused, scores in [0, 1] with reasons."""

from __future__ import annotations

import re

import pytest

from playground import PlaygroundError
from playground.evaluation.judges.calls import JudgeOutputError
from playground.evaluation.judges.judge_config import JudgeConfig
from playground.evaluation.judges.pointwise import (
    HELPS_CRITERIA,
    Criterion,
    judge_run_pointwise,
    parse_criteria,
    parse_criterion,
    parse_score,
    parse_steps,
)
from playground.evaluation.judges.repeat import mean_std
from playground.models.base import GenerationParams
from playground.store.judgments import get_judge_spans, get_steps, list_judgments

from tests.evaluation.judges.conftest import ScriptedModel, make_run, user_text


def test_default_criteria_are_helps():
    criteria = parse_criteria(None)
    assert [(c.name, c.weight) for c in criteria] == [("helpfulness", 0.5), ("relevancy", 0.3), ("brevity", 0.2)]
    assert all(c.text.endswith("?") for c in criteria)


def test_parse_criterion_forms_and_errors():
    assert parse_criterion("brevity: Is the answer short?=0.25") == Criterion("brevity", "Is the answer short?", 0.25)
    unnamed = parse_criterion("Does the answer cite a passage? = 2")
    assert (
        unnamed.name == "does-the-answer"
        and unnamed.weight == 2.0
        and unnamed.text == "Does the answer cite a passage?"
    )
    assert parse_criterion("clarity: Is it clear?").weight == 1.0
    with pytest.raises(PlaygroundError, match="must be a number"):
        parse_criterion("clarity: Is it clear?=high")
    with pytest.raises(PlaygroundError, match="positive"):
        parse_criterion("clarity: Is it clear?=0")
    with pytest.raises(PlaygroundError, match="given twice"):
        parse_criteria(["a: one=1", "a: two=1"])


@pytest.mark.parametrize(
    "text, score",
    [
        ('{"score": 0.75, "reason": "Mostly helpful."}', 0.75),
        ('Sure!\n```json\n{"Score": "0.4", "Reason": "vague"}\n```', 0.4),
        ("score: 7/10\nreason: close", 0.7),
        ("My score is 4 out of 5 because it helps.", 0.8),
        ('{"score": "80%", "reason": "good"}', 0.8),
        ('{"score": 1, "explanation": "exact"}', 1.0),
    ],
)
def test_parse_score(text, score):
    parsed = parse_score(text)
    assert parsed["score"] == pytest.approx(score) and parsed["reason"]


@pytest.mark.parametrize(
    "text, message",
    [
        ("The answer is Paris.", "no score"),
        ('{"score": 7, "reason": "x"}', "outside 0-1"),
        ('{"score": "high"}', "not a number"),
        ("", "no score"),
    ],
)
def test_parse_score_rejects_malformed_replies(text, message):
    with pytest.raises(JudgeOutputError, match=message):
        parse_score(text)


def test_parse_steps_keeps_numbered_lines_once():
    text = (
        "Here are the steps:\n1. Read the question.\n2) Check the answer.\nStep 3: Score it.\n1. Read the question.\n"
    )
    assert parse_steps(text) == ["Read the question.", "Check the answer.", "Score it."]
    assert parse_steps("Read it.\nScore it.") == ["Read it.", "Score it."]
    with pytest.raises(JudgeOutputError):
        parse_steps(" \n")


SCRIPTED_SCORES = {"helpfulness": 1.0, "relevancy": 0.5, "brevity": 0.0}


def _criterion_judge(messages, params):
    text = user_text(messages)
    name = re.search(r'Criterion "([\w-]+)"', text).group(1)
    if "Evaluation steps:" not in text:
        return f"1. Look at {name}.\n2. Decide."
    return f'{{"score": {SCRIPTED_SCORES[name]}, "reason": "{name} judged"}}'


def test_weighted_sum_and_steps_made_once_then_reused(judge_workspace):
    run_id = make_run(judge_workspace, {"q1": "Paris", "q2": "Berlin"})
    model = ScriptedModel(_criterion_judge)
    report = judge_run_pointwise(judge_workspace, run_id, model=model)
    expected = 0.5 * 1.0 + 0.3 * 0.5 + 0.2 * 0.0
    assert report["score"]["mean"] == pytest.approx(expected) and report["n_failed"] == 0
    assert [item["score"]["mean"] for item in report["items"]] == pytest.approx([expected, expected])
    assert report["parts"]["relevancy"]["mean"] == pytest.approx(0.5)
    step_calls = [m for m, _ in model.requests if "Evaluation steps:" not in user_text(m)]
    assert len(step_calls) == 3  # one per criterion, not per answer
    judge_id = report["judge"]["id"]
    stored = get_steps(judge_workspace, judge_id, HELPS_CRITERIA[0].text)
    assert stored["steps"] == ["Look at helpfulness.", "Decide."] and stored["model_id"] == "scripted:judge-v1"
    score_prompt = next(user_text(m) for m, _ in model.requests if "Evaluation steps:" in user_text(m))
    assert "1. Look at helpfulness.\n2. Decide." in score_prompt and "Answer: Paris" in score_prompt

    first, second = list_judgments(judge_workspace, run_id=run_id, kind="pointwise")
    assert first["score"] == pytest.approx(expected) and "helpfulness: helpfulness judged" in first["reason"]
    assert [c["weight"] for c in first["details"]["criteria"]] == pytest.approx([0.5, 0.3, 0.2])
    spans_first = get_judge_spans(judge_workspace, first["id"])
    spans_second = get_judge_spans(judge_workspace, second["id"])
    assert spans_first[0]["kind"] == "judge" and spans_first[0]["parent_id"] is None
    steps_first = [s for s in spans_first if s["name"].startswith("steps:")]
    steps_second = [s for s in spans_second if s["name"].startswith("steps:")]
    assert [s["outputs"]["reused"] for s in steps_first] == [False] * 3
    assert [s["outputs"]["reused"] for s in steps_second] == [True] * 3
    assert (
        sum(s["kind"] == "generate" for s in spans_first) == 6
        and sum(s["kind"] == "generate" for s in spans_second) == 3
    )

    calls_before = len(model.requests)
    again = judge_run_pointwise(judge_workspace, run_id, model=model)
    assert len(model.requests) == calls_before  # every judge call is a cache hit now
    assert again["judge"]["id"] == judge_id and again["score"]["mean"] == pytest.approx(expected)
    assert again["tokens"] == 0 and len(list_judgments(judge_workspace, run_id=run_id)) == 2  # replaced, not added


def test_malformed_criterion_reply_leaves_the_item_unscored(judge_workspace):
    def judge(messages, params):
        text = user_text(messages)
        if "Evaluation steps:" not in text:
            return "1. Check it."
        return "It is fine I guess." if '"brevity"' in text else '{"score": 0.9, "reason": "ok"}'

    run_id = make_run(judge_workspace, {"q1": "Paris"})
    report = judge_run_pointwise(judge_workspace, run_id, model=ScriptedModel(judge))
    assert report["n_failed"] == 1 and report["score"]["mean"] is None
    (item,) = report["items"]
    brevity = next(c for c in item["details"]["criteria"] if c["name"] == "brevity")
    assert brevity["score"] is None and "no score" in brevity["error"]
    (judgment,) = list_judgments(judge_workspace, run_id=run_id)
    assert judgment["score"] is None and judgment["error"].startswith("brevity:")
    parse_spans = [s for s in get_judge_spans(judge_workspace, judgment["id"]) if s["name"] == "parse brevity"]
    assert parse_spans[0]["error"] and parse_spans[0]["inputs"]["text"] == "It is fine I guess."


def test_repeat_reports_mean_and_std_over_sample_indexes(judge_workspace):
    def judge(messages, params):
        if "Evaluation steps:" not in user_text(messages):
            return "1. Check it."
        return f'{{"score": {0.2 * (params.seed + 1):.1f}, "reason": "seed {params.seed}"}}'

    run_id = make_run(judge_workspace, {"q1": "Paris", "q2": "Berlin"})
    config = JudgeConfig(params=GenerationParams(temperature=0.7, seed=0))
    report = judge_run_pointwise(
        judge_workspace,
        run_id,
        [Criterion("clarity", "Is it clear?", 1.0)],
        config,
        repeat=3,
        model=ScriptedModel(judge),
    )
    mean, std = mean_std([0.2, 0.4, 0.6])
    assert report["score"]["per_repeat"] == pytest.approx([0.2, 0.4, 0.6])
    assert report["score"]["mean"] == pytest.approx(mean) and report["score"]["std"] == pytest.approx(std)
    assert report["items"][0]["score"]["values"] == pytest.approx([0.2, 0.4, 0.6])
    assert report["items"][0]["score"]["std"] == pytest.approx(0.2)
    indexes = sorted(j["sample_index"] for j in list_judgments(judge_workspace, run_id=run_id))
    assert indexes == [0, 0, 1, 1, 2, 2]


@pytest.mark.slow
def test_real_local_model_pointwise_structure_and_steps_reuse(judge_workspace, smollm2):
    run_id = make_run(judge_workspace, {"q1": "Paris is the capital of France."}, model="local:smollm2")
    config = JudgeConfig(params=GenerationParams(max_tokens=32))
    criterion = Criterion("helpfulness", HELPS_CRITERIA[0].text, 1.0)
    report = judge_run_pointwise(judge_workspace, run_id, [criterion], config, model=smollm2)
    assert report["warnings"] and "self-preference" in report["warnings"][0]
    (item,) = report["items"]
    (entry,) = item["details"]["criteria"]
    if entry["score"] is None:
        # an unreadable reply, or one copied from the template ("fails it", issue 34): an error, never a score
        assert entry["error"] and ("judge's reply" in entry["error"] or "template's own text" in entry["error"])
    else:
        assert 0.0 <= entry["score"] <= 1.0 and entry["reason"]
    stored = get_steps(judge_workspace, report["judge"]["id"], criterion.text)
    assert stored["steps"] and stored["output"] and stored["model_id"].startswith("SmolLM2")
    (judgment,) = list_judgments(judge_workspace, run_id=run_id)
    spans = get_judge_spans(judge_workspace, judgment["id"])
    assert [s["kind"] for s in spans if s["kind"] == "generate"] == ["generate", "generate"]
    assert all(s["completion_tokens"] > 0 for s in spans if s["kind"] == "generate")

    judge_run_pointwise(judge_workspace, run_id, [criterion], config, model=smollm2)
    (judgment,) = list_judgments(judge_workspace, run_id=run_id)
    spans = get_judge_spans(judge_workspace, judgment["id"])
    steps_span = next(s for s in spans if s["name"] == "steps: helpfulness")
    assert steps_span["outputs"]["reused"] is True
    assert [s["cached"] for s in spans if s["kind"] == "generate"] == [1]  # only the scoring call, from the cache
    assert judgment["cached"] == 1
