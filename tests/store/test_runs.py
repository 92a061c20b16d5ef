"""The runs store: runs, results and spans, each question's result and spans in one transaction."""

from __future__ import annotations

import sqlite3

import pytest

from playground import PlaygroundError
from playground.programs.tracing import Tracer
from playground.store import open_workspace
from playground.store.runs import (
    create_run,
    delete_run,
    finish_run,
    get_result,
    get_run,
    get_results,
    get_spans,
    list_runs,
    run_question_ids,
    run_totals,
    save_result,
    set_run_status,
)


def _result(run_id, question_id, position, repeat=0, **fields):
    row = {
        "run_id": run_id,
        "question_id": question_id,
        "repeat": repeat,
        "position": position,
        "prediction": "Paris",
        "output": "Paris.",
        "scores": {"em": 1.0},
        "error": None,
        "prompt_tokens": 10,
        "completion_tokens": 2,
        "latency_s": 0.5,
        "cached": 0,
    }
    row.update(fields)
    return row


def _spans(run_id, question_id, repeat=0, cached=False, tokens=(10, 2)):
    tracer = Tracer()
    with tracer.span("program", "direct", {"question": question_id}):
        with tracer.span("render") as render:
            render.outputs = {"messages": [{"role": "user", "content": "Q?"}]}
        with tracer.span("generate") as generate:
            generate.prompt_tokens, generate.completion_tokens = tokens
            generate.cached = cached
            generate.outputs = {"text": "Paris."}
    return tracer.rows(run_id, question_id, repeat)


def test_create_then_get_and_list_runs(workspace):
    workspace.db["sessions"].insert_all([{"id": "s1", "name": "one"}, {"id": "s2", "name": "two"}])
    first = create_run(workspace, {"dataset": "tiny", "program": "direct"}, "s1", label="baseline", n_planned=2)
    second = create_run(workspace, {"dataset": "tiny", "program": "rag"}, "s2", n_planned=3)
    run = get_run(workspace, first)
    assert run.status == "running" and run.config == {"dataset": "tiny", "program": "direct"}
    assert run.label == "baseline" and run.n_planned == 2 and run.n_done == 0 and run.metrics == {}
    assert [r.id for r in list_runs(workspace)] == [second, first]  # newest first
    assert [r.id for r in list_runs(workspace, session_id="s1")] == [first]


def test_a_unique_prefix_finds_a_run_and_an_unknown_or_ambiguous_one_is_an_error(workspace):
    create_run(workspace, {}, None, run_id="abc111")
    create_run(workspace, {}, None, run_id="abc222")
    assert get_run(workspace, "abc1").id == "abc111"
    with pytest.raises(PlaygroundError, match="ambiguous"):
        get_run(workspace, "abc")
    with pytest.raises(PlaygroundError, match="no run 'zzz'"):
        get_run(workspace, "zzz")


def test_save_result_stores_result_and_spans_and_counts_done(workspace):
    run_id = create_run(workspace, {}, None, n_planned=2)
    save_result(workspace, _result(run_id, "q2", 1), _spans(run_id, "q2"))
    save_result(workspace, _result(run_id, "q1", 0), _spans(run_id, "q1"))
    assert get_run(workspace, run_id).n_done == 2
    results = get_results(workspace, run_id)
    assert [r["question_id"] for r in results] == ["q1", "q2"]  # sample order
    assert results[0]["scores"] == {"em": 1.0}
    spans = get_spans(workspace, run_id, "q1")
    assert [s["kind"] for s in spans] == ["program", "render", "generate"]
    assert spans[1]["parent_id"] == spans[0]["id"]
    assert spans[1]["outputs"] == {"messages": [{"role": "user", "content": "Q?"}]}
    assert run_question_ids(workspace, run_id) == {"q1", "q2"}


def test_a_failing_span_write_leaves_neither_result_nor_spans(workspace):
    run_id = create_run(workspace, {}, None, n_planned=1)
    spans = _spans(run_id, "q1")
    spans.append(dict(spans[0]))  # duplicate primary key: the insert fails midway
    with pytest.raises(sqlite3.IntegrityError):
        save_result(workspace, _result(run_id, "q1", 0), spans)
    assert get_results(workspace, run_id) == []
    assert get_spans(workspace, run_id, "q1") == []
    assert get_run(workspace, run_id).n_done == 0


def test_saving_a_question_again_replaces_its_result_and_spans(workspace):
    run_id = create_run(workspace, {}, None, n_planned=1)
    save_result(workspace, _result(run_id, "q1", 0, prediction="Lyon"), _spans(run_id, "q1"))
    save_result(workspace, _result(run_id, "q1", 0, prediction="Paris"), _spans(run_id, "q1"))
    assert [r["prediction"] for r in get_results(workspace, run_id)] == ["Paris"]
    assert len(get_spans(workspace, run_id, "q1")) == 3


def test_repeats_are_kept_apart(workspace):
    run_id = create_run(workspace, {}, None, n_planned=2)
    save_result(workspace, _result(run_id, "q1", 0, repeat=0), _spans(run_id, "q1", 0))
    save_result(workspace, _result(run_id, "q1", 0, repeat=1, prediction="Lyon"), _spans(run_id, "q1", 1))
    assert run_question_ids(workspace, run_id, repeat=1) == {"q1"}
    assert run_question_ids(workspace, run_id, repeat=2) == set()
    assert get_result(workspace, run_id, "q1", 1)["prediction"] == "Lyon"
    assert len(get_spans(workspace, run_id, "q1", 1)) == 3
    with pytest.raises(PlaygroundError, match="no result for question 'q9'"):
        get_result(workspace, run_id, "q9")


def test_totals_leave_cache_hits_out_of_tokens_and_seconds(workspace):
    run_id = create_run(workspace, {}, None, n_planned=3)
    save_result(workspace, _result(run_id, "q1", 0, latency_s=2.0), _spans(run_id, "q1", tokens=(100, 5)))
    save_result(
        workspace, _result(run_id, "q2", 1, latency_s=0.01, cached=1), _spans(run_id, "q2", cached=True, tokens=(90, 4))
    )
    save_result(
        workspace, _result(run_id, "q3", 2, latency_s=1.5, error="ModelError: down", prediction=None, scores={}), []
    )
    totals = run_totals(workspace, run_id)
    assert totals == {"n": 3, "errors": 1, "cached": 1, "tokens": 105, "seconds": pytest.approx(3.5)}


def test_finish_run_records_status_and_aggregates(workspace):
    run_id = create_run(workspace, {}, None, n_planned=1)
    save_result(workspace, _result(run_id, "q1", 0), _spans(run_id, "q1"))
    set_run_status(workspace, run_id, "stopped")
    assert get_run(workspace, run_id).status == "stopped"
    run = finish_run(workspace, run_id, "done", {"em": 1.0})
    assert run.status == "done" and run.metrics == {"em": 1.0} and run.tokens == 12
    assert run.finished_at and run.n_done == 1
    with pytest.raises(ValueError):
        set_run_status(workspace, run_id, "exploded")


def test_a_finished_question_survives_reopening_the_file(workspace):
    run_id = create_run(workspace, {}, None, n_planned=2)
    save_result(workspace, _result(run_id, "q1", 0), _spans(run_id, "q1"))
    path = workspace.path
    workspace.close()
    reopened = open_workspace(path)
    try:
        assert [r["question_id"] for r in get_results(reopened, run_id)] == ["q1"]
        assert get_run(reopened, run_id).status == "running"
    finally:
        reopened.close()


def test_delete_run_removes_results_and_spans(workspace):
    keep = create_run(workspace, {}, None)
    drop = create_run(workspace, {}, None)
    for run_id in (keep, drop):
        save_result(workspace, _result(run_id, "q1", 0), _spans(run_id, "q1"))
    delete_run(workspace, drop)
    assert [r.id for r in list_runs(workspace)] == [keep]
    assert workspace.db["spans"].count_where("run_id = ?", [drop]) == 0
    assert workspace.db["results"].count_where("run_id = ?", [drop]) == 0
    assert len(get_spans(workspace, keep, "q1")) == 3


def test_a_run_of_an_unknown_session_is_refused_with_the_reason(workspace):
    with pytest.raises(PlaygroundError, match="no session 'nope'"):
        create_run(workspace, {}, "nope")
    assert workspace.db["runs"].count == 0
