"""playground.bounds in the engine: the settings objects refuse what the CLI's flags refuse, with the same words,
before anything is stored (the app's forms build the same objects)."""

from __future__ import annotations

import math

import pytest

from playground import PlaygroundError
from playground.bounds import RESAMPLES, TIMEOUT, number_text
from playground.evaluation.compare import compare_scores
from playground.evaluation.power import plan_from_baseline
from playground.models.base import GenerationParams
from playground.runs.config import RunConfig
from playground.runs.plan import Execution
from playground.runs.sweeps import parse_sweep, plan_sweep


@pytest.mark.parametrize(
    "make, message",
    [
        (lambda: GenerationParams(temperature=-1), "temperature must be between 0 and 2, got -1"),
        (lambda: GenerationParams(temperature=math.nan), "temperature must be between 0 and 2, got nan"),
        (lambda: GenerationParams(max_tokens=10**12), "max_tokens must be between 1 and 1,000,000"),
        (lambda: GenerationParams(top_p=math.inf), "top_p must be between 0 and 1, got inf"),
        (lambda: GenerationParams(seed=-1), "seed must be between 0 and 2,147,483,647, got -1"),
        (lambda: GenerationParams(n=0), "n must be between 1 and 100, got 0"),
        (lambda: GenerationParams.from_dict({"temperature": "hot"}), "temperature must be between 0 and 2, got hot"),
        (lambda: Execution(timeout_s=math.nan), "--timeout must be more than 0 and at most 86,400 seconds, got nan"),
        (lambda: Execution(connect_timeout_s=0), "--connect-timeout must be more than 0"),
        (lambda: Execution(concurrency=0), "--concurrency must be between 1 and 256, got 0"),
        (lambda: RunConfig(dataset="tiny", sample=0), "sample must be between 1 and 10,000,000, got 0"),
        (lambda: RunConfig(dataset="tiny", repeats=10**30), "repeats must be between 1 and 100"),
        (lambda: plan_from_baseline(0, rate=0.5), "difference must be between -1,000,000 and 1,000,000"),
        (lambda: plan_from_baseline(0.1, rate=0.5, discordance=5), "discordance must be between 0 and 1, got 5"),
        (lambda: plan_from_baseline(0.1, sd=math.inf), "sd must be between 0 and 1,000,000, got inf"),
        (lambda: plan_from_baseline(0.1, rate=0.5, n=-5), "n must be between 1 and 10,000,000, got -5"),
        (
            lambda: compare_scores([{"q": {"em": 1.0}}, {"q": {"em": 0.0}}], n_resamples=0),
            "resamples must be between 100 and 1,000,000, got 0",
        ),
        (lambda: compare_scores([{"q": {"em": 1.0}}, {"q": {"em": 0.0}}], seed=-1), "seed must be between 0"),
        (lambda: parse_sweep("k=0..99999999999999"), "a sweep has at most 1,000 points"),
        (lambda: parse_sweep("shots=0,500"), "--sweep shots must be between 0 and 100, got 500"),
    ],
)
def test_settings_refuse_out_of_range_numbers_in_the_cli_s_words(make, message):
    with pytest.raises(PlaygroundError) as refused:
        make()
    assert message in str(refused.value)


def test_a_large_comparison_asks_to_be_confirmed_with_its_estimate():
    scores = [{f"q{i}": {"f1": i % 3 / 2} for i in range(3000)}, {f"q{i}": {"f1": i % 5 / 4} for i in range(3000)}]
    with pytest.raises(PlaygroundError, match=r"22\.4 GB of random draws .* add --yes"):
        compare_scores(scores, n_resamples=1_000_000)


def test_a_sweep_of_more_than_50_points_asks_first_and_stores_nothing(tiny_workspace):
    config = RunConfig(dataset="tiny", program="rag", sample=2)
    with pytest.raises(PlaygroundError, match="a sweep of 51 points is long work .*2 question"):
        plan_sweep(config, "k", list(range(51)))
    assert len(plan_sweep(config, "k", list(range(51)), confirmed=True)) == 51
    assert tiny_workspace.db["runs"].count == 0


def test_retrieval_evaluation_of_zero_questions_is_refused_before_anything_is_stored(tiny_workspace):
    from playground.evaluation.retrieval import evaluate_retriever

    with pytest.raises(PlaygroundError, match="sample must be between 1 and 10,000,000, got 0"):
        evaluate_retriever(tiny_workspace, "tiny", "bm25", 5, 0, 0, store=True)
    assert tiny_workspace.db["retrieval_runs"].count == 0


def test_values_in_range_pass_unchanged_and_bounds_read_as_people_write_numbers():
    assert GenerationParams(temperature=0.7, top_p=0.9, max_tokens=1_000_000, seed=None, n=100).temperature == 0.7
    assert RESAMPLES.parse(" 2000 ", "--resamples") == 2000 and TIMEOUT.check(0.5) == 0.5
    assert number_text(1_000_000) == "1,000,000" and number_text(0.05) == "0.05"
