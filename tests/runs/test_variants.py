"""Variants started together (the Side by side page's "Run all variants"): detached runs, a worker process each."""

from __future__ import annotations

import time

import pytest

from playground.models.base import GenerationParams
from playground.models.local_files import physical_cores
from playground.prompts.library import load_template
from playground.runs.variants import ModelChoice, RetrieverChoice, Variant, start_variants
from playground.store.runs import get_results, get_run


@pytest.mark.slow
def test_local_variants_started_together_share_the_cores(tiny_workspace, monkeypatch):
    """Each local-model worker takes the physical cores divided among them (llama.cpp's threads spin at each
    barrier: two workers taking every core each on two cores crawl), not every core each."""
    from playground.store.sessions import current_session

    monkeypatch.delenv("PLAYGROUND_THREADS", raising=False)  # the default: every physical core
    model = ModelChoice("local:smollm2", GenerationParams(max_tokens=2))
    variants = [
        Variant(load_template("rag-short-answer"), RetrieverChoice("bm25", 2), model),
        Variant(load_template("direct-short-answer"), RetrieverChoice(None, 2), model),
    ]
    session_id = current_session(tiny_workspace)["id"]
    runs = start_variants(tiny_workspace, "tiny", variants, session_id, question_ids=["q1"])
    assert list(runs) == ["A", "B"]
    deadline = time.monotonic() + 240
    while any(get_run(tiny_workspace, run_id).status == "running" for run_id in runs.values()):
        assert time.monotonic() < deadline, "the variants' workers did not finish in 240 s"
        time.sleep(0.2)
    for label, run_id in runs.items():
        run = get_run(tiny_workspace, run_id)
        assert (run.label, run.status) == (f"side by side {label}", "done"), run.status_reason
        assert run.execution["threads"] == max(1, physical_cores() // 2)
        assert [r["question_id"] for r in get_results(tiny_workspace, run_id)] == ["q1"]


def test_only_local_model_runs_divide_the_cores_and_set_threads_are_kept(monkeypatch):
    from playground.runs.plan import Execution, sharing_cores

    monkeypatch.setenv("PLAYGROUND_THREADS", "4")
    specs = ["local:smollm2", "openai:gpt-4o-mini", "local:smollm2"]
    assert [e.threads for e in sharing_cores(None, specs)] == [2, None, 2]
    assert [e.threads for e in sharing_cores(Execution(threads=3, concurrency=2), specs)] == [3, 3, 3]
    assert [e.concurrency for e in sharing_cores(Execution(concurrency=2), specs)] == [2, 2, 2]
    assert sharing_cores(None, ["openai:gpt-4o-mini"]) == [Execution()]
