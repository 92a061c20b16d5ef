"""The Tracer: nesting, timing, errors, and the rows the store writes."""

from __future__ import annotations

import json
import time

import pytest

from playground.programs.tracing import Tracer, describe_error, span_tree


def test_spans_nest_under_the_open_span_in_opening_order():
    tracer = Tracer()
    with tracer.span("program", "rag", {"question": "q?"}) as root:
        with tracer.span("retrieve", inputs={"query": "q?"}) as retrieve:
            retrieve.outputs = {"hits": [{"id": "p1", "score": 1.5}]}
        with tracer.span("step", "hop 1") as hop:
            with tracer.span("generate") as generate:
                generate.prompt_tokens, generate.completion_tokens = 10, 2
    assert [s.kind for s in tracer.spans] == ["program", "retrieve", "step", "generate"]
    assert [s.position for s in tracer.spans] == [0, 1, 2, 3]
    assert root.parent_id is None
    assert retrieve.parent_id == root.id and hop.parent_id == root.id
    assert generate.parent_id == hop.id
    assert retrieve.name == "retrieve"  # the kind when no name is given
    assert len({s.id for s in tracer.spans}) == 4
    assert tracer.generate_spans() == [generate]
    assert tracer.current is None


def test_duration_is_measured_and_started_at_is_a_timestamp():
    tracer = Tracer()
    with tracer.span("tool", "sleep") as span:
        time.sleep(0.02)
    assert span.duration_s >= 0.02
    assert span.started_at[:2] == "20" and "T" in span.started_at


def test_an_error_is_recorded_on_every_open_span_and_re_raised():
    tracer = Tracer()
    with pytest.raises(ValueError):
        with tracer.span("program") as outer:
            with tracer.span("generate") as inner:
                raise ValueError("the server said no\nsecond line")
    assert inner.error == "ValueError: the server said no"
    assert outer.error == "ValueError: the server said no"
    assert inner.duration_s >= 0
    assert tracer.current is None  # the stack unwound


def test_rows_serialise_json_columns_and_the_cached_flag():
    tracer = Tracer()
    with tracer.span("generate", inputs={"messages": [{"role": "user", "content": "é"}]}) as span:
        span.outputs = {"text": "Paris"}
        span.cached = True
    (row,) = tracer.rows("run1", "q1", repeat=2)
    assert row["run_id"] == "run1" and row["question_id"] == "q1" and row["repeat"] == 2
    assert json.loads(row["inputs"]) == {"messages": [{"role": "user", "content": "é"}]}
    assert json.loads(row["outputs"]) == {"text": "Paris"}
    assert row["cached"] == 1 and row["error"] is None and row["parent_id"] is None


def test_span_tree_nests_rows_by_parent():
    tracer = Tracer()
    with tracer.span("program"):
        with tracer.span("retrieve"):
            pass
        with tracer.span("generate"):
            pass
    with tracer.span("judge"):
        pass
    rows = [dict(r, inputs={}, outputs={}) for r in tracer.rows("r", "q")]
    tree = span_tree(list(reversed(rows)))  # order comes from position, not input order
    assert [node["kind"] for node in tree] == ["program", "judge"]
    assert [child["kind"] for child in tree[0]["children"]] == ["retrieve", "generate"]
    assert tree[1]["children"] == []


def test_describe_error_without_a_message_names_the_type():
    assert describe_error(KeyError()) == "KeyError"
