"""`data import docs` on a real folder nobody here wrote (tests/documents/folders.py): counts, titles, spans, the
skipped files and their reasons, and corpus versions when the folder changes."""

from __future__ import annotations

import json
import shutil

import pytest

from playground.cli import main
from playground.data.documents.tokens import count_tokens
from contextlib import closing

from playground.store import open_workspace
from playground.store.datasets import get_benchmark, load_passages
from playground.store.documents import document_text, list_documents
from tests.documents.folders import PDF_PAGES, build_docs_folder, first_rst_heading


@pytest.fixture(scope="module")
def docs(tmp_path_factory):
    return build_docs_folder(tmp_path_factory.mktemp("real-docs"))


@pytest.fixture
def db(tmp_path, monkeypatch):
    monkeypatch.delenv("PLAYGROUND_DB", raising=False)
    monkeypatch.setenv("PLAYGROUND_INDEXES", str(tmp_path / "indexes"))
    return str(tmp_path / "playground.db")


def _import(capsys, db, folder, *flags) -> dict:
    code = main(["--db", db, "data", "import", "docs", str(folder), "--name", "mine", "--json", *flags])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    return json.loads(captured.out)


def _by_document(passages) -> dict:
    grouped: dict = {}
    for passage in passages:
        grouped.setdefault(passage.metadata["document"], []).append(passage)
    return grouped


def test_a_real_folder_imports_with_counts_titles_and_exact_spans(docs, db, capsys):
    summary = _import(capsys, db, docs["folder"])
    skipped = {item["path"]: item["reason"] for item in summary["skipped"]}
    assert skipped[docs["binary"]] == "binary"
    imported = set(docs["markdown"]) | set(docs["rst"]) | set(docs["html_from_markdown"]) | {docs["pdf"]}
    imported.add("rendered/json-module.html")
    assert summary["documents"] == len(imported) and set(skipped) == {docs["binary"]}
    with closing(open_workspace(db)) as workspace:
        listed = {d["path"]: d for d in list_documents(workspace, summary["document_set"])}
        assert set(listed) == imported
        assert {listed[p]["format"] for p in docs["markdown"]} == {"markdown"}
        assert {listed[p]["format"] for p in docs["rst"]} == {"rst"} and listed[docs["pdf"]]["format"] == "pdf"
        passages = load_passages(workspace, "mine")
        assert len(passages) == summary["passages"] and get_benchmark(workspace, "mine")["corpus"] == "mine"
        by_document = _by_document(passages)
        assert set(by_document) == imported
        for path, group in by_document.items():
            text = document_text(workspace, summary["document_set"], path)
            assert [p.id for p in group] == [f"{path}#{n}" for n in range(1, len(group) + 1)]
            for passage in group:
                start, end = passage.metadata["start"], passage.metadata["end"]
                assert passage.text == text[start:end] and passage.text.strip() == passage.text != ""
                assert count_tokens(passage.text) <= 200
    for path, source in docs["rst"].items():
        heading = first_rst_heading(source.read_text(encoding="utf-8"))
        titles = [p.title for p in by_document[path]]
        assert any(title.split(" > ")[0] == heading for title in titles), (path, heading, titles[:3])
    for path, source in docs["markdown"].items():
        first_line = source.read_text(encoding="utf-8").lstrip().split("\n", 1)[0]
        if first_line.startswith("# "):
            assert by_document[path][0].title == " ".join(first_line[2:].replace("`", "").split()), path
    for html_path, markdown_path in docs["html_from_markdown"].items():
        # two parsers, one document: the HTML rendered from a Markdown file has the same heading trails
        assert {p.title for p in by_document[html_path]} == {p.title for p in by_document[markdown_path]}
        html_text = " ".join(p.text for p in by_document[html_path])
        assert "var x" not in html_text and "Home | Next" not in html_text
    pdf = by_document[docs["pdf"]]
    assert [p.title for p in pdf] == [title for title, _ in PDF_PAGES]
    assert "Ronald Fisher in 1936" in pdf[0].text and "Thirteen constituents" in pdf[1].text


def test_re_importing_a_changed_folder_keeps_the_older_version(docs, db, capsys, tmp_path):
    folder = tmp_path / "copy"
    shutil.copytree(docs["folder"], folder)
    first = _import(capsys, db, folder, "--chunker", "tokens", "--chunk-size", "128", "--overlap", "32")
    assert first["version"] == "new"
    assert _import(capsys, db, folder, "--chunker", "tokens", "--chunk-size", "128", "--overlap", "32")["version"] == (
        "unchanged"
    )
    rst = next(iter(docs["rst"]))
    (folder / rst).write_text("Changed\n=======\n\nA new text about something else entirely.\n", encoding="utf-8")
    second = _import(capsys, db, folder, "--chunker", "tokens", "--chunk-size", "128", "--overlap", "32")
    assert second["version"] == "new version" and second["document_set"] != first["document_set"]
    older = f"mine@{first['document_set'][:8]}"
    assert second["moved"] == [f"mine -> {older}"]
    with closing(open_workspace(db)) as workspace:
        old_passages = {p.id: p for p in load_passages(workspace, older)}
        new_passages = {p.id: p for p in load_passages(workspace, "mine")}
        assert len(old_passages) == first["passages"] and new_passages[f"{rst}#1"].text.startswith("Changed")
        assert not old_passages[f"{rst}#1"].text.startswith("Changed")
        assert document_text(workspace, first["document_set"], rst) != document_text(
            workspace, second["document_set"], rst
        )
    code = main(["--db", db, "data", "list"])
    out = capsys.readouterr().out
    assert code == 0 and f"{older} " in out and "tokens, 128 tokens, overlap 32" in out
