"""The Workspace page imports your own documents (issue 34 item 7): a folder typed as a path on the server, or
uploaded files, become a corpus listed on the page, through the engine call `data import docs` makes; a bad path is
one line and stores nothing."""

from __future__ import annotations

from types import SimpleNamespace

from streamlit.testing.v1 import AppTest

from playground.app.screens.workspace.document_import import import_uploaded
from playground.store.datasets import list_datasets, load_passages
from tests.app.conftest import page_path, plain

HANDBOOK = {
    "lighthouse.md": "# Kellerby lighthouse\n\nThe lighthouse at Kellerby was built in 1874 by the engineer Marta Voss.\n",
    "mines.md": "# Dunmore mines\n\nCopper was mined at Dunmore from 1790 and went by barge down the river Allen.\n",
}


def _folder(tmp_path):
    folder = tmp_path / "handbook"
    folder.mkdir()
    for name, text in HANDBOOK.items():
        (folder / name).write_text(text, encoding="utf-8")
    return folder


def _page() -> AppTest:
    at = AppTest.from_file(page_path("workspace"), default_timeout=60).run()
    assert not at.exception, at.exception
    return at


def test_a_folder_path_typed_on_the_page_becomes_a_listed_corpus(app_workspace, tmp_path):
    folder = _folder(tmp_path)
    at = _page()
    at.text_input(key="import_docs_name").set_value("handbook")
    at.text_input(key="import_docs_path").set_value(str(folder))
    at.button(key="import_docs_path_go").click().run()
    assert not at.exception, at.exception
    assert "Imported 2 document(s)" in plain(at.success[0].value) and "'handbook'" in plain(at.success[0].value)
    assert set(at.dataframe[0].value["name"]) == {"handbook", "tiny"}
    texts = " ".join(p.text for p in load_passages(app_workspace, "handbook"))
    assert "Marta Voss" in texts and "river Allen" in texts


def test_a_missing_folder_is_one_line_and_stores_nothing(app_workspace, tmp_path):
    at = _page()
    at.text_input(key="import_docs_name").set_value("handbook")
    at.text_input(key="import_docs_path").set_value(str(tmp_path / "nowhere"))
    at.button(key="import_docs_path_go").click().run()
    assert not at.exception, at.exception
    (error,) = at.error
    assert "nowhere" in plain(error.value) and "\n" not in error.value.strip()
    assert [c["name"] for c in list_datasets(app_workspace)["corpora"]] == ["tiny"]


def test_uploaded_files_are_imported_as_a_folder(app_workspace):
    files = [SimpleNamespace(name=name, getvalue=lambda text=text: text.encode()) for name, text in HANDBOOK.items()]
    summary = import_uploaded(app_workspace, files, "uploaded")
    assert summary["documents"] == 2 and summary["version"] == "new"
    documents = {p.metadata.get("document") for p in load_passages(app_workspace, "uploaded")}
    assert {d.rsplit("/", 1)[-1] for d in documents} == set(HANDBOOK)
