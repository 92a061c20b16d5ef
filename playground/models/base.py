"""The Model protocol: generate(messages, params) -> Completion."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, fields
from typing import Optional, Protocol, runtime_checkable

from playground import PlaygroundError

Message = dict  # {"role": "system"|"user"|"assistant", "content": str}


@dataclass(frozen=True)
class GenerationParams:
    temperature: float = 0.0
    top_p: float = 1.0
    max_tokens: int = 64
    stop: tuple[str, ...] = ()
    seed: Optional[int] = 0
    n: int = 1

    def __post_init__(self) -> None:
        """Every number in range (playground.bounds), so a refused value is never stored with a run or a judge."""
        from playground import bounds

        object.__setattr__(self, "temperature", bounds.TEMPERATURE.check(self.temperature))
        object.__setattr__(self, "top_p", bounds.TOP_P.check(self.top_p))
        object.__setattr__(self, "max_tokens", bounds.MAX_TOKENS.check(self.max_tokens))
        object.__setattr__(self, "seed", bounds.checked_optional(bounds.SEED, self.seed))
        object.__setattr__(self, "n", bounds.SAMPLES.check(self.n))

    def to_dict(self) -> dict:
        d = asdict(self)
        d["stop"] = list(self.stop)
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
