"""A first start on a workspace file that does not exist yet: every page says what to do, and a shared session
imported on the Sessions page is listed (sidebar picker, Switch tab) and can be switched to in the same rerun."""

from __future__ import annotations

import json

import pytest
from streamlit.testing.v1 import AppTest

from playground.app.state import PAGE_SLUGS
from playground.store import open_workspace
from playground.store.sessions import list_sessions
from playground.sessionfile import export_session
from tests.app.conftest import ENTRY, page_path, plain, runs_workspace, shown_text


@pytest.fixture
def fresh_db(tmp_path, monkeypatch):
    """A workspace path whose folder does not exist yet, named by $PLAYGROUND_DB as `playground app` does."""
    path = tmp_path / "new" / "sessions" / "playground.db"
    monkeypatch.setenv("PLAYGROUND_DB", str(path))
    monkeypatch.delenv("PLAYGROUND_INDEXES", raising=False)
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    return path


@pytest.fixture
def shared_file(tmp_path_factory) -> tuple[str, bytes, dict]:
    """(file name, bytes, source) of the export of the run workspace's session (two real runs)."""
    built = runs_workspace(tmp_path_factory)
    source = open_workspace(built["path"])
    try:
        session = source.db.execute("SELECT session_id FROM runs WHERE id = ?", [built["direct"]]).fetchone()[0]
        payload = export_session(source, session)
    finally:
        source.close()
    return "shared.playground-session.json", json.dumps(payload).encode(), payload


def _app_on(slug: str) -> AppTest:
    """The whole app (sidebar included) opened on page `slug`, as a `?page=` link opens it."""
    at = AppTest.from_file(str(ENTRY), default_timeout=120)
    at.query_params["page"] = slug
    return at


def _infos(at: AppTest) -> list[str]:
    return [plain(info.value) for info in at.info] + [plain(info.value) for info in at.sidebar.info]


@pytest.mark.parametrize("slug", PAGE_SLUGS)
def test_every_page_opens_on_an_empty_workspace_and_says_what_to_do(fresh_db, slug):
    at = AppTest.from_file(page_path(slug), default_timeout=60).run()
    assert not at.exception, at.exception
    assert fresh_db.exists()
    if slug not in ("sessions", "ab", "traces"):  # these speak of sessions and runs, not of a benchmark
        assert any("Sessions page" in text for text in _infos(at)), _infos(at)


def test_the_sidebar_of_an_empty_workspace_says_import_a_session(fresh_db):
    at = _app_on("runs").run()
    assert not at.exception, at.exception
    assert any("import a shared session on the Sessions page" in text for text in _infos(at)), _infos(at)


def test_an_imported_session_is_listed_and_switched_to_in_the_same_rerun(fresh_db, shared_file):
    name, data, payload = shared_file
    at = _app_on("sessions").run()
    assert not at.exception, at.exception
    at.file_uploader(key="sessions_upload").set_value((name, data, "application/json"))
    at.run()
    at.button(key="sessions_import").click().run()
    assert not at.exception, at.exception
    ws = open_workspace(fresh_db)
    imported = next(s for s in list_sessions(ws) if (s.get("origin") or {}).get("kind") == "import")
    ws.close()
    assert imported["n_runs"] == len(payload["runs"]) == 2
    assert any(imported["id"][:8] in option for option in at.sidebar.selectbox(key="_sidebar_session").options)
    assert any(imported["id"][:8] in option for option in at.selectbox(key="sessions_switch_to").options)
    assert at.sidebar.selectbox(key="benchmark").value == "tiny"  # the imported benchmark, in the same rerun
    assert any(imported["id"] in plain(message.value) for message in at.success)

    at.button(key="sessions_switch_imported").click().run()
    assert not at.exception, at.exception
    assert at.session_state["session_id"] == imported["id"]
    assert at.sidebar.selectbox(key="_sidebar_session").value == imported["id"]
    assert f"Current session: {imported['name']}" in shown_text(at)
