"""The pages on a documents workspace (issue 19 item 6): a folder imported by `data import docs` (heading-trail
titles, document spans), questions generated against a real local HTTP server playing the model, then the
Playground and Retrievers pages work on it as on a benchmark."""

from __future__ import annotations

import re

import pytest

import playground.cli as cli
from playground.store import open_workspace
from playground.store.datasets import load_questions
from playground.store.retrieval_runs import list_retrieval_runs
from tests.app.conftest import page_test
from tests.questions.test_generate import GUIDE, MINES, ScriptedModel

GOOD = {  # a word of the chunk -> a question grounded in it
    "whale oil": ("Who built the lighthouse at Kellerby?", "Marta Voss"),
    "Grey Shoal": ("What did the keepers ring in winter storms?", "the fog bell"),
    "harbour wall": ("Where were the granite blocks of the harbour wall cut?", "Trevail quarry"),
    "ore went by barge": ("Where were the smelters the Dunmore ore was taken to?", "Pellow"),
    "engine house": ("In which year did the last engine house at Dunmore shut?", "1921"),
}


def _reply(prompt: str) -> str:
    import json

    for marker, (question, answer) in GOOD.items():
        if marker in prompt:
            return json.dumps({"question": question, "answer": answer})
    return "no question here"


def _markdown(text: str) -> str:
    """The test documents with Markdown headings (short lines), so passages are titled by heading trails."""
    lines, first = [], True
    for line in text.split("\n"):
        if line and len(line.split()) <= 3:
            line, first = ("# " if first else "## ") + line, False
        lines.append(line)
    return "\n".join(lines)


@pytest.fixture(scope="module")
def docs_db(tmp_path_factory):
    root = tmp_path_factory.mktemp("docs_workspace")
    folder = root / "guide"
    folder.mkdir()
    (folder / "lighthouse.md").write_text(_markdown(GUIDE), encoding="utf-8")
    (folder / "mines.md").write_text(_markdown(MINES), encoding="utf-8")
    db = str(root / "sessions" / "playground.db")
    argv = ["data", "import", "docs", str(folder), "--name", "guide", "--chunker", "markdown", "--chunk-size", "64"]
    assert cli.main([*argv, "--db", db]) == 0
    server = ScriptedModel(_reply)
    try:
        argv = ["questions", "generate", "--corpus", "guide", "--model", server.spec, "--name", "guide-qs"]
        assert cli.main([*argv, "--n", "6", "--two-hop-share", "0", "--seed", "1", "--db", db]) == 0
    finally:
        server.close()
    return db


@pytest.fixture
def docs_env(docs_db, monkeypatch):
    monkeypatch.setenv("PLAYGROUND_DB", docs_db)
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    workspace = open_workspace(docs_db)
    try:
        questions = load_questions(workspace, "guide-qs")
    finally:
        workspace.close()
    assert len(questions) >= 3
    return questions


def _page(slug: str):
    at = page_test(slug)
    at.session_state["benchmark"] = "guide-qs"
    return at


def test_the_playground_shows_a_generated_question_with_passages_titled_by_heading_trails(docs_env):
    at = _page("playground").run()
    assert not at.exception, at.exception
    prompt = at.code[0].value
    assert any(question.text in prompt for question in docs_env), prompt
    assert re.search(r"(Kellerby lighthouse|Dunmore mines) > \w+", prompt), prompt


def test_retrievers_evaluates_with_the_span_gold(docs_env, docs_db):
    at = _page("retrievers")
    at.session_state["retrievers_kinds"] = ["bm25", "bm25-rank"]
    at.run()
    assert not at.exception, at.exception
    at.number_input(key="retrievers_k").set_value(3)
    at.button(key="retrievers_evaluate").click().run()
    assert not at.exception, at.exception
    workspace = open_workspace(docs_db)
    try:
        runs = list_retrieval_runs(workspace, "guide-qs")
    finally:
        workspace.close()
    assert sorted(run["config"]["retriever"] for run in runs) == ["bm25", "bm25-rank"]
    for run in runs:
        assert run["metrics"]["n"] == len(docs_env) and run["metrics"]["recall@k"] > 0
