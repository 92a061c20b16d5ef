"""Session files (format version 8) carry the label moves onto their prompt versions: imported as they were, so
TEMPLATE@prod names the same text there; an older file still imports; a move that contradicts the file is refused
with its path and leaves the workspace as it was."""

from __future__ import annotations

import copy
import json

import pytest

from playground.prompts.library import stored_version
from playground.sessionfile import SECTIONS_V8, SessionFormatError, export_session, import_session, with_digest
from playground.store.prompt_labels import label_moves, move_label
from tests.store.test_sessions import empty_workspace, session_workspace, snapshot  # noqa: F401 (fixtures)


@pytest.fixture
def labelled(session_workspace):
    """The study's export after `prod` moved from its first prompt version to its second, and `staging` onto the
    first; returns (payload, [first, second])."""
    versions = [row["id"] for row in session_workspace.db.query("SELECT id FROM prompt_versions ORDER BY message")]
    move_label(session_workspace, "qa", "prod", versions[0], "person")
    move_label(session_workspace, "qa", "prod", versions[1], "playground templates label")
    move_label(session_workspace, "qa", "staging", versions[0], "person")
    return json.loads(json.dumps(export_session(session_workspace, "study"))), versions


def test_label_moves_round_trip_with_who_when_and_from_which_version(labelled, session_workspace, empty_workspace):
    payload, (first, second) = labelled
    assert payload["version"] == 8 and len(payload["prompt_labels"]) == 3
    import_session(empty_workspace, payload)
    assert stored_version(empty_workspace, "qa@prod")["id"] == second
    assert stored_version(empty_workspace, "qa@staging")["id"] == first
    fields = ("id", "label", "version", "previous_version", "moved_by", "moved_at")
    assert [{k: m[k] for k in fields} for m in label_moves(empty_workspace)] == [
        {k: m[k] for k in fields} for m in label_moves(session_workspace)
    ]
    import_session(empty_workspace, payload)  # the same moves again: nothing doubled
    assert len(label_moves(empty_workspace)) == 3


def test_a_version_7_file_without_labels_still_imports(labelled, empty_workspace):
    payload, _ = labelled
    old = {key: value for key, value in copy.deepcopy(payload).items() if key not in SECTIONS_V8}
    old["version"] = 7
    import_session(empty_workspace, with_digest(old))
    assert label_moves(empty_workspace) == []


@pytest.mark.parametrize(
    ("mutate", "where"),
    [
        (lambda move: move.update(label="dead"), r"^prompt_labels\[0\]\.label: label name 'dead' is made of hexa"),
        (lambda move: move.update(version="f" * 12), r"^prompt_labels\[0\]\.version: refers to prompt version"),
        (lambda move: move.update(template="other"), r"^prompt_labels\[0\]\.template: is 'other', but version"),
    ],
)
def test_a_move_that_contradicts_the_file_is_refused_and_stores_nothing(labelled, empty_workspace, mutate, where):
    payload, _ = labelled
    broken = copy.deepcopy(payload)
    mutate(broken["prompt_labels"][0])
    before = snapshot(empty_workspace)
    with pytest.raises(SessionFormatError, match=where):
        import_session(empty_workspace, with_digest(broken))
    assert snapshot(empty_workspace) == before and label_moves(empty_workspace) == []
