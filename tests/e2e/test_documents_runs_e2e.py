"""Side by side on a documents workspace in a real Chromium (issue 19 item 6): two runs of different prompts over
questions generated from an imported folder (tests/app/documents_runs.py), opened from their address as a person
opens a shared comparison. Both runs' passages show their document paths and heading-trail titles, and a chunk that
is not the question's source chunk but overlaps its gold span is marked gold, as retrieval evaluation counts it."""

from __future__ import annotations

import pytest

from playground.evaluation.span_gold import gold_among
from playground.store import open_workspace
from playground.store.datasets import load_questions
from playground.store.runs import get_spans
from tests.app.documents_runs import documents_runs
from tests.e2e.helpers import choose, open_page, wait_until_idle

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def docs_app(tmp_path_factory, browser_context):
    """(url, built): an app over the documents workspace with its two runs."""
    from tests.e2e.servers import app_server

    built = documents_runs(tmp_path_factory)
    with app_server(built["path"], built["path"].parent / "streamlit.log") as url:
        yield url, built


def _overlap_only(built) -> tuple:
    """(question, the passages run A retrieved for it, those gold by span alone)."""
    workspace = open_workspace(built["path"])
    try:
        for question in load_questions(workspace, "guide-qs"):
            spans = [s for s in get_spans(workspace, built["a"], question.id) if s["kind"] == "retrieve"]
            ranked = [hit["id"] for hit in spans[0]["outputs"]["hits"]]
            gold = gold_among(workspace, "guide", question, ranked)
            if gold and not gold & set(question.gold_passage_ids):
                return question, ranked, gold
    finally:
        workspace.close()
    raise AssertionError("no question retrieved only through a chunk overlapping its gold span")


def test_side_by_side_marks_span_gold_in_both_runs_passages(page, docs_app):
    url, built = docs_app
    question, ranked, gold = _overlap_only(built)
    open_page(page, f"{url}/side-by-side?benchmark=guide-qs&runs=A:{built['a']},B:{built['b']}", "Side by side")
    page.get_by_text("Questions x variants (3 question(s)").wait_for()
    wait_until_idle(page)
    choose(page, "Question", question.id)  # the cell's question picker (the page's own is labelled longer)
    for label in "AB":
        page.get_by_test_id("stRadio").filter(has_text="Variant").get_by_text(label, exact=True).click()
        wait_until_idle(page)
        cards = page.locator(".pg-card:visible")
        assert cards.count() == len(ranked)
        for passage_id in ranked:
            card = page.locator(f".pg-card[data-passage='{passage_id}']:visible")
            head = card.locator(".pg-head").inner_text()
            assert passage_id in head and ("Kellerby lighthouse" in head or "Dunmore mines" in head), head
            assert card.get_attribute("data-gold") == ("true" if passage_id in gold else "false")
            assert ("★ gold" in head) == (passage_id in gold)
        assert page.get_by_text("overlap the question's 1 gold span(s)").first.is_visible()
