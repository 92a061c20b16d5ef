"""The Retrievers page in a real Chromium opens saved retrieval runs and compares two with intervals."""

from __future__ import annotations

import re

import pytest

from playground.evaluation.retrieval import evaluate_retriever, question_metrics
from playground.store import open_workspace
from playground.store.retrieval_runs import create_retrieval_run, get_retrieval_results, get_retrieval_run
from tests.e2e.conftest import APP_DB
from tests.e2e.test_app_e2e import open_page, wait_until_idle

pytestmark = pytest.mark.e2e


def test_retrievers_page_compares_two_saved_retrieval_runs(page, app_url, screenshot):
    ws = open_workspace(APP_DB["path"])
    try:
        real = evaluate_retriever(ws, "tiny", "bm25", 3, None, 0, store=True)
        # a weaker retriever's run, stored as eval-retrieval stores one: it ranks no gold passage for q2 and q5
        rows = [
            {
                **row,
                "ranked_ids": [],
                "scores": [],
                "gold_ranks": {g: None for g in row["gold_ids"]},
                "metrics": question_metrics([], row["gold_ids"], 3),
            }
            if row["question_id"] in ("q2", "q5")
            else {**row, "scores": row["hit_scores"], "metrics": row["scores"]}
            for row in get_retrieval_results(ws, real["run_id"])
        ]
        weak = create_retrieval_run(
            ws,
            {**get_retrieval_run(ws, real["run_id"])["config"], "retriever": "weak"},
            rows,
            {**real, "recall@k": 4 / 6},
        )
        hits = {
            run: {r["question_id"]: r["scores"]["hit@k"] for r in get_retrieval_results(ws, run)}
            for run in (weak, real["run_id"])
        }
    finally:
        ws.close()
    only_real = sorted(q for q in hits[weak] if hits[real["run_id"]][q] > hits[weak][q])
    assert only_real == ["q2", "q5"]

    open_page(page, app_url + "/retrievers?benchmark=tiny", "Retrievers")  # other tests add benchmarks to this app
    page.get_by_role("heading", name="Saved retrieval runs").wait_for()
    wait_until_idle(page)
    page.get_by_label("Retrieval run A").click()
    page.get_by_role("option", name=re.compile(f"^{weak}")).click()
    wait_until_idle(page)
    page.get_by_label("Retrieval run B").click()
    page.get_by_role("option", name=re.compile(f"^{real['run_id']}")).click()
    wait_until_idle(page)
    caption = page.get_by_text(
        re.compile(
            r"95% intervals: paired percentile bootstrap over questions, 2000 "
            r"resamples, seed 0"
        )
    )
    caption.wait_for()
    assert "6 question(s) answered by all runs" in caption.inner_text()
    assert page.get_by_text(re.compile(r"exact McNemar for 0/1 metrics")).count() >= 1
    found = page.get_by_text(re.compile(r"Gold found by B only \(\d+\)")).inner_text()
    assert "(2): q2, q5" in found
    screenshot(page, "retrievers-saved-runs")
