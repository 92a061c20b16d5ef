"""Replies a broken or hostile server can send inside a well-formed chat completion: 1,000 nested JSON objects as the
text, and usage counts that are no token counts (NaN, 1e309, 10**30). Each is one recorded error (or no JSON
object found) on the question or judgment it belongs to; runs, judges and searches go on. A real HTTP server."""

from __future__ import annotations

import pytest

import playground.cli as cli
from playground.models.base import GenerationParams
from playground.prompts.parse import MAX_JSON_DEPTH, first_json_object, json_objects
from playground.runs import RunConfig, start_run
from playground.store.runs import get_results
from tests.openai_server import NESTED_OBJECTS, OpenAIServer


@pytest.fixture
def server():
    running = OpenAIServer().start()
    yield running
    running.close()


def test_a_reply_nested_past_the_limit_holds_no_object_and_the_next_one_is_found():
    deep = '{"a": ' * NESTED_OBJECTS + "1" + "}" * NESTED_OBJECTS
    assert first_json_object(deep) is None
    assert first_json_object(f'{deep} then {{"Answer": "Paris"}}') == {"answer": "Paris"}
    within = '{"a": ' * (MAX_JSON_DEPTH - 1) + "1" + "}" * (MAX_JSON_DEPTH - 1)
    assert first_json_object(within) is not None
    assert list(json_objects("[" * 100_000 + '{"x": "}{"}')) == [{"x": "}{"}]


def run_on(workspace, spec: str) -> tuple[str, list[dict]]:
    config = RunConfig(
        dataset="tiny", program="direct", model=spec, params=GenerationParams(max_tokens=8), question_ids=["q1", "q2"]
    )
    summary = start_run(workspace, config)
    return summary.status, get_results(workspace, summary.run_id)


@pytest.mark.slow
@pytest.mark.parametrize(
    "mode, said",
    [
        ("usagenan", "usage prompt_tokens = nan, which is no token count"),
        ("usageinf", "usage prompt_tokens = inf, which is no token count"),
        ("usagehuge", f"usage completion_tokens = {10**30}, which is no token count"),
    ],
)
def test_usage_counts_that_are_no_counts_are_one_recorded_error_per_question(tiny_workspace, server, mode, said):
    status, results = run_on(tiny_workspace, server.spec(mode))
    assert status == "done" and len(results) == 2
    for result in results:
        assert said in result["error"] and result["prompt_tokens"] == 0


@pytest.mark.slow
def test_a_judge_reading_deeply_nested_json_records_an_error_per_answer(tiny_workspace, server, capsys):
    status, results = run_on(tiny_workspace, server.spec("ok"))
    assert status == "done" and not any(result["error"] for result in results)
    run_id = results[0]["run_id"]
    code = cli.main(
        ["judge", "pointwise", run_id, "--judge-model", server.spec("deepjson"), "--db", str(tiny_workspace.path)]
    )
    captured = capsys.readouterr()
    assert code == 0, captured.err
    assert "RecursionError" not in captured.out + captured.err and "internal error" not in captured.err
    assert (
        "(2 judge error(s), left out of the mean)" in captured.out and "no score in the judge's reply" in captured.out
    )
