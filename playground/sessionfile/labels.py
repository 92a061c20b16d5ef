"""A session file's label moves (format version 8): the moves that put a label (prod, staging, ...) on one of the
file's prompt versions travel with them, and an import adds the ones the workspace lacks, so `TEMPLATE@prod`
names the same text on both sides when no later move there says otherwise."""

from __future__ import annotations

from typing import Any

from playground import PlaygroundError
from playground.sessionfile.messages import SessionFormatError
from playground.sessionfile.records import SessionFileV1, given, plain, records_of
from playground.sessionfile.rows import record_to_row, row_to_record, table_columns
from playground.store.db import Workspace
from playground.store.prompt_labels import check_label, moves_of_versions


def label_records(workspace: Workspace, version_ids: list[str]) -> list[dict]:
    """The moves onto `version_ids`, oldest first; a move's earlier version outside the file is left out (null)."""
    kept = set(version_ids)
    records = [row_to_record("prompt_labels", move) for move in moves_of_versions(workspace, version_ids)]
    for record in records:
        if record.get("previous_version") not in kept:
            record["previous_version"] = None
    return records


def check_label_moves(file: SessionFileV1, versions: dict[str, Any]) -> None:
    """Each move names a label by the store's rules, a prompt version of the file, and that version's template."""
    seen: dict[str, int] = {}
    for i, move in enumerate(records_of(file, "prompt_labels")):
        where = f"prompt_labels[{i}]"
        if move.id in seen:
            raise SessionFormatError(where, f"duplicate of prompt_labels[{seen[move.id]}] ({move.id!r})")
        seen[move.id] = i
        try:
            check_label(move.label)
        except PlaygroundError as error:
            raise SessionFormatError(f"{where}.label", str(error)) from None
        for field in ("version", "previous_version"):
            value = given(getattr(move, field))
            if value is not None and value not in versions:
                raise SessionFormatError(
                    f"{where}.{field}", f"refers to prompt version {value!r}, which is not in the file"
                )
        if versions[move.version].template != move.template:
            raise SessionFormatError(
                f"{where}.template",
                f"is {move.template!r}, but version {move.version!r} belongs to {versions[move.version].template!r}",
            )


def import_label_moves(workspace: Workspace, file: SessionFileV1) -> None:
    """The moves the workspace lacks (by id), kept as they were: who, when, from which version to which."""
    moves = [plain(move) for move in records_of(file, "prompt_labels")]
    if not moves:
        return
    columns = table_columns(workspace, "prompt_labels")
    known = {row["id"] for row in workspace.db.query("SELECT id FROM prompt_labels")}
    workspace.db["prompt_labels"].insert_all(
        (record_to_row("prompt_labels", move, columns) for move in moves if move["id"] not in known),
        batch_size=1000,
    )
