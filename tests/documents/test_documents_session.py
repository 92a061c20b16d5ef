"""A session export carries a documents corpus's passages (with their document spans), its chunking and the
questions' provenance; the documents' texts stay behind, and re-chunking the imported copy says why it cannot."""

from __future__ import annotations

import json
from contextlib import closing

import pytest

from playground import PlaygroundError
from playground.cli import main
from playground.documents.importing import import_documents
from playground.documents.versions import chunked_corpus
from playground.store import open_workspace
from playground.store.datasets import load_passages, load_questions
from playground.store.values import now, to_json
from playground.store.document_corpora import docs_corpus
from playground.store.sessions import current_session
from playground.sessionfile import export_session, import_session
from tests.documents.folders import rst_sources


def _asked(workspace) -> None:
    """A question set over corpus "mine", as `questions generate` stores one (gold spans and provenance)."""
    passages = load_passages(workspace, "mine")
    gold = next(p for p in passages if "Fisher" in p.text)
    spans = [{"document": gold.metadata["document"], "start": gold.metadata["start"], "end": gold.metadata["end"]}]
    with workspace.db.atomic():
        workspace.db["benchmarks"].insert(
            {"name": "asked", "corpus": "mine", "format": "generated", "source": "test", "n_questions": 1,
             "metadata": to_json({}), "created_at": now()}
        )  # fmt: skip
        workspace.db["questions"].insert(
            {"benchmark": "asked", "id": "q1", "position": 0, "text": "Who introduced the Iris flower data set?",
             "answers": to_json(["Ronald Fisher"]), "gold_passage_ids": to_json([gold.id]), "choices": to_json([]),
             "tags": to_json({}), "metadata": to_json({"gold_spans": spans, "kind": "single",
                                                      "source_passage_ids": [gold.id]})}
        )  # fmt: skip


def test_a_session_carries_documents_passages_and_provenance(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("PLAYGROUND_INDEXES", str(tmp_path / "indexes"))
    folder = tmp_path / "docs"
    folder.mkdir()
    for source in rst_sources():
        (folder / source.name).write_bytes(source.read_bytes())
    db = tmp_path / "a.db"
    with closing(open_workspace(db)) as workspace:
        import_documents(workspace, folder, "mine")
        _asked(workspace)
    argv = ["eval-retrieval", "--dataset", "asked", "--retriever", "bm25", "-k", "3", "--db", str(db), "--json"]
    assert main(argv) == 0
    capsys.readouterr()
    with closing(open_workspace(db)) as workspace:
        exported = export_session(workspace, current_session(workspace)["id"])
        stored = docs_corpus(workspace, "mine")
    benchmark = next(b for b in exported["benchmarks"] if b["name"] == "asked")
    assert benchmark["corpus_metadata"]["chunker"] == stored["metadata"]["chunker"]
    with closing(open_workspace(tmp_path / "b.db")) as other:
        summary = import_session(other, json.loads(json.dumps(exported)))
        assert summary
        passages = load_passages(other, "asked")
        assert passages and all({"document", "start", "end"} <= set(p.metadata) for p in passages)
        copy = docs_corpus(other, "asked")
        assert copy is not None and copy["metadata"]["chunk_size"] == stored["metadata"]["chunk_size"]
        question = load_questions(other, "asked")[0]
        gold = {p.id: p for p in passages}[question.gold_passage_ids[0]]
        assert question.metadata["gold_spans"] == [
            {"document": gold.metadata["document"], "start": gold.metadata["start"], "end": gold.metadata["end"]}
        ]
        assert question.metadata["kind"] == "single" and question.metadata["source_passage_ids"] == [gold.id]
        with pytest.raises(PlaygroundError, match="has no document set"):
            chunked_corpus(other, "asked", "tokens", 64, 0)
