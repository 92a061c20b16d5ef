"""The A/B page compares the direct and rag runs: intervals, win/tie/loss, scatter, flips, a stored rating."""

from __future__ import annotations

import json


from playground.evaluation.compare import compare_runs
from playground.store import open_workspace
from playground.store.ratings import list_ratings
from tests.app.conftest import page_test


def _open(runs_env):
    at = page_test("ab")
    at.query_params["run"] = runs_env["direct"]
    at.query_params["other"] = runs_env["rag"]
    return at.run()


def test_the_page_compares_the_two_runs_metric_by_metric(runs_env):
    at = _open(runs_env)
    assert not at.exception, at.exception
    assert (at.selectbox(key="ab_a").value, at.selectbox(key="ab_b").value) == (runs_env["direct"], runs_env["rag"])
    ws = open_workspace(runs_env["path"])
    expected = compare_runs(ws, [runs_env["direct"], runs_env["rag"]], seed=0)
    table = next(t for t in at.dataframe if "B - A" in t.value.columns)
    assert list(table.value["metric"]) == list(expected["metrics"])
    assert {"em", "f1"} <= set(table.value["metric"])
    assert "retrieval_recall" not in set(table.value["metric"])  # rag has it, direct does not: nothing to pair
    f1 = expected["metrics"]["f1"]
    row = table.value[table.value["metric"] == "f1"].iloc[0]
    assert (row["B wins"], row["ties"], row["B losses"]) == (f1["wins"], f1["ties"], f1["losses"])
    # Program, template and retriever all differ: the page warns that this is not a clean A/B.
    assert any("not a clean A/B" in w.value for w in at.warning)
    charts = [json.loads(c.proto.spec) for c in at.get("plotly_chart")]
    assert len(charts) == 3  # means with intervals, differences, per-question scatter
    means = charts[0]
    assert [trace["name"] for trace in means["data"]] == ["A", "B"]
    assert all("error_y" in trace for trace in means["data"])


def test_a_pairwise_verdict_is_one_per_question_changeable_and_undoable(private_runs_env):
    env = private_runs_env
    at = _open(env)
    question_id = at.selectbox(key="ab_question").value
    ws = open_workspace(env["path"])

    def stored() -> list[tuple]:
        ratings = list_ratings(ws, run_id=env["direct"], question_id=question_id, kind="pairwise")
        return [(r["run_id"], r["other_run_id"], r["value"]) for r in ratings]

    assert stored() == []
    at.button(key="ab_rate_b").click().run()
    assert not at.exception, at.exception
    assert stored() == [(env["direct"], env["rag"], 0.0)]
    assert at.button(key="ab_rate_b").disabled  # the verdict given: a second click cannot record a second one
    assert any("Your verdict on" in c.value and "b is better" in c.value for c in at.caption)
    at.button(key="ab_rate_a").click().run()
    assert stored() == [(env["direct"], env["rag"], 1.0)]  # changed, not added
    at.button(key="ab_rate_clear").click().run()
    assert not at.exception, at.exception
    assert stored() == []
    assert not [b for b in at.button if b.key == "ab_rate_clear"]


def test_the_same_run_twice_is_refused_with_a_message(runs_env):
    at = page_test("ab")
    at.query_params["run"] = runs_env["rag"]
    at.query_params["other"] = runs_env["rag"]
    at.run()
    assert not at.exception, at.exception
    assert any("two different runs" in w.value for w in at.warning)


def test_verdicts_count_from_either_side_and_pairs_default_to_the_newest_runs():
    from playground.app.screens.ab.data import default_pair, rating_summary

    ratings = [
        {"kind": "pairwise", "run_id": "a", "other_run_id": "b", "value": 1.0},
        {"kind": "pairwise", "run_id": "b", "other_run_id": "a", "value": 1.0},
        {"kind": "pairwise", "run_id": "a", "other_run_id": "b", "value": 0.5},
        {"kind": "pairwise", "run_id": "a", "other_run_id": "c", "value": 1.0},
        {"kind": "pointwise", "run_id": "a", "other_run_id": None, "value": 1.0},
    ]
    assert rating_summary(ratings, "a", "b") == {"a": 1, "tie": 1, "b": 1}
    from playground.store.run_record import run_record

    runs = [
        run_record({"id": "new", "config": '{"dataset": "x"}'}),
        run_record({"id": "other", "config": '{"dataset": "y"}'}),
        run_record({"id": "old", "config": '{"dataset": "x"}'}),
    ]
    assert default_pair(runs) == ("old", "new")
    assert default_pair(runs[:1]) == ("new", None)


def test_the_settings_that_differ_are_what_a_person_set(runs_env):
    at = _open(runs_env)
    assert not at.exception, at.exception
    chosen = next(t.value for t in at.dataframe if list(t.value.columns) == ["setting", "A", "B"])
    settings = list(chosen["setting"])
    assert {"template", "program", "retriever", "k"} <= set(settings)  # direct vs rag with bm25, k=2
    assert not [s for s in settings if "manifest" in s or "." in s]
    row = chosen[chosen["setting"] == "retriever"].iloc[0]
    assert (row["A"], row["B"]) == ("none", "bm25")
    recorded = next(t.value for t in at.dataframe if "field" in t.value.columns)  # the index manifest, apart
    assert recorded["field"].str.startswith("retriever_manifest.").any()
    assert any(e.label.startswith("Recorded details that differ") for e in at.expander)


def test_settings_rows_name_template_versions_parameters_and_questions():
    from playground.app.screens.ab.data import recorded_changes, settings_rows

    a = {
        "dataset": "tiny",
        "program": "rag",
        "templates": {"main": "rag-short-answer"},
        "prompt_versions": {"main": "aaaaaaaaaaaa"},
        "template_names": {"main": "rag-short-answer"},
        "retriever": "bm25",
        "k": 3,
        "model": "local:smollm2",
        "params": {"temperature": 0.0, "seed": 1},
        "sample": 2,
        "seed": 0,
        "question_ids": ["q1", "q2"],
        "retriever_manifest": {"kind": "bm25", "fingerprint": "f1", "built_at": "t1"},
    }
    b = {
        **a,
        "prompt_versions": {"main": "bbbbbbbbbbbb"},
        "templates": {"main": "rag-short-answer@bbbbbbbb"},
        "params": {"temperature": 0.7, "seed": 1},
        "question_ids": ["q1", "q3"],
        "retriever_manifest": {"kind": "bm25", "fingerprint": "f2", "built_at": "t2"},
    }
    differing = {row["setting"]: (row["A"], row["B"]) for row in settings_rows(a, b) if row["differs"]}
    assert differing == {
        "template": ("rag-short-answer @ aaaaaaaa", "rag-short-answer @ bbbbbbbb"),
        "temperature": ("0.0", "0.7"),
        "questions": ("2 (1 not in B)", "2 (1 not in A)"),
    }
    assert recorded_changes(a, b) == [{"field": "retriever_manifest.fingerprint", "A": "f1", "B": "f2"}]
