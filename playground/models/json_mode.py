"""JSON mode on each provider's wire: what `GenerationParams.response_format`/`json_schema` become in a request.

One place per wire format, so a provider never drops the request for JSON silently: it sends it, or (llama.cpp
in-process) turns it into a grammar, or refuses with an error that names JSON mode.
"""

from __future__ import annotations

import dataclasses
from typing import Optional

from playground.models.base import GenerationParams
from playground.models.errors import ModelError
from playground.models.retry import Failure

SCHEMA_NAME = "reply"  # OpenAI's json_schema format needs a name; the schema is what matters
JSON_MODE_HINT = "the request asked for JSON output (response_format); this server or model may not support it"


def openai_response_format(params: GenerationParams, schema_in_json_object: bool = False) -> Optional[dict]:
    """The chat-completions `response_format` (OpenAI, vLLM, TGI, llama.cpp server, HF router): json_schema when
    there is a schema, json_object without one, nothing for text. `schema_in_json_object`: llama.cpp's own form,
    json_object carrying the schema (what llama-cpp-python's server reads)."""
    if params.response_format != "json":
        return None
    if params.json_schema is None:
        return {"type": "json_object"}
    if schema_in_json_object:
        return {"type": "json_object", "schema": params.schema}
    return {"type": "json_schema", "json_schema": {"name": SCHEMA_NAME, "schema": params.schema}}


def cohere_response_format(params: GenerationParams) -> Optional[dict]:
    """Cohere v2 chat's `response_format`: {"type": "json_object"} with its optional `json_schema`."""
    if params.response_format != "json":
        return None
    if params.json_schema is None:
        return {"type": "json_object"}
    return {"type": "json_object", "json_schema": params.schema}


def refused_json_mode(params: GenerationParams, error: ModelError) -> bool:
    """Whether a failed call was probably a refusal of JSON mode: it asked for JSON and the server said the request
    was bad (400 or 422), or named response_format in its error (llama-cpp-python's server answers a 500 then)."""
    if params.response_format != "json":
        return False
    return error.status in (400, 422) or "response_format" in str(error)


def names_response_format(failure: Failure) -> Failure:
    """A failure whose words name response_format is the server refusing the request's form: not retried."""
    if failure.retryable and "response_format" in failure.message:
        return dataclasses.replace(failure, retryable=False)
    return failure
