"""A session export carries the question reviews made in the session: the reviewed set and the generated benchmark it
was made from, whole, each question with its provenance and its source chunks with their document spans; an import
into another workspace gives them back."""

from __future__ import annotations

import json

from playground.questions.review import accepted, edited, rejected, save_reviewed
from playground.store import open_workspace
from playground.store.datasets import get_benchmark, get_passages, load_questions
from playground.store.sessions import current_session, export_session, import_session, new_session
from tests.questions.generated import add_generated


def _reviewed(workspace) -> str:
    add_generated(workspace)
    session = current_session(workspace)["id"]
    decisions = {
        "gen-0001": accepted(),
        "gen-0002": edited("What did the keepers ring during storms?", "fog bell"),
        "gen-0003": rejected("wrong answer"),
        "gen-0004": accepted(),
    }
    save_reviewed(workspace, "guide-qs", decisions, session_id=session)
    return session


def test_the_export_carries_the_reviewed_set_and_the_generated_one_and_imports_back(workspace, tmp_path):
    session = _reviewed(workspace)
    payload = json.loads(json.dumps(export_session(workspace, session)))
    benchmarks = {b["name"]: b for b in payload["benchmarks"]}
    assert set(benchmarks) == {"guide-qs", "guide-qs.reviewed-1"}
    assert [q["id"] for q in benchmarks["guide-qs"]["questions"]] == ["gen-0001", "gen-0002", "gen-0003", "gen-0004"]
    assert benchmarks["guide-qs"]["metadata"]["rejections"]
    chunk = {p["id"]: p for p in benchmarks["guide-qs"]["passages"]}["guide/lighthouse.md#2"]
    assert chunk["metadata"]["document"] == "guide/lighthouse.md" and isinstance(chunk["metadata"]["start"], int)

    other = open_workspace(tmp_path / "other" / "playground.db")
    try:
        import_session(other, payload)
        reviewed = {q.id: q for q in load_questions(other, "guide-qs.reviewed-1")}
        assert list(reviewed) == ["gen-0001", "gen-0002", "gen-0004"]
        assert reviewed["gen-0002"].answers == ["fog bell"]
        assert reviewed["gen-0002"].metadata["review"]["original"]["answer"] == "the fog bell"
        assert reviewed["gen-0004"].metadata["gold_spans"] and reviewed["gen-0004"].metadata["generator"]
        review = json.loads(get_benchmark(other, "guide-qs.reviewed-1")["metadata"])["review"]
        assert {r["question_id"]: r["decision"] for r in review["decisions"]}["gen-0003"] == "rejected"
        generated = load_questions(other, "guide-qs")
        assert len(generated) == 4 and generated[1].text == "What did the keepers ring in winter storms?"
        sources = get_passages(other, get_benchmark(other, "guide-qs")["corpus"], ["guide/mines.md#1"])
        assert sources["guide/mines.md#1"].metadata["document"] == "guide/mines.md"
    finally:
        other.close()


def test_another_sessions_export_leaves_the_review_out(workspace):
    _reviewed(workspace)
    other = new_session(workspace, "elsewhere")
    payload = export_session(workspace, other["id"])
    assert payload["benchmarks"] == []
