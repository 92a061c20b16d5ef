"""The prompt picker's choices: the editor's text first and by default, saved versions with message and age,
templates labelled as starters or your own; the editor's text is saved as a version when a run takes it."""

from datetime import datetime, timedelta, timezone

from playground.app.components.prompt_choices import EDITOR, default_choice, prompt_choices, version_to_run
from playground.prompts.library import load_template
from playground.prompts.own_templates import save_own_template
from playground.store.drafts import save_draft
from playground.store.content_ids import prompt_version_id
from playground.store.prompts import get_prompt_version, save_prompt_version
from playground.store.sessions import current_session


def _versions(workspace):
    starter = load_template("rag-short-answer")
    v1 = starter.with_changes(system="v1 text")
    v2 = starter.with_changes(system="v2 text")
    return (
        starter,
        save_prompt_version(workspace, v1, message="v1: shorter"),
        v1,
        save_prompt_version(workspace, v2, message="v2: longer"),
        v2,
    )


def test_with_no_editor_text_the_default_is_the_labelled_starter(workspace):
    choices = prompt_choices(workspace, current_session(workspace)["id"])
    assert default_choice(choices) == "rag-short-answer"
    by_key = {c.key: c for c in choices}
    assert by_key["rag-short-answer"].label.startswith("rag-short-answer (starter)")
    assert not any(c.template.technique == "llm-judge" for c in choices)


def test_a_restored_version_in_the_editor_is_the_default_with_its_message(workspace):
    session = current_session(workspace)["id"]
    _, v1_id, v1, v2_id, _ = _versions(workspace)
    save_draft(workspace, session, "rag-short-answer", v1.content, v1_id)  # restored v1, not edited
    choices = prompt_choices(workspace, session)
    assert default_choice(choices) == f"rag-short-answer@{v1_id}"
    labels = {c.key: c.label for c in choices}
    assert "v1: shorter" in labels[f"rag-short-answer@{v1_id}"] and labels[f"rag-short-answer@{v1_id}"].endswith(
        "(in the editor)"
    )
    assert (
        "v2: longer" in labels[f"rag-short-answer@{v2_id}"]
        and "(in the editor)" not in labels[f"rag-short-answer@{v2_id}"]
    )
    assert EDITOR not in labels


def test_unsaved_editor_text_comes_first_and_runs_as_a_new_version_with_its_parent(workspace):
    session = current_session(workspace)["id"]
    _, v1_id, v1, _, _ = _versions(workspace)
    edited = v1.with_changes(user="{{ question }} -- my edit")
    save_draft(workspace, session, "rag-short-answer", edited.content, v1_id)
    choices = prompt_choices(workspace, session)
    assert choices[0].key == EDITOR == default_choice(choices)
    assert f"unsaved edits of {v1_id[:8]}" in choices[0].label
    ref = version_to_run(workspace, choices[0], session)
    assert ref == f"rag-short-answer@{prompt_version_id(edited.content)}"
    assert get_prompt_version(workspace, ref.split("@")[1])["parent"] == v1_id
    assert prompt_choices(workspace, session)[0].key != EDITOR  # now saved: the version is the editor's


def test_an_unchanged_starter_in_the_editor_marks_the_starter(workspace):
    session = current_session(workspace)["id"]
    starter = load_template("rag-cot")
    save_draft(workspace, session, "rag-cot", starter.content, prompt_version_id(starter.content))
    choices = prompt_choices(workspace, session)
    assert default_choice(choices) == "rag-cot"
    assert EDITOR not in {c.key for c in choices}


def test_your_own_templates_are_offered_and_ages_read_as_ages(workspace):
    starter = load_template("rag-short-answer")
    save_own_template(workspace, starter.with_changes(system="Mine."), "mine", "My own")
    later = datetime.now(timezone.utc) + timedelta(hours=3)
    choices = prompt_choices(workspace, current_session(workspace)["id"], now=later)
    by_key = {c.key: c for c in choices}
    assert by_key["mine"].label == "mine (your template): My own" and by_key["mine"].kind == "own"
    saved = [c for c in choices if c.kind == "version"]
    assert saved and all(" · 3 h ago · " in c.label for c in saved)


def test_unsaved_edits_of_a_starter_never_stored_run_with_the_starter_as_parent(workspace):
    """The editor's base may be a starter file no run has stored yet: starting a run from the picker stores the
    starter first (it failed with "no prompt version" before)."""
    session = current_session(workspace)["id"]
    starter = load_template("rag-cot")
    edited = starter.with_changes(system="Think, then answer in a word.")
    save_draft(workspace, session, "rag-cot", edited.content, prompt_version_id(starter.content))
    (choice,) = [c for c in prompt_choices(workspace, session) if c.kind == "editor"]
    ref = version_to_run(workspace, choice, session)
    stored = get_prompt_version(workspace, ref.split("@")[1])
    assert stored["content"] == edited.content and stored["parent"] == prompt_version_id(starter.content)
    assert get_prompt_version(workspace, stored["parent"])["content"] == starter.content


def test_a_label_is_a_choice_that_runs_as_template_at_label_and_versions_show_their_labels(workspace):
    from playground.store.prompt_labels import move_label

    session = current_session(workspace)["id"]
    _, v1_id, _, v2_id, _ = _versions(workspace)
    move_label(workspace, "rag-short-answer", "prod", v1_id, "person")
    move_label(workspace, "rag-short-answer", "staging", v2_id, "person")
    move_label(workspace, "rag-short-answer", "prod", v2_id, "person")
    choices = {c.key: c for c in prompt_choices(workspace, session)}
    prod = choices["rag-short-answer@prod"]
    assert prod.kind == "label" and prod.version_id == v2_id and prod.template.system == "v2 text"
    assert prod.label.startswith(f"rag-short-answer@prod → {v2_id[:8]}") and prod.label.endswith("by person")
    assert version_to_run(workspace, prod, session) == "rag-short-answer@prod"
    assert choices[f"rag-short-answer@{v2_id}"].label.startswith("rag-short-answer [prod] [staging] · v2: longer")
    assert "[" not in choices[f"rag-short-answer@{v1_id}"].label
