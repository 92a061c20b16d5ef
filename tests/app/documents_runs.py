"""A documents workspace with two runs (issue 19 item 6), built once per test run and shared by the app and browser tests: a folder imported
by `data import docs` with overlapping chunks (so a chunk that is not a question's source can overlap its gold span),
questions generated against a real local HTTP server playing the model, and two rag runs of different prompts on
them, answered by a real local HTTP server."""

from __future__ import annotations

import playground.cli as cli
from playground.store import open_workspace
from tests.app.test_documents_workspace import _markdown, _reply
from tests.questions.test_generate import GUIDE, MINES, ScriptedModel

_BUILT: dict = {}


def _answer(prompt: str) -> str:
    """The answering model: "Marta Voss" when a passage names her, else "Pellow"; asked for citations, always
    "Pellow [1]" (so the two prompts' runs differ on a question)."""
    if "Answer with citations" in prompt:
        return "Pellow [1]"
    return "Marta Voss" if "Marta Voss" in prompt else "Pellow"


def _build(root) -> None:
    """The workspace in `root`/sessions/playground.db (indexes beside it), its runs' ids in `root`/runs.json."""
    import json

    from playground.runs.config import RunConfig
    from playground.runs.execute import start_run

    folder = root / "guide"
    folder.mkdir()
    (folder / "lighthouse.md").write_text(_markdown(GUIDE), encoding="utf-8")
    (folder / "mines.md").write_text(_markdown(MINES), encoding="utf-8")
    db = root / "sessions" / "playground.db"
    chunking = ["--chunker", "markdown", "--chunk-size", "24", "--overlap", "12"]
    assert cli.main(["data", "import", "docs", str(folder), "--name", "guide", *chunking, "--db", str(db)]) == 0
    generator = ScriptedModel(_reply)
    try:
        argv = ["questions", "generate", "--corpus", "guide", "--model", generator.spec, "--name", "guide-qs"]
        assert cli.main([*argv, "--n", "10", "--two-hop-share", "0", "--seed", "1", "--db", str(db)]) == 0
    finally:
        generator.close()
    answerer = ScriptedModel(_answer)
    workspace = open_workspace(db)
    try:
        runs = {}
        for label, template in (("a", "rag-short-answer"), ("b", "rag-citations")):
            config = RunConfig(
                dataset="guide-qs",
                program="rag",
                templates={"main": template},
                retriever="bm25",
                k=2,
                model=answerer.spec,
                params={"max_tokens": 16},
            )
            summary = start_run(workspace, config, label=f"docs {label}")
            assert summary.status == "done", summary
            runs[label] = summary.run_id
    finally:
        workspace.close()
        answerer.close()
    (root / "runs.json").write_text(json.dumps(runs), encoding="utf-8")


def documents_runs(tmp_path_factory) -> dict:
    """{"path", "a", "b"}: the workspace and its two runs' ids (A: rag-short-answer, B: rag-citations; bm25, k=2),
    built once per test run (tests.conftest.shared_build), each test process working on a copy of its own."""
    import json
    import shutil

    from tests.conftest import shared_build

    if _BUILT:
        return dict(_BUILT)
    built = shared_build(tmp_path_factory, "docs-runs", _build)
    root = tmp_path_factory.mktemp("docs_runs")
    shutil.copytree(built, root, dirs_exist_ok=True)
    runs = json.loads((root / "runs.json").read_text(encoding="utf-8"))
    _BUILT.update(path=root / "sessions" / "playground.db", **runs)
    return dict(_BUILT)
