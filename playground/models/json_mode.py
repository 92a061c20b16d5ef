"""JSON mode on each provider's wire: what `GenerationParams.response_format`/`json_schema` become in a request.

One place per wire format, so a provider never drops the request for JSON silently: it sends it, or (llama.cpp
in-process) turns it into a grammar, or refuses with an error that names JSON mode.
"""

from __future__ import annotations

from typing import Optional

from playground.models.base import GenerationParams

SCHEMA_NAME = "reply"  # OpenAI's json_schema format needs a name; the schema is what matters
JSON_MODE_HINT = "the request asked for JSON output (response_format); this server or model may not support it"


def openai_response_format(params: GenerationParams) -> Optional[dict]:
    """The chat-completions `response_format` (OpenAI, vLLM, TGI, llama.cpp server, HF router): json_schema when
    there is a schema, json_object without one, nothing for text."""
    if params.response_format != "json":
        return None
    if params.json_schema is None:
        return {"type": "json_object"}
    return {"type": "json_schema", "json_schema": {"name": SCHEMA_NAME, "schema": params.schema}}


def cohere_response_format(params: GenerationParams) -> Optional[dict]:
    """Cohere v2 chat's `response_format`: {"type": "json_object"} with its optional `json_schema`."""
    if params.response_format != "json":
        return None
    if params.json_schema is None:
        return {"type": "json_object"}
    return {"type": "json_object", "json_schema": params.schema}


def refused_json_mode(params: GenerationParams, status: Optional[int]) -> bool:
    """Whether a failed call was probably a refusal of JSON mode: it asked for JSON and the server said the request
    was bad (400 or 422)."""
    return params.response_format == "json" and status in (400, 422)
