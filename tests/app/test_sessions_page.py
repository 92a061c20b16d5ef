"""The Sessions page on a copy of the run workspace: manage sessions, export then import, share link, history."""

from __future__ import annotations


import pytest

from playground.prompts.library import load_template
from playground.store import open_workspace
from playground.store.prompts import save_prompt_version
from playground.store.sessions import current_session, list_sessions
from playground.app.screens.sessions.data import export_file
from tests.app.conftest import page_test, plain


@pytest.fixture
def session_env(private_runs_env):
    """These tests create and delete sessions: a private copy of the shared run workspace (its path)."""
    return private_runs_env["path"]


def _names(path) -> list[str]:
    return [s["name"] for s in list_sessions(open_workspace(path))]


def test_the_page_lists_sessions_and_shows_a_share_link(session_env):
    at = page_test("sessions").run()
    assert not at.exception, at.exception
    table = next(t for t in at.dataframe if "prompt versions" in t.value.columns)
    assert list(table.value["name"]) == _names(session_env)
    current = current_session(open_workspace(session_env))
    assert list(table.value["runs"])[0] >= 2
    link = next(c.value for c in at.code if c.value.startswith("http"))
    assert f"session={current['id']}" in link and "/runs?" in link


def test_create_rename_switch_and_delete(session_env):
    at = page_test("sessions").run()
    at.text_input(key="sessions_new_name").set_value("experiment")
    at.button(key="sessions_create").click().run()
    assert not at.exception, at.exception
    ws = open_workspace(session_env)
    assert "experiment" in _names(session_env)
    new_id = next(s["id"] for s in list_sessions(ws) if s["name"] == "experiment")
    assert at.session_state["session_id"] == new_id
    assert any("Created session 'experiment'" in s.value for s in at.success)

    at.text_input(key="sessions_rename_to").set_value("experiment 2")
    at.button(key="sessions_rename").click().run()
    assert not at.exception, at.exception
    assert "experiment 2" in _names(session_env) and "experiment" not in _names(session_env)

    at.text_input(key="sessions_new_name").set_value("experiment 2")
    at.button(key="sessions_create").click().run()
    assert any("already exists" in e.value for e in at.error)

    at.selectbox(key="sessions_delete_which").set_value(new_id)
    at.button(key="sessions_delete").click().run()
    assert any("Tick the confirmation box" in e.value for e in at.error)
    assert "experiment 2" in _names(session_env)
    at.checkbox(key="sessions_delete_confirm").check()
    at.button(key="sessions_delete").click().run()
    assert not at.exception, at.exception
    assert "experiment 2" not in _names(session_env)
    assert at.session_state["session_id"] != new_id


def test_export_then_import_through_the_page_makes_a_second_session(session_env):
    ws = open_workspace(session_env)
    source = current_session(ws)
    file_name, data = export_file(ws, source["id"])
    at = page_test("sessions").run()
    at.file_uploader(key="sessions_upload").set_value((file_name, data, "application/json"))
    at.run()
    at.button(key="sessions_import").click().run()
    assert not at.exception, at.exception
    sessions = list_sessions(ws)
    assert len(sessions) == 2
    imported = next(s for s in sessions if s["id"] != source["id"])
    assert imported["origin"]["kind"] == "import" and imported["name"].startswith(source["name"])
    assert imported["n_runs"] == next(s for s in sessions if s["id"] == source["id"])["n_runs"]
    assert any(imported["id"] in s.value for s in at.success)


def test_a_bad_session_file_is_an_error_naming_the_file_and_field(session_env):
    at = page_test("sessions").run()
    bad = (
        b'{"format": "playground-session", "version": 1, "session": {"id": "s", "name": "x"}, "runs": 3,'
        b' "results": [], "spans": [], "prompt_versions": [], "templates": [], "ratings": [], "benchmarks": []}'
    )
    at.file_uploader(key="sessions_upload").set_value(("broken.json", bad, "application/json"))
    at.run()
    at.button(key="sessions_import").click().run()
    assert not at.exception, at.exception
    assert any("broken.json" in plain(e.value) and "runs" in e.value and "expected a list" in e.value for e in at.error)
    assert len(_names(session_env)) == 1


def test_prompt_history_diffs_a_version_with_its_parent_and_restores_it(session_env):
    ws = open_workspace(session_env)
    base = load_template("direct-short-answer")
    base.user = base.user + "\nAnswer in at most five words."
    edited = save_prompt_version(ws, base, message="shorter answers")
    at = page_test("sessions")
    at.session_state["sessions_history_template"] = "direct-short-answer"
    at.run()
    assert not at.exception, at.exception
    assert at.selectbox(key="sessions_version").value == edited
    diff = next(c.value for c in at.code if c.language == "diff")
    assert "+Answer in at most five words." in diff
    at.button(key="sessions_restore").click().run()
    assert not at.exception, at.exception
    assert at.session_state["template_name"] == "direct-short-answer"
    assert at.session_state["template_user"].rstrip().endswith("Answer in at most five words.")
    assert at.session_state["template_system"] == base.system
    assert any("Restored direct-short-answer" in plain(s.value) for s in at.success)


def test_prompt_history_shows_the_labels_on_each_version(session_env):
    from playground.store.prompt_labels import move_label

    ws = open_workspace(session_env)
    base = load_template("direct-short-answer")
    labelled = save_prompt_version(ws, base.with_changes(system="Answer in one word."), message="one word")
    move_label(ws, "direct-short-answer", "prod", labelled, "person")
    at = page_test("sessions")
    at.session_state["sessions_history_template"] = "direct-short-answer"
    at.run()
    assert not at.exception, at.exception
    table = next(frame.value for frame in at.dataframe if "labels" in frame.value.columns)
    assert dict(zip(table["id"], table["labels"]))[labelled] == "prod"
    assert set(table["labels"]) == {"prod", ""}


def test_the_download_is_the_session_export(session_env):
    import json

    from playground.app.screens.sessions.data import export_bytes

    ws = open_workspace(session_env)
    source = current_session(ws)
    payload = json.loads(export_bytes(str(session_env), source["id"]))
    assert payload["format"] == "playground-session" and payload["session"]["id"] == source["id"]
    assert len(payload["runs"]) == source_runs(ws, source["id"])
    at = page_test("sessions").run()
    assert not at.exception, at.exception
    assert at.download_button(key="sessions_download") is not None


def source_runs(ws, session_id: str) -> int:
    return ws.db["runs"].count_where("session_id = ?", [session_id])


def test_a_session_with_a_search_still_running_is_not_deleted_and_the_page_says_how_to_stop_it(session_env):
    from playground.store.optimizations import create_optimization, finish_optimization
    from playground.store.sessions import new_session

    ws = open_workspace(session_env)
    busy = new_session(ws, "busy", make_current=False)["id"]
    splits = {"train": ["q1"], "validation": ["q2"], "test": ["q3"]}
    search = create_optimization(ws, {"run": {}}, splits, "v-start", busy)  # running, owned by this live process
    at = page_test("sessions").run()
    at.selectbox(key="sessions_delete_which").set_value(busy)
    at.checkbox(key="sessions_delete_confirm").check()
    at.button(key="sessions_delete").click().run()
    assert not at.exception, at.exception
    assert any(f"playground optimize --stop-search {search}" in plain(e.value) for e in at.error), at.error
    assert "busy" in _names(session_env)

    finish_optimization(ws, search, "stopped", None)
    at.button(key="sessions_delete").click().run()
    assert "busy" not in _names(session_env)


def test_the_history_opens_on_an_answering_template_and_share_runs_are_named(session_env):
    ws = open_workspace(session_env)
    save_prompt_version(ws, load_template("instruction-proposal"))  # a search stores its proposal prompt
    at = page_test("sessions").run()
    assert not at.exception, at.exception
    history = at.selectbox(key="sessions_history_template")
    assert history.value != "instruction-proposal" and "(internal" not in history.format_func(history.value)
    assert history.options[-1] == "instruction-proposal (internal: instruction-proposal)"
    share = at.selectbox(key="sessions_share_run")
    named = [option for option in share.options if option != "(none)"]
    assert named and all(len(option.split(" · ")) >= 3 for option in named)  # id · name · status, not a bare id
    assert any(" · direct · " in option for option in named) and any(" · rag · " in option for option in named)
