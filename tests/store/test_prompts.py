"""Prompt versions: content-addressed, deduplicated, with parents and the templates row."""

import json

import pytest

from playground import PlaygroundError
from playground.prompts.template import Template
from playground.store.content_ids import prompt_version_id
from playground.store.prompts import get_prompt_version, list_prompt_versions, save_prompt_version

BASE = Template(
    name="qa",
    system="Be brief.",
    user="Q: {{ question }}",
    description="d",
    technique="zero-shot",
    variables=["question"],
)


def test_id_is_the_content_hash_and_the_text_is_stored(workspace):
    saved = save_prompt_version(workspace, BASE, message="first")
    assert saved == prompt_version_id(BASE.content) and len(saved) == 12
    row = get_prompt_version(workspace, saved)
    assert row["content"] == BASE.content
    assert Template.from_text(row["content"]) == BASE
    assert row["template"] == "qa" and row["message"] == "first" and row["parent"] is None
    assert row["created_at"]


def test_same_text_is_stored_once(workspace):
    first = save_prompt_version(workspace, BASE)
    again = save_prompt_version(workspace, Template.from_text(BASE.content), message="again")
    assert again == first
    assert workspace.db["prompt_versions"].count == 1
    assert get_prompt_version(workspace, first)["message"] is None


def test_parent_defaults_to_the_latest_version_of_the_name(workspace):
    first = save_prompt_version(workspace, BASE)
    second = save_prompt_version(workspace, BASE.with_changes(system="Be very brief."))
    third = save_prompt_version(workspace, BASE.with_changes(system="One word."), parent=first[:5])
    assert get_prompt_version(workspace, second)["parent"] == first
    assert get_prompt_version(workspace, third)["parent"] == first
    assert [row["id"] for row in list_prompt_versions(workspace, "qa")] == [third, second, first]
    other = save_prompt_version(workspace, BASE.with_changes(name="other"))
    assert get_prompt_version(workspace, other)["parent"] is None
    assert len(list_prompt_versions(workspace)) == 4
    assert [row["id"] for row in list_prompt_versions(workspace, "other")] == [other]


def test_templates_row_tracks_latest_version(workspace):
    first = save_prompt_version(workspace, BASE)
    second = save_prompt_version(workspace, BASE.with_changes(user="Question: {{ question }}"))
    row = workspace.db["templates"].get("qa")
    assert row["latest_version"] == second
    assert json.loads(row["variables"]) == ["question"] and row["technique"] == "zero-shot"
    save_prompt_version(workspace, BASE)  # back to the first text: stored once, now the latest again
    assert workspace.db["templates"].get("qa")["latest_version"] == first
    assert workspace.db["prompt_versions"].count == 2


def test_lookup_errors_are_clear(workspace):
    save_prompt_version(workspace, BASE)
    with pytest.raises(PlaygroundError, match="no prompt version"):
        get_prompt_version(workspace, "ffffffffffff")
    with pytest.raises(PlaygroundError, match="not a prompt version id"):
        get_prompt_version(workspace, "x'; drop table")
    with pytest.raises(PlaygroundError, match="no prompt version"):
        save_prompt_version(workspace, BASE.with_changes(system="new"), parent="abcdef")


def test_ambiguous_prefix_is_refused(workspace):
    ids = set()
    for number in range(40):
        ids.add(save_prompt_version(workspace, BASE.with_changes(system=f"variant {number}")))
    first_chars = [i[0] for i in ids]
    shared = next(c for c in first_chars if first_chars.count(c) > 1)
    with pytest.raises(PlaygroundError, match="ambiguous"):
        get_prompt_version(workspace, shared)
