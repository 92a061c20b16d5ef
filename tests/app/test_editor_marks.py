"""The template editor marks the same place the error message names: Ace counts rows and columns from 0."""

import pytest

from playground.app.screens.playground.editor import _annotation
from playground.prompts.errors import TemplateError
from playground.prompts.compiled import check_template
from playground.prompts.template import Template


def test_the_editor_mark_and_the_message_point_at_the_token_jinja_stopped_at():
    user = "Answer briefly.\nPassages: {{ passages }} Question: {{ question | }}"
    with pytest.raises(TemplateError) as caught:
        check_template(Template(name="t", system="", user=user))
    error = caught.value
    [mark] = _annotation(error)
    line = user.split("\n")[mark["row"]]
    assert line[mark["column"] :] == "}}"  # the end of the tag where a filter name belongs
    assert f"line {mark['row'] + 1}, column {mark['column'] + 1}" in str(error)
