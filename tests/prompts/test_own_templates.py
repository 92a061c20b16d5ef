"""Templates of your own: files beside the workspace, each saved as a prompt version, found by name."""

import json
import os

import pytest

from playground import PlaygroundError
from playground.prompts.library import is_starter, list_templates, load_template
from playground.prompts.own_templates import list_own_templates, save_own_template
from playground.store.prompts import get_prompt_version, save_prompt_version


def _edited_starter():
    starter = load_template("rag-short-answer")
    return starter, starter.with_changes(system="Answer in one word.")


def test_save_as_new_template_writes_the_file_beside_the_workspace_and_a_version(workspace):
    starter, edited = _edited_starter()
    parent = save_prompt_version(workspace, starter)
    created, version = save_own_template(workspace, edited, "one-word", "One word answers", parent=parent)

    path = workspace.path.parent.parent / "templates" / "one-word.jinja"  # <root>/sessions/x.db -> <root>/templates
    assert created.path == str(path) and path.is_file()
    assert path.read_text(encoding="utf-8") == created.content
    stored = get_prompt_version(workspace, version)
    assert (stored["template"], stored["parent"], stored["content"]) == ("one-word", parent, created.content)
    assert created.system == "Answer in one word." and created.description == "One word answers"

    found = load_template("one-word", workspace)
    assert found.content == created.content and not is_starter(found)
    assert "one-word" in {t.name for t in list_templates(workspace)}
    assert "one-word" not in {t.name for t in list_templates()}
    assert is_starter(load_template("rag-short-answer", workspace))


@pytest.mark.parametrize(
    "name, says", [("rag-short-answer", "starter"), ("bad name!", "must be letters"), ("", "must be letters")]
)
def test_a_name_that_cannot_be_used_is_refused_in_one_line(workspace, name, says):
    _, edited = _edited_starter()
    with pytest.raises(PlaygroundError, match=says):
        save_own_template(workspace, edited, name)


def test_a_taken_name_is_refused_and_the_file_is_kept(workspace):
    _, edited = _edited_starter()
    first, _ = save_own_template(workspace, edited, "mine")
    with pytest.raises(PlaygroundError, match="exists already"):
        save_own_template(workspace, edited.with_changes(system="Other."), "mine")
    assert load_template("mine", workspace).content == first.content


def test_a_file_edited_outside_the_app_is_a_new_version_when_used(workspace):
    _, edited = _edited_starter()
    created, first = save_own_template(workspace, edited, "mine")
    text = open(created.path, encoding="utf-8").read().replace("Answer in one word.", "Answer in two words.")
    with open(created.path, "w", encoding="utf-8") as file:
        file.write(text)
    again = save_prompt_version(workspace, load_template("mine", workspace))
    assert again != first
    assert get_prompt_version(workspace, again)["parent"] == first


def test_a_broken_file_is_named_and_does_not_hide_the_others(workspace):
    _, edited = _edited_starter()
    save_own_template(workspace, edited, "good")
    folder = workspace.path.parent.parent / "templates"
    (folder / "broken.jinja").write_text("{#\nanswer_format: poem\n#}\nHi", encoding="utf-8")
    problems: list[str] = []
    assert [t.name for t in list_own_templates(workspace, problems)] == ["good"]
    assert len(problems) == 1 and "broken.jinja" in problems[0] and "poem" in problems[0]


def test_the_cli_lists_starters_and_own_templates(workspace, capsys):
    from playground.cli import main

    _, edited = _edited_starter()
    save_own_template(workspace, edited, "mine", "My own")
    assert main(["--db", str(workspace.path), "templates", "list", "--json"]) == 0, capsys.readouterr().err
    by_name = {row["name"]: row for row in json.loads(capsys.readouterr().out)}
    assert by_name["mine"]["origin"] == "own" and by_name["mine"]["description"] == "My own"
    assert by_name["rag-short-answer"]["origin"] == "starter"


def test_a_template_file_linked_to_outside_the_folder_is_not_read(workspace, tmp_path):
    secret = tmp_path / "shadow"
    secret.write_text("root:$6$salt$hash:19000:0:99999:7:::\n", encoding="utf-8")
    folder = workspace.path.parent.parent / "templates"
    folder.mkdir()
    (folder / "x.jinja").symlink_to(secret)
    problems: list[str] = []
    assert "x" not in {t.name for t in list_templates(workspace, problems)}
    assert len(problems) == 1 and "x.jinja is a link to outside" in problems[0]
    with pytest.raises(PlaygroundError, match="is a link to outside .*templates: not read"):
        load_template("x", workspace)
    assert workspace.db["prompt_versions"].count == 0


def test_a_fifo_among_the_templates_neither_hangs_the_listing_nor_a_lookup(workspace):
    from tests.fuzz.outcome import bounded

    folder = workspace.path.parent.parent / "templates"
    folder.mkdir()
    os.mkfifo(folder / "pipe.jinja")
    problems: list[str] = []
    with bounded(seconds=10):
        names = {t.name for t in list_templates(workspace, problems)}
        with pytest.raises(PlaygroundError, match="no template named 'unknown'"):
            load_template("unknown", workspace)
    assert "pipe" not in names and "rag-short-answer" in names
    assert len(problems) == 1 and problems[0].endswith("pipe.jinja: not a regular file (a FIFO (named pipe))")


def test_a_template_name_too_long_for_a_file_is_one_clear_error(workspace):
    _, edited = _edited_starter()
    with pytest.raises(PlaygroundError, match="template name of 250 characters is too long \\(at most 200\\)$"):
        save_own_template(workspace, edited, "a" * 250)
    assert not (workspace.path.parent.parent / "templates").exists() or not any(
        (workspace.path.parent.parent / "templates").iterdir()
    )
