"""A session export carries the question reviews made in the session: the reviewed set and the generated benchmark it
was made from, whole, each question with its provenance and its source chunks with their document spans; an import
into another workspace gives them back."""

from __future__ import annotations

import json

from playground.questions.review import accepted, edited, rejected, save_reviewed
from playground.store import open_workspace
from playground.store.datasets import get_benchmark, get_passages, load_questions
from playground.store.sessions import current_session, new_session
from playground.sessionfile import export_session, import_session
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


def _names(payload: dict) -> set[str]:
    return {b["name"] for b in payload["benchmarks"]}


def test_an_imported_session_exports_its_review_sets_again(workspace, tmp_path):
    """Export, import into a workspace whose names are taken by other sets, export the imported session again: the
    reviewed set and its generated one go with it, their review naming them as imported."""
    session = _reviewed(workspace)
    payload = json.loads(json.dumps(export_session(workspace, session)))
    other = open_workspace(tmp_path / "other" / "playground.db")
    try:
        add_generated(other, name="guide-qs")  # the same name, other content: the import takes free names
        other.db.execute("UPDATE questions SET text = 'Changed?' WHERE benchmark = 'guide-qs' AND id = 'gen-0001'")
        imported = import_session(other, payload)
        again = json.loads(json.dumps(export_session(other, imported)))
        assert _names(again) == {"guide-qs (imported)", "guide-qs.reviewed-1"}
        review = {b["name"]: b for b in again["benchmarks"]}["guide-qs.reviewed-1"]["metadata"]["review"]
        assert review["of"] == review["generated"] == "guide-qs (imported)" and review["session_id"] == imported
        third = open_workspace(tmp_path / "third" / "playground.db")
        try:
            import_session(third, again)
            assert [q.id for q in load_questions(third, "guide-qs.reviewed-1")] == ["gen-0001", "gen-0002", "gen-0004"]
        finally:
            third.close()
    finally:
        other.close()


def test_a_session_imported_beside_its_review_sets_exports_them(workspace):
    """Imported into the workspace it came from, the review sets are reused as stored (still the first session's):
    the imported session's export carries them all the same."""
    session = _reviewed(workspace)
    imported = import_session(workspace, json.loads(json.dumps(export_session(workspace, session))))
    assert _names(export_session(workspace, imported)) == {"guide-qs", "guide-qs.reviewed-1"}
