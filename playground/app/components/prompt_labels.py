"""Labels beside prompt versions on the app's pages (the Playground's history, the Sessions page, the prompt
pickers): which versions `prod`, `staging` and the rest point at now (playground.store.prompt_labels)."""

from __future__ import annotations

from typing import Iterable, Mapping, Optional


def with_labels(workspace, versions: Iterable[Mapping], template: Optional[str] = None) -> list[dict]:
    """The versions, each with "labels": the names of the labels on it now (empty when none)."""
    from playground.store.prompt_labels import labels_by_version

    labels = labels_by_version(workspace, template)
    return [{**version, "labels": labels.get(version["id"], [])} for version in versions]


def labels_text(labels: Optional[Iterable[str]]) -> str:
    """'prod, staging' for a version's labels; '' when it has none."""
    return ", ".join(labels or ())


def labelled_refs(workspace) -> list[tuple[str, dict]]:
    """(TEMPLATE@LABEL, the label's current move) for every label, by template then label: what a run started from a
    picker names, so it follows the label wherever it is moved before the run starts."""
    from playground.store.prompt_labels import current_labels

    return [(f"{move['template']}@{move['label']}", move) for move in current_labels(workspace)]
