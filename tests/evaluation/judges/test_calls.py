"""A judge's model call goes through the programs' own step context: the same render and generate steps, spans,
seeds and cache as a program's, so a change to those steps reaches judges too."""

from __future__ import annotations

import dataclasses

from playground.evaluation.judges.calls import judge_call, judge_context
from playground.evaluation.judges.judge_config import JudgeConfig, resolve_judge
from playground.evaluation.judges.schemas import REPLY_SCHEMAS, reply_params
from playground.models.base import GenerationParams
from playground.programs.base import StepContext
from playground.programs.tracing import Tracer

from tests.evaluation.judges.conftest import ScriptedModel


def _comparable(span):
    outputs = {key: value for key, value in span.outputs.items() if key != "latency_s"}
    return (span.kind, span.name, span.inputs, outputs, span.prompt_tokens, span.completion_tokens)


def test_judge_call_writes_the_spans_a_program_step_writes(judge_workspace):
    model = ScriptedModel(lambda messages, params: f'{{"implies": true, "reason": "seed {params.seed}"}}')
    config = JudgeConfig(model=model.spec, params=GenerationParams(max_tokens=32, temperature=0.7, seed=5))
    judge = resolve_judge(judge_workspace, "reference", config, model=model)
    variables = {"question": "Capital of France?", "answer": "Paris", "reference": "Paris"}

    judged = Tracer()
    text = judge_call(judge_workspace, judge, "reference", variables, judged, sample_index=2, name="check")

    program = Tracer()
    context = dataclasses.replace(
        StepContext(
            workspace=judge_workspace,
            model=model,
            params=config.params,
            templates=judge.templates,
            prompt_versions=dict(judge.prompt_versions),
            use_cache=judge.use_cache,
        ).for_question(2),
        tracer=program,
    )
    context.render(variables, role="reference", name="render check")
    params = reply_params(context.params, "reference", judge.templates["reference"], variables)
    context.generate(context.tracer.spans[-1].outputs["messages"], params=params, name="generate check")

    assert text == '{"implies": true, "reason": "seed 7"}'  # repeat 2 moves the seed 5 -> 7, as for programs
    assert [_comparable(s) for s in judged.spans] == [_comparable(s) for s in program.spans]
    sent = model.requests[0][1]  # JSON mode with the role's reply schema, recorded in the span (and the cache key)
    assert sent.response_format == "json" and sent.schema == REPLY_SCHEMAS["reference"]
    assert judged.spans[1].inputs["params"]["json_schema"] == sent.json_schema
    assert judge.config.params.response_format == "json"  # stored with the judge: part of its version id
    assert not judged.spans[1].cached and program.spans[1].cached  # one response cache for programs and judges
    assert len(model.requests) == 1
    context = judge_context(judge_workspace, judge, judged, sample_index=1)
    assert isinstance(context, StepContext) and context.tracer is judged and context.params.seed == 6
