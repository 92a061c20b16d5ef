"""The Model protocol: generate(messages, params) -> Completion."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field, fields
from typing import Any, Optional, Protocol, runtime_checkable

from playground import PlaygroundError

Message = dict  # {"role": "system"|"user"|"assistant", "content": str}
RESPONSE_FORMATS = ("text", "json")
MAX_JSON_SCHEMA_CHARS = 8_000  # a reply schema is a few fields; a larger one is refused, never sent or stored
# Left out of to_dict() at their defaults, so a text request keeps the cache key and judge id it had before them.
_OMITTED_AT_DEFAULT = {"response_format": "text", "json_schema": None}


def canonical_schema(schema: Any) -> Optional[str]:
    """A JSON schema (dict or JSON text) as compact JSON text, its property order kept (the reply is written in that
    order); None stays None. Refused in one line when it is not a JSON object or is over MAX_JSON_SCHEMA_CHARS."""
    if schema is None:
        return None
    if isinstance(schema, str):
        try:
            schema = json.loads(schema)
        except ValueError as error:
            raise PlaygroundError(f"json_schema is not valid JSON: {error}") from None
    if not isinstance(schema, dict):
        raise PlaygroundError(f"json_schema must be a JSON object (a schema), not {type(schema).__name__}")
    text = json.dumps(schema, ensure_ascii=False, separators=(",", ":"))
    if len(text) > MAX_JSON_SCHEMA_CHARS:
        raise PlaygroundError(f"json_schema is {len(text):,} characters; at most {MAX_JSON_SCHEMA_CHARS:,} are allowed")
    return text


@dataclass(frozen=True)
class GenerationParams:
    temperature: float = 0.0
    top_p: float = 1.0
    max_tokens: int = 64
    stop: tuple[str, ...] = ()
    seed: Optional[int] = 0
    n: int = 1
    # "json": the reply must be one JSON object (JSON mode, constrained decoding where the provider has it), shaped
    # by json_schema when one is given (canonical JSON text; giving one implies "json").
    response_format: str = "text"
    json_schema: Optional[str] = None

    def __post_init__(self) -> None:
        """Every number in range (playground.bounds), so a refused value is never stored with a run or a judge."""
        from playground import bounds

        object.__setattr__(self, "temperature", bounds.TEMPERATURE.check(self.temperature))
        object.__setattr__(self, "top_p", bounds.TOP_P.check(self.top_p))
        object.__setattr__(self, "max_tokens", bounds.MAX_TOKENS.check(self.max_tokens))
        object.__setattr__(self, "seed", bounds.checked_optional(bounds.SEED, self.seed))
        object.__setattr__(self, "n", bounds.SAMPLES.check(self.n))
        if self.response_format not in RESPONSE_FORMATS:
            raise PlaygroundError(
                f"response_format must be one of {', '.join(RESPONSE_FORMATS)}, not {self.response_format!r}"
            )
        object.__setattr__(self, "json_schema", canonical_schema(self.json_schema))
        if self.json_schema is not None:
            object.__setattr__(self, "response_format", "json")

    @property
    def schema(self) -> Optional[dict]:
        """The reply's JSON schema as a dict (None without one)."""
        return None if self.json_schema is None else json.loads(self.json_schema)

    def as_text(self) -> "GenerationParams":
        """These params asking for free text (no JSON mode)."""
        from dataclasses import replace

        return replace(self, response_format="text", json_schema=None)

    def as_json(self, schema: Any = None) -> "GenerationParams":
        """These params asking for one JSON object, shaped by `schema` when given."""
        from dataclasses import replace

        return replace(self, response_format="json", json_schema=schema)

    def to_dict(self) -> dict:
        d = asdict(self)
        d["stop"] = list(self.stop)
        for key, default in _OMITTED_AT_DEFAULT.items():
            if d[key] == default:
                del d[key]
        return d

    @classmethod
    def from_dict(cls, data: dict) -> "GenerationParams":
        """The params a stored dict describes; an unknown key is an error naming the known ones."""
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(data) - known)
        if unknown:
            raise PlaygroundError(
                f"unknown generation parameter(s) {', '.join(unknown)} (known: {', '.join(sorted(known))})"
            )
        values = dict(data)
        if "stop" in values:
            values["stop"] = tuple(values["stop"] or ())
        return cls(**values)


@dataclass
class Completion:
    text: str  # the first sample
    finish_reason: str
    prompt_tokens: int
    completion_tokens: int
    latency_s: float
    model_id: str  # the exact id and version the provider reports
    samples: list[str] = field(default_factory=list)  # all n texts (samples[0] == text)
    cached: bool = False
    truncation: Optional[dict] = None  # how a too-long prompt was cut, when it was


@runtime_checkable
class Model(Protocol):
    """What every provider's models offer. Optional: `count_prompt_tokens(messages) -> int` (else the content
    tokens plus a few per message are counted) and `fingerprint` (a string that changes when the weights do; it is
    part of the response cache key)."""

    spec: str  # e.g. "local:smollm2", "openai:qwen@http://127.0.0.1:8000/v1"
    context_window: int  # tokens; 0 when unknown
    info: dict  # what the model is (spec, provider, model, base URL, ...), shown and stored; never a key

    def generate(self, messages: list[Message], params: GenerationParams) -> Completion: ...

    def count_tokens(self, text: str) -> int: ...  # exact, or an estimate that errs on the long side
