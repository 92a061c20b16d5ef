"""Your own documents from the Workspace page alone, in a real Chromium (issue 34 item 7): a folder of Markdown files
typed as a path becomes a corpus, a generation job runs against a planted model server (a real local HTTP server
whose questions are never grounded, so every candidate is rejected), and a rejected candidate is accepted after an
edit, becoming a question with its span (read back through the store)."""

from __future__ import annotations

import json
import re

import pytest

from playground.store import open_workspace
from playground.store.datasets import get_benchmark, get_passages, load_questions
from tests.e2e.helpers import open_page, set_text, wait_until_idle
from tests.questions.test_generate import GENERIC, ScriptedModel

pytestmark = pytest.mark.e2e

HANDBOOK = {
    "lighthouse.md": "# Kellerby lighthouse\n\nThe lighthouse at Kellerby was built in 1874 by the engineer Marta Voss, "
    "and its lamp burned whale oil until the harbour board bought a paraffin burner.\n",
    "mines.md": "# Dunmore mines\n\nCopper was mined at Dunmore from 1790, and the ore went by barge down the river "
    "Allen to the smelters at Pellow.\n",
}


@pytest.fixture(scope="module")
def documents_app(tmp_path_factory):
    """(url, db, folder): an app over an empty workspace, and a folder of Markdown files beside it."""
    from tests.e2e.servers import app_server

    root = tmp_path_factory.mktemp("e2e-documents")
    db = root / "sessions" / "playground.db"
    open_workspace(db).close()
    folder = root / "handbook"
    folder.mkdir()
    for name, text in HANDBOOK.items():
        (folder / name).write_text(text, encoding="utf-8")
    with app_server(db, root / "streamlit.log") as url:
        yield url, db, folder


def _click(page, name: str) -> None:
    page.get_by_role("button", name=name, exact=True).click()
    wait_until_idle(page)


def test_a_folder_becomes_a_corpus_a_job_generates_and_a_rejected_candidate_is_accepted(
    page, documents_app, screenshot
):
    url, db, folder = documents_app
    open_page(page, url + "/workspace", "Workspace")

    page.get_by_text("Import documents", exact=True).click()
    set_text(page, "Corpus name", "handbook")
    set_text(page, "Folder (or file) path", str(folder))
    _click(page, "Import folder")
    page.get_by_text(re.compile(r"Imported 2 document\(s\) from .* as corpus 'handbook'")).wait_for()

    server = ScriptedModel(lambda prompt: GENERIC)  # "What is the answer?" / "Chile": in no chunk
    try:
        page.get_by_label("New benchmark name", exact=True).fill("qs")
        page.get_by_label("Questions", exact=True).fill("2")
        page.get_by_label("Model", exact=True).fill(server.spec)
        _click(page, "Generate questions")
        page.get_by_text(re.compile(r"Kept 0 of 2 question\(s\) asked")).wait_for(timeout=240_000)
    finally:
        server.close()
    wait_until_idle(page)

    workspace = open_workspace(db, create=False)
    try:
        (source,) = json.loads(get_benchmark(workspace, "qs")["metadata"])["rejections"][0]["source_passage_ids"]
        chunk = get_passages(workspace, "handbook", [source])[source].text
    finally:
        workspace.close()
    answer = "Marta Voss" if "Marta Voss" in chunk else "river Allen"
    page.get_by_label("Question text", exact=True).fill("Who or what is named in this paragraph?")
    page.get_by_label("Answer text", exact=True).fill(answer)
    _click(page, "Accept as question")
    page.get_by_text("Rejected candidate 1 is now question gen-0001.").wait_for()
    screenshot(page, "workspace-documents-accepted")

    workspace = open_workspace(db, create=False)
    try:
        (question,) = load_questions(workspace, "qs")
    finally:
        workspace.close()
    assert question.answers == [answer] and question.gold_passage_ids == [source]
    (span,) = question.metadata["gold_spans"]
    assert span["end"] - span["start"] == len(answer)
