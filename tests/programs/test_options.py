"""Typed run options: each program's dataclass, the modifiers' options, and the errors a bad key or value gives."""

from __future__ import annotations

import json

import pytest

from playground import PlaygroundError
from playground.cli import main
from playground.programs.modifiers import with_modifiers
from playground.programs.options import (
    ModifierOptions,
    check_options,
    describe_options,
    known_options,
    options_help,
    read_options,
)
from playground.programs.registry import get_program, programs
from playground.store.runs import get_results, get_spans, list_runs


def test_every_program_declares_its_options_and_takes_the_modifiers():
    assert [row["name"] for row in describe_options(get_program("multihop").options)] == [
        "step_max_tokens",
        "hops",
        "k_hop",
    ]
    assert describe_options(get_program("direct").options) == []
    for program in programs().values():
        assert {"self_consistency", "demonstrations", "shots"} <= set(known_options(program))
    assert with_modifiers(get_program("fusion")).options is get_program("fusion").options


def test_an_unknown_key_fails_with_the_known_ones_and_a_suggestion():
    with pytest.raises(PlaygroundError) as caught:
        check_options(get_program("multihop"), {"hopz": 3})
    message = str(caught.value)
    assert "unknown option 'hopz' for program 'multihop'" in message and "did you mean 'hops'?" in message
    assert "known: step_max_tokens, hops, k_hop, examples," in message
    with pytest.raises(PlaygroundError, match="unknown option 'hops' for program 'direct'"):
        check_options(get_program("direct"), {"hops": 2})  # another program's option is not this one's


@pytest.mark.parametrize(
    "program, options, message",
    [
        ("multihop", {"hops": "two"}, "option 'hops' must be a whole number, not 'two'"),
        ("multihop", {"hops": 0}, "option 'hops' must be at least 1, not 0"),
        ("fusion", {"fusion": "max"}, "option 'fusion' must be one of rrf, combsum, not 'max'"),
        ("fusion", {"query_temperature": 0}, "option 'query_temperature' must be above 0, not 0.0"),
        ("react", {"observation_chars": 5}, "option 'observation_chars' must be at least 20, not 5"),
        ("direct", {"examples": "a, b"}, "option 'examples' must be a list, not 'a, b'"),
        ("direct", {"self_consistency": True}, "option 'self_consistency' must be a whole number, not True"),
    ],
)
def test_a_bad_value_says_which_option_and_why(program, options, message):
    with pytest.raises(PlaygroundError, match=message.replace("(", r"\(").replace(")", r"\)")):
        check_options(get_program(program), options)


def test_checked_options_keep_their_keys_and_get_their_declared_types():
    checked = check_options(get_program("fusion"), {"queries": "4", "query_temperature": 1, "shots": 2})
    assert checked == {"queries": 4, "query_temperature": 1.0, "shots": 2}
    assert isinstance(checked["query_temperature"], float)
    assert read_options(ModifierOptions, checked).shots == 2
    assert read_options(ModifierOptions, {}).self_consistency == 1


def test_help_lists_each_programs_options():
    text = options_help(programs())
    assert "  multihop:\n      step_max_tokens (int, default None)" in text
    assert "hops (int, default 2): search hops before answering" in text
    assert "  direct: none of its own" in text and "self_consistency (int, default 1)" in text


def test_the_cli_refuses_a_misspelt_option_before_running(tiny_workspace, capsys):
    code = main(
        [
            "run",
            "--db",
            str(tiny_workspace.path),
            "--dataset",
            "tiny",
            "--program",
            "multihop",
            "--retriever",
            "bm25",
            "--option",
            "hopz=3",
            "--max-tokens",
            "4",
            "--json",
        ]
    )
    err = capsys.readouterr().err
    assert code == 1 and "unknown option 'hopz' for program 'multihop'" in err and "known: " in err
    assert list_runs(tiny_workspace) == []  # nothing stored


def test_run_help_shows_the_program_options(capsys):
    with pytest.raises(SystemExit):
        main(["run", "--help"])
    out = capsys.readouterr().out
    assert "program options (--option KEY=VALUE" in out and "max_subquestions (int, default 3)" in out


@pytest.mark.slow
def test_a_stored_run_keeps_the_checked_options(tiny_workspace, capsys):
    code = main(
        [
            "run",
            "--db",
            str(tiny_workspace.path),
            "--dataset",
            "tiny",
            "--program",
            "direct",
            "--option",
            "self_consistency=1",
            "--option",
            "shots=0",
            "--sample",
            "1",
            "--max-tokens",
            "2",
            "--json",
        ]
    )
    out, err = capsys.readouterr()
    assert code == 0, err
    run = list_runs(tiny_workspace)[0]
    assert run.config["options"] == {"self_consistency": 1, "shots": 0}
    assert json.loads(out)["n"] == 1


def test_the_newline_stop_is_an_option_every_program_takes(tiny_workspace, capsys):
    for program in programs().values():
        assert check_options(program, {"stop_at_newline": False}) == {"stop_at_newline": False}
    with pytest.raises(PlaygroundError, match="option 'stop_at_newline' must be true or false, not 'no'"):
        check_options(get_program("rag"), {"stop_at_newline": "no"})
    code = main(
        [
            "run",
            "--db",
            str(tiny_workspace.path),
            "--dataset",
            "tiny",
            "--program",
            "direct",
            "--template",
            "direct-short-answer",
            "--option",
            "stop_at_newline=false",
            "--sample",
            "1",
            "--max-tokens",
            "2",
        ]
    )
    assert code == 0, capsys.readouterr().err
    run = list_runs(tiny_workspace)[0]
    assert run.config["options"] == {"stop_at_newline": False}
    generate = [
        span
        for result in get_results(tiny_workspace, run.id)
        for span in get_spans(tiny_workspace, run.id, result["question_id"])
        if span["kind"] == "generate"
    ]
    assert generate and all(span["inputs"]["params"]["stop"] == [] for span in generate)
