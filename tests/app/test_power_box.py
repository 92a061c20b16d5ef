"""The power box names every metric its sample is too small for (not the first three), and says it covers A vs B."""

from __future__ import annotations

from playground.app.components.comparison import small_sample_warning
from playground.evaluation.power import plan_from_scores

METRICS = ("em", "f1", "contains", "token_recall", "rougeL", "bleu", "chrf")


def test_every_too_small_metric_is_named_in_one_line():
    a = {f"q{i}": {m: float(i % 2) for m in METRICS} for i in range(6)}
    b = {f"q{i}": {m: float((i + 1) % 3 == 0) for m in METRICS} for i in range(6)}
    plans = plan_from_scores(a, b, list(METRICS))
    small = [m for m, plan in plans.items() if plan.get("not_estimated") or plan["verdict"].startswith("too small")]
    assert len(small) > 3, {m: p["verdict"] for m, p in plans.items()}
    line = small_sample_warning(plans)
    assert line is not None and line.startswith(f"Too small a sample for {len(small)} of {len(plans)} metric(s)")
    assert all(f"{metric} (" in line for metric in small)


def test_the_power_box_says_which_pair_it_covers(runs_env):
    from tests.app.conftest import page_test

    at = page_test("ab")
    at.query_params["run"] = runs_env["direct"]
    at.query_params["other"] = runs_env["rag"]
    at.run()
    assert not at.exception, at.exception
    assert "How many questions? (power, A vs B)" in [e.label for e in at.expander]
