"""The JSON schema of each judge role's reply: the fields its parser reads, so JSON mode (constrained decoding
where the provider has it) can only produce a reply of that shape. Strings are bounded so a small model cannot
spend its token budget inside one and leave the object unclosed."""

from __future__ import annotations

from typing import Optional

from playground.models.base import GenerationParams

REASON = {"type": "string", "maxLength": 300}
MAX_CLAIMS_ASKED = 10


def _object(**properties) -> dict:
    return {"type": "object", "properties": properties, "required": list(properties)}


REPLY_SCHEMAS = {
    "claims": _object(
        claims={"type": "array", "items": {"type": "string", "maxLength": 200}, "maxItems": MAX_CLAIMS_ASKED}
    ),
    "context": _object(relevant={"type": "boolean"}, reason=REASON),
    "relevance": _object(grade={"type": "integer", "enum": [1, 2, 3, 4, 5]}, reason=REASON),
    "citation": _object(supported={"type": "boolean"}, reason=REASON),
    "pointwise": _object(score={"type": "number", "minimum": 0, "maximum": 1}, reason=REASON),
    "reference": _object(implies={"type": "boolean"}, reason=REASON),
}


def claim_schema(count: int) -> dict:
    """A claim's verdict: supported or contradicted by one of the `count` passages shown (its number), or not found
    (no passage), as the faithfulness parser requires."""
    numbers = list(range(1, max(1, count) + 1))
    found = {"type": "string", "enum": ["supported", "contradicted"]}
    return {
        "anyOf": [
            _object(verdict=found, passage={"type": "integer", "enum": numbers}, reason=REASON),
            _object(verdict={"type": "string", "enum": ["not found"]}, passage={"type": "null"}, reason=REASON),
        ]
    }


def reply_params(params: GenerationParams, role: str, template, variables: Optional[dict] = None) -> GenerationParams:
    """The params of one judge call: JSON mode with the role's schema when the role's template answers in JSON
    (any JSON object for a role without a schema), free text otherwise. A template edited to answer_format other
    than json turns JSON mode off for its role."""
    if getattr(template, "answer_format", None) != "json":
        return params.as_text()
    return params.as_json(schema_of(role, variables or {}))


def schema_of(role: str, variables: dict) -> Optional[dict]:
    if role == "claim":
        return claim_schema(len(variables.get("passages") or []))
    return REPLY_SCHEMAS.get(role)
