"""The app opens on the benchmark last run on, else the one with the most questions: not on the first by name
(an empty documents benchmark, say)."""

from __future__ import annotations

import copy

from streamlit.testing.v1 import AppTest

from playground.data.records import Dataset
from playground.store.benchmark_choice import default_benchmark
from playground.store.datasets import save_dataset
from playground.store.runs import create_run
from tests.app.conftest import ENTRY
from tests.conftest import TINY_PASSAGES, TINY_QUESTIONS


def _benchmark(ws, name: str, n_questions: int) -> None:
    questions = copy.deepcopy(TINY_QUESTIONS)[:n_questions]
    save_dataset(
        ws, name, Dataset(format="jsonl", source="test", passages=copy.deepcopy(TINY_PASSAGES), questions=questions)
    )


def test_the_sidebar_opens_on_the_benchmark_with_the_most_questions_then_on_the_last_run_on(app_workspace):
    _benchmark(app_workspace, "aaa-documents", 0)
    _benchmark(app_workspace, "few", 2)
    assert default_benchmark(app_workspace) == "tiny"  # 6 questions, against 0 and 2
    at = AppTest.from_file(str(ENTRY), default_timeout=120).run()
    assert not at.exception, at.exception
    assert at.selectbox(key="benchmark").value == "tiny"
    create_run(app_workspace, {"dataset": "few", "program": "direct"}, None)
    assert default_benchmark(app_workspace) == "few"
    assert AppTest.from_file(str(ENTRY), default_timeout=120).run().selectbox(key="benchmark").value == "few"
