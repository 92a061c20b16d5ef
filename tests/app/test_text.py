"""Stored text shown as text: the escaping helpers, passage cards, and link resolution after an import."""

from __future__ import annotations

import re

from playground.app.components.text import (
    STYLE,
    highlight_html,
    marked_html,
    md_escape,
    passage_card_html,
    query_terms,
    text_html,
)

BEACON = "![x](http://127.0.0.1:9/beacon.png) [click](http://127.0.0.1:9/) <img src=x onerror=alert(1)> # Title"


def test_stored_text_becomes_inert_html():
    shown = text_html(BEACON)
    assert "<img" not in shown and "&lt;img src=x onerror=alert(1)&gt;" in shown
    assert "![x](http://127.0.0.1:9/beacon.png)" in shown  # Markdown is left as the characters it is


def test_markdown_characters_are_escaped_for_labels():
    escaped = md_escape(BEACON + "\nsecond line")
    assert "![" not in escaped and "](" not in escaped and "\n" not in escaped
    assert re.sub(r"\\(.)", r"\1", escaped) == BEACON + " second line"  # what a reader sees


def test_a_span_is_marked_in_escaped_text_without_cutting_an_entity():
    text = "Voss & <b>Marta</b> built it"
    start = text.index("<b>")
    shown = marked_html(text, [(start, start + len("<b>Marta</b>")), (0, 4)])
    assert (
        shown
        == "<mark class='pg-span'>Voss</mark> &amp; <mark class='pg-span'>&lt;b&gt;Marta&lt;/b&gt;</mark> built it"
    )
    assert marked_html(BEACON, []) == text_html(BEACON)


def test_query_terms_are_marked_as_whole_words_in_escaped_text():
    terms = query_terms("What is the capital of France?")
    assert terms == ["capital", "france"]
    shown = highlight_html("Paris is the <b>capital</b> of France; capitalism is not.", terms)
    assert "&lt;b&gt;<mark>capital</mark>&lt;/b&gt;" in shown and "<mark>France</mark>" in shown
    assert "<mark>capitalism" not in shown


def test_a_passage_card_keeps_its_layout_whatever_the_passage_holds():
    card = passage_card_html(
        {"id": "p'1", "title": "# Huge", "text": "</div></div><h1>x</h1>" + BEACON, "rank": 2, "score": 1.5},
        gold=True,
        terms=["huge"],
    )
    assert card.count("<div") == card.count("</div>") == 4  # the passage cannot close the card's elements
    assert "data-passage='p&#x27;1'" in card and "data-gold='true'" in card
    assert "#2" in card and "score 1.500" in card and "★ gold" in card and "<mark>Huge</mark>" in card
    assert "<h1>" not in card and "<img" not in card


def test_a_run_link_resolves_to_its_copy_after_an_import(private_runs_env):
    from playground.store.share_links import resolve_run_link, resolve_session_link
    from playground.store import open_workspace
    from playground.store.sessions import current_session
    from playground.sessionfile import export_session, import_session

    ws = open_workspace(private_runs_env["path"])
    try:
        source = current_session(ws)
        payload = export_session(ws, source["id"])
        ws.db.execute("DELETE FROM results WHERE run_id = ?", [private_runs_env["rag"]])
        ws.db.execute("DELETE FROM runs WHERE id = ?", [private_runs_env["rag"]])  # only the copy will be left
        imported = import_session(ws, payload)
        copy = resolve_run_link(ws, private_runs_env["rag"])
        assert copy != private_runs_env["rag"]
        assert ws.db.execute("SELECT session_id, label FROM runs WHERE id = ?", [copy]).fetchone() == (imported, "rag")
        assert resolve_run_link(ws, private_runs_env["direct"]) == private_runs_env["direct"]  # still here
        assert resolve_session_link(ws, source["id"]) == source["id"]
    finally:
        ws.close()


def test_a_long_passage_opens_to_all_of_it_and_a_short_one_is_shown_whole():
    words = " ".join(f"word{index}" for index in range(200)) + " the Seine END"
    card = passage_card_html(
        {"id": "p1", "title": "Long", "text": words, "rank": 1, "score": 2.0},
        gold=False,
        terms=["seine"],
        note="also found by bm25-rank, dense, faiss-hnsw",
    )
    body = card.split("<div class='pg-body' dir='auto'>")[1]
    assert "<details class='pg-more'>" in body and f"show all {len(words)} characters" in body
    assert "<mark>Seine</mark> END" in body.split("</summary>")[1]  # every word of it, the last ones too
    assert body.split("</summary>")[0].count("word") < 100  # closed, a few lines of it
    assert "text-overflow: ellipsis" not in STYLE.split(".pg-head")[1].split("}")[0]  # the head wraps, not cut
    short = passage_card_html({"id": "p2", "text": "Short text.", "rank": 2}, gold=False)
    assert "<details" not in short and "Short text." in short


def _show_stored_text() -> None:
    from playground.app.components.text import passage_cards, show_text

    hostile = "مرحبا <img src=x onerror=alert(1)> שלום"
    show_text(hostile, label="Question")
    passage_cards([{"id": "ص1", "title": "عنوان <b>", "text": hostile, "rank": 1}], query="مرحبا")


def test_stored_text_reads_in_its_own_direction_and_stays_inert():
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_function(_show_stored_text).run()
    assert not at.exception, at.exception
    shown, cards = (block.value for block in at.html)
    assert "<div class='pg-text' dir='auto'>مرحبا &lt;img src=x onerror=alert(1)&gt; שלום</div>" in shown
    assert "<div class='pg-body' dir='auto'><mark>مرحبا</mark> &lt;img" in cards
    assert "<bdi class='pg-id'>ص1</bdi>" in cards and "<b><bdi>عنوان &lt;b&gt;</bdi></b>" in cards
    assert "<img" not in shown + cards and "<b>" not in cards.replace("<b><bdi>", "")


def test_a_card_marks_the_ranges_the_analyser_located():
    card = passage_card_html(
        {"id": "p1", "title": "首都", "text": "北京是<i>首都</i>", "rank": 1},
        gold=False,
        locate=lambda text: [(i, i + 2) for i in range(len(text)) if text.startswith("首都", i)],
    )
    assert "<b><bdi><mark>首都</mark></bdi></b>" in card and "&lt;i&gt;<mark>首都</mark>&lt;/i&gt;" in card


def test_a_prompt_diff_cell_reads_in_its_own_direction():
    from playground.app.components.diff import prompt_diff_html

    page = prompt_diff_html("السؤال: ما هي عاصمة مصر؟", "السؤال: أين النيل؟ <b>")
    assert "<td class='pg-chg' dir='auto'>" in page and "<b>" not in page
