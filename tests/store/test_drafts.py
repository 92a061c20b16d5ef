"""The editor's drafts: one per session and template, the latest one reopened, gone with their session."""

from playground.store.drafts import get_draft, latest_draft, save_draft
from playground.store.sessions import current_session, delete_session, new_session


def test_a_draft_is_kept_per_session_and_template_and_the_latest_is_the_last_saved(workspace):
    session = current_session(workspace)["id"]
    save_draft(workspace, session, "rag-short-answer", "text one", "aaa")
    save_draft(workspace, session, "my-template", "text two", None)
    assert latest_draft(workspace, session)["template"] == "my-template"
    save_draft(workspace, session, "rag-short-answer", "text one, edited", "aaa")
    latest = latest_draft(workspace, session)
    assert (latest["template"], latest["content"], latest["base_version"]) == (
        "rag-short-answer",
        "text one, edited",
        "aaa",
    )
    assert get_draft(workspace, session, "my-template")["content"] == "text two"

    other = new_session(workspace, "other")["id"]
    assert latest_draft(workspace, other) is None
    assert get_draft(workspace, other, "rag-short-answer") is None


def test_going_back_to_a_template_makes_its_unchanged_draft_the_latest(workspace):
    session = current_session(workspace)["id"]
    save_draft(workspace, session, "a", "text a", None)
    save_draft(workspace, session, "b", "text b", None)
    save_draft(workspace, session, "a", "text a", None)
    assert latest_draft(workspace, session)["template"] == "a"


def test_saving_the_same_draft_again_writes_nothing(workspace):
    session = current_session(workspace)["id"]
    save_draft(workspace, session, "a", "text a", "v1")
    stamp = latest_draft(workspace, session)["updated_at"]
    changes = workspace.db.conn.total_changes
    save_draft(workspace, session, "a", "text a", "v1")
    assert workspace.db.conn.total_changes == changes
    assert latest_draft(workspace, session)["updated_at"] == stamp


def test_deleting_a_session_deletes_its_drafts(workspace):
    keep = current_session(workspace)["id"]
    gone = new_session(workspace, "gone")["id"]
    save_draft(workspace, gone, "a", "text", None)
    save_draft(workspace, keep, "a", "kept", None)
    delete_session(workspace, gone)
    assert get_draft(workspace, gone, "a") is None
    assert get_draft(workspace, keep, "a")["content"] == "kept"
