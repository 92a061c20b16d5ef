"""Save version on a text already stored (the starter a run used) keeps the typed message and says the version ran."""

from __future__ import annotations

from streamlit.testing.v1 import AppTest

from playground.prompts.library import load_template
from playground.store import open_workspace
from playground.store.content_ids import prompt_version_id
from playground.store.prompts import get_prompt_version
from tests.app.conftest import page_path, plain


def test_saving_a_text_a_run_used_keeps_the_message_and_says_it_ran(private_runs_env):
    at = AppTest.from_file(page_path("playground"), default_timeout=120).run()
    assert not at.exception, at.exception
    assert at.session_state["pg_starter"] == "rag-short-answer"  # the rag run's template, as it ran
    at.text_input(key="pg_history_message").set_value("the baseline that ran")
    at.button(key="pg_history_save").click().run()
    assert not at.exception, at.exception
    version = prompt_version_id(load_template("rag-short-answer").content)
    [notice] = [plain(s.value) for s in at.success if "Saved version" in plain(s.value)]
    assert notice == (f"Saved version {version[:8]} of rag-short-answer: the baseline that ran (used by 1 run(s))."), (
        notice
    )
    assert get_prompt_version(open_workspace(private_runs_env["path"]), version)["message"] == "the baseline that ran"


def test_the_history_beside_the_editor_shows_each_version_s_labels(private_runs_env):
    from playground.store.prompt_labels import move_label

    version = prompt_version_id(load_template("rag-short-answer").content)
    move_label(open_workspace(private_runs_env["path"]), "rag-short-answer", "prod", version, "person")
    at = AppTest.from_file(page_path("playground"), default_timeout=120).run()
    assert not at.exception, at.exception
    options = at.radio(key="pg_history_version").options
    assert [option for option in options if "[prod]" in option] == [
        option for option in options if option.startswith(version[:8])
    ]
    assert any(option.startswith(f"{version[:8]} [prod] · ") for option in options)


def test_a_label_moved_from_the_history_is_kept_with_person_as_who_moved_it(private_runs_env):
    from playground.store.prompt_labels import label_moves

    version = prompt_version_id(load_template("rag-short-answer").content)
    at = AppTest.from_file(page_path("playground"), default_timeout=120).run()
    assert not at.exception, at.exception
    at.radio(key="pg_history_version").set_value(version).run()
    at.text_input(key="pg_history_label").set_value("cafe").run()
    at.button(key="pg_history_move_label").click().run()
    assert not at.exception, at.exception
    assert any("hexadecimal digits only" in plain(e.value) for e in at.error)
    assert label_moves(open_workspace(private_runs_env["path"])) == []
    at.text_input(key="pg_history_label").set_value("prod").run()
    at.button(key="pg_history_move_label").click().run()
    assert not at.exception, at.exception
    assert any(f"Moved rag-short-answer@prod to version {version[:8]}." == plain(s.value) for s in at.success)
    [move] = label_moves(open_workspace(private_runs_env["path"]))
    assert (move["template"], move["label"], move["version"], move["moved_by"]) == (
        "rag-short-answer",
        "prod",
        version,
        "person",
    )
    assert any(option.startswith(f"{version[:8]} [prod]") for option in at.radio(key="pg_history_version").options)
