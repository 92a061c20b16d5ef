"""The template file format: header, parts, canonical content."""

import pytest

from playground.prompts.errors import TemplateError
from playground.prompts.template import Template

TEXT = """{#
name: capital
description: Ask for a capital.
technique: zero-shot
answer_format: short
#}

### system
Be brief.

### user
Question: {{ question }}
{% for p in passages %}
[{{ loop.index }}] {{ p.title }}
{% endfor %}
"""


def test_header_and_parts_are_read():
    template = Template.from_text(TEXT)
    assert template.name == "capital"
    assert template.description == "Ask for a capital."
    assert template.technique == "zero-shot"
    assert template.answer_format == "short"
    assert template.system == "Be brief."
    assert template.user.startswith("Question: {{ question }}")
    assert template.user.endswith("{% endfor %}")
    assert template.variables == ["question", "passages"]  # discovered when the header leaves them out


def test_part_first_lines_count_in_the_file():
    template = Template.from_text(TEXT)
    lines = TEXT.split("\n")
    assert lines[template.part_first_line("system") - 1] == "Be brief."
    assert lines[template.part_first_line("user") - 1] == "Question: {{ question }}"


def test_content_round_trips_and_ignores_layout_noise():
    template = Template.from_text(TEXT)
    again = Template.from_text(template.content)
    assert again == template
    assert again.content == template.content
    noisy = TEXT.replace("Be brief.", "Be brief.   ").replace("\n", "\r\n") + "\n\n"
    assert Template.from_text(noisy).content == template.content


def test_content_changes_with_the_text():
    template = Template.from_text(TEXT)
    assert template.with_changes(system="Be very brief.").content != template.content


def test_canonical_layout_line_numbers_match_content():
    template = Template(name="t", system="one\ntwo", user="three\n{{ question }}")
    lines = template.content.split("\n")
    assert lines[template.part_first_line("system") - 1] == "one"
    assert lines[template.part_first_line("user") - 1] == "three"


def test_file_without_markers_is_all_user_and_named_by_path(tmp_path):
    path = tmp_path / "plain.jinja"
    path.write_text("Q: {{ question }}\n")
    template = Template.from_file(path)
    assert template.name == "plain"
    assert template.system == ""
    assert template.user == "Q: {{ question }}"
    assert template.path == str(path)


def test_name_argument_overrides_header():
    assert Template.from_text(TEXT, name="renamed").name == "renamed"


@pytest.mark.parametrize(
    "text, line, words",
    [
        ("{#\nname: x\ncolour: red\n#}\n### user\nhi", 3, "unknown header key 'colour'"),
        ("{#\nname: x\nthis is not a pair\n#}\n### user\nhi", 3, "expected 'key: value'"),
        ("{#\nname: x\n### user\nhi", 1, "never closed"),
        ("{#\nname: x\nanswer_format: essay\n#}\n### user\nhi", 3, "answer_format 'essay'"),
        ("{#\nname: x\n#}\nstray text\n### user\nhi", 4, "belongs to no part"),
    ],
)
def test_header_errors_name_the_line(text, line, words):
    with pytest.raises(TemplateError) as caught:
        Template.from_text(text)
    assert caught.value.part == "header"
    assert caught.value.line == line
    assert words in str(caught.value)
    assert "\n" not in str(caught.value)


def test_bad_name_is_refused():
    with pytest.raises(TemplateError, match="template name"):
        Template.from_text("{#\nname: ../etc\n#}\n### user\nhi")


def test_parts_out_of_order_or_repeated_are_refused():
    with pytest.raises(TemplateError, match="must come before"):
        Template.from_text("### user\nhi\n### system\nsys")
    with pytest.raises(TemplateError, match="appears twice"):
        Template.from_text("### user\nhi\n### user\nagain")


def test_a_part_cannot_hold_a_separator_line():
    with pytest.raises(TemplateError, match="separator"):
        Template(name="x", system="", user="a\n### system\nb")


def test_a_file_not_named_as_a_template_is_not_read(tmp_path):
    path = tmp_path / "shadow"
    path.write_text("root:$6$salt$hash:19000:0:99999:7:::\n")
    with pytest.raises(TemplateError, match=r"^template file .*shadow: a template file's name ends in \.jinja$"):
        Template.from_file(path)
