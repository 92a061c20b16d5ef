"""The Workspace page reviews a generated benchmark: each question with its source chunk and the answer's span marked,
the generator's rejections counted, Accept / Edit / Reject per question, and "Save reviewed set" storing a new
benchmark version that holds the edits (read back through the store)."""

from __future__ import annotations

import json

import pytest
from streamlit.testing.v1 import AppTest

from playground.questions.review import reviewable
from playground.store.datasets import get_benchmark, load_questions
from tests.app.conftest import page_path, plain
from tests.questions.generated import add_generated

BENCH = "guide-qs"


@pytest.fixture
def generated_env(workspace, monkeypatch):
    add_generated(workspace)
    monkeypatch.setenv("PLAYGROUND_DB", str(workspace.path))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    return workspace


def _key(question_id: str, what: str) -> str:
    return f"review::{BENCH}::{question_id}::{what}"


def _page() -> AppTest:
    at = AppTest.from_file(page_path("workspace"), default_timeout=60).run()
    assert not at.exception, at.exception
    return at


def _html(at: AppTest) -> str:
    return "\n".join(block.value for block in at.html)


def _submit_edit(at: AppTest, question_id: str, text: str, answer: str) -> AppTest:
    at.button(key=_key(question_id, "edit")).click().run()
    at.text_area(key=_key(question_id, "text")).input(text)
    at.text_input(key=_key(question_id, "answer")).input(answer)
    (submit,) = [button for button in at.button if button.label == "Save edit"]
    return submit.click().run()


def test_the_page_shows_each_question_with_its_span_marked_and_the_rejections(generated_env):
    at = _page()
    assert at.selectbox(key="review_benchmark").value == BENCH
    shown = _html(at)
    assert "<mark class='pg-span'>the fog bell</mark>" in shown
    assert "<mark class='pg-span'>Marta Voss</mark>" in shown
    assert "data-question='gen-0004'" in shown and "bridge: evidence" in shown
    captions = [plain(c.value) for c in at.caption]
    assert any("rejected 3 candidate(s): unsupported 2, unparsable 1" in c for c in captions), captions
    assert any(c.startswith("4 question(s): 0 accepted, 0 edited, 0 rejected, 4 undecided") for c in captions)


def test_accept_edit_reject_and_save_stores_a_version_holding_the_edits(generated_env):
    at = _page()
    at.button(key=_key("gen-0001", "accept")).click().run()
    at = _submit_edit(at, "gen-0002", "What did the keepers ring during storms?", "fog bell")
    assert not at.error, [e.value for e in at.error]
    assert "rang the <mark class='pg-span'>fog bell</mark> in winter" in _html(at)
    at.selectbox(key=_key("gen-0003", "reason")).select("ambiguous question").run()
    at.button(key=_key("gen-0003", "reject")).click().run()
    at.button(key=f"review_accept_rest::{BENCH}").click().run()  # gen-0004
    assert any("1 edited, 1 rejected, 0 undecided" in plain(c.value) for c in at.caption)
    at.button(key=f"review_save::{BENCH}").click().run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    assert "guide-qs.reviewed-1" in plain(at.success[0].value)

    questions = {q.id: q for q in load_questions(generated_env, "guide-qs.reviewed-1")}
    assert list(questions) == ["gen-0001", "gen-0002", "gen-0004"]
    assert questions["gen-0002"].text == "What did the keepers ring during storms?"
    assert questions["gen-0002"].answers == ["fog bell"]
    review = json.loads(get_benchmark(generated_env, "guide-qs.reviewed-1")["metadata"])["review"]
    decisions = {r["question_id"]: r for r in review["decisions"]}
    assert decisions["gen-0003"]["reason"] == "ambiguous question"
    assert decisions["gen-0002"]["original"]["answer"] == "the fog bell"
    assert review["session_id"]  # the session it was saved in, so that session's export carries it
    assert len(load_questions(generated_env, BENCH)) == 4


def test_an_edited_answer_not_in_the_chunk_is_refused_in_one_line_and_the_decisions_survive_reruns(generated_env):
    at = _page()
    at.button(key=_key("gen-0002", "accept")).click().run()
    at = _submit_edit(at, "gen-0001", "Who built the lighthouse?", "Isambard Brunel")
    (error,) = at.error
    assert plain(error.value) == (
        "question gen-0001: the answer 'Isambard Brunel' is not in its source chunk(s) guide/lighthouse.md#1"
    )
    at.run()
    assert any("1 accepted, 0 edited, 0 rejected, 3 undecided" in plain(c.value) for c in at.caption)
    at.button(key=f"review_save::{BENCH}").click().run()
    assert "3 question(s) of 'guide-qs' have no decision yet" in plain(at.error[-1].value)
    assert reviewable(generated_env) == [BENCH]
