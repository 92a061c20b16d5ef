"""Find templates: the starter files in the package, your own beside the workspace, saved versions in a workspace,
or any template file."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Optional

from playground import PlaygroundError
from playground.config import starter_templates_dir
from playground.input_files import shown_path
from playground.prompts.template import MAX_NAME_CHARS, NAME_PATTERN, SUFFIX, Template


def list_templates(workspace=None, problems: Optional[list[str]] = None) -> list[Template]:
    """The starters (templates/*.jinja in the package), sorted by name; with `workspace`, then the templates of your
    own beside it (a name a starter has is the starter's; a file that does not parse is named in `problems`)."""
    folder = starter_templates_dir()
    starters = (
        sorted((Template.from_file(path, folder) for path in folder.glob(f"*{SUFFIX}")), key=lambda t: t.name)
        if folder.is_dir()
        else []
    )
    if workspace is None:
        return starters
    from playground.prompts.own_templates import list_own_templates

    taken = {t.name for t in starters}
    return starters + [t for t in list_own_templates(workspace, problems) if t.name not in taken]


def is_starter(template: Template) -> bool:
    """Whether `template` is a starter file of the package (not a template of your own, nor a saved version)."""
    return bool(template.path) and Path(template.path).resolve().parent == starter_templates_dir().resolve()


def _is_file(ref: str) -> bool:
    """Path.is_file, except that a path the system refuses (a name too long) is a one-line error, not OSError."""
    try:
        return Path(ref).is_file()
    except OSError as error:
        raise PlaygroundError(f"template {shown_path(ref)} cannot be read: {error.strerror}") from None


def _is_path(ref: str) -> bool:
    return ref.endswith(SUFFIX) or os.sep in ref or "/" in ref


def stored_version(workspace, ref: str) -> dict:
    """The stored prompt version row a ref names: NAME@VERSION or @VERSION (an id or a unique prefix of one) or
    NAME@LABEL (where the template's label points now). The one resolver of the part after '@': runs, searches,
    judges, the app and playground.prompts.load all read refs through it."""
    from playground.store.prompt_labels import current_labels, is_label_name, label_version
    from playground.store.prompts import get_prompt_version

    name, _, version = (ref or "").strip().partition("@")
    if is_label_name(version):
        if not name:
            raise PlaygroundError(f"{ref!r} names label {version!r} without a template: write TEMPLATE@{version}")
        found = label_version(workspace, name, version)
        if found is None:
            known = ", ".join(row["label"] for row in current_labels(workspace, name)) or "none"
            raise PlaygroundError(
                f"template {name!r} has no label {version!r} in {workspace.path} (its labels: {known};"
                f" set one with `playground templates label {name}@VERSION {version}`)"
            )
        return get_prompt_version(workspace, found)
    row = get_prompt_version(workspace, version)
    if name and row["template"] != name:
        raise PlaygroundError(f"prompt version {row['id']} belongs to template {row['template']!r}, not {name!r}")
    return row


def is_version_ref(ref: str) -> bool:
    """Whether `ref` names a stored prompt version (NAME@VERSION, @VERSION or NAME@LABEL), not a template or a
    file."""
    ref = (ref or "").strip()
    return "@" in ref and not _is_path(ref) and not _is_file(ref)


def load_template(ref: str, workspace=None) -> Template:
    """A template by reference: "NAME" (a starter, else a template of your own beside the workspace, else the
    workspace's latest version of NAME), "NAME@VERSION" (a prompt version id prefix in `workspace`), "NAME@LABEL"
    (the version the label points at: playground templates label) or a file path."""
    ref = (ref or "").strip()
    if not ref:
        raise PlaygroundError("no template given")
    if not _is_path(ref) and len(ref) > MAX_NAME_CHARS:
        raise PlaygroundError(f"template name of {len(ref):,} characters is too long (at most {MAX_NAME_CHARS})")
    if _is_file(ref):
        return Template.from_file(ref)
    if _is_path(ref):
        raise PlaygroundError(f"template file {shown_path(ref)} does not exist")
    name, _, version = ref.partition("@")
    if version:
        if workspace is None:
            raise PlaygroundError(f"template {ref!r} names a saved version: it needs a workspace")
        return Template.from_text(stored_version(workspace, ref)["content"])
    if not NAME_PATTERN.match(name):
        raise PlaygroundError(f"{ref!r} is not a template name or file")
    path = starter_templates_dir() / f"{name}{SUFFIX}"
    if path.is_file():
        return Template.from_file(path, starter_templates_dir())
    if workspace is not None:
        from playground.prompts.own_templates import load_own_template

        own = load_own_template(workspace, name)
        if own is not None:
            return own
        row = next(workspace.db.query("SELECT latest_version FROM templates WHERE name = ?", [name]), None)
        if row is not None and row["latest_version"]:
            return load_template(f"{name}@{row['latest_version']}", workspace)
    known = ", ".join(template.name for template in list_templates(workspace)) or "none"
    raise PlaygroundError(f"no template named {name!r} (known: {known})")
