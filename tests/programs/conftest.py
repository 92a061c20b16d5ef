"""Program fixtures: a step context over the tiny workspace (the real local model, `smollm2`, is tests/conftest.py's)."""

from __future__ import annotations

import pytest

from playground.models.base import GenerationParams
from playground.programs.base import StepContext
from playground.prompts.library import load_template
from playground.store.prompts import save_prompt_version


def make_context(workspace, model, template_name: str, max_tokens: int = 8, **fields) -> StepContext:
    """A context as a run builds it: the named template saved as a prompt version, small max_tokens."""
    template = load_template(template_name)
    version = save_prompt_version(workspace, template)
    return StepContext(
        workspace=workspace,
        model=model,
        params=GenerationParams(max_tokens=max_tokens),
        templates={"main": template},
        prompt_versions={"main": version},
        **fields,
    )


@pytest.fixture
def tiny_workspace(copied_tiny_workspace):
    """The tiny workspace as a copy of one made per process (tests/conftest.py): these tests need no workspace of
    their own making."""
    return copied_tiny_workspace
