"""The Runs page on a real workspace with real runs of the local model (fixtures in tests/app/conftest.py)."""

from __future__ import annotations

import json
import os
import time

from streamlit.testing.v1 import AppTest

from playground.app.components.prompt_picker import PROGRAM_DEFAULT
from playground.runs.execute import start_run
from playground.store import open_workspace
from playground.runs.jobs import checked_run
from playground.store.runs import get_results, get_run, list_runs
from tests.conftest import tiny_dataset
from tests.app.conftest import html_block, page_test, run_config


def _column(table, name: str) -> list:
    return list(table.value[name])


def results_table(at: AppTest):
    """The per-question table (the one with a trace column); st.dataframe has no key in AppTest without selection."""
    return next(table for table in at.dataframe if "trace" in table.value.columns)


def test_the_runs_table_lists_both_runs_with_settings_and_scores(runs_env):
    at = page_test("runs").run()
    assert not at.exception, at.exception
    runs_table = at.dataframe[0]
    assert {runs_env["direct"], runs_env["rag"]} <= set(_column(runs_table, "id"))
    row = dict(zip(_column(runs_table, "id"), _column(runs_table, "program")))
    assert row[runs_env["direct"]] == "direct" and row[runs_env["rag"]] == "rag"
    assert {"em", "f1", "retrieval_recall"} <= set(runs_table.value.columns)


def test_opening_a_run_shows_its_questions_with_trace_links_and_filters(runs_env):
    at = page_test("runs")
    at.session_state["runs_open"] = runs_env["rag"]
    at.run()
    assert not at.exception, at.exception
    # beside the scores, the definition they were computed by (an English benchmark: SQuAD's, as always)
    assert "EM, F1 and cover-EM by the SQuAD v1.1 definition, language en" in [c.value for c in at.caption]
    results = get_results(open_workspace(runs_env["path"]), runs_env["rag"])
    table = results_table(at)
    assert _column(table, "question_id") == [r["question_id"] for r in results]
    links = _column(table, "trace")
    assert all(f"run={runs_env['rag']}" in link and "/traces?" in link for link in links)
    assert [f"question={r['question_id']}" in link for r, link in zip(results, links)] == [True] * len(results)

    # The outcome filter keeps exactly the rows the chosen metric calls wrong.
    at.selectbox(key="runs_metric").set_value("em").run()
    wrong = [r["question_id"] for r in results if not r["error"] and r["scores"]["em"] < 1.0]
    at.multiselect(key="runs_outcomes").set_value(["wrong"]).run()
    assert not at.exception, at.exception
    assert _column(results_table(at), "question_id") == wrong

    # A tag filter keeps the rows whose question carries that tag.
    at.multiselect(key="runs_outcomes").set_value([])
    at.multiselect(key="runs_tags").set_value(["type=city"]).run()
    cities = {q.id for q in tiny_dataset().questions if q.tags.get("type") == "city"}
    assert _column(results_table(at), "question_id") == [
        r["question_id"] for r in results if r["question_id"] in cities
    ]


def _until_finished(ws, run_id: str, limit_s: float = 180.0) -> dict:
    deadline = time.monotonic() + limit_s
    while (run := checked_run(ws, run_id)).status == "running" and time.monotonic() < deadline:
        time.sleep(0.05)
    return run


def test_launching_a_run_from_the_page_hands_it_to_a_worker_that_finishes_it(private_runs_env):
    runs_env = private_runs_env  # it adds a run: to a copy, the shared one stays as built
    before = {run.id for run in list_runs(open_workspace(runs_env["path"]))}
    at = page_test("runs")
    at.run()
    at.selectbox(key="runs_template").set_value(PROGRAM_DEFAULT)
    at.selectbox(key="runs_program").set_value("direct")
    at.number_input(key="runs_model_max_tokens").set_value(8)
    at.number_input(key="runs_sample").set_value(3)
    at.text_input(key="runs_label").set_value("from the page")
    at.button(key="runs_start").click().run()
    assert not at.exception, at.exception
    assert not at.error, [e.value for e in at.error]
    ws = open_workspace(runs_env["path"])
    new = [run for run in list_runs(ws) if run.id not in before]
    assert len(new) == 1
    assert any(new[0].id in s.value and "goes on if you leave" in s.value for s in at.success)
    assert new[0].worker_pid != os.getpid()  # a worker process, not this script
    run = _until_finished(ws, new[0].id)
    assert (run.label, run.status, run.n_done) == ("from the page", "done", 3)
    # Same prompts as the fixture's direct run: answered from the response cache, same answers.
    assert [r["prediction"] for r in get_results(ws, run.id)] == [
        r["prediction"] for r in get_results(ws, runs_env["direct"])
    ]
    at.run()  # the page, opened again, shows the run finished
    assert any("status `done`" in m.value for m in at.markdown)


def test_a_stopped_run_resumes_from_the_page(private_runs_env):
    runs_env = private_runs_env  # it adds a run: to a copy, the shared one stays as built
    ws = open_workspace(runs_env["path"])
    calls = []
    stopped = start_run(
        ws,
        run_config("direct"),
        should_stop=lambda: len(calls) > 0,
        on_progress=lambda done, total, message="": calls.append(done) if done else None,
        label="stopped",
    )
    assert stopped.status == "stopped" and stopped.n == 1
    at = page_test("runs")
    at.session_state["runs_open"] = stopped.run_id
    at.run()
    assert not at.exception, at.exception
    at.button(key=f"runs_resume_{stopped.run_id}").click().run()
    assert not at.exception, at.exception
    assert any("resumed" in s.value for s in at.success)
    run = _until_finished(ws, stopped.run_id)
    assert (run.status, run.n_done) == ("done", 3)


def test_a_bad_model_spec_is_a_message_next_to_the_selector(runs_env):
    at = page_test("runs")
    at.session_state["runs_model_spec"] = "nonsense-provider:x"  # typed into the selector (accept_new_options)
    at.run()
    assert not at.exception, at.exception
    assert at.error and "Model" in at.error[0].value
    assert at.button(key="runs_start").disabled


def test_outcomes_follow_the_metric_threshold_and_errors():
    from playground.app.screens.runs.data import filter_rows, outcome

    assert outcome({"scores": {"em": 1.0}}, "em", 1.0) == "correct"
    assert outcome({"scores": {"f1": 0.4}}, "f1", 0.5) == "wrong"
    assert outcome({"scores": {}, "error": "ModelError: timeout"}, "em", 1.0) == "error"
    assert outcome({"scores": {"f1": 0.4}}, "em", 1.0) == "unscored"
    rows = [
        {"outcome": "correct", "tags": "type=city"},
        {"outcome": "wrong", "tags": "type=city, level=hard"},
        {"outcome": "wrong", "tags": ""},
    ]
    assert filter_rows(rows, ["wrong"], []) == rows[1:]
    assert filter_rows(rows, [], ["type=city", "level=hard"]) == [rows[1]]
    assert filter_rows(rows) == rows


def test_the_launch_form_shows_the_chosen_programs_typed_options(runs_env):
    at = page_test("runs")
    at.run()
    at.selectbox(key="runs_program").set_value("fusion").run()
    assert not at.exception, at.exception
    queries = at.number_input(key="runs_option_fusion_queries")
    assert queries.value == 3 and "queries" in queries.help
    assert at.selectbox(key="runs_option_fusion_fusion").options == ["rrf", "combsum"]
    at.selectbox(key="runs_program").set_value("direct").run()
    assert any("no options of its own" in caption.value for caption in at.caption)


def test_a_running_job_is_followed_stopped_and_resumed_from_the_page(app_workspace):
    from playground.models.base import GenerationParams
    from playground.runs import Execution, RunConfig
    from tests.openai_server import OpenAIServer

    server = OpenAIServer(delay_s=0.8).start()
    try:
        ws = app_workspace
        config = RunConfig(
            dataset="tiny", program="direct", model=server.spec(), params=GenerationParams(max_tokens=8), repeats=3
        )
        run_id = start_run(ws, config, execution=Execution(concurrency=1), detach=True).run_id
        deadline = time.monotonic() + 60
        while get_run(ws, run_id).n_done < 1 and time.monotonic() < deadline:
            time.sleep(0.05)
        at = page_test("runs")
        at.session_state["runs_open"] = run_id
        at.run()
        assert not at.exception, at.exception
        assert any("status `running`" in m.value for m in at.markdown)
        latest = next(t for t in at.dataframe if "question_id" in t.value.columns and "trace" not in t.value.columns)
        assert "q1" in list(latest.value["question_id"])  # answers so far, while it runs
        at.button(key=f"runs_stop_{run_id}").click().run()
        assert not at.exception, at.exception
        run = _until_finished(ws, run_id, 30)
        assert run.status == "stopped" and 1 <= run.n_done < 18
        server.delay_s = 0.0  # slow answers kept it running while it was followed; the resumed rest need none
        at.run()
        at.button(key=f"runs_resume_{run_id}").click().run()
        assert not at.exception, at.exception
        run = _until_finished(ws, run_id, 90)
        assert (run.status, run.n_done) == ("done", 18)
        assert len(server.requests) == 18  # the resumed worker answered only the missing questions
    finally:
        server.close()


def test_the_run_started_after_restoring_v1_runs_v1_and_says_so(app_workspace):
    """The prompt picker defaults to the text the editor holds (here: v1, restored), never silently a starter;
    the run records v1's id and its page names the version with its message."""
    from playground.prompts.library import load_template
    from playground.store.drafts import save_draft
    from playground.store.prompts import save_prompt_version
    from playground.store.sessions import current_session

    starter = load_template("rag-short-answer")
    v1 = starter.with_changes(user="Question: {{ question }}\nAnswer:")
    v1_id = save_prompt_version(app_workspace, v1, message="v1: no passages")
    save_prompt_version(app_workspace, starter.with_changes(user="Q: {{ question }}"), message="v2")
    save_draft(app_workspace, current_session(app_workspace)["id"], "rag-short-answer", v1.content, v1_id)

    at = page_test("runs").run()
    assert not at.exception, at.exception
    picker = at.selectbox(key="runs_template")
    assert picker.value == f"rag-short-answer@{v1_id}"
    assert "v1: no passages" in picker.format_func(picker.value)
    at.selectbox(key="runs_program").set_value("direct")
    at.number_input(key="runs_model_max_tokens").set_value(4)
    at.number_input(key="runs_sample").set_value(1)
    at.button(key="runs_start").click().run()
    assert not at.exception, at.exception
    run = _until_finished(app_workspace, list_runs(app_workspace)[0].id)
    assert run.status == "done"
    assert run.config["prompt_versions"]["main"] == v1_id
    at.run()
    shown = html_block(at, "pg-run-prompt")
    assert shown.startswith("Prompt (main): rag-short-answer · v1: no passages · ") and v1_id[:8] in shown


def _label_the_browser_shows(picker, shown: str | None) -> str | None:
    """What a browser's selectbox shows: the label it was last sent for its value (Streamlit sends one when code
    sets the value), else the one it showed already, else at first its default option."""
    if picker.proto.set_value:
        return picker.proto.raw_value
    return shown if shown is not None else picker.proto.options[picker.proto.default]


def test_the_open_run_picker_label_follows_the_stored_status(app_workspace):
    from playground.store.runs import create_run, finish_run, save_result
    from playground.store.sessions import current_session

    ws = app_workspace
    run_id = create_run(ws, run_config("direct").to_dict(), current_session(ws)["id"], label="followed", n_planned=2)
    at = page_test("runs")
    at.session_state["runs_open"] = run_id
    at.run()
    assert not at.exception, at.exception
    shown = _label_the_browser_shows(at.selectbox(key="runs_open"), None)
    assert shown == f"{run_id} · followed · running"
    assert "No answers yet." in [c.value for c in at.caption]  # not "no reference answer": nothing is answered
    for question_id in ("q1", "q2"):  # its worker answers both, then ends the run
        save_result(ws, {"run_id": run_id, "question_id": question_id, "prediction": "x", "scores": {"em": 0.0}}, [])
    finish_run(ws, run_id, "done", {"em": 0.0})
    at.run()  # the page drawn again (the following fragment does this when the run ends)
    assert not at.exception, at.exception
    shown = _label_the_browser_shows(at.selectbox(key="runs_open"), shown)
    assert shown == f"{run_id} · followed · done · 2/2"


def test_a_run_without_scores_says_why():
    from playground.app.screens.runs.data import scores_note
    from playground.store.run_record import run_record

    def note(**row):
        return scores_note(run_record({"id": "r1", **row, "metrics": json.dumps(row.get("metrics", {}))}))

    assert note(status="running", n_done=0) == "No answers yet."
    assert note(status="done", n_done=4, errors=4) == "No scores: all 4 answer(s) failed (see the error column)."
    assert "3 answered so far (1 of 3 failed)" in note(status="interrupted", n_done=3, errors=1)
    assert note(status="done", n_done=2, errors=0) == "No reference answer to score against."
    assert note(status="done", n_done=2, metrics={"em": 0.5}) is None


def test_the_results_table_puts_the_answer_right_after_the_question():
    from playground.app.screens.runs.data import question_rows

    rows = question_rows([{"question_id": "q1", "prediction": "Paris", "scores": {"em": 1.0}}], {}, "em", 1.0)
    assert list(rows[0])[:3] == ["question_id", "question", "answer"] and rows[0]["answer"] == "Paris"
