"""A stored span as OpenInference (and OpenTelemetry GenAI) attributes, the names Phoenix, Langfuse and Jaeger read.

The playground's span kinds (program, retrieve, render, generate, parse, judge, ...) map onto OpenInference's
(CHAIN, RETRIEVER, LLM, EVALUATOR, ...); each kind's inputs and outputs become that kind's attributes. Values are
strings, numbers or booleans (what OTLP carries); anything structured is JSON text.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Callable, Optional

from openinference.semconv.trace import (
    DocumentAttributes,
    MessageAttributes,
    OpenInferenceMimeTypeValues,
    OpenInferenceSpanKindValues,
    SpanAttributes,
)

from playground.store.span_kinds import SpanKind

KINDS = {
    SpanKind.PROGRAM: OpenInferenceSpanKindValues.CHAIN,
    SpanKind.RETRIEVE: OpenInferenceSpanKindValues.RETRIEVER,
    SpanKind.GENERATE: OpenInferenceSpanKindValues.LLM,
    SpanKind.RENDER: OpenInferenceSpanKindValues.PROMPT,
    SpanKind.PARSE: OpenInferenceSpanKindValues.CHAIN,
    SpanKind.TOOL: OpenInferenceSpanKindValues.TOOL,
    SpanKind.RERANK: OpenInferenceSpanKindValues.RERANKER,
    SpanKind.EMBED: OpenInferenceSpanKindValues.EMBEDDING,
    SpanKind.JUDGE: OpenInferenceSpanKindValues.EVALUATOR,
    SpanKind.CLAIM: OpenInferenceSpanKindValues.EVALUATOR,
    SpanKind.SENTENCE: OpenInferenceSpanKindValues.EVALUATOR,
    SpanKind.PASSAGE: OpenInferenceSpanKindValues.EVALUATOR,
}
# OpenInference's own kinds that a trace file's spans are read by (traces/questions.py, reference_run.py), and the
# stored kind an imported span of each becomes (any other: a step).
LLM_KIND = OpenInferenceSpanKindValues.LLM.value
RETRIEVER_KIND = OpenInferenceSpanKindValues.RETRIEVER.value
STORED_KINDS = {
    RETRIEVER_KIND: SpanKind.RETRIEVE,
    LLM_KIND: SpanKind.GENERATE,
    OpenInferenceSpanKindValues.PROMPT.value: SpanKind.RENDER,
    OpenInferenceSpanKindValues.EVALUATOR.value: SpanKind.JUDGE,
    OpenInferenceSpanKindValues.TOOL.value: SpanKind.TOOL,
}
OWN = "playground."  # the prefix of attributes only the playground reads back (ids, the stored kind)
JSON_MIME = OpenInferenceMimeTypeValues.JSON.value
TEXT_MIME = OpenInferenceMimeTypeValues.TEXT.value


def span_kind(stored_kind: str) -> str:
    return KINDS.get(stored_kind, OpenInferenceSpanKindValues.CHAIN).value


def _text(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, sort_keys=True)


def _io(attributes: dict, key: str, mime_key: str, value: Any) -> None:
    if value is None:
        return
    attributes[key] = _text(value)
    attributes[mime_key] = TEXT_MIME if isinstance(value, str) else JSON_MIME


def _messages(attributes: dict, prefix: str, messages: list) -> None:
    for index, message in enumerate(messages or []):
        if isinstance(message, dict):
            attributes[f"{prefix}.{index}.{MessageAttributes.MESSAGE_ROLE}"] = str(message.get("role", ""))
            attributes[f"{prefix}.{index}.{MessageAttributes.MESSAGE_CONTENT}"] = _text(message.get("content", ""))


def _documents(attributes: dict, passages: list[dict], texts: dict[str, str]) -> None:
    for index, passage in enumerate(passages):
        prefix = f"{SpanAttributes.RETRIEVAL_DOCUMENTS}.{index}"
        attributes[f"{prefix}.{DocumentAttributes.DOCUMENT_ID}"] = str(passage.get("id", ""))
        attributes[f"{prefix}.{DocumentAttributes.DOCUMENT_CONTENT}"] = texts.get(str(passage.get("id")), "")
        if passage.get("score") is not None:
            attributes[f"{prefix}.{DocumentAttributes.DOCUMENT_SCORE}"] = float(passage["score"])
        if passage.get("title"):
            attributes[f"{prefix}.{DocumentAttributes.DOCUMENT_METADATA}"] = _text({"title": passage["title"]})


def _generate(attributes: dict, span: dict, template: Optional[dict]) -> None:
    inputs, outputs = span["inputs"], span["outputs"]
    model = str(inputs.get("model") or "")
    attributes[SpanAttributes.LLM_MODEL_NAME] = str(outputs.get("model_id") or model)
    attributes["gen_ai.operation.name"] = "chat"
    attributes["gen_ai.request.model"] = model
    if outputs.get("model_id"):
        attributes["gen_ai.response.model"] = str(outputs["model_id"])
    if inputs.get("params") is not None:
        attributes[SpanAttributes.LLM_INVOCATION_PARAMETERS] = _text(inputs["params"])
    _messages(attributes, SpanAttributes.LLM_INPUT_MESSAGES, inputs.get("messages") or [])
    _io(attributes, SpanAttributes.INPUT_VALUE, SpanAttributes.INPUT_MIME_TYPE, inputs.get("messages"))
    if outputs.get("text") is not None:
        _messages(attributes, SpanAttributes.LLM_OUTPUT_MESSAGES, [{"role": "assistant", "content": outputs["text"]}])
        _io(attributes, SpanAttributes.OUTPUT_VALUE, SpanAttributes.OUTPUT_MIME_TYPE, outputs["text"])
    prompt, completion = int(span.get("prompt_tokens") or 0), int(span.get("completion_tokens") or 0)
    attributes[SpanAttributes.LLM_TOKEN_COUNT_PROMPT] = prompt
    attributes[SpanAttributes.LLM_TOKEN_COUNT_COMPLETION] = completion
    attributes[SpanAttributes.LLM_TOKEN_COUNT_TOTAL] = prompt + completion
    attributes["gen_ai.usage.input_tokens"] = prompt
    attributes["gen_ai.usage.output_tokens"] = completion
    if outputs.get("finish_reason"):
        attributes["gen_ai.response.finish_reasons"] = (str(outputs["finish_reason"]),)
    if template:
        _template(attributes, template)


def _template(attributes: dict, render_inputs: dict) -> None:
    if render_inputs.get("template"):
        attributes[SpanAttributes.LLM_PROMPT_TEMPLATE] = str(render_inputs["template"])
    if render_inputs.get("variables") is not None:
        attributes[SpanAttributes.LLM_PROMPT_TEMPLATE_VARIABLES] = _text(render_inputs["variables"])
    if render_inputs.get("prompt_version"):
        attributes[SpanAttributes.LLM_PROMPT_TEMPLATE_VERSION] = str(render_inputs["prompt_version"])


@dataclass(frozen=True)
class _Exported:
    """One stored span being exported, with what its kind's attributes are made from."""

    span: dict
    inputs: dict
    outputs: dict
    question_id: str
    run_id: str
    texts: dict[str, str]
    template: Optional[dict]


def _program_attributes(attributes: dict, exported: _Exported) -> None:
    _io(attributes, SpanAttributes.INPUT_VALUE, SpanAttributes.INPUT_MIME_TYPE, exported.inputs.get("question"))
    _io(attributes, SpanAttributes.OUTPUT_VALUE, SpanAttributes.OUTPUT_MIME_TYPE, exported.outputs.get("answer"))
    attributes[SpanAttributes.METADATA] = _text({"run_id": exported.run_id, "question_id": exported.question_id})
    attributes[SpanAttributes.SESSION_ID] = exported.run_id


def _retrieve_attributes(attributes: dict, exported: _Exported) -> None:
    _io(attributes, SpanAttributes.INPUT_VALUE, SpanAttributes.INPUT_MIME_TYPE, exported.inputs.get("query"))
    _documents(attributes, exported.outputs.get("hits") or [], exported.texts)


def _generate_attributes(attributes: dict, exported: _Exported) -> None:
    _generate(attributes, exported.span, exported.template)


def _render_attributes(attributes: dict, exported: _Exported) -> None:
    _template(attributes, exported.inputs)
    _io(attributes, SpanAttributes.INPUT_VALUE, SpanAttributes.INPUT_MIME_TYPE, exported.inputs.get("variables"))
    _io(attributes, SpanAttributes.OUTPUT_VALUE, SpanAttributes.OUTPUT_MIME_TYPE, exported.outputs.get("messages"))


def _plain_attributes(attributes: dict, exported: _Exported) -> None:
    """Any other kind: its inputs and outputs as they are."""
    _io(attributes, SpanAttributes.INPUT_VALUE, SpanAttributes.INPUT_MIME_TYPE, exported.inputs or None)
    _io(attributes, SpanAttributes.OUTPUT_VALUE, SpanAttributes.OUTPUT_MIME_TYPE, exported.outputs or None)


# The span kinds whose inputs and outputs have attributes of their own; every other kind's are plain values.
KIND_ATTRIBUTES: dict[str, Callable[[dict, _Exported], None]] = {
    SpanKind.PROGRAM: _program_attributes,
    SpanKind.RETRIEVE: _retrieve_attributes,
    SpanKind.GENERATE: _generate_attributes,
    SpanKind.RENDER: _render_attributes,
}


def span_attributes(
    span: dict, *, question_id: str, run_id: str, texts: dict[str, str], template: Optional[dict] = None
) -> dict[str, Any]:
    """The attributes of one stored span (inputs and outputs parsed); `texts` holds passage texts by id, `template`
    the inputs of the render span that made a generate span's messages."""
    kind = span["kind"]
    attributes: dict[str, Any] = {
        SpanAttributes.OPENINFERENCE_SPAN_KIND: span_kind(kind),
        f"{OWN}kind": kind,
        f"{OWN}run_id": run_id,
        f"{OWN}question_id": question_id,
        f"{OWN}cached": bool(span.get("cached")),
    }
    exported = _Exported(span, span["inputs"] or {}, span["outputs"] or {}, question_id, run_id, texts, template)
    KIND_ATTRIBUTES.get(kind, _plain_attributes)(attributes, exported)
    return attributes
