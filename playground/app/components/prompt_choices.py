"""The prompts a run can start from, for every page that starts one: the editor's text, each saved version and the
templates (starters and your own), labelled so a person sees which is which; the editor's text is the default.

Each choice has a key that is also what a run's config names (`NAME@LABEL` for a labelled version, `NAME@VERSION`
for a saved version, `NAME` for a template file), except the editor's unsaved text, which is saved as a version when a run starts (`version_to_run`).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Final, Optional

EDITOR = "(editor)"
DEFAULT_STARTER = "rag-short-answer"
JUDGE_TECHNIQUE = "llm-judge"
# Templates that do not answer questions, so the pages that run answers leave them out: judges, question generators,
# the optimiser's instruction proposals.
NOT_ANSWERING = (JUDGE_TECHNIQUE, "question-generation", "instruction-proposal")


class ChoiceKind:
    """Where a prompt choice's text comes from."""

    EDITOR: Final = "editor"  # the editor's unsaved text
    LABEL: Final = "label"  # the version a label points at (TEMPLATE@LABEL)
    VERSION: Final = "version"  # a saved version
    STARTER: Final = "starter"  # a starter template file
    OWN: Final = "own"  # a template file of your own


@dataclass(frozen=True)
class PromptChoice:
    key: str
    label: str
    template: object  # playground.prompts.template.Template
    kind: str  # a ChoiceKind
    version_id: Optional[str] = None  # the saved version (a version's id, or the version the editor text equals)
    base_version: Optional[str] = None  # the editor's: the version its text was loaded or saved from
    in_editor: bool = False  # the text the session's editor holds

    @property
    def is_editor_text(self) -> bool:
        """The editor's unsaved text: saved as a version (its parent the version it was edited from) when run."""
        return self.kind == ChoiceKind.EDITOR


def age(stamp: Optional[str], now: Optional[datetime] = None) -> str:
    """'just now', '5 min ago', '3 h ago', '2 days ago' from an ISO time stamp."""
    if not stamp:
        return ""
    try:
        then = datetime.fromisoformat(stamp.replace("Z", "+00:00"))
    except ValueError:
        return stamp[:16]
    if then.tzinfo is None:
        then = then.replace(tzinfo=timezone.utc)
    seconds = max(0.0, ((now or datetime.now(timezone.utc)) - then).total_seconds())
    if seconds < 60:
        return "just now"
    if seconds < 3600:
        return f"{int(seconds // 60)} min ago"
    if seconds < 86400:
        return f"{int(seconds // 3600)} h ago"
    days = int(seconds // 86400)
    return f"{days} day{'s' if days > 1 else ''} ago"


def version_label(version: dict, now: Optional[datetime] = None) -> str:
    """'rag-short-answer · v1: shorter · 5 min ago · a1894db8'."""
    parts = [version["template"] + "".join(f" [{label}]" for label in version.get("labels") or ())]
    if version.get("message"):
        parts.append(version["message"])
    parts += [age(version.get("created_at"), now), version["id"][:8]]
    return " · ".join(part for part in parts if part)


def is_answer_template(template) -> bool:
    """LLM-judge templates judge answers and question generators ask questions; they do not answer (pages offer
    only the others)."""
    return getattr(template, "technique", None) not in NOT_ANSWERING


def prompt_choices(workspace, session_id: str, now: Optional[datetime] = None) -> list[PromptChoice]:
    """Editor text first (when the session's editor holds text no version has), then each label (TEMPLATE@LABEL),
    then saved versions newest first, then the templates; judge templates are left out (they judge answers, they do
    not answer)."""
    from playground.app.components.prompt_labels import labelled_refs, with_labels
    from playground.prompts.library import is_starter, list_templates
    from playground.prompts.template import Template
    from playground.store.drafts import latest_draft
    from playground.store.content_ids import prompt_version_id
    from playground.store.prompts import list_prompt_versions

    choices: list[PromptChoice] = []
    draft = latest_draft(workspace, session_id)
    in_editor = prompt_version_id(draft["content"]) if draft else None
    versions = with_labels(workspace, list_prompt_versions(workspace))
    templates = [t for t in list_templates(workspace) if is_answer_template(t)]
    known_texts = {v["id"] for v in versions} | {prompt_version_id(t.content) for t in templates}
    if draft is not None and in_editor not in known_texts:
        try:
            template = Template.from_text(draft["content"], name=draft["template"])
        except Exception:  # noqa: BLE001 - a draft with an error: the editor says so, a run cannot use it
            template = None
        if template is not None and is_answer_template(template):
            base = f"unsaved edits of {draft['base_version'][:8]}" if draft.get("base_version") else "unsaved"
            choices.append(
                PromptChoice(
                    key=EDITOR,
                    label=f"Editor: {draft['template']} · {base} · {age(draft['updated_at'], now)}",
                    template=template,
                    kind=ChoiceKind.EDITOR,
                    base_version=draft.get("base_version"),
                    in_editor=True,
                )
            )
    by_id = {version["id"]: version for version in versions}
    for ref, move in labelled_refs(workspace):
        version = by_id.get(move["version"])
        template = Template.from_text(version["content"], name=version["template"]) if version else None
        if template is not None and is_answer_template(template):
            choices.append(
                PromptChoice(
                    key=ref,
                    label=f"{ref} → {move['version'][:8]} · moved {age(move['moved_at'], now)} by {move['moved_by']}",
                    template=template,
                    kind=ChoiceKind.LABEL,
                    version_id=move["version"],
                )
            )
    for version in versions:
        template = Template.from_text(version["content"], name=version["template"])
        if not is_answer_template(template):
            continue
        held = version["id"] == in_editor
        choices.append(
            PromptChoice(
                key=f"{version['template']}@{version['id']}",
                label=version_label(version, now) + (" (in the editor)" if held else ""),
                template=template,
                kind=ChoiceKind.VERSION,
                version_id=version["id"],
                in_editor=held,
            )
        )
    marked = any(choice.in_editor for choice in choices)
    for template in templates:
        starter = is_starter(template)
        what = "starter" if starter else "your template"
        description = f": {template.description}" if template.description else ""
        held = not marked and prompt_version_id(template.content) == in_editor
        choices.append(
            PromptChoice(
                key=template.name,
                label=f"{template.name} ({what}){description}" + (" (in the editor)" if held else ""),
                template=template,
                kind=ChoiceKind.STARTER if starter else ChoiceKind.OWN,
                in_editor=held,
            )
        )
    return choices


def default_choice(choices: list[PromptChoice]) -> Optional[str]:
    """The editor's text (unsaved, or the version it equals); else the starter the editor opens with."""
    for choice in choices:
        if choice.in_editor:
            return choice.key
    keys = [choice.key for choice in choices]
    if DEFAULT_STARTER in keys:
        return DEFAULT_STARTER
    return keys[0] if keys else None


def base_template(workspace, name: str, base_version: Optional[str]):
    """The template an edited text started from: its stored version, else the template file of its name when that
    is the very text (a starter never stored); None when neither is."""
    from playground import PlaygroundError
    from playground.prompts.library import load_template
    from playground.store.prompts import prompt_version_id

    if not base_version:
        return None
    try:
        return load_template(f"{name}@{base_version}", workspace)
    except PlaygroundError:
        pass
    try:
        template = load_template(name, workspace)
    except PlaygroundError:
        return None
    return template if prompt_version_id(template.content) == base_version else None


def version_to_run(workspace, choice: PromptChoice, session_id: Optional[str]) -> str:
    """The template reference a run's config takes for `choice`: the editor's text is saved as a version first
    (its parent the version it was edited from), so the run records exactly the text the editor held."""
    from playground.store.prompts import save_edited_version

    if choice.is_editor_text:
        base = base_template(workspace, choice.template.name, choice.base_version)
        saved = save_edited_version(workspace, choice.template, base, "edited in the app", session_id)
        return f"{choice.template.name}@{saved}"
    return choice.key


def parent_text(workspace, version: dict) -> Optional[tuple[str, str]]:
    """(label, text) a version is best read against: its parent version, else the template file of its name when
    that differs; None when neither exists."""
    from playground import PlaygroundError
    from playground.prompts.library import load_template
    from playground.store.prompts import get_prompt_version

    if version.get("parent"):
        try:
            parent = get_prompt_version(workspace, version["parent"])
            return f"parent {parent['id'][:8]}", parent["content"]
        except PlaygroundError:
            pass
    try:
        template = load_template(version["template"], workspace)
    except PlaygroundError:
        return None
    if template.content == version["content"] or not template.path:
        return None
    return f"file {version['template']}", template.content
