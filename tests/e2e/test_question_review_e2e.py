"""Reviewing generated questions in a real Chromium (issue 19 item 5): on the Workspace page a person sees the
answer's span marked in its source chunk, accepts one question, edits one (an answer that is not in the chunk is
refused first), rejects one with a reason, accepts the last, saves, and the saved benchmark version holds the
edits (read back through the store); the generated benchmark is left as it was."""

from __future__ import annotations

import json
import re

import pytest

from playground.store import open_workspace
from playground.store.datasets import get_benchmark, load_questions
from tests.e2e.helpers import choose, open_page, wait_until_idle
from tests.questions.generated import add_generated

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def review_app(tmp_path_factory):
    """(url, db): an app over a workspace holding corpus `guide` and the generated benchmark `guide-qs`."""
    from tests.e2e.servers import app_server

    root = tmp_path_factory.mktemp("e2e-review")
    db = root / "sessions" / "playground.db"
    workspace = open_workspace(db)
    try:
        add_generated(workspace)
    finally:
        workspace.close()
    with app_server(db, root / "streamlit.log") as url:
        yield url, db


def _card(page, position: int, question_id: str):
    card = page.locator(f".st-key-review-card-{position}")
    card.locator(f"[data-question='{question_id}']").wait_for()
    return card


def _click(card, name: str) -> None:
    card.get_by_role("button", name=name, exact=True).click()
    wait_until_idle(card.page)


def _edit(card, question: str, answer: str) -> None:
    card.get_by_label("Question text", exact=True).fill(question)
    card.get_by_label("Answer text", exact=True).fill(answer)
    _click(card, "Save edit")


def test_accept_edit_reject_then_save_stores_a_version_holding_the_edits(page, review_app, screenshot):
    url, db = review_app
    open_page(page, url + "/workspace", "Workspace")
    page.get_by_role("heading", name="Review generated questions").wait_for()

    first, second, third, fourth = (_card(page, n, f"gen-000{n + 1}") for n in range(4))
    assert second.locator("mark.pg-span").inner_text() == "the fog bell"
    assert "Keepers" in second.inner_text()  # the source chunk's heading trail

    _click(first, "Accept")
    assert first.locator("[data-decision='accepted']").count() == 1

    _click(second, "Edit")
    _edit(second, "What did the keepers ring during winter storms?", "a brass gong")
    refusal = second.get_by_text(re.compile(r"the answer 'a brass gong' is not in its source chunk"))
    refusal.wait_for()
    _edit(second, "What did the keepers ring during winter storms?", "fog bell")
    assert second.locator("[data-decision='edited']").count() == 1
    assert second.locator(".pg-review-answer").inner_text() == "fog bell"
    assert second.locator("mark.pg-span").inner_text() == "fog bell"  # the edited answer's span, found again

    choose(page, "Reject because", "ambiguous question", within=third)
    _click(third, "Reject")
    assert third.locator("[data-decision='rejected']").count() == 1
    _click(fourth, "Accept")

    screenshot(page, "question-review")
    page.get_by_role("button", name="Save reviewed set").click()
    wait_until_idle(page)
    page.get_by_text(re.compile(r"Saved 3 question\(s\) as benchmark guide-qs\.reviewed-1")).wait_for()

    workspace = open_workspace(db)
    try:
        saved = {q.id: q for q in load_questions(workspace, "guide-qs.reviewed-1")}
        assert list(saved) == ["gen-0001", "gen-0002", "gen-0004"]
        assert saved["gen-0002"].text == "What did the keepers ring during winter storms?"
        assert saved["gen-0002"].answers == ["fog bell"]
        review = json.loads(get_benchmark(workspace, "guide-qs.reviewed-1")["metadata"])["review"]
        decisions = {r["question_id"]: r for r in review["decisions"]}
        assert decisions["gen-0002"]["edited"] == {"text": saved["gen-0002"].text, "answer": "fog bell"}
        assert decisions["gen-0002"]["original"]["answer"] == "the fog bell"
        assert decisions["gen-0003"]["decision"] == "rejected"
        assert decisions["gen-0003"]["reason"] == "ambiguous question"
        assert {r["decided_by"] for r in decisions.values()} == {"person"}
        assert [q.answers for q in load_questions(workspace, "guide-qs")][1] == ["the fog bell"]
    finally:
        workspace.close()
