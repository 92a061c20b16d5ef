"""Template errors: one line with part, line and column; sandbox escapes are refused and never run code."""

import pytest

from playground import PlaygroundError
from playground.prompts.errors import TemplateError
from playground.prompts.render import render_messages
from playground.prompts.compiled import check_template
from playground.prompts.template import Template

VARIABLES = {"question": "Q?", "passages": [{"id": "p", "title": "T", "text": "x", "score": 1.0, "rank": 1}]}


def _error(user: str, system: str = "", variables=VARIABLES) -> TemplateError:
    with pytest.raises(TemplateError) as caught:
        render_messages(Template(name="t", system=system, user=user), variables)
    error = caught.value
    assert isinstance(error, PlaygroundError)
    assert "\n" not in str(error) and "Traceback" not in str(error)
    return error


def test_unclosed_print_points_at_its_opening():
    error = _error("line one\nsays {{ question\nmore")
    assert (error.part, error.line, error.column) == ("user", 2, 6)
    assert "line 2" in str(error) and "column 6" in str(error)


def test_unclosed_block_points_at_the_block_tag():
    error = _error("a\n  {% for p in passages %}\n{{ p.text }}\n")
    assert (error.line, error.column) == (2, 3)
    assert "endfor" in error.problem


def test_unexpected_token_points_at_it():
    error = _error("Q: {{ question extra }}")
    assert (error.line, error.column) == (1, 16)


def test_unknown_tag_and_filter_point_at_their_names():
    tag = _error("ok\n{% if question %}x{% endfor %}")
    assert (tag.line, tag.column) == (2, 22)
    filtered = _error("{{ question | shout }}")
    assert (filtered.line, filtered.column) == (1, 15)


def test_unexpected_character_is_located():
    error = _error("first\n\n  {{ question ! }}")
    assert (error.line, error.column) == (3, 15)


def test_syntax_error_in_system_part_names_it_and_the_file_line():
    template = Template.from_text("{#\nname: s\n#}\n### system\nbe {{ brief\n### user\n{{ question }}")
    with pytest.raises(TemplateError) as caught:
        check_template(template)
    assert (caught.value.part, caught.value.line, caught.value.file_line) == ("system", 1, 5)
    assert "system part, line 1 (file line 5), column 4" in str(caught.value)


def test_undefined_variable_line_and_column():
    error = _error("Hello\n  Q: {{ question }} and {{ passage_list }}")
    assert (error.part, error.line, error.column) == ("user", 2, 28)
    assert error.problem == "'passage_list' is undefined"


def test_undefined_attribute_points_at_the_attribute():
    error = _error("{% for p in passages %}\n[{{ loop.index }}] {{ p.titel }}\n{% endfor %}")
    assert (error.line, error.column) == (2, 25)
    assert "titel" in error.problem


def test_undefined_in_system_part():
    error = _error("{{ question }}", system="You are {{ role }}.")
    assert (error.part, error.line, error.column) == ("system", 1, 12)


def test_runtime_error_is_a_template_error():
    error = _error("x\n{{ 1 / 0 }}")
    assert error.line == 2
    assert "ZeroDivisionError" in error.problem


@pytest.mark.parametrize(
    "source, attribute",
    [
        ("{{ ''.__class__.__mro__ }}", "__class__"),
        ("{{ cycler.__init__.__globals__ }}", "__init__"),
        ("{{ joiner.__init__.__globals__.os }}", "__init__"),
        ("{{ question.__class__.__base__.__subclasses__() }}", "__class__"),
        ("{{ passages.append(1) }}", "append"),
    ],
)
def test_sandbox_refuses_escapes(source, attribute):
    error = _error("ok\n" + source)
    assert "refused by the sandbox" in error.problem
    assert attribute in error.problem
    assert error.line == 2
    assert error.column == source.index(attribute) + 1


def test_sandbox_never_runs_code(tmp_path):
    marker = tmp_path / "pwned"
    attacks = [
        f"{{{{ cycler.__init__.__globals__.os.system('touch {marker}') }}}}",
        f"{{{{ lipsum.__globals__['os'].popen('touch {marker}').read() }}}}",
        "{{ ''.__class__.__mro__[1].__subclasses__() }}",
        "{{ '{0.__class__}'.format(question) }}",
    ]
    for attack in attacks:
        _error(attack)
    assert not marker.exists()


def test_memory_bombs_are_refused():
    assert "too long" in _error("{{ 'x' * 100000000 }}").problem
    assert "too long" in _error("{% for i in range(10**7) %}{% endfor %}").problem
    assert "too large" in _error("{{ 9 ** 9999999 }}").problem


def test_error_dict_for_the_app():
    data = _error("{{ nope }}").to_dict()
    assert data["part"] == "user" and data["line"] == 1 and data["column"] == 4
    assert data["message"].startswith("template 't', user part, line 1, column 4")


def _column_of(source: str, needle: str, occurrence: int = -1) -> int:
    """1-based column of the given occurrence of `needle` on a one-line source (the last one by default)."""
    starts = [i for i in range(len(source)) if source.startswith(needle, i)]
    return starts[occurrence] + 1


@pytest.mark.parametrize(
    "source, needle, occurrence",
    [
        # the case: the '}}' Jinja got where a filter name belongs, not the first tag on the line (column 11)
        ("Passages: {{ passages }} Question: {{ question | }}", "}}", -1),
        ("Context {{ passages }} and {{ question + }}", "}}", -1),
        ("Hi {{ a }} {{ b }} {{ }}", "}}", -1),
        ("Hi {{ x }} {{ q q }}", "q", -1),  # the second q, the one Jinja did not expect
        ("Answer {{ x }} then {{ question.upper() ) }}", ")", -1),
        ("Hi {{ x }} {%- if q %}a{% else %}b{% else %}c{% endif %}", "else", -1),
        ("Hello {{ x }} {% for p in %}{% endfor %}", "%}", 0),
        ("Hello {{ x }}  {{ x.y. }}", "}}", -1),
        ("Context {{ x }} {{ question | join( }}", "}}", -1),  # the lexer's own error: the '}' it cannot balance
        ("Hi {{ a b }} {{ c", "b", 0),  # the first error Jinja meets, before the tag left open
    ],
)
def test_syntax_error_column_is_the_token_jinja_stopped_at(source, needle, occurrence):
    error = _error(source)
    assert (error.line, error.column) == (1, _column_of(source, needle, occurrence)), error.problem
