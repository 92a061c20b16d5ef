"""Templates of your own: `templates/NAME.jinja` beside the workspace, each also stored as a prompt version.

The starters ship inside the package and are never written; a template of your own is a file a person may edit
outside the app, so it is read afresh each time it is used (and a changed file becomes a new prompt version, as
`--template-file` does).
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Optional

from playground import PlaygroundError
from playground.config import own_templates_dir, starter_templates_dir
from playground.input_files import shown_path
from playground.prompts.errors import TemplateError
from playground.prompts.template import SUFFIX, Template, check_name


def templates_folder(workspace) -> Path:
    return own_templates_dir(workspace.path)


def own_template_path(workspace, name: str) -> Path:
    return templates_folder(workspace) / f"{check_name(name)}{SUFFIX}"


def list_own_templates(workspace, problems: Optional[list[str]] = None) -> list[Template]:
    """The workspace's own template files, sorted by name; a file that does not parse is left out and, when
    `problems` is given, named there with its error (one bad file does not hide the others)."""
    folder = templates_folder(workspace)
    if not folder.is_dir():
        return []
    found = []
    for path in sorted(folder.glob(f"*{SUFFIX}")):
        try:
            template = Template.from_file(path, folder)
        except TemplateError as error:
            if problems is not None:
                problems.append(f"{path}: {error}")
            continue
        if template.name != path.stem:  # the file name is the name a run refers to
            template = template.with_changes(name=path.stem)
        found.append(template)
    return found


def load_own_template(workspace, name: str) -> Optional[Template]:
    """`templates/NAME.jinja` beside the workspace, or None when there is no such file."""
    path = own_template_path(workspace, name)
    if not path.is_file():
        return None
    template = Template.from_file(path, templates_folder(workspace))
    return template if template.name == name else template.with_changes(name=name)


def save_own_template(
    workspace,
    template: Template,
    name: str,
    description: str = "",
    parent: Optional[str] = None,
    session_id: Optional[str] = None,
) -> tuple[Template, str]:
    """Save `template`'s text as a new template NAME: the file beside the workspace and its first prompt version
    (whose parent is `parent`, the version it was edited from). Returns (the new template, its version id)."""
    from playground.store.prompts import save_prompt_version

    name = (name or "").strip()
    try:
        check_name(name)
    except TemplateError as error:
        raise PlaygroundError(str(error)) from None
    if name in starter_names():
        raise PlaygroundError(f"{name!r} is a starter template's name: choose another name")
    path = own_template_path(workspace, name)
    if path.exists():
        raise PlaygroundError(f"a template named {name!r} exists already ({path}): choose another name")
    new = template.with_changes(name=name, description=" ".join((description or "").split()), path=str(path))
    _write_new(path, new.content)
    version = save_prompt_version(workspace, new, parent=parent, session_id=session_id, message=f"new template {name}")
    return new, version


def starter_names() -> set[str]:
    folder = starter_templates_dir()
    return {path.stem for path in folder.glob(f"*{SUFFIX}")} if folder.is_dir() else set()


def _write_new(path: Path, text: str) -> None:
    """Write the file whole or not at all (a temporary file in the same folder, then a link that fails if the name
    was taken meanwhile)."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(prefix=f".{path.stem}.", suffix=".tmp", dir=path.parent)
    except OSError as error:
        raise PlaygroundError(f"cannot write template file {shown_path(path)}: {error.strerror or error}") from None
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as file:
            file.write(text)
        try:
            os.link(temporary, path)
        except FileExistsError:
            raise PlaygroundError(
                f"a template named {path.stem!r} exists already ({path}): choose another name"
            ) from None
    finally:
        os.unlink(temporary)
