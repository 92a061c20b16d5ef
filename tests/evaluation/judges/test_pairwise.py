"""Pairwise judging with the swap rule: both orders asked, a flip is a tie, the flip rate is reported."""

from __future__ import annotations

import pytest

from playground import PlaygroundError
from playground.evaluation.judges.calls import JudgeOutputError
from playground.evaluation.judges.judge_config import JudgeConfig
from playground.evaluation.judges.pairwise import (
    combine_orders,
    judge_runs_pairwise,
    pairwise_summary,
    parse_preference,
)
from playground.models.base import GenerationParams
from playground.store.judgments import get_judge_spans, list_judgments

from tests.evaluation.judges.conftest import ScriptedModel, make_run, user_text


@pytest.mark.parametrize(
    "text, better",
    [
        ('{"better": "A", "reason": "correct city"}', "A"),
        ('{"Winner": "Answer B", "explanation": "more precise"}', "B"),
        ('{"better": "tie", "reason": "both right"}', "tie"),
        ("better: B\nreason: shorter", "B"),
        ("I think Answer A is better because it names Paris.", "A"),
        ("The answer is: B.", "B"),
        ("Both answers are equally good.", "tie"),
        ("A", "A"),
        ("B. It names the capital.", "B"),
        ("A: Paris", "A"),
        ("tie", "tie"),
    ],
)
def test_parse_preference(text, better):
    parsed = parse_preference(text)
    assert parsed["better"] == better and parsed["reason"]


@pytest.mark.parametrize("text", ["", "Apples are red", 'The answer is "A" or "B" (hard to say)', '{"better": "C"}'])
def test_parse_preference_rejects_replies_without_a_verdict(text):
    with pytest.raises(JudgeOutputError, match="no A/B/tie verdict"):
        parse_preference(text)


@pytest.mark.parametrize(
    "first, second, verdict, flipped, position",
    [
        ("A", "B", "a", False, None),  # run A's answer preferred in both orders
        ("B", "A", "b", False, None),
        ("tie", "tie", "tie", False, None),
        ("A", "A", "tie", True, "first"),  # whatever is shown first wins: position bias
        ("B", "B", "tie", True, "second"),
        ("A", "tie", "tie", True, None),
    ],
)
def test_swap_rule(first, second, verdict, flipped, position):
    assert combine_orders(first, second) == {"verdict": verdict, "flipped": flipped, "position": position}


def test_summary_counts_and_flip_rate():
    outcomes = [
        combine_orders("A", "B"),
        combine_orders("A", "B"),
        combine_orders("B", "A"),
        combine_orders("A", "A"),
        {"verdict": None},
    ]
    summary = pairwise_summary(outcomes)
    assert (summary["wins"], summary["ties"], summary["losses"], summary["failed"]) == (2, 1, 1, 1)
    assert summary["n"] == 4 and summary["flips"] == 1 and summary["flip_rate"] == pytest.approx(0.25)
    assert summary["first_position_wins"] == 1 and summary["score"] == pytest.approx((1 + 1 + 0 + 0.5) / 4)


def _answers(messages):
    text = user_text(messages)
    first = text.split("Answer A: ", 1)[1].split("\n", 1)[0]
    second = text.split("Answer B: ", 1)[1].split("\n", 1)[0]
    return first, second


def _fair_judge(messages, params):
    first, second = _answers(messages)
    if "Paris" in first or "Seine" in first:
        return '{"better": "A", "reason": "right"}'
    if "Paris" in second or "Seine" in second:
        return '{"better": "B", "reason": "right"}'
    return '{"better": "tie", "reason": "both wrong"}'


def test_fair_judge_wins_without_flips_and_both_orders_are_asked(judge_workspace):
    run_a = make_run(judge_workspace, {"q1": "Paris", "q3": "Seine", "q2": "Munich"}, model="local:a")
    run_b = make_run(
        judge_workspace, {"q1": "Lyon", "q3": "Rhine", "q2": "Hamburg", "q5": "North Sea"}, model="local:b"
    )
    model = ScriptedModel(_fair_judge)
    report = judge_runs_pairwise(judge_workspace, run_a, run_b, model=model)
    summary = report["summary"]
    assert report["n_pairs"] == 3 and report["unpaired"] == 1
    assert (summary["wins"], summary["ties"], summary["losses"]) == (2, 1, 0)
    assert summary["flips"] == 0 and summary["flip_rate"] == 0.0 and report["warnings"] == []
    shown = [_answers(messages) for messages, _ in model.requests]
    assert ("Paris", "Lyon") in shown and ("Lyon", "Paris") in shown and len(shown) == 6
    stored = {j["question_id"]: j for j in list_judgments(judge_workspace, run_id=run_b, kind="pairwise")}
    assert stored["q1"]["run_id"] == run_a and stored["q1"]["other_run_id"] == run_b
    assert stored["q1"]["verdict"] == "a" and stored["q1"]["score"] == 1.0 and stored["q2"]["score"] == 0.5
    assert [o["order"] for o in stored["q1"]["details"]["orders"]] == ["a-b", "b-a"]
    spans = get_judge_spans(judge_workspace, stored["q1"]["id"])
    assert [s["name"] for s in spans if s["kind"] == "judge"] == ["pairwise", "order a-b", "order b-a"]


def test_position_biased_judge_turns_into_ties_and_a_flip_rate(judge_workspace):
    def biased(messages, params):
        first, _ = _answers(messages)
        if first in ("Paris", "Lyon"):
            return '{"better": "A", "reason": "the first one"}'  # q1: always the first slot
        return _fair_judge(messages, params)

    run_a = make_run(judge_workspace, {"q1": "Paris", "q3": "Seine"})
    run_b = make_run(judge_workspace, {"q1": "Lyon", "q3": "Rhine"})
    report = judge_runs_pairwise(judge_workspace, run_a, run_b, model=ScriptedModel(biased))
    summary = report["summary"]
    assert (summary["wins"], summary["ties"], summary["losses"]) == (1, 1, 0)
    assert summary["flips"] == 1 and summary["flip_rate"] == pytest.approx(0.5)
    assert summary["first_position_wins"] == 1 and summary["second_position_wins"] == 0
    q1 = next(item for item in report["items"] if item["question_id"] == "q1")
    assert q1["verdicts"] == ["tie"] and q1["flipped"] == [True]


def test_unreadable_order_fails_the_pair_and_is_not_counted(judge_workspace):
    run_a = make_run(judge_workspace, {"q1": "Paris"})
    run_b = make_run(judge_workspace, {"q1": "Lyon"})
    replies = iter(['{"better": "A"}', "hmm"])
    report = judge_runs_pairwise(judge_workspace, run_a, run_b, model=ScriptedModel(lambda m, p: next(replies)))
    assert report["summary"]["failed"] == 1 and report["summary"]["n"] == 0 and report["summary"]["flip_rate"] is None
    (judgment,) = list_judgments(judge_workspace, run_id=run_a)
    assert judgment["verdict"] is None and "order b-a" in judgment["error"]


def test_warns_when_the_judge_is_a_compared_model_and_refuses_mismatched_runs(judge_workspace):
    run_a = make_run(judge_workspace, {"q1": "Paris"}, model="scripted:judge")
    run_b = make_run(judge_workspace, {"q1": "Lyon"}, model="local:b")
    report = judge_runs_pairwise(judge_workspace, run_a, run_b, model=ScriptedModel(_fair_judge))
    assert report["warnings"] and "scripted:judge" in report["warnings"][0]
    with pytest.raises(PlaygroundError, match="two different runs"):
        judge_runs_pairwise(judge_workspace, run_a, run_a, model=ScriptedModel(_fair_judge))
    other = make_run(judge_workspace, {"q1": "x"}, dataset="other")  # never imported: refused before loading
    with pytest.raises(PlaygroundError, match="different benchmarks"):
        judge_runs_pairwise(judge_workspace, run_a, other, model=ScriptedModel(_fair_judge))


def test_repeat_gives_mean_and_std_of_the_preference(judge_workspace):
    def seeded(messages, params):
        first, _ = _answers(messages)
        run_a_first = first == "Paris"
        prefer_a = params.seed % 2 == 0
        return '{"better": "%s"}' % ("A" if run_a_first == prefer_a else "B")

    run_a = make_run(judge_workspace, {"q1": "Paris"})
    run_b = make_run(judge_workspace, {"q1": "Lyon"})
    config = JudgeConfig(params=GenerationParams(temperature=0.7))
    report = judge_runs_pairwise(judge_workspace, run_a, run_b, config, repeat=2, model=ScriptedModel(seeded))
    assert report["score"]["per_repeat"] == [1.0, 0.0]
    assert report["score"]["mean"] == pytest.approx(0.5) and report["score"]["std"] == pytest.approx(0.5**0.5)
    assert report["summary"]["wins"] == 1 and report["summary"]["losses"] == 1 and report["n_judgments"] == 2


@pytest.mark.slow
def test_real_local_model_asks_both_orders(judge_workspace, smollm2):
    run_a = make_run(judge_workspace, {"q1": "Paris"})
    run_b = make_run(judge_workspace, {"q1": "Berlin"})
    config = JudgeConfig(params=GenerationParams(max_tokens=24))
    report = judge_runs_pairwise(judge_workspace, run_a, run_b, config, model=smollm2)
    summary = report["summary"]
    assert summary["wins"] + summary["ties"] + summary["losses"] + summary["failed"] == 1
    (item,) = report["items"]
    assert [o["order"] for o in item["orders"]] == ["a-b", "b-a"]
    for order in item["orders"]:
        assert order["better"] in ("A", "B", "tie") or "judge's reply" in order["error"]
    (judgment,) = list_judgments(judge_workspace, run_id=run_a)
    calls = [s for s in get_judge_spans(judge_workspace, judgment["id"]) if s["kind"] == "generate"]
    prompts = [call["inputs"]["messages"][-1]["content"] for call in calls]
    assert len(calls) == 2 and all(call["completion_tokens"] > 0 for call in calls)
    assert prompts[0].index("Answer A: Paris") < prompts[0].index("Answer B: Berlin")
    assert "Answer A: Berlin" in prompts[1] and "Answer B: Paris" in prompts[1]
    if judgment["verdict"] is not None:
        assert judgment["details"]["flipped"] in (True, False) and summary["flip_rate"] in (0.0, 1.0)
