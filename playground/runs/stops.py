"""Stop strings as the settings tables show them: the ones that apply (a short-answer template adds a newline to
the model's), readable ("\\n" for a newline), "none" rather than an empty list."""

from __future__ import annotations

import json
from typing import Mapping, Optional


def stop_text(stop, added: bool = False) -> str:
    """Quoted stop strings, "none" when there is none; `added`: the newline came from the short-answer template."""
    if not stop:
        return "none"
    text = ", ".join(json.dumps(s, ensure_ascii=False) for s in stop)
    return f"{text} (short-answer template)" if added else text


def applied_stop_text(stop, answer_format: Optional[str], options: Optional[Mapping] = None) -> str:
    """The stop an answer was (or will be) generated with, from the model's stop and the template's answer format."""
    from playground.programs.base import stop_that_applies

    stop = tuple(stop or ())
    applied = stop_that_applies(stop, answer_format, bool((options or {}).get("stop_at_newline", True)))
    return stop_text(applied, added="\n" in applied and "\n" not in stop)


def run_answer_format(workspace, config: Mapping) -> Optional[str]:
    """The answer format of a stored run's main template (its prompt version), None when it cannot be read."""
    from playground import PlaygroundError
    from playground.prompts.template import Template
    from playground.store.prompts import get_prompt_version

    version = (config.get("prompt_versions") or {}).get("main")
    if not version:
        return None
    try:
        return Template.from_text(get_prompt_version(workspace, version)["content"]).answer_format
    except (PlaygroundError, KeyError):
        return None
