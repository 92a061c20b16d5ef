"""The Playground page on a real workspace: live rendering, inline template errors, a real local-model run."""

from __future__ import annotations

import os

from streamlit.testing.v1 import AppTest

from playground.prompts.library import load_template
from playground.store.content_ids import prompt_version_id
from playground.store.prompts import get_prompt_version
from playground.store.runs import get_results, list_runs
from tests.app.conftest import ENTRY, html_block, page_path, plain


def _page() -> AppTest:
    return AppTest.from_file(page_path("playground"), default_timeout=120)


def _prompt(at: AppTest) -> str:
    return at.code[0].value


def test_the_page_renders_the_starter_prompt_for_a_benchmark_question(app_workspace):
    at = _page().run()
    assert not at.exception
    assert at.title[0].value == "Playground"
    prompt = _prompt(at)
    assert "What is the capital of France?" in prompt  # q1 is the first of the seeded sample of six
    assert "Paris is the capital" in prompt  # bm25 put the gold passage in the prompt
    starter = load_template("rag-short-answer")
    assert at.session_state["template_user"] == starter.user


def test_the_rendered_prompt_follows_the_editor_text_without_a_model_call(app_workspace):
    at = _page().run()
    at.session_state["template_user"] = "Say it loudly: {{ question | upper }}"
    at.run()
    assert not at.exception
    assert "Say it loudly: WHAT IS THE CAPITAL OF FRANCE?" in _prompt(at)
    at.session_state["template_system"] = "You are terse."
    at.run()
    assert _prompt(at).startswith("[system]\nYou are terse.")
    assert list_runs(app_workspace) == []  # rendering never runs the model


def test_a_template_error_shows_its_part_line_and_column(app_workspace):
    at = _page().run()
    at.session_state["template_user"] = "Question: {{ question }}\nAnswer {{ question | nosuchfilter }}"
    at.run()
    assert not at.exception
    messages = [error.value for error in at.error]
    assert len(messages) == 1, messages
    assert "user part" in messages[0] and "line 2" in messages[0] and "column" in messages[0]
    assert "nosuchfilter" in messages[0]
    assert not [c for c in at.code if c.value.startswith("[")]  # no prompt is shown for a broken template
    assert [button for button in at.button if button.label == "Run"][0].disabled


def test_a_question_the_template_cannot_use_is_reported_not_raised(app_workspace):
    at = _page().run()
    at.session_state["template_user"] = "{{ question }} {{ undefined_thing }}"
    at.run()
    assert not at.exception
    assert any("undefined_thing" in plain(warning.value) for warning in at.warning)


def test_run_with_the_local_model_answers_scores_and_stores_a_versioned_run(app_workspace):
    at = _page().run()
    starter = load_template("rag-short-answer")
    at.session_state["template_user"] = starter.user + "\nBe brief."
    at.number_input(key="pg_model_max_tokens").set_value(16)
    [run] = [button for button in at.button if button.label == "Run"]
    run.click().run(timeout=180)
    assert not at.exception
    assert not at.error, [e.value for e in at.error]
    answer = html_block(at, "pg-answer")
    assert answer.strip()
    runs = list_runs(app_workspace)
    assert len(runs) == 1
    [result] = get_results(app_workspace, runs[0].id)
    assert result["question_id"] == "q1"
    assert result["prediction"] == answer
    assert result["completion_tokens"] <= 16
    assert {metric.label for metric in at.metric} >= {"em", "f1"}
    assert any(
        f"{result['prompt_tokens']} prompt + {result['completion_tokens']} completion" in c.value for c in at.caption
    )
    edited_id = runs[0].config["prompt_versions"]["main"]
    edited = get_prompt_version(app_workspace, edited_id)
    assert edited["content"].rstrip().endswith("Be brief.")
    assert edited["parent"] == prompt_version_id(starter.content)  # the edit's parent is the starter it came from
    assert get_prompt_version(app_workspace, edited["parent"])["template"] == "rag-short-answer"


def test_a_share_link_reopens_the_question_and_retriever(app_workspace):
    at = _page()
    at.query_params["q"] = "q4"
    at.query_params["retriever"] = "none"
    at.query_params["template"] = "direct-short-answer"
    at.run()
    assert not at.exception
    assert at.session_state["pg_question"] == "q4"
    assert at.session_state["pg_starter"] == "direct-short-answer"
    prompt = _prompt(at)
    assert "Who created the Python programming language?" in prompt
    assert "Guido van Rossum and first released" not in prompt  # no retriever: no passages


def test_typed_api_keys_stay_in_the_browser_session(app_workspace, monkeypatch):
    monkeypatch.delenv("CO_API_KEY", raising=False)
    at = AppTest.from_file(str(ENTRY), default_timeout=120)
    # What typing into the password field stores (AppTest drops sidebar widgets on reruns under st.navigation).
    at.session_state["_key_input_CO_API_KEY"] = "typed-secret-123"
    at.run()
    assert not at.exception
    assert at.sidebar.text_input(key="_key_input_CO_API_KEY").value == "typed-secret-123"
    assert at.session_state["_api_keys"] == {"CO_API_KEY": "typed-secret-123"}
    assert "CO_API_KEY" not in os.environ
    assert "typed-secret-123" not in (app_workspace.path.read_bytes() + _wal(app_workspace)).decode("latin-1")
    other = AppTest.from_file(str(ENTRY), default_timeout=120).run()  # another browser session
    assert "CO_API_KEY" not in other.session_state["_api_keys"]


def _wal(workspace) -> bytes:
    wal = workspace.path.with_name(workspace.path.name + "-wal")
    return wal.read_bytes() if wal.exists() else b""


def test_a_template_over_its_render_budget_shows_one_error_and_the_page_stays_responsive(app_workspace, monkeypatch):
    import time

    monkeypatch.setenv("PLAYGROUND_RENDER_SECONDS", "0.5")  # the preview's 2 s budget, shortened as a user can
    at = _page().run()
    at.session_state["template_user"] = (
        "Question: {{ question }}\n"
        "{% macro m(n) %}{% if n %}{{ m(n-1) }}{{ m(n-1) }}{% endif %}{% endmacro %}"
        "{{ m(40) }}"
    )
    started = time.perf_counter()
    at.run()
    assert time.perf_counter() - started < 10  # the 0.5 s budget, plus the page itself
    assert not at.exception
    problems = [element.value for element in [*at.error, *at.warning]]
    assert any("line 2" in text and "render budget" in text for text in problems), problems
    at.session_state["template_user"] = "Fine again: {{ question }}"
    at.run()
    assert "Fine again: What is the capital of France?" in _prompt(at)


def test_a_typed_question_goes_through_the_programs_call_and_stores_no_run(app_workspace):
    import re

    at = _page()
    at.session_state["pg_question_mode"] = "Type a question"
    at.session_state["pg_typed_question"] = "What is the capital of Spain?"
    at.run()
    assert at.text_input(key="pg_typed_question").value == "What is the capital of Spain?"
    at.number_input(key="pg_model_max_tokens").set_value(8)
    [run] = [button for button in at.button if button.label == "Run"]
    run.click().run(timeout=180)
    assert not at.exception, at.exception
    assert not at.error, [e.value for e in at.error]
    assert html_block(at, "pg-answer").strip()
    assert list_runs(app_workspace) == []  # a typed question has no reference: shown, not stored as a run
    assert any(re.search(r"\d+ prompt \+ [1-8] completion", c.value) for c in at.caption)
