"""Rendering messages, discovering variables, building the variables programs pass."""

import pytest

from playground.data.records import Choice, Passage, Question
from playground.prompts import compiled as compiled_module
from playground.prompts.errors import TemplateError
from playground.prompts.render import passage_variables, question_variables, render_messages
from playground.prompts.variables import required_variables
from playground.prompts.template import Template
from playground.retrieval.base import Hit

RAG = Template(
    name="rag",
    system="Answer from the passages.",
    user="{% for p in passages %}\n[{{ loop.index }}] {{ p.title }}: {{ p.text }}\n{% endfor %}\nQuestion: {{ question }}",
)


def test_render_gives_system_and_user_messages():
    passages = [
        {"id": "a", "title": "Paris", "text": "Capital of France.", "score": 2.0, "rank": 1},
        {"id": "b", "title": "Seine", "text": "A river.", "score": 1.0, "rank": 2},
    ]
    messages = render_messages(RAG, {"question": "Where?", "passages": passages})
    assert messages == [
        {"role": "system", "content": "Answer from the passages."},
        {"role": "user", "content": "[1] Paris: Capital of France.\n[2] Seine: A river.\nQuestion: Where?"},
    ]


def test_empty_system_part_sends_no_system_message():
    template = Template(name="u", system="", user="{{ question }}")
    assert render_messages(template, {"question": "hi"}) == [{"role": "user", "content": "hi"}]


def test_output_is_plain_text_not_html_escaped():
    template = Template(name="u", system="", user="{{ question }}")
    assert render_messages(template, {"question": 'a < b & "c"'})[0]["content"] == 'a < b & "c"'


def test_required_variables_in_order_of_first_use_without_locals_or_globals():
    template = Template(
        name="v",
        system="{{ persona }}",
        user="{% set n = passages|length %}{% for e in examples %}{{ e.question }}{% endfor %}"
        "{{ n }} {{ question }} {% for i in range(2) %}{{ loop.index }}{% endfor %}",
    )
    assert required_variables(template) == ["persona", "passages", "examples", "question"]


def test_required_variables_reports_a_syntax_error():
    with pytest.raises(TemplateError) as caught:
        required_variables(Template(name="bad", system="", user="{{ question "))
    assert caught.value.part == "user"


def test_repeated_renders_reuse_the_compiled_part():
    compiled_module._compile.cache_clear()
    template = Template(name="c", system="s {{ question }}", user="u {{ question }}")
    for question in ("a", "b", "c"):
        render_messages(template, {"question": question})
    info = compiled_module._compile.cache_info()
    assert info.misses == 2
    assert info.hits == 4


def test_question_variables_from_records_and_hits():
    question = Question("q1", "Which city?", ["B"], choices=[Choice("A", "Paris"), Choice("B", "Madrid")])
    passages = passage_variables([Passage("p1", "Madrid", "Prado museum.")], [Hit("p1", 3.5, 1)])
    variables = question_variables(question, passages, [{"question": "1+1?", "answer": "2"}], "because")
    assert variables == {
        "question": "Which city?",
        "passages": [{"id": "p1", "title": "Madrid", "text": "Prado museum.", "score": 3.5, "rank": 1}],
        "choices": [{"label": "A", "text": "Paris"}, {"label": "B", "text": "Madrid"}],
        "examples": [{"question": "1+1?", "answer": "2"}],
        "reasoning": "because",
    }


def test_question_variables_from_plain_text_have_no_choices():
    variables = question_variables("Why?")
    assert variables["question"] == "Why?"
    assert variables["choices"] == [] and variables["passages"] == [] and variables["examples"] == []


def test_a_markdown_heading_of_the_passage_title_reaches_the_model_once():
    from playground.prompts.library import load_template
    from playground.prompts.render import passage_variables, question_variables, render_messages

    passages = [
        {"id": "p1", "title": "女王", "text": "## 女王\n她统治了四十年。"},
        {"id": "p2", "title": "The queen", "text": "# The queen\n\nShe ruled for forty years."},
        {"id": "p3", "title": "The queen", "text": "## The queen's army\nIt marched."},  # another heading: kept
    ]
    shown = passage_variables(passages)
    assert [p["text"] for p in shown] == ["她统治了四十年。", "She ruled for forty years.", passages[2]["text"]]
    prompt = "\n".join(
        m["content"] for m in render_messages(load_template("rag-short-answer"), question_variables("Who?", passages))
    )
    assert "The queen: She ruled for forty years." in prompt and "## The queen\n" not in prompt
