"""A judge cannot praise garbage (issue 34): a judge model that copies its template's example claims, answers
"supported" because "not found", or gives a reason copied from the instructions makes judge errors, counted and
shown, never scores; the starter judge templates hold no example a model could copy into a valid reply."""

from __future__ import annotations

import json

import pytest

from playground.evaluation.judges.calls import JudgeOutputError
from playground.evaluation.judges.faithfulness import claim_reader, claims_reader
from playground.evaluation.judges.judge_config import default_judge_templates
from playground.evaluation.judges.scrutiny import content_units, template_examples
from playground.prompts.library import load_template
from playground.prompts.parse import first_json_object
from playground.store.judgments import list_judgments
from tests.evaluation.judges.gold_free_server import JudgeServer, judge_reply
from tests.evaluation.judges.test_gold_free import judge, rag_run

# What the local model answered in issue 34: the template's example claims, then "supported" because "not found".
COPIED_CLAIMS = json.dumps({"claims": ["claim 1", "claim 2"]})
SUPPORTED_NOT_FOUND = json.dumps({"verdict": "supported", "passage": 1, "reason": "not found"})
SUPPORTED_NO_PASSAGE = json.dumps({"verdict": "supported", "reason": "not found"})


def copying_judge(prompt: str) -> str:
    if "List each factual claim" in prompt:
        return COPIED_CLAIMS
    return SUPPORTED_NOT_FOUND


def test_content_units_hold_for_any_script():
    assert {"paris", "capital"} <= content_units("Paris is the CAPITAL.")
    assert {"巴", "黎", "首", "都"} <= content_units("巴黎是法国的首都。")
    assert "नमस्ते" in content_units("नमस्ते दुनिया")  # a word keeps its vowel signs (marks), not split at them
    assert content_units("東京タワー") == {"東", "京", "タ", "ワ", "ー"}


def test_a_claim_must_be_drawn_from_the_answer_in_any_language():
    read = claims_reader("巴黎是法国的首都。", "法国的首都是哪里？")
    assert read(json.dumps({"claims": ["巴黎是法国首都"]}, ensure_ascii=False)) == ["巴黎是法国首都"]
    with pytest.raises(JudgeOutputError, match="shares no word"):
        read(COPIED_CLAIMS)
    yes = claims_reader("Yes.", "Is Paris the capital of France?")  # a claim of a short answer restates the question
    assert yes(json.dumps({"claims": ["Paris is the capital of France."]})) == ["Paris is the capital of France."]


def test_a_claim_repeating_the_template_text_is_an_error_even_when_it_shares_words():
    template = load_template("judge-claims")
    read = claims_reader("I don't know, the claim 1 is hard.", "Which claim?", template)
    with pytest.raises(JudgeOutputError, match="template's own text"):
        read(json.dumps({"claims": ["I don't know"]}))


def test_a_verdict_its_reason_or_passage_contradicts_is_an_error():
    read = claim_reader(2, load_template("judge-claim"))
    with pytest.raises(JudgeOutputError, match="contradicts it"):
        read(SUPPORTED_NOT_FOUND)
    with pytest.raises(JudgeOutputError, match="without naming the deciding passage"):
        read(SUPPORTED_NO_PASSAGE)
    assert read(json.dumps({"verdict": "not found", "passage": None, "reason": "not found"}))["verdict"] == "not found"
    assert read(json.dumps({"verdict": "supported", "passage": 2, "reason": "[2] says so"}))["passage"] == 2


@pytest.mark.parametrize("role", sorted(default_judge_templates()))
def test_starter_judge_templates_hold_no_reply_a_model_could_copy(role):
    template = load_template(default_judge_templates()[role])
    assert first_json_object(f"{template.system}\n{template.user}") is None, f"{template.name} shows a valid reply"
    copyable = template_examples(template)
    assert not copyable.copied("claim 1") and not copyable.examples & {"one sentence", "claim 1", "claim 2"}


@pytest.mark.slow  # a real local HTTP server plays the judge
def test_a_judge_copying_its_template_gives_errors_never_scores(tiny_workspace):
    server = JudgeServer(judge=copying_judge)
    try:
        run_id = rag_run(tiny_workspace, server, ["q1", "q2", "q3"])
        report = judge(tiny_workspace, "faithfulness", run_id, server)
    finally:
        server.close()
    assert report["n_failed"] == report["n_judgments"] == 3
    assert report["metrics"]["faithfulness"]["mean"] is None
    assert all("not drawn from the answer" in error["error"] for error in report["errors"])
    stored = list_judgments(tiny_workspace, run_id=run_id, kind="faithfulness")
    assert len(stored) == 3 and all(j["score"] is None and j["error"] for j in stored)


@pytest.mark.slow
@pytest.mark.parametrize("verdict", [SUPPORTED_NOT_FOUND, SUPPORTED_NO_PASSAGE])
def test_supported_because_not_found_is_a_judge_error(tiny_workspace, verdict):
    def reply(prompt: str) -> str:
        return verdict if "Claim: " in prompt else judge_reply(prompt)

    server = JudgeServer(judge=reply)
    try:
        run_id = rag_run(tiny_workspace, server, ["q1", "q3"])
        report = judge(tiny_workspace, "faithfulness", run_id, server)
    finally:
        server.close()
    assert report["n_failed"] == 2 and report["metrics"]["faithfulness"]["mean"] is None
    assert all("claim 1:" in error["error"] for error in report["errors"])


@pytest.mark.slow
@pytest.mark.parametrize(
    ("kind", "copied"),
    [
        ("answer-relevance", {"grade": 5, "reason": "one sentence"}),
        ("context-precision", {"relevant": True, "reason": "in one sentence of your own"}),
        ("citations", {"supported": True, "reason": "why, in one sentence"}),
    ],
)
def test_every_gold_free_judge_refuses_a_reason_copied_from_its_template(tiny_workspace, kind, copied):
    server = JudgeServer(judge=lambda prompt: json.dumps(copied))
    try:
        run_id = rag_run(tiny_workspace, server, ["q1", "q2"])
        report = judge(tiny_workspace, kind, run_id, server)
    finally:
        server.close()
    assert report["n_failed"] == report["n_judgments"] == 2
    assert all(summary["mean"] is None for summary in report["metrics"].values())
    assert all("template's own text" in error["error"] for error in report["errors"])


@pytest.mark.slow  # a real local HTTP server plays the judge
def test_pointwise_and_reference_judges_refuse_a_reason_copied_from_their_template(tiny_workspace):
    from playground.evaluation.judges import JudgeConfig, judge_run_pointwise, judge_run_reference
    from playground.models.base import GenerationParams

    def reply(prompt: str) -> str:
        if "numbered steps" in prompt:
            return "1. Read the answer.\n2. Compare it with the question.\n3. Score it."
        if "Reference answer:" in prompt:
            return json.dumps({"implies": True, "reason": "one sentence"})
        return json.dumps({"score": 1.0, "reason": "one sentence of your own"})

    server = JudgeServer(judge=reply)
    try:
        run_id = rag_run(tiny_workspace, server, ["q1", "q3"])
        config = JudgeConfig(model=server.spec("judge"), params=GenerationParams(max_tokens=256))
        pointwise = judge_run_pointwise(tiny_workspace, run_id, None, config)
        reference = judge_run_reference(tiny_workspace, run_id, config)
    finally:
        server.close()
    assert pointwise["n_failed"] == pointwise["n_judgments"] == 2 and pointwise["score"]["mean"] is None
    assert reference["n_failed"] == reference["n_judgments"] == 2 and reference["score"]["mean"] is None
