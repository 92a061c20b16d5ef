"""A stored span as OpenInference (and OpenTelemetry GenAI) attributes, the names Phoenix, Langfuse and Jaeger read.

The playground's span kinds (program, retrieve, render, generate, parse, judge, ...) map onto OpenInference's
(CHAIN, RETRIEVER, LLM, EVALUATOR, ...); each kind's inputs and outputs become that kind's attributes. Values are
strings, numbers or booleans (what OTLP carries); anything structured is JSON text.
"""

from __future__ import annotations

import json
from typing import Any, Optional

from openinference.semconv.trace import (
    DocumentAttributes,
    MessageAttributes,
    OpenInferenceMimeTypeValues,
    OpenInferenceSpanKindValues,
    SpanAttributes,
)

KINDS = {
    "program": OpenInferenceSpanKindValues.CHAIN,
    "retrieve": OpenInferenceSpanKindValues.RETRIEVER,
    "generate": OpenInferenceSpanKindValues.LLM,
    "render": OpenInferenceSpanKindValues.PROMPT,
    "parse": OpenInferenceSpanKindValues.CHAIN,
    "tool": OpenInferenceSpanKindValues.TOOL,
    "rerank": OpenInferenceSpanKindValues.RERANKER,
    "embed": OpenInferenceSpanKindValues.EMBEDDING,
    "judge": OpenInferenceSpanKindValues.EVALUATOR,
    "claim": OpenInferenceSpanKindValues.EVALUATOR,
    "sentence": OpenInferenceSpanKindValues.EVALUATOR,
    "passage": OpenInferenceSpanKindValues.EVALUATOR,
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


def span_attributes(
    span: dict, *, question_id: str, run_id: str, texts: dict[str, str], template: Optional[dict] = None
) -> dict[str, Any]:
    """The attributes of one stored span (inputs and outputs parsed); `texts` holds passage texts by id, `template`
    the inputs of the render span that made a generate span's messages."""
    kind = span["kind"]
    inputs, outputs = span["inputs"] or {}, span["outputs"] or {}
    attributes: dict[str, Any] = {
        SpanAttributes.OPENINFERENCE_SPAN_KIND: span_kind(kind),
        f"{OWN}kind": kind,
        f"{OWN}run_id": run_id,
        f"{OWN}question_id": question_id,
        f"{OWN}cached": bool(span.get("cached")),
    }
    if kind == "program":
        _io(attributes, SpanAttributes.INPUT_VALUE, SpanAttributes.INPUT_MIME_TYPE, inputs.get("question"))
        _io(attributes, SpanAttributes.OUTPUT_VALUE, SpanAttributes.OUTPUT_MIME_TYPE, outputs.get("answer"))
        attributes[SpanAttributes.METADATA] = _text({"run_id": run_id, "question_id": question_id})
        attributes[SpanAttributes.SESSION_ID] = run_id
    elif kind == "retrieve":
        _io(attributes, SpanAttributes.INPUT_VALUE, SpanAttributes.INPUT_MIME_TYPE, inputs.get("query"))
        _documents(attributes, outputs.get("hits") or [], texts)
    elif kind == "generate":
        _generate(attributes, span, template)
    elif kind == "render":
        _template(attributes, inputs)
        _io(attributes, SpanAttributes.INPUT_VALUE, SpanAttributes.INPUT_MIME_TYPE, inputs.get("variables"))
        _io(attributes, SpanAttributes.OUTPUT_VALUE, SpanAttributes.OUTPUT_MIME_TYPE, outputs.get("messages"))
    else:
        _io(attributes, SpanAttributes.INPUT_VALUE, SpanAttributes.INPUT_MIME_TYPE, inputs or None)
        _io(attributes, SpanAttributes.OUTPUT_VALUE, SpanAttributes.OUTPUT_MIME_TYPE, outputs or None)
    return attributes
