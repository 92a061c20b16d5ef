"""RunConfig: everything that decides a run's results, stored whole with the run so it can be repeated exactly."""

from __future__ import annotations

import dataclasses
import platform
from dataclasses import dataclass, field
from typing import Any, Optional

from playground import PlaygroundError, __version__, bounds
from playground.packages import package_versions as versions_of
from playground.models.base import GenerationParams
from playground.models.registry import DEFAULT_MODEL_SPEC

DEFAULT_RETRIEVER = "bm25"
RECORDED_PACKAGES = (
    "llama-cpp-python",
    "jinja2",
    "sqlite-utils",
    "sentence-transformers",
    "faiss-cpu",
    "annoy",
    "bm25s",
    "rank-bm25",
    "huggingface-hub",
    "cohere",
    "numpy",
    "torch",
)


def package_versions() -> dict[str, str]:
    """Versions of the packages that can change a run's outputs (read from metadata, nothing imported)."""
    return {
        "playground": __version__,
        "python": platform.python_version(),
        **versions_of(*RECORDED_PACKAGES, missing=None),
    }


@dataclass
class RunConfig:
    """One program + templates + retriever + model + a seeded sample of a benchmark.

    `templates` maps a template role to a ref (NAME, NAME@VERSION or a file path); a plain string means the
    "main" role. At run time the engine fills `prompt_versions` (role -> prompt version id), `template_names`,
    `retriever_manifest`, `question_ids` (the exact sample) and `versions`; a repeat uses those, not the refs.
    """

    dataset: str
    program: str = "direct"
    templates: dict[str, str] = field(default_factory=dict)
    prompt_versions: dict[str, str] = field(default_factory=dict)
    template_names: dict[str, str] = field(default_factory=dict)
    retriever: Optional[str] = None
    retriever_params: dict[str, Any] = field(default_factory=dict)
    retriever_manifest: Optional[dict[str, Any]] = None
    k: int = 5
    model: str = DEFAULT_MODEL_SPEC
    params: GenerationParams = field(default_factory=GenerationParams)
    sample: Optional[int] = None
    seed: int = 0
    repeats: int = 1
    question_ids: Optional[list[str]] = None
    use_cache: bool = True
    options: dict[str, Any] = field(default_factory=dict)  # program-specific settings
    versions: dict[str, str] = field(default_factory=dict)
    metric_signatures: dict[str, str] = field(default_factory=dict)  # how bleu, chrf, rougeL were computed
    experiment: dict[str, Any] = field(default_factory=dict)  # the experiment file's digest and variant (eval, gate)

    def __post_init__(self) -> None:
        if isinstance(self.templates, str):
            self.templates = {"main": self.templates}
        if isinstance(self.params, dict):
            self.params = GenerationParams.from_dict(self.params)
        self.k = bounds.K.count(self.k)
        self.sample = bounds.optional_count(bounds.SAMPLE, self.sample)
        self.seed = bounds.SEED.count(self.seed)
        self.repeats = bounds.REPEATS.count(self.repeats)

    def to_dict(self) -> dict:
        data = dataclasses.asdict(self)
        data["params"] = self.params.to_dict()
        if not data["experiment"]:  # a run outside any experiment stores the config it always did
            del data["experiment"]
        return data

    @classmethod
    def from_dict(cls, data: dict) -> "RunConfig":
        known = {f.name for f in dataclasses.fields(cls)}
        values = {key: value for key, value in data.items() if key in known}
        if "dataset" not in values:
            raise PlaygroundError("a run config needs a dataset")
        values["params"] = GenerationParams.from_dict(values.get("params") or {})
        return cls(**values)

    def settings(self) -> dict:
        """The settings a person compares runs by (one line in `playground runs`)."""
        from playground.evaluation.stored_runs import answer_settings

        return answer_settings(self.to_dict())
