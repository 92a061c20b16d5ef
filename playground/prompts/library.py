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


def _from_version(workspace, version: str, expected_name: Optional[str]) -> Template:
    from playground.store.prompts import get_prompt_version

    row = get_prompt_version(workspace, version)
    if expected_name and row["template"] != expected_name:
        raise PlaygroundError(
            f"prompt version {row['id']} belongs to template {row['template']!r}, not {expected_name!r}"
        )
    return Template.from_text(row["content"])


def is_version_ref(ref: str) -> bool:
    """Whether `ref` names a stored prompt version (NAME@VERSION or @VERSION), not a template or a file."""
    ref = (ref or "").strip()
    return "@" in ref and not _is_path(ref) and not _is_file(ref)


def load_template(ref: str, workspace=None) -> Template:
    """A template by reference: "NAME" (a starter, else a template of your own beside the workspace, else the
    workspace's latest version of NAME),
    "NAME@VERSION" (a prompt version id prefix in `workspace`) or a file path."""
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
        return _from_version(workspace, version, name or None)
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
            return _from_version(workspace, row["latest_version"], name)
    known = ", ".join(template.name for template in list_templates(workspace)) or "none"
    raise PlaygroundError(f"no template named {name!r} (known: {known})")
