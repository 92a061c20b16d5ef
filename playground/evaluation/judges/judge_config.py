"""What a judge is: a model spec, generation params and template versions, chosen and versioned apart from the
models under test. A judge version id is a hash of all of them, so stored steps and judgments stay comparable.
The judges and their templates' roles are the registered ones (evaluation/judges/registry.py)."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any, Iterable, Optional

from playground import PlaygroundError
from playground.models.base import GenerationParams, Model
from playground.evaluation.judges.registry import default_judge_templates
from playground.models.registry import DEFAULT_MODEL_SPEC

DEFAULT_JUDGE_DEADLINE_S = 300.0  # as a run's question (Execution.timeout_s)


def roles_of(kind: str) -> tuple[str, ...]:
    from playground.evaluation.judges.registry import judge_record

    return tuple(judge_record(kind).templates)


def default_judge_params() -> GenerationParams:
    return GenerationParams(temperature=0.0, max_tokens=128)


@dataclass
class JudgeConfig:
    """A judge before it is loaded: model spec, params, and a template ref per role (NAME, NAME@VERSION, path)."""

    model: str = DEFAULT_MODEL_SPEC
    params: GenerationParams = field(default_factory=default_judge_params)
    templates: dict[str, str] = field(default_factory=default_judge_templates)

    def __post_init__(self) -> None:
        if isinstance(self.params, dict):
            self.params = GenerationParams.from_dict(self.params)
        defaults = default_judge_templates()
        unknown = sorted(set(self.templates) - set(defaults))
        if unknown:
            raise PlaygroundError(f"unknown judge template role(s) {', '.join(unknown)} (known: {', '.join(defaults)})")
        self.templates = {**defaults, **self.templates}

    def to_dict(self) -> dict:
        return {"model": self.model, "params": self.params.to_dict(), "templates": dict(self.templates)}

    @classmethod
    def from_dict(cls, data: dict) -> "JudgeConfig":
        return cls(
            model=data.get("model") or DEFAULT_MODEL_SPEC,
            params=data.get("params") or {},
            templates=data.get("templates") or {},
        )


@dataclass
class LoadedJudge:
    """A loaded judge of one kind: its version id, model, templates (role -> Template) and their prompt versions."""

    id: str
    kind: str
    config: JudgeConfig
    model: Model
    templates: dict[str, Any]
    prompt_versions: dict[str, str]
    use_cache: bool = True
    deadline_s: float = DEFAULT_JUDGE_DEADLINE_S  # one judgment, every model call and retry included

    def describe(self) -> dict:
        return {
            "id": self.id,
            "kind": self.kind,
            "model": self.model.spec,
            "params": self.config.params.to_dict(),
            "templates": {role: self.templates[role].name for role in self.templates},
            "prompt_versions": dict(self.prompt_versions),
        }


def judge_version(
    kind: str, model_spec: str, model_fingerprint: str, params: GenerationParams, prompt_versions: dict[str, str]
) -> str:
    """The judge version id: 12 hex digits of a hash over everything that decides its outputs (a key in the spec's
    URL is left out, as it is when the judge is stored)."""
    from playground.redaction import redact
    from playground.store.content_ids import judge_version_id

    return judge_version_id(kind, redact(model_spec), model_fingerprint, params.to_dict(), prompt_versions)


def resolve_judge(
    workspace,
    kind: str,
    config: Optional[JudgeConfig] = None,
    model: Optional[Model] = None,
    use_cache: bool = True,
    deadline_s: Optional[float] = None,
) -> LoadedJudge:
    """Load the judge's model and templates, save the templates as prompt versions, record the judge version.

    `model` overrides loading config.model (a scripted model in tests, an already loaded one in the app).
    `deadline_s` bounds each judgment (default 300 s): a judge model that never answers in full is an error then.
    """
    if deadline_s is not None:
        from playground.bounds import TIMEOUT

        deadline_s = float(TIMEOUT.check(deadline_s, "the judge's timeout"))
    from playground.prompts.library import load_template
    from playground.store.judgments import save_judge
    from playground.store.prompts import save_prompt_version

    roles = roles_of(kind)
    config = config or JudgeConfig()
    if model is None:
        from playground.models.registry import load_model

        model = load_model(config.model)
    config = dataclasses.replace(config, model=model.spec)
    templates, versions = {}, {}
    for role in roles:
        template = load_template(config.templates[role], workspace)
        templates[role] = template
        versions[role] = save_prompt_version(workspace, template)
    if any(template.answer_format == "json" for template in templates.values()):
        # its JSON roles are asked in JSON mode (judges/schemas.py): recorded with the judge, part of its version id
        config = dataclasses.replace(config, params=config.params.as_json())
    fingerprint = getattr(model, "fingerprint", "") or ""
    judge_id = judge_version(kind, model.spec, fingerprint, config.params, versions)
    save_judge(
        workspace,
        judge_id,
        kind,
        model.spec,
        fingerprint,
        config.params.to_dict(),
        {role: config.templates[role] for role in templates},
        versions,
    )
    return LoadedJudge(
        id=judge_id,
        kind=kind,
        config=config,
        model=model,
        templates=templates,
        prompt_versions=versions,
        use_cache=use_cache,
        deadline_s=deadline_s or DEFAULT_JUDGE_DEADLINE_S,
    )


def _model_name(spec: str) -> str:
    return (spec or "").strip().lower()


def self_judging_warning(judge_model: str, compared_models: Iterable[Optional[str]]) -> Optional[str]:
    """A warning when the judge model also produced an answer it judges (judges tend to prefer their own)."""
    same = sorted({spec for spec in compared_models if spec and _model_name(spec) == _model_name(judge_model)})
    if not same:
        return None
    return (
        f"the judge model {judge_model} is also a model under comparison; judges tend to prefer their own "
        f"answers (self-preference): use another judge model, or swap judges and re-score"
    )
