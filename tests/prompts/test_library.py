"""The starter templates and template references."""

import pytest

from playground import PlaygroundError
from playground.prompts.library import list_templates, load_template
from playground.prompts.parse import parse_answer
from playground.prompts.render import render_messages
from playground.prompts.variables import required_variables
from playground.prompts.template import ANSWER_FORMATS
from playground.store.prompts import save_prompt_version

REQUIRED = {
    "direct-short-answer",
    "rag-short-answer",
    "rag-citations",
    "rag-cot",
    "multiple-choice",
    "zero-shot",
    "few-shot",
    "zero-shot-cot-reasoning",
    "zero-shot-cot-extract",
    "persona",
    "json-output",
}
KNOWN_VARIABLES = {"question", "passages", "choices", "examples", "reasoning"}

SAMPLE = {
    "question": "In which city is the Prado museum?",
    "passages": [
        {
            "id": "p3",
            "title": "Madrid",
            "text": "Madrid is the capital of Spain; the Prado museum is in Madrid.",
            "score": 7.5,
            "rank": 1,
        },
        {"id": "p1", "title": "Paris", "text": "Paris is the capital of France.", "score": 2.0, "rank": 2},
    ],
    "choices": [{"label": "A", "text": "Paris"}, {"label": "B", "text": "Madrid"}],
    "examples": [{"question": "What is the capital of Germany?", "answer": "Berlin"}],
    "reasoning": "The passage says the Prado is in Madrid.",
}


def test_every_required_starter_template_exists():
    assert REQUIRED <= {template.name for template in list_templates()}


@pytest.mark.parametrize("name", sorted(REQUIRED))
def test_starter_template_loads_and_renders(name):
    template = load_template(name)
    assert template.path and template.path.endswith(f"{name}.jinja")
    assert template.description and template.technique
    assert template.answer_format in ANSWER_FORMATS
    needed = required_variables(template)
    assert template.variables == needed, "the header's variables must match what the source uses"
    assert set(needed) <= KNOWN_VARIABLES
    messages = render_messages(template, SAMPLE)
    assert [m["role"] for m in messages] == ["system", "user"]
    user = messages[1]["content"]
    assert SAMPLE["question"] in user
    if "passages" in needed:
        assert "[1] Madrid: Madrid is the capital of Spain" in user
        assert "[2] Paris: " in user
    if "choices" in needed:
        assert "B) Madrid" in user
    if "examples" in needed:
        assert "What is the capital of Germany?" in user and "Berlin" in user
    if "reasoning" in needed:
        assert SAMPLE["reasoning"] in user
    assert len(messages[0]["content"]) < 200, "system prompts stay short for the tiny local model"


@pytest.mark.parametrize("name", ["multiple-choice", "zero-shot", "few-shot", "persona", "json-output"])
def test_optional_passages_leave_no_empty_section(name):
    user = render_messages(load_template(name), {**SAMPLE, "passages": []})[1]["content"]
    assert "[1]" not in user and "\n\n\n" not in user
    assert not user.startswith("\n")


def test_answer_formats_fit_their_instructions():
    assert load_template("multiple-choice").answer_format == "letter"
    assert load_template("json-output").answer_format == "json"
    assert load_template("rag-cot").answer_format == "cot"
    assert parse_answer("Madrid [1]", load_template("rag-citations").answer_format) == "Madrid"


def test_load_by_path(tmp_path):
    path = tmp_path / "mine.jinja"
    path.write_text("### system\nS\n### user\n{{ question }}\n")
    template = load_template(str(path))
    assert template.name == "mine" and template.user == "{{ question }}"
    with pytest.raises(PlaygroundError, match="does not exist"):
        load_template(str(tmp_path / "absent.jinja"))


def test_unknown_name_lists_the_known_ones():
    with pytest.raises(PlaygroundError, match="no template named 'nope'.*rag-short-answer"):
        load_template("nope")


def test_load_saved_version_by_prefix(workspace):
    original = load_template("rag-short-answer")
    edited = original.with_changes(system="Answer in one word.")
    first = save_prompt_version(workspace, original)
    second = save_prompt_version(workspace, edited)
    assert load_template(f"rag-short-answer@{second[:6]}", workspace).system == "Answer in one word."
    assert load_template(f"rag-short-answer@{first}", workspace).content == original.content
    with pytest.raises(PlaygroundError, match="belongs to template 'rag-short-answer'"):
        load_template(f"rag-cot@{second}", workspace)
    with pytest.raises(PlaygroundError, match="needs a workspace"):
        load_template(f"rag-short-answer@{second}")


def test_name_not_on_disk_falls_back_to_the_workspace(workspace):
    saved = load_template("direct-short-answer").with_changes(name="my-direct")
    save_prompt_version(workspace, saved)
    assert load_template("my-direct", workspace).content == saved.content
    with pytest.raises(PlaygroundError, match="no template named 'my-direct'"):
        load_template("my-direct")
