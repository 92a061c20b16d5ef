"""Judge versions: model + params + template versions, stored apart from the models under test."""

from __future__ import annotations

import dataclasses

import pytest

from playground import PlaygroundError
from playground.evaluation.judges.judge_config import (
    JudgeConfig,
    default_judge_templates,
    judge_version,
    resolve_judge,
    self_judging_warning,
)
from playground.models.base import GenerationParams
from playground.store.judgments import get_judge, list_judges
from playground.store.prompts import get_prompt_version

from tests.evaluation.judges.conftest import ScriptedModel


def test_config_defaults_roles_and_round_trip():
    config = JudgeConfig(templates={"pairwise": "my-pairwise.jinja"})
    assert config.templates == {**default_judge_templates(), "pairwise": "my-pairwise.jinja"}
    assert config.params.temperature == 0.0
    again = JudgeConfig.from_dict(config.to_dict())
    assert again == config
    with pytest.raises(PlaygroundError, match="unknown judge template role"):
        JudgeConfig(templates={"verdict": "x"})


def test_version_changes_with_everything_that_decides_outputs():
    params = GenerationParams(max_tokens=64)
    base = judge_version("pairwise", "local:smollm2", "sha256:1", params, {"pairwise": "abc"})
    assert base == judge_version("pairwise", "local:smollm2", "sha256:1", params, {"pairwise": "abc"})
    changed = [
        judge_version("reference", "local:smollm2", "sha256:1", params, {"pairwise": "abc"}),
        judge_version("pairwise", "openai:x@http://h/v1", "sha256:1", params, {"pairwise": "abc"}),
        judge_version("pairwise", "local:smollm2", "sha256:2", params, {"pairwise": "abc"}),
        judge_version(
            "pairwise", "local:smollm2", "sha256:1", dataclasses.replace(params, temperature=0.7), {"pairwise": "abc"}
        ),
        judge_version("pairwise", "local:smollm2", "sha256:1", params, {"pairwise": "abd"}),
    ]
    assert base not in changed and len(set(changed)) == len(changed)


def test_resolve_judge_saves_templates_and_the_judge_once(judge_workspace):
    model = ScriptedModel(lambda messages, params: "{}")
    judge = resolve_judge(judge_workspace, "pointwise", JudgeConfig(), model=model)
    assert set(judge.templates) == {"steps", "pointwise"}
    for role, version in judge.prompt_versions.items():
        assert get_prompt_version(judge_workspace, version)["template"] == default_judge_templates()[role]
    stored = get_judge(judge_workspace, judge.id[:6])
    assert stored["model"] == "scripted:judge" and stored["kind"] == "pointwise"
    assert stored["prompt_versions"] == judge.prompt_versions and stored["params"]["max_tokens"] == 128
    again = resolve_judge(judge_workspace, "pointwise", JudgeConfig(), model=model)
    assert again.id == judge.id and len(list_judges(judge_workspace)) == 1
    other = resolve_judge(judge_workspace, "pointwise", JudgeConfig(params=GenerationParams(max_tokens=9)), model=model)
    assert other.id != judge.id and len(list_judges(judge_workspace)) == 2
    with pytest.raises(PlaygroundError, match="unknown judge .listwise."):
        resolve_judge(judge_workspace, "listwise", model=model)


def test_self_judging_warning_names_the_shared_model():
    assert self_judging_warning("local:smollm2", ["local:other", None]) is None
    warning = self_judging_warning("local:smollm2", ["local:other", "local:smollm2"])
    assert warning and "local:smollm2" in warning and "self-preference" in warning
