"""Templates: the sandboxed Jinja2 environment, variable discovery, errors with part, line and column; and `load`,
the prompt an application renders as a run does (playground.prompts.loaded; imported on first call, so importing this
package stays cheap for everything that only needs a submodule)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Optional

if TYPE_CHECKING:
    import os

    from playground.prompts.loaded import LoadedPrompt


def load(
    name: str, label: Optional[str] = None, version: Optional[str] = None, db: "str | os.PathLike[str] | None" = None
) -> LoadedPrompt:
    """The prompt version template `name` has under `label` (or version id `version`) in the workspace file `db`:
    `.render(question=..., passages=[...])` gives the messages a run sends, `.version_id` names it."""
    from playground.prompts.loaded import load_prompt

    return load_prompt(name, label=label, version=version, db=db)


__all__ = ["load"]
