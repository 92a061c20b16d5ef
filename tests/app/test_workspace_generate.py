"""The Workspace page generates questions as a background job (issue 34 item 7): started from the page against a
real local HTTP server playing the model, followed while it runs, its outcome shown when done; when it keeps
nothing its rejected candidates are stored and one is accepted after an edit, becoming a question with its span;
a local model that kept nothing is called too small, with how to point the generator at a server."""

from __future__ import annotations

import json
import re
import time

import pytest
from streamlit.testing.v1 import AppTest

from playground.data.records import Dataset
from playground.questions.jobs import generation_job
from playground.store.datasets import get_benchmark, get_passages, load_questions, save_benchmark, save_dataset
from tests.app.conftest import page_path, plain
from tests.questions.test_generate import GENERIC, GUIDE, MINES, ScriptedModel, chunks


@pytest.fixture
def guide_env(workspace, monkeypatch):
    passages = chunks("guide/lighthouse.md", GUIDE) + chunks("guide/mines.md", MINES)
    save_dataset(workspace, "guide", Dataset("docs", "tests", passages, [], {"document_set": "test"}))
    monkeypatch.setenv("PLAYGROUND_DB", str(workspace.path))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    return workspace


def _page() -> AppTest:
    at = AppTest.from_file(page_path("workspace"), default_timeout=60).run()
    assert not at.exception, at.exception
    return at


def _button(at: AppTest, label: str):
    (found,) = [b for b in at.button if b.label == label]
    return found


def _texts(at: AppTest, kind: str) -> str:
    return "\n".join(plain(e.value) for e in getattr(at, kind))


def _wait(workspace, job_id: str, limit_s: float = 180.0) -> dict:
    deadline = time.monotonic() + limit_s
    while time.monotonic() < deadline:
        job = generation_job(workspace, job_id)
        if job["status"] != "running":
            return job
        time.sleep(0.05)
    raise AssertionError(f"generation job {job_id} still running after {limit_s} s")


def test_a_job_that_keeps_nothing_stores_its_rejections_and_one_is_accepted_after_an_edit(guide_env):
    server = ScriptedModel(lambda prompt: GENERIC)  # "What is the answer?" / "Chile": never grounded in its chunk
    try:
        at = _page()
        at.text_input(key="generate_name").set_value("qs")
        at.number_input(key="generate_n").set_value(3)
        at.text_input(key="generate_model").set_value(server.spec)
        _button(at, "Generate questions").click().run()
        assert not at.exception, at.exception
        assert not at.error, _texts(at, "error")
        job = _wait(guide_env, at.session_state["_generation_job"])
    finally:
        server.close()
    assert job["status"] == "done", job
    at.run()
    assert not at.exception, at.exception
    warnings = _texts(at, "warning")
    assert "Kept 0 of 3 question(s) asked" in warnings and "holds no question, only the rejected candidates" in warnings
    assert get_benchmark(guide_env, "qs")["n_questions"] == 0
    assert at.selectbox(key="review_benchmark").value == "qs"

    rejection = json.loads(get_benchmark(guide_env, "qs")["metadata"])["rejections"][0]
    (source,) = rejection["source_passage_ids"]
    chunk = get_passages(guide_env, "guide", [source])[source].text
    answer = re.findall(r"\w+", chunk)[-1]  # a word of the chunk: its span is found there
    at.text_area(key="review::qs::rejected-0::text").set_value("Which word ends this paragraph?")
    at.text_input(key="review::qs::rejected-0::answer").set_value(answer)
    _button(at, "Accept as question").click().run()
    assert not at.exception, at.exception
    assert "Rejected candidate 1 is now question gen-0001." in _texts(at, "success")
    (question,) = load_questions(guide_env, "qs")
    assert question.text == "Which word ends this paragraph?" and question.answers == [answer]
    (span,) = question.metadata["gold_spans"]
    document = {"guide/lighthouse.md": GUIDE, "guide/mines.md": MINES}[span["document"]]
    assert document[span["start"] : span["end"]] == answer


def test_a_bad_model_spec_is_one_line_and_starts_nothing(guide_env):
    at = _page()
    at.text_input(key="generate_model").set_value("nonsense")
    _button(at, "Generate questions").click().run()
    assert not at.exception, at.exception
    (error,) = at.error
    assert "nonsense" in plain(error.value) and "\n" not in error.value.strip()
    assert "_generation_job" not in at.session_state


def test_a_local_model_that_kept_nothing_is_called_too_small_with_how_to_use_a_server(guide_env):
    rejections = [
        {"reason": "unsupported", "detail": "d", "kind": "single", "source_passage_ids": ["guide/mines.md#1"],
         "question": "What is it?", "answer": "a mine", "output": "{}"}
    ]  # fmt: skip
    metadata = {"generator": {"model": "local:smollm2", "prompt_version": "v"}, "rejections": rejections}
    save_benchmark(guide_env, "small", "guide", "generated", "tests", [], metadata)
    at = _page()
    warnings = _texts(at, "warning")
    assert "too small to write grounded questions" in warnings and "openai:MODEL@URL" in warnings


def test_a_person_types_a_question_with_its_answer_and_source_into_a_set(guide_env):
    at = _page()
    at.selectbox(key="write_document").set_value("guide/mines.md")
    at.text_input(key="write_set").set_value("mine")
    at.text_area(key="write_quote").set_value("the ore went by barge down the river Allen")
    at.text_input(key="write_question").set_value("Down which river did the ore go?")
    at.text_input(key="write_answer").set_value("Allen")
    at.button(key="write_add").click().run()
    assert not at.exception, at.exception
    assert not at.error, _texts(at, "error")
    assert "Added question q-0001 to set 'mine' (source guide/mines.md#1)." in _texts(at, "success")
    (question,) = load_questions(guide_env, "mine")
    (span,) = question.metadata["gold_spans"]
    assert MINES[span["start"] : span["end"]] == "Allen" and question.answers == ["Allen"]
    at.text_area(key="write_quote").set_value("not in the document")
    at.text_input(key="write_question").set_value("What?")
    at.text_input(key="write_answer").set_value("document")
    at.button(key="write_add").click().run()
    assert "the quote is not in document 'guide/mines.md'" in _texts(at, "error")
    assert len(load_questions(guide_env, "mine")) == 1


def test_a_page_opened_anew_shows_the_last_generation_job(guide_env):
    from playground.questions.jobs import write_job

    result = {"kept": 0, "asked": 4, "rejected": {"unsupported": 4}, "dataset": "qs", "hint": None}
    job = {"id": "abc123", "status": "done", "settings": {"corpus": "guide"}, "done": 4, "total": 4, "result": result}
    write_job(guide_env, job)
    at = _page()
    assert "Kept 0 of 4 question(s) asked; rejected: unsupported 4." in _texts(at, "warning")
