"""A prompt version loaded for application code: `playground.prompts.load(NAME, label="prod")` gives the text a label
points at, and `render(...)` gives exactly the messages a run with it would send, so an application never copies
the text nor re-implements the rendering. Imports no model, index or Streamlit (nor sqlite-utils: the workspace is
read through playground.store.read_only): only Jinja2 and the standard library.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any, Iterable, Mapping, Optional, Union

from playground import PlaygroundError
from playground.models.base import Message
from playground.prompts.limits import RenderBudget
from playground.prompts.template import Template

EXPORT_FORMAT = "playground-prompt"
EXPORT_VERSION = 1
PASSAGE_FIELDS = ("id", "title", "text", "score", "rank")  # what a run's retrieval gives each passage


def passage_records(passages: Iterable[Union[str, Mapping[str, Any]]]) -> list[dict]:
    """Passages in the shape a run's retrieval gives them ({id, title, text, score, rank}, best first): a plain
    string is a passage's text; a mapping keeps its own keys, and those it lacks are filled as a run would."""
    if isinstance(passages, (str, bytes)) or isinstance(passages, Mapping):
        raise PlaygroundError("passages must be a list of passages (texts or {title, text} mappings), not one passage")
    records = []
    for position, passage in enumerate(passages):
        if isinstance(passage, str):
            passage = {"text": passage}
        if not isinstance(passage, Mapping):
            raise PlaygroundError(
                f"passage {position + 1} is a {type(passage).__name__}: give a text or a {{title, text}} mapping"
            )
        records.append(
            {
                **passage,
                "id": passage.get("id") if passage.get("id") is not None else str(position + 1),
                "title": passage.get("title") or "",
                "text": passage.get("text") or "",
                "score": passage.get("score"),
                "rank": passage.get("rank") or position + 1,
            }
        )
    return records


@dataclass(frozen=True)
class LoadedPrompt:
    """One stored prompt version, ready to render as a run renders it."""

    name: str  # the template's name
    version_id: str  # the prompt version id runs record (a hash of the text)
    template: Template
    label: Optional[str] = None  # the label it was loaded by, if any

    @property
    def text(self) -> str:
        return self.template.content

    @property
    def variables(self) -> list[str]:
        """The variables the template reads (question, passages, ...), in order of first appearance."""
        from playground.prompts.variables import required_variables

        return required_variables(self.template)

    def render(
        self,
        question: str,
        passages: Iterable[Union[str, Mapping[str, Any]]] = (),
        *,
        corpus_language: Optional[str] = None,
        **variables: Any,
    ) -> list[Message]:
        """The [system, user] messages a run sends for `question` with these retrieved `passages` (best first), in
        the same sandbox under the same render budget. `corpus_language` (ISO 639-1) is the passages' language, as a
        run reads it from its corpus; other keyword arguments set template variables (choices, examples, ...)."""
        from playground.prompts.render import question_variables
        from playground.prompts.run_render import run_messages

        if not isinstance(question, str):
            raise PlaygroundError(f"question must be a text, got {type(question).__name__}")
        values = {**question_variables(question), **variables}
        return run_messages(self.template, values, passage_records(passages), corpus_language)

    def export(self) -> dict:
        """What `playground templates export` writes: the text, its variables, its id and how it is rendered, so an
        application in another language can render it the same way."""
        from playground.prompts.render import isolated

        return {
            "format": EXPORT_FORMAT,
            "format_version": EXPORT_VERSION,
            "template": self.name,
            "label": self.label,
            "version_id": self.version_id,
            "text": self.text,
            "parts": {"system": self.template.system, "user": self.template.user},
            "variables": self.variables,
            "answer_format": self.template.answer_format,
            "render": {
                "engine": "Jinja2 ImmutableSandboxedEnvironment, StrictUndefined; each part rendered then stripped",
                "messages": "system (left out when it renders empty), then user",
                "defaults": {"passages": [], "choices": [], "examples": [], "reasoning": ""},
                "passage_fields": list(PASSAGE_FIELDS),
                "passage_order": "retrieval order, best first; rank counts from 1",
                "language": "a corpus in a language other than English adds `language`, the language's English name",
                "budget": RenderBudget.from_env().to_dict(),
                "isolation": "worker" if isolated() else "inline",
            },
            "generation": {"stop_at_newline": self.template.answer_format == "short"},
        }


def load_prompt(
    name: str,
    label: Optional[str] = None,
    version: Optional[str] = None,
    db: Union[str, "os.PathLike[str]", None] = None,
) -> LoadedPrompt:
    """The version template `name` has under `label` (or the version id or prefix `version`) in the workspace at
    `db` ($PLAYGROUND_DB or sessions/playground.db when not given); `name` may be NAME@LABEL or NAME@VERSION."""
    from playground.prompts.library import stored_version
    from playground.store.prompt_labels import is_label_name
    from playground.store.read_only import open_read_only

    name = (name or "").strip()
    if label is not None and version is not None:
        raise PlaygroundError("give label= or version=, not both")
    chosen = label if label is not None else version
    if chosen is not None:
        if "@" in name:
            raise PlaygroundError(f"{name!r} names a version already: leave out label= and version=")
        ref = f"{name}@{chosen}"
    elif "@" in name:
        ref = name
    else:
        raise PlaygroundError(f"say which version of {name!r} to load: label='prod' or version='3f2a9c'")
    if not ref.partition("@")[0]:
        raise PlaygroundError(f"{ref!r} names no template: write TEMPLATE@{ref.partition('@')[2]}")
    workspace = open_read_only(db)  # an application reads: no migration, no write
    try:
        row = stored_version(workspace, ref)
    finally:
        workspace.close()
    template = Template.from_text(row["content"], name=row["template"])
    after_at = ref.partition("@")[2]
    return LoadedPrompt(
        name=row["template"],
        version_id=row["id"],
        template=template,
        label=after_at if is_label_name(after_at) else None,
    )
