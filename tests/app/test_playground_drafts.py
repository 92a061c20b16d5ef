"""The Playground keeps what it shows: the editor's text survives a new browser session (a reload), its view is in
the address, and "Save as new template" names the text (a file beside the workspace and a version)."""

from __future__ import annotations

from pathlib import Path

from streamlit.testing.v1 import AppTest

from playground.prompts.library import load_template
from playground.store.prompts import list_prompt_versions, save_prompt_version
from tests.app.conftest import page_path

EDIT = "My edit: {{ question }}"


def _page() -> AppTest:
    return AppTest.from_file(page_path("playground"), default_timeout=120)


def test_unsaved_text_survives_a_reload_and_the_address_names_the_view(app_workspace):
    at = _page().run()
    at.session_state["template_user"] = EDIT
    at.run()
    assert not at.exception, at.exception
    assert at.query_params["template"] == "rag-short-answer"
    assert at.query_params["q"] and at.query_params["retriever"] == "bm25"

    reloaded = _page().run()  # a new browser session on `/`: no session state, no link
    assert not reloaded.exception, reloaded.exception
    assert reloaded.session_state["template_user"] == EDIT
    assert "My edit: What is the capital of France?" in reloaded.code[0].value


def test_a_restored_version_survives_a_reload_of_its_address(app_workspace):
    starter = load_template("rag-short-answer")
    v1 = starter.with_changes(user="v1: {{ question }}")
    v1_id = save_prompt_version(app_workspace, v1, message="v1")
    save_prompt_version(app_workspace, starter.with_changes(user="v2: {{ question }}"), message="v2")
    at = _page()
    at.session_state["template_version"] = v1_id  # what Restore (Sessions page) leaves
    at.session_state["template_name"] = "rag-short-answer"
    at.run()
    assert not at.exception, at.exception
    assert at.session_state["template_user"] == v1.user
    assert at.query_params["version"] == v1_id

    reloaded = _page()
    for key, values in at.query_params.items():
        reloaded.query_params[key] = values
    reloaded.run()
    assert not reloaded.exception, reloaded.exception
    assert reloaded.session_state["template_user"] == v1.user


def test_save_as_new_template_names_the_editor_text(app_workspace):
    at = _page().run()
    at.session_state["template_system"] = "Answer in one word."
    at.run()
    at.text_input(key="pg_new_template_name").set_value("one-word")
    at.text_input(key="pg_new_template_description").set_value("One-word answers")
    at.button(key="pg_new_template_save").click().run()
    assert not at.exception, at.exception
    assert [m.value for m in at.success if "Saved as new template" in m.value], [m.value for m in at.error]

    path = Path(app_workspace.path).parent.parent / "templates" / "one-word.jinja"
    assert path.is_file()
    saved = load_template("one-word", app_workspace)
    assert saved.system == "Answer in one word." and saved.description == "One-word answers"
    versions = list_prompt_versions(app_workspace, "one-word")
    assert len(versions) == 1 and versions[0]["parent"]  # edited from the starter's version
    assert at.selectbox(key="pg_starter").value == "one-word"
    assert at.session_state["template_system"] == "Answer in one word."


def test_a_starter_name_is_refused_with_one_line_and_nothing_written(app_workspace):
    at = _page().run()
    at.text_input(key="pg_new_template_name").set_value("rag-cot")
    at.button(key="pg_new_template_save").click().run()
    assert not at.exception, at.exception
    assert any("starter" in m.value for m in at.error)
    assert not (Path(app_workspace.path).parent.parent / "templates" / "rag-cot.jinja").exists()
