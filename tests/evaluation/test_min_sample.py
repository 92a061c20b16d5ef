"""No number from degenerate variance (issue 34): below 10 paired questions power gives no sample size, and below 10
ratings the people-only and prediction-powered intervals and the ratings needed are "not enough data to estimate"
(in the CLI too); at 10 they are numbers again; a zero-width interval is never given."""

from __future__ import annotations

import pytest

import playground.cli as cli
from playground.evaluation.agreement.estimate import estimate_lines, three_ways
from playground.evaluation.min_sample import NOT_ENOUGH
from playground.evaluation.power import detectable_text, plan_from_scores, plan_needed_text
from playground.store.runs import create_run, save_result


def pilot_scores(n: int) -> tuple[dict, dict]:
    """n paired questions whose F1 differences vary (B better by about 0.1 on average)."""
    a = {f"q{i}": {"f1": 0.5} for i in range(n)}
    b = {f"q{i}": {"f1": 0.5 + (0.15 if i % 2 else 0.05) + 0.01 * (i % 3)} for i in range(n)}
    return a, b


@pytest.mark.parametrize("n", [1, 2, 9])
def test_power_below_ten_paired_questions_gives_no_sample_size(n):
    plan = plan_from_scores(*pilot_scores(n))["f1"]
    assert plan["n_needed"] is None and plan["detectable"] is None
    assert plan["verdict"].startswith(NOT_ENOUGH) and f"{n} paired question(s), at least 10" in plan["verdict"]
    assert plan_needed_text(plan) == detectable_text(plan) == NOT_ENOUGH


def test_power_from_ten_paired_questions_gives_a_sample_size():
    plan = plan_from_scores(*pilot_scores(10))["f1"]
    assert isinstance(plan["n_needed"], int) and plan["n_needed"] > 2 and plan["detectable"] > 0
    assert not plan["verdict"].startswith(NOT_ENOUGH)


def test_a_binary_metric_on_one_question_needs_no_made_up_size():
    plan = plan_from_scores({"q1": {"em": 0.0}}, {"q1": {"em": 1.0}})["em"]
    assert plan["n_needed"] is None and plan["verdict"].startswith(NOT_ENOUGH)


JUDGED = {f"q{i:02d}": (i % 4) / 4 for i in range(30)}


def rated(n: int, agree: bool = False) -> dict[str, float]:
    """People's values for the first n questions: varying, or all the same (a sample that agrees)."""
    return {q: 1.0 if agree else ((i * 3) % 5) / 4 for i, q in enumerate(sorted(JUDGED)[:n])}


@pytest.mark.parametrize("n", [1, 2, 9])
def test_below_ten_ratings_no_interval_is_given(n):
    people = rated(n)
    report = three_ways(JUDGED, people, sorted(people), 0.9, target_half_width=0.05)
    human = report["human_only"]
    assert human["mean"] is None and human["low"] is None and human["not_estimated"].startswith(NOT_ENOUGH)
    assert report["prediction_powered"] is None and "ratings_needed" not in report
    assert report["not_estimated"] == f"{NOT_ENOUGH}: {n} rating(s), at least 10 needed"
    text = "\n".join(
        estimate_lines(
            {
                **report,
                "run_id": "r",
                "metric": "m",
                "judge_id": "j",
                "scale": "0-1",
                "sample": None,
                "judge_errors": 0,
                "covers": "all",
            }
        )
    )
    assert text.count(NOT_ENOUGH) >= 2 and "[" not in text.split("people only")[1].splitlines()[0]


def test_ten_ratings_give_intervals_with_width_and_the_ratings_needed():
    people = rated(10)
    report = three_ways(JUDGED, people, sorted(people), 0.9, target_half_width=0.2)
    human, ppi = report["human_only"], report["prediction_powered"]
    assert human["high"] - human["low"] > 0 and ppi["high"] - ppi["low"] > 0
    assert report["ratings_needed"]["needed"] >= 2 and "not_estimated" not in report


def test_ratings_that_all_agree_give_no_zero_width_interval():
    people = rated(12, agree=True)
    report = three_ways(JUDGED, people, sorted(people), 0.9, target_half_width=0.05)
    assert report["human_only"]["low"] is None and "every value is the same" in report["human_only"]["not_estimated"]
    ppi = report["prediction_powered"]
    assert ppi is None or ppi["high"] > ppi["low"]


def scored_run(workspace, values: list[float]) -> str:
    run_id = create_run(workspace, {"dataset": "tiny", "program": "direct", "model": "local:x"}, None, len(values))
    for position, value in enumerate(values):
        save_result(
            workspace,
            {
                "run_id": run_id,
                "question_id": f"q{position + 1}",
                "repeat": 0,
                "position": position,
                "prediction": "x",
                "output": "x",
                "scores": {"f1": value},
                "error": None,
                "prompt_tokens": 0,
                "completion_tokens": 0,
                "latency_s": 0.0,
                "cached": 0,
            },
            [],
        )
    return run_id


def test_the_power_command_on_one_question_says_not_enough_data(tiny_workspace, capsys):
    run_a, run_b = scored_run(tiny_workspace, [0.5]), scored_run(tiny_workspace, [0.507])
    code = cli.main(["power", run_a, run_b, "--metric", "f1", "--db", str(tiny_workspace.path)])
    out = capsys.readouterr().out
    assert code == 0 and "not enough data to estimate: 1 paired question(s)" in out
    assert "needs about" not in out and "needed not enough data to estimate" in out
