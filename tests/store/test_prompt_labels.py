"""Labels on prompt versions: moves are kept, a label resolves as TEMPLATE@LABEL wherever a ref is read, and a bad
name is one line that stores nothing."""

from __future__ import annotations

import pytest

from playground import PlaygroundError
from playground.prompts.library import is_version_ref, load_template, stored_version
from playground.store.prompt_labels import (
    check_label,
    current_labels,
    label_moves,
    labels_by_version,
    move_label,
)
from playground.store.prompts import save_prompt_version


def _two_versions(workspace) -> tuple[str, str]:
    original = load_template("rag-short-answer")
    first = save_prompt_version(workspace, original)
    second = save_prompt_version(workspace, original.with_changes(system="Answer in one word."))
    return first, second


def test_moving_a_label_keeps_its_history_and_changes_what_the_ref_names(workspace):
    first, second = _two_versions(workspace)
    assert move_label(workspace, "rag-short-answer", "prod", first, "person")["moved"]
    assert stored_version(workspace, "rag-short-answer@prod")["id"] == first
    moved = move_label(workspace, "rag-short-answer", "prod", second, "playground templates label")
    assert moved["previous_version"] == first and moved["moved"]
    assert load_template("rag-short-answer@prod", workspace).system == "Answer in one word."
    again = move_label(workspace, "rag-short-answer", "prod", second, "person")
    assert not again["moved"]
    history = label_moves(workspace, "rag-short-answer", "prod")
    assert [(m["version"], m["previous_version"], m["moved_by"]) for m in history] == [
        (second, first, "playground templates label"),
        (first, None, "person"),
    ]
    assert all(m["moved_at"] for m in history)
    assert labels_by_version(workspace) == {second: ["prod"]}


def test_labels_of_any_script_are_names_and_a_version_prefix_is_still_a_version(workspace):
    first, second = _two_versions(workspace)
    move_label(workspace, "rag-short-answer", "production-日本", first, "person")
    move_label(workspace, "rag-short-answer", "staging", second, "person")
    assert stored_version(workspace, "rag-short-answer@production-日本")["id"] == first
    assert stored_version(workspace, f"rag-short-answer@{second[:6]}")["id"] == second
    assert is_version_ref("rag-short-answer@staging")
    assert [(r["label"], r["version"]) for r in current_labels(workspace)] == [
        ("production-日本", first),
        ("staging", second),
    ]


@pytest.mark.parametrize(
    ("label", "said"),
    [
        ("cafe", "hexadecimal digits only"),
        ("", "no label name"),
        ("pro d", "must start with a letter"),
        ("1prod", "must start with a letter"),
        ("prod@x", "must start with a letter"),
        ("x" * 65, "too long"),
    ],
)
def test_a_bad_label_name_is_one_line_and_stores_nothing(workspace, label, said):
    first, _ = _two_versions(workspace)
    with pytest.raises(PlaygroundError, match=said) as raised:
        move_label(workspace, "rag-short-answer", label, first, "person")
    assert "\n" not in str(raised.value)
    assert label_moves(workspace) == []


def test_a_label_names_only_its_own_templates_versions(workspace):
    first, _ = _two_versions(workspace)
    other = save_prompt_version(workspace, load_template("rag-cot"))
    with pytest.raises(PlaygroundError, match="belongs to template 'rag-cot'"):
        move_label(workspace, "rag-short-answer", "prod", other, "person")
    move_label(workspace, "rag-short-answer", "prod", first, "person")
    with pytest.raises(PlaygroundError, match="template 'rag-cot' has no label 'prod'.*its labels: none"):
        load_template("rag-cot@prod", workspace)
    with pytest.raises(PlaygroundError, match="without a template"):
        stored_version(workspace, "@prod")
    assert check_label("prod") == "prod"


def test_a_prompt_search_starts_from_the_version_a_label_names(tiny_workspace):
    from playground.optimize.optimizer import SearchSettings, create_optimization
    from playground.runs import RunConfig
    from playground.store.optimizations import get_optimization

    _, second = _two_versions(tiny_workspace)
    move_label(tiny_workspace, "rag-short-answer", "prod", second, "person")
    config = RunConfig(dataset="tiny", program="rag", templates={"main": "rag-short-answer@prod"}, retriever="bm25")
    search = create_optimization(tiny_workspace, config, SearchSettings(budget=2, split=(2, 2, 2)))
    stored = get_optimization(tiny_workspace, search)
    assert stored["start_version"] == second and stored["config"]["start_ref"] == f"rag-short-answer@{second}"
