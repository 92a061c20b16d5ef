"""The gold-free judges in the app, against a real local HTTP server playing the answering model and the judge
(tests/evaluation/judges/gold_free_server.py): the Traces page shows each claim's verdict and deciding passage with
the unsupported claims marked in the answer and a citation judge's flagged sentences; the judge metrics show like
any metric (with their error counts, never a 0 for an error) on Runs, A/B and Side by side; the Experiments page
runs a gold-free judge on a chosen run."""

from __future__ import annotations

import os
import shutil

import pytest

from playground.evaluation.judges.answers import judge_answers
from playground.evaluation.judges.judge_config import JudgeConfig
from playground.models.base import GenerationParams
from playground.runs import RunConfig, start_run
from playground.store import open_workspace
from playground.store.datasets import save_dataset
from playground.store.judgments import list_judgments
from tests.app.conftest import finished_judge_job, page_test, plain
from tests.conftest import tiny_dataset
from tests.evaluation.judges.gold_free_server import JudgeServer

QUESTIONS = ["q1", "q2", "q3", "q4"]


def _judged_runs(db, server) -> tuple[str, str]:
    """The runs A and B of `judged_built`, stored in the workspace at `db`."""
    ws = open_workspace(db)
    save_dataset(ws, "tiny", tiny_dataset())

    def rag_run(label: str) -> str:
        config = RunConfig(
            dataset="tiny",
            program="rag",
            templates={"main": "rag-citations"},
            retriever="bm25",
            k=2,
            model=server.spec("answerer"),
            params=GenerationParams(max_tokens=64),
            question_ids=list(QUESTIONS),
        )
        return start_run(ws, config, label=label, use_cache=False).run_id

    config = JudgeConfig(model=server.spec("judge"), params=GenerationParams(max_tokens=256))
    run_a, run_b = rag_run("A"), rag_run("B")
    for kind in ("faithfulness", "context-precision", "citations"):
        judge_answers(ws, kind, run_a, config)
    server.prose = ("smallest city",)
    judge_answers(ws, "faithfulness", run_b, config, use_cache=False)
    server.prose = ()
    ws.close()
    return run_a, run_b


@pytest.fixture(scope="module")
def judged_built(tmp_path_factory):
    """Two rag-citations runs of the scripted answerer on q1-q4; A judged for faithfulness, context precision and
    citations; B judged for faithfulness with a judge replying prose to q2's answer (it alone says "smallest city").
    Built once for the module in its own folder (workspace and indexes); each test gets a copy (see `judged`)."""
    root = tmp_path_factory.mktemp("gold_free_pages")
    server = JudgeServer()
    try:
        with pytest.MonkeyPatch.context() as env:
            env.delenv("PLAYGROUND_DB", raising=False)
            env.delenv("PLAYGROUND_INDEXES", raising=False)
            run_a, run_b = _judged_runs(root / "sessions" / "playground.db", server)
        yield {"root": root, "a": run_a, "b": run_b, "server": server}
    finally:
        server.close()


@pytest.fixture
def judged(judged_built, tmp_path, monkeypatch):
    """A private copy of the module's judged workspace, opened by the app through $PLAYGROUND_DB as `app_workspace`
    does, and the module's server as built (no prose, no judge of its own)."""
    shutil.copytree(judged_built["root"], tmp_path, dirs_exist_ok=True)
    monkeypatch.delenv("PLAYGROUND_INDEXES", raising=False)
    monkeypatch.setenv("PLAYGROUND_DB", str(tmp_path / "sessions" / "playground.db"))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    server = judged_built["server"]
    server.prose, server.judge = (), None
    server.prompts.clear()
    ws = open_workspace(tmp_path / "sessions" / "playground.db")
    try:
        yield {"ws": ws, "a": judged_built["a"], "b": judged_built["b"], "server": server}
    finally:
        ws.close()


def table_with(at, column: str):
    """The first table with `column` (st.dataframe has no key in AppTest without selection)."""
    return next(table.value for table in at.dataframe if column in table.value.columns)


def html_blocks(at) -> list[str]:
    return [str(element.proto.body) for element in at.get("html")]


def open_trace(run_id: str, question_id: str):
    at = page_test("traces")
    at.query_params["run"] = run_id
    at.query_params["question"] = question_id
    at.run()
    assert not at.exception, at.exception
    return at


def test_the_trace_shows_each_claim_with_its_verdict_and_marks_the_unsupported_ones(judged):
    at = open_trace(judged["a"], "q2")
    titles = [plain(e.label) for e in at.expander]
    faithfulness = next(t for t in titles if t.startswith("faithfulness judge "))
    assert "faithfulness 0.50" in faithfulness
    blocks = html_blocks(at)
    # The contradicted claim is marked in the answer, the supported one is not.
    assert any("<mark class='pg-contradicted'>Berlin is the smallest city of Germany" in b for b in blocks), blocks
    assert not any("<mark class='pg-contradicted'>Berlin is the capital" in b for b in blocks)
    claims = next(d.value for d in at.dataframe if "claim" in d.value.columns and "verdict" in d.value.columns)
    assert list(claims["verdict"]) == ["supported", "contradicted"]
    assert list(claims["passage"]) == ["[1] p2", "[1] p2"]
    assert "Berlin" in claims["passage text"][1]
    # Context precision: a verdict per passage shown.
    passages = next(d.value for d in at.dataframe if "relevant" in d.value.columns)
    assert len(passages) == 2
    # The judge metrics stand beside the answer's own scores.
    scores = next(b for b in blocks if "Judge scores" in b)
    assert "faithfulness 0.50" in scores and "context_precision" in scores


def test_the_trace_marks_a_not_found_claim_and_an_uncited_sentence(judged):
    blocks = html_blocks(open_trace(judged["a"], "q1"))
    assert any("<mark class='pg-notfound'>Paris has ten million people" in b for b in blocks), blocks
    assert any("<mark class='pg-flagged'>Paris has ten million people</mark>." in b for b in blocks), blocks


def test_a_judge_error_shows_as_an_error_with_the_judges_words_never_a_score(judged):
    at = open_trace(judged["b"], "q2")
    title = next(plain(e.label) for e in at.expander if plain(e.label).startswith("faithfulness judge "))
    assert "judge error" in title and "0.00" not in title
    blocks = html_blocks(at)
    assert any("Judge error" in b and "mostly fine" in b for b in blocks), blocks
    assert any("faithfulness: judge error" in b for b in blocks)


def test_the_runs_page_lists_the_judge_metrics_with_their_error_counts(judged):
    at = page_test("runs")
    at.run()
    assert not at.exception, at.exception
    table = table_with(at, "faithfulness judge errors")
    rows = {row["label"]: row for row in table.to_dict("records")}
    assert rows["A"]["faithfulness"] == pytest.approx((0.5 + 0.5 + 1.0) / 3, abs=1e-3)
    assert rows["A"]["faithfulness judge errors"] == 0
    assert rows["B"]["faithfulness judge errors"] == 1
    assert rows["B"]["faithfulness"] == pytest.approx((0.5 + 1.0) / 2, abs=1e-3), "the error is left out, not a 0"


def test_the_runs_page_can_call_an_answer_correct_by_a_judge_metric_and_shows_judge_errors(judged):
    at = page_test("runs")
    at.session_state["runs_open"] = judged["b"]
    at.session_state["runs_metric"] = "faithfulness"
    at.run()
    assert not at.exception, at.exception
    assert at.selectbox(key="runs_metric").value == "faithfulness"
    rows = {row["question_id"]: row for row in table_with(at, "trace").to_dict("records")}
    assert rows["q2"]["outcome"] == "judge error"
    assert rows["q2"]["score"] is None or rows["q2"]["score"] != rows["q2"]["score"]  # None/NaN, never 0
    assert rows["q3"]["outcome"] == "correct"


def test_ab_refuses_to_pair_a_score_with_a_judge_error_and_says_how_many_it_dropped(judged):
    at = page_test("ab")
    at.query_params["run"] = judged["a"]
    at.query_params["other"] = judged["b"]
    at.run()
    assert not at.exception, at.exception
    texts = [plain(w.value) for w in at.warning] + [plain(c.value) for c in at.caption]
    assert any("faithfulness: 1 question(s) dropped" in t for t in texts), texts
    table = table_with(at, "B - A")
    row = table[table["metric"] == "faithfulness"].iloc[0]
    assert row["n"] == 2 and row["judge errors dropped"] == 1


def test_the_experiments_page_runs_a_gold_free_judge_on_a_chosen_run(judged):
    at = page_test("experiments")
    at.session_state["experiments_judge_model_spec"] = judged["server"].spec("judge2")  # a typed spec
    at.session_state["experiments_judge_model_max_tokens"] = 256
    at.session_state["experiments_judge_kind"] = "faithfulness"
    at.session_state["experiments_judge_run"] = judged["b"]
    at.run()
    assert at.selectbox(key="experiments_judge_run").value == judged["b"]
    judged["server"].prose = ("ten million",)  # q1's answer alone
    at.button(key="experiments_run_judge").click().run()
    assert not at.exception, at.exception
    job = finished_judge_job(judged["ws"], judged["b"])
    assert job["status"] == "done", job
    at.run()
    assert not at.exception, at.exception
    report = job["report"]
    assert report["kind"] == "faithfulness" and report["run_id"] == judged["b"]
    assert report["n_failed"] == 1
    metrics = table_with(at, "judge errors")
    assert metrics["judge errors"][0] == 1 and metrics["mean"][0] == pytest.approx(0.75)
    items = {r["question_id"]: r for r in table_with(at, "answer").to_dict("records")}
    assert "mostly fine" in items["q1"]["error"] and items["q2"]["score"] == pytest.approx(0.5)
    assert any("1 of 4 judgment(s) failed" in plain(w.value) for w in at.warning)
    stored = list_judgments(judged["ws"], run_id=judged["b"], kind="faithfulness")
    assert {j["judge_id"] for j in stored} >= {report["judge"]["id"]}


def test_side_by_sides_grid_and_means_score_by_a_judge_metric_and_show_its_errors(judged):
    from playground.app.screens.side_by_side import grid_rows as grid
    from playground.evaluation.judges.judge_metrics import results_with_judge_scores
    from playground.store.runs import get_results

    ws = judged["ws"]
    results = {
        label: results_with_judge_scores(ws, judged[key], get_results(ws, judged[key]))
        for label, key in (("A", "a"), ("B", "b"))
    }
    assert "faithfulness" in grid.metric_names(results)
    rows = {row["question_id"]: row for row in grid.grid_rows(QUESTIONS, {}, results, "faithfulness", 0.75)}
    assert rows["q2"]["A score"] == 0.5 and rows["q2"]["B score"] is None
    assert "mostly fine" in rows["q2"]["B judge error"] and rows["q2"]["A judge error"] is None
    assert not rows["q2"]["disagree"] and not rows["q2"]["all fail"], "a judge error takes no side"
    means = {(m["run"], m["metric"]): m for m in grid.variant_means(results, grid.mean_metrics(results))}
    assert means[("A", "faithfulness")]["n"] == 3 and means[("B", "faithfulness")]["n"] == 2
    assert means[("B", "faithfulness")]["mean"] == pytest.approx(0.75)


def test_a_sweep_point_charts_its_judge_metric_with_its_judge_errors(judged):
    from playground.app.screens.experiments.data import point_rows
    from playground.runs.sweeps import sweep_points

    launched = [
        {"parameter": "k", "value": 1, "run_id": judged["a"]},
        {"parameter": "k", "value": 2, "run_id": judged["b"]},
    ]
    points = sweep_points(judged["ws"], launched, "faithfulness")
    assert points[0]["metrics"]["faithfulness"] == pytest.approx(2 / 3)
    assert (
        points[1]["metrics"]["faithfulness"] == pytest.approx(0.75) and points[1]["judge_errors"]["faithfulness"] == 1
    )
    rows = point_rows(points, "faithfulness")
    assert [row["judge errors"] for row in rows] == [0, 1]


def test_claims_are_placed_in_the_escaped_answer_by_their_words_and_stored_markup_stays_text():
    from playground.app.components.text import marked_html
    from playground.app.components.judgment_marks import claim_marks

    answer = "Paris  is the <b>capital</b>. It has ![x](http://beacon/p.png) ten million people!"
    claims = [
        {"claim": "paris is the <b>capital</b>.", "verdict": "contradicted"},
        {"claim": "It has ten million people", "verdict": "not found"},  # not verbatim: its sentence is marked
        {"claim": "Paris is in France.", "verdict": "supported"},
        {"claim": "Rome is old.", "verdict": "not found"},
    ]
    marks, unplaced = claim_marks(answer, claims)
    assert unplaced == ["Rome is old."]
    shown = marked_html(answer, marks)
    assert "<mark class='pg-contradicted'>Paris  is the &lt;b&gt;capital&lt;/b&gt;</mark>" in shown
    assert "<mark class='pg-notfound'>It has ![x](http://beacon/p.png) ten million people!</mark>" in shown
    assert "<b>" not in shown


def test_a_judge_copying_its_template_shows_judge_errors_on_the_judges_tab_not_a_score(judged):
    from tests.evaluation.judges.test_scrutiny import copying_judge

    at = page_test("experiments")
    at.session_state["experiments_judge_model_spec"] = judged["server"].spec("copying")
    at.session_state["experiments_judge_model_max_tokens"] = 256
    at.session_state["experiments_judge_kind"] = "faithfulness"
    at.session_state["experiments_judge_run"] = judged["a"]
    at.run()
    assert at.selectbox(key="experiments_judge_run").value == judged["a"]
    judged["server"].judge = copying_judge
    try:
        at.button(key="experiments_run_judge").click().run()
        assert not at.exception, at.exception
        assert finished_judge_job(judged["ws"], judged["a"])["status"] == "done"
    finally:
        judged["server"].judge = None
    at.run()
    metrics = table_with(at, "judge errors")
    assert metrics["judge errors"][0] == 4
    assert metrics["mean"].isna().all(), "no score from a judge that copied its template"
    assert any("4 of 4 judgment(s) failed" in plain(w.value) for w in at.warning)
    items = {r["question_id"]: r for r in table_with(at, "answer").to_dict("records")}
    assert "not drawn from the answer" in items["q1"]["error"]


def test_agreement_with_people_shows_a_gold_free_judge_rated_in_the_queue(judged):
    from playground.evaluation.agreement.metric_agreement import rate_metric

    for question_id, value in (("q1", 0.5), ("q2", 0.0), ("q3", 1.0)):
        rate_metric(judged["ws"], judged["a"], question_id, "faithfulness", value, rater="ana")
    at = page_test("experiments")
    at.session_state["experiments_judge_run"] = judged["a"]
    at.run()
    assert not at.exception, at.exception
    assert at.selectbox(key="experiments_judge_run").value == judged["a"]
    captions = [plain(c.value) for c in at.caption]
    assert not any("no judge has scored it yet" in c for c in captions), captions
    rows = table_with(at, "statistic").to_dict("records")
    assert any(row["kind"] == "faithfulness" and row["n"] == 3 for row in rows), rows


def test_the_rating_queue_says_not_enough_data_after_a_few_agreeing_ratings(judged):
    from playground.evaluation.agreement.metric_agreement import rate_metric
    from playground.evaluation.agreement.rated import draw_sample

    drawn = draw_sample(judged["ws"], judged["a"], 3, seed=0, metric="faithfulness")
    for question_id in drawn["question_ids"][:2]:
        rate_metric(judged["ws"], judged["a"], question_id, "faithfulness", 1.0, rater="ana")
    at = page_test("experiments")
    at.session_state["experiments_judge_run"] = judged["a"]
    at.session_state["ppi_metric"] = "faithfulness"
    at.run()
    assert not at.exception, at.exception
    assert at.selectbox(key="ppi_metric").value == "faithfulness"
    captions = [plain(c.value) for c in at.caption]
    assert any(c.startswith("people only: not enough data to estimate: 2 rating(s)") for c in captions), captions
    assert any("ratings for ±0.05: not enough data to estimate" in c for c in captions), captions
    assert not any(c.startswith("For ±") for c in captions), "no count of ratings from degenerate variance"


def read_brevity(text: str) -> dict:
    """The verdict reader of the in-process plugin judge below."""
    import json

    return json.loads(text)


def test_a_plugin_judge_is_a_choice_on_the_judges_tab_and_its_scores_are_metrics(judged, tmp_path):
    from playground.plugins.records import Judge
    from tests.plugins.helpers import registered

    template = tmp_path / "judge-brevity.jinja"
    template.write_text("Question: {{ question }}\nAnswer: {{ answer }}\nIs it brief? Score 0-1 as JSON.\n")
    record = Judge("brevity", {"brevity": str(template)}, "is it brief", read_verdict=f"{__name__}:read_brevity")
    judged["server"].judge = lambda prompt: '{"score": 0.25, "reason": "it pads its answer"}'
    try:
        with registered(record):
            at = page_test("experiments")
            at.session_state["experiments_judge_model_spec"] = judged["server"].spec("brevity-judge")
            at.run()
            assert "brevity: is it brief" in at.radio(key="experiments_judge_kind").options
            at.radio(key="experiments_judge_kind").set_value("brevity")
            at.selectbox(key="experiments_judge_run").set_value(judged["a"]).run()
            at.button(key="experiments_run_judge").click().run()
            assert not at.exception, at.exception
            job = finished_judge_job(judged["ws"], judged["a"])
            assert job["status"] == "done" and job["worker_pid"] == os.getpid()  # a judge only this process knows
            at.run()
            metrics = table_with(at, "judge errors")
            assert list(metrics["metric"]) == ["brevity"] and metrics["mean"][0] == pytest.approx(0.25)
            runs = page_test("runs")
            runs.run()
            assert not runs.exception, runs.exception
            rows = {row["label"]: row for row in table_with(runs, "brevity").to_dict("records")}
            assert rows["A"]["brevity"] == pytest.approx(0.25)
    finally:
        judged["server"].judge = None
    stored = list_judgments(judged["ws"], run_id=judged["a"], kind="brevity")
    assert len(stored) == 4 and all(j["score"] == 0.25 for j in stored)
