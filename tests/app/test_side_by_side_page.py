"""The Side by side page on a real workspace: variants' settings compared, prompts diffed, each variant a detached
run (a worker process) followed on the page, stopped, and read back from the database as the grid."""

from __future__ import annotations

import os
import signal
import time

from streamlit.testing.v1 import AppTest

from playground.app.components.diff import diff_rows, prompt_diff_html
from playground.runs.recorder import STOP_POLL_S
from playground.store.runs import get_results, get_run, list_runs
from tests.app.conftest import ENTRY, assert_detached, html_block, page_path, until_finished, worker_log


def _page() -> AppTest:
    return AppTest.from_file(page_path("side-by-side"), default_timeout=180)


def _differs(at: AppTest) -> str:
    return next(c.value for c in at.caption if c.value.startswith("Differs:"))


def test_two_variants_render_with_their_differing_settings_named(app_workspace):
    at = _page().run()
    assert not at.exception
    assert [s.value for s in at.subheader] == ["Variant A", "Variant B"]
    differs = _differs(at)
    assert "template" in differs and "retriever" in differs and "model" not in differs
    at.selectbox(key="sbs_1_template").set_value("rag-short-answer")
    at.selectbox(key="sbs_1_retriever_kind").set_value("bm25").run()
    at.number_input(key="sbs_1_retriever_k").set_value(1).run()
    assert _differs(at) == "Differs: k"


def test_more_variants_get_more_columns(app_workspace):
    at = _page().run()
    at.number_input(key="sbs_count").set_value(4).run()
    assert not at.exception
    assert [s.value for s in at.subheader] == ["Variant A", "Variant B", "Variant C", "Variant D"]


def _run_all(at: AppTest) -> AppTest:
    [run] = [button for button in at.button if button.label == "Run all variants"]
    return run.click().run()


def test_run_all_variants_starts_a_worker_per_variant_and_the_grid_comes_from_the_stored_runs(app_workspace):
    at = _page().run()
    for index in range(2):
        at.number_input(key=f"sbs_{index}_model_max_tokens").set_value(8 + index)
    at.number_input(key="sbs_0_retriever_k").set_value(2)
    at.number_input(key="sbs_1_model_seed").set_value(7)
    _run_all(at)
    assert not at.exception, at.exception
    assert not at.error, [e.value for e in at.error]
    runs = list_runs(app_workspace)
    assert {run.label for run in runs} == {"side by side A", "side by side B"}
    for run in runs:  # the click returned at once: each variant is a job of its own worker process
        assert_detached(app_workspace, run)
    by_label = {run.label[-1]: run.id for run in runs}
    assert at.query_params["runs"] == f"A:{by_label['A']},B:{by_label['B']}"  # a reload finds them again
    rows = [m.value for m in at.markdown if m.value.startswith("**Variant ")]
    assert [row.split(" · ")[1] for row in rows] == [f"run `{by_label['A']}`", f"run `{by_label['B']}`"]

    finished = until_finished(app_workspace, by_label.values())
    assert {run.status for run in finished.values()} == {"done"}
    for run_id in by_label.values():
        assert "worker started" in worker_log(app_workspace, run_id)
    at.run()  # the page, drawn again once the runs ended, shows the grid from the stored runs
    assert not at.exception, at.exception
    grid = next(t.value for t in at.dataframe if "A answer" in t.value.columns)
    assert list(grid["question_id"]) == ["q1"]
    for label in "AB":
        [result] = get_results(app_workspace, by_label[label])
        assert grid[f"{label} answer"][0] == result["prediction"]
        assert grid[f"{label} tokens"][0] == result["prompt_tokens"] + result["completion_tokens"]
        assert bool(grid[f"{label} cached"][0]) == bool(result["cached"])
    assert html_block(at, "pg-answer") == get_results(app_workspace, by_label["A"])[0]["prediction"]
    programs = {run.label: run.config["program"] for run in list_runs(app_workspace)}
    assert programs == {"side by side A": "rag", "side by side B": "direct"}
    means = next(t.value for t in at.dataframe if "variant" in t.value.columns)
    assert "retrieval_recall" in means.columns and list(means["variant"]) == ["A", "B"]
    # A click on a cell of variant B's column opens that cell: B's answer, passages tab and trace link.
    at.session_state["sbs_grid"] = {"selection": {"rows": [], "columns": [], "cells": [[0, "B answer"]]}}
    at.run()
    assert not at.exception, at.exception
    assert at.session_state["sbs_cell_variant"] == "B"
    assert html_block(at, "pg-answer") == get_results(app_workspace, by_label["B"])[0]["prediction"]

    # Another browser session (a reload) opened at the address shows the same comparison.
    reloaded = _page()
    reloaded.query_params["runs"] = f"A:{by_label['A']},B:{by_label['B']}"
    reloaded.run()
    assert not reloaded.exception, reloaded.exception
    grid = next(t.value for t in reloaded.dataframe if "A answer" in t.value.columns)
    assert list(grid["B answer"]) == [get_results(app_workspace, by_label["B"])[0]["prediction"]]
    # ... with the variant columns set to what made those runs, not to the page's defaults.
    configs = {label: get_run(app_workspace, run_id).config for label, run_id in by_label.items()}
    for index, label in enumerate("AB"):
        assert reloaded.selectbox(key=f"sbs_{index}_template").value == configs[label]["templates"]["main"]
    assert configs["A"]["templates"]["main"].startswith("rag-short-answer@")
    assert reloaded.number_input(key="sbs_0_retriever_k").value == 2
    assert [reloaded.number_input(key=f"sbs_{i}_model_max_tokens").value for i in range(2)] == [8, 9]
    assert reloaded.number_input(key="sbs_1_model_seed").value == 7
    assert reloaded.radio(key="sbs_mode").value == "One question"
    assert "template" in _differs(reloaded) and "max_tokens" in _differs(reloaded)


def test_a_dead_worker_reads_interrupted_and_stop_ends_one_variant_or_all(app_workspace):
    import threading

    from tests.openai_server import OpenAIServer

    class HeldServer(OpenAIServer):
        """Every question in flight at once, answered when `answer` is set (after the Stops), not after a fixed delay
        that a slow page could outlast."""

        def __init__(self) -> None:
            super().__init__()
            self.answer = threading.Event()
            self.held: list[dict] = []

        def handle(self, handler, body: dict) -> None:
            self.held.append(body)
            self.answer.wait(120)
            super().handle(handler, body)

    server = HeldServer().start()
    try:
        at = _page()
        for index in range(3):
            at.session_state[f"sbs_{index}_model_spec"] = server.spec()
        at.session_state["sbs_count"] = 3
        at.session_state["sbs_mode"] = "Seeded sample"
        at.session_state["sbs_sample"] = 6
        at.run()
        assert [s.value for s in at.subheader] == ["Variant A", "Variant B", "Variant C"]
        _run_all(at)
        assert not at.exception, at.exception
        assert not at.error, [e.value for e in at.error]
        ids = {run.label[-1]: run.id for run in list_runs(app_workspace)}
        assert sorted(ids) == ["A", "B", "C"]
        deadline = time.monotonic() + 120
        while len(server.held) < 18 and time.monotonic() < deadline:  # every worker is answering
            time.sleep(0.05)
        os.kill(get_run(app_workspace, ids["A"]).worker_pid, signal.SIGKILL)  # A's worker dies (OOM, reboot)
        at.run()
        assert not at.exception, at.exception
        rows = {m.value.split(" · ")[0]: m.value for m in at.markdown if m.value.startswith("**Variant ")}
        assert "status `interrupted`" in rows["**Variant A**"], rows  # never `running` for a dead worker
        assert "status `running`" in rows["**Variant B**"] and "status `running`" in rows["**Variant C**"]
        assert any("is gone" in w.value for w in at.warning)
        at.button(key=f"sbs_runs_stop_{ids['B']}").click().run()  # one variant...
        assert not at.exception, at.exception
        assert get_run(app_workspace, ids["B"]).stop_requested == 1
        assert get_run(app_workspace, ids["C"]).stop_requested == 0
        at.button(key="sbs_runs_stop_all").click().run()  # ... then all
        assert not at.exception, at.exception
        time.sleep(STOP_POLL_S + 1.0)  # each worker has seen its stop (it polls every STOP_POLL_S) before answers come
        server.answer.set()
        ended = until_finished(app_workspace, ids.values(), 60)
        assert [ended[ids[label]].status for label in "ABC"] == ["interrupted", "stopped", "stopped"]
        at.run()  # nothing runs any more: the grid of what the variants answered, and Resume for the dead one
        assert not at.exception, at.exception
        grid = next(t.value for t in at.dataframe if "B answer" in t.value.columns)
        assert len(grid) == ended[ids["B"]].n_done
        a = ended[ids["A"]]
        resume = at.button(key=f"sbs_runs_resume_{ids['A']}")
        assert resume.label == "Resume"  # short: a longer label was cut in its column ("Resume (12/2...")
        assert resume.help.startswith(f"{a.n_done}/{a.n_planned} answered")
    finally:
        server.answer.set()
        server.close()


def test_the_grid_filters_and_means_on_plain_results():
    from playground.app.screens.side_by_side import grid_rows as grid

    results = {
        "A": [
            {"question_id": "q1", "prediction": "Paris", "scores": {"em": 1.0}, "latency_s": 0.5},
            {"question_id": "q2", "prediction": "Rome", "scores": {"em": 0.0}, "cached": 1},
        ],
        "B": [
            {"question_id": "q1", "prediction": "paris!", "scores": {"em": 1.0}},
            {"question_id": "q2", "prediction": None, "error": "timeout", "scores": {}},
        ],
    }
    rows = grid.grid_rows(["q1", "q2"], {}, results, grid.main_metric(results))
    assert [r["answers differ"] for r in rows] == [False, True]  # "Paris" and "paris!" are the same answer
    assert [r["disagree"] for r in rows] == [False, False]  # q2: a wrong answer and an error both fail on em
    assert [r["all fail"] for r in rows] == [False, True]
    assert rows[1]["A cached"] is True and rows[0]["A ms"] == 500.0
    assert [r["question_id"] for r in grid.filter_grid(rows, text_differs=True)] == ["q2"]
    assert grid.filter_grid(rows, disagree=True) == []
    means = {(m["run"], m["metric"]): m["mean"] for m in grid.variant_means(results)}
    assert means[("A", "em")] == 0.5 and means[("B", "em")] == 0.5  # a failed question counts as 0


def test_the_share_link_opens_side_by_side_with_its_question(app_workspace):
    at = AppTest.from_file(str(ENTRY), default_timeout=120)
    at.query_params["page"] = "side-by-side"
    at.query_params["q"] = "q3"
    at.query_params["variants"] = "3"
    at.run()
    assert not at.exception
    assert at.title[0].value == "Side by side"
    assert at.session_state["sbs_question"] == "q3"
    assert len(at.subheader) == 3


def test_the_prompt_diff_marks_changed_words_and_lines():
    a = "Question: What is the capital?\nAnswer:"
    b = "Question: What is the largest city?\nAnswer:\nBe brief."
    rows = diff_rows(a, b)
    assert [kind for kind, _, _ in rows] == ["change", "equal", "insert"]
    assert "<del>capital?</del>" in rows[0][1] and "<ins>largest city?</ins>" in rows[0][2]
    page = prompt_diff_html(a, b, "A", "B")
    assert "pg-add" in page and "Be brief." in page
    assert "identical" in prompt_diff_html(a, a)
    assert "&lt;b&gt;" in prompt_diff_html("<b>", "<i>")  # prompt text is escaped, never HTML


def test_the_grid_reads_as_a_comparison_and_disagrees_by_the_metric():
    from playground.app.screens.side_by_side import grid_rows as grid

    results = {  # every score 0, every answer different: the variants agree that all of them are wrong
        "A": [{"question_id": f"q{i}", "prediction": f"a{i}", "scores": {"em": 0.0, "f1": 0.2}} for i in range(3)],
        "B": [{"question_id": f"q{i}", "prediction": f"b{i}", "scores": {"em": 0.0, "f1": 0.2 * i}} for i in range(3)],
    }
    rows = grid.grid_rows(["q0", "q1", "q2"], {}, results, "em")
    assert list(rows[0]) == [
        "question_id",
        "question",
        "A answer",
        "B answer",
        "A score",
        "B score",
        "A ms",
        "B ms",
        "A tokens",
        "B tokens",
        "A cached",
        "B cached",
        "disagree",
        "answers differ",
        "all fail",
    ]
    assert [r["disagree"] for r in rows] == [False, False, False]
    assert [r["answers differ"] for r in rows] == [True, True, True]
    by_f1 = grid.grid_rows(["q0", "q1", "q2"], {}, results, "f1", threshold=0.3)
    assert [r["disagree"] for r in by_f1] == [False, False, True]  # B's 0.4 is correct at 0.3 where A's 0.2 is not
    assert [r["question_id"] for r in grid.filter_grid(by_f1, disagree=True)] == ["q2"]
