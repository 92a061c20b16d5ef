"""Numbers at the edges: every numeric flag is parsed by playground.bounds, so an out-of-range value is one
`error:` line naming the allowed range (exit 1, never `internal error:`), and the workspace is left as it was."""

from __future__ import annotations

import sqlite3

import pytest

from playground.cli import main


def dump(path) -> str:
    connection = sqlite3.connect(path)
    try:
        return "\n".join(connection.iterdump())
    finally:
        connection.close()


REFUSED = [
    (
        ["judge", "estimate", "r1", "--confidence", "0.9999999999999999"],
        "--confidence must be more than 0 and at most 0.999999, got 0.9999999999999999",
    ),
    (
        ["judge", "estimate", "r1", "--target-half-width", "1e-300"],
        "--target-half-width must be more than 0 and at most 1,000,000, and at least 1e-06 away from 0, got 1e-300",
    ),
    (["compare", "a", "b", "--resamples", "0"], "--resamples must be between 100 and 1,000,000, got 0"),
    (["compare", "a", "b", "--resamples", "-5"], "--resamples must be between 100 and 1,000,000, got -5"),
    (["compare", "a", "b", "--resamples", "2000000000"], "--resamples must be between 100 and 1,000,000"),
    (["compare", "a", "b", "--seed", "-1"], "--seed must be between 0 and 2,147,483,647, got -1"),
    (["compare", "a", "b", "--resamples", "many"], "--resamples must be a whole number between 100 and 1,000,000"),
    (["power", "--sd", "inf", "--difference", "0.1"], "--sd must be between 0 and 1,000,000, got inf"),
    (["power", "--sd", "0.3", "--difference", "1e-300"], "--difference must be between -1,000,000 and 1,000,000"),
    (
        ["power", "--rate", "0.5", "--difference", "0"],
        "--difference must be between -1,000,000 and 1,000,000, and at least 1e-09 away from 0, got 0",
    ),
    (
        ["power", "--rate", "0.5", "--difference", "0.1", "--discordance", "5"],
        "--discordance must be between 0 and 1, got 5",
    ),
    (["power", "--rate", "0.5", "--difference", "0.1", "-n", "-5"], "-n must be between 1 and 10,000,000, got -5"),
    (["power", "--rate", "0.5", "--difference", "0.1", "--alpha", "1"], "--alpha must be more than 0 and less than 1"),
    (["power", "--rate", "nan", "--difference", "0.1"], "--rate must be between 0 and 1, got nan"),
    (
        ["run", "--dataset", "tiny", "--timeout", "nan"],
        "--timeout must be more than 0 and at most 86,400 seconds, got nan",
    ),
    (["run", "--dataset", "tiny", "--read-timeout", "inf"], "--read-timeout must be more than 0"),
    (["run", "--dataset", "tiny", "--temperature", "-1"], "--temperature must be between 0 and 2, got -1"),
    (["run", "--dataset", "tiny", "--temperature", "nan"], "--temperature must be between 0 and 2, got nan"),
    (["run", "--dataset", "tiny", "--top-p", "1.5"], "--top-p must be between 0 and 1, got 1.5"),
    (
        ["run", "--dataset", "tiny", "--max-tokens", str(10**12)],
        f"--max-tokens must be between 1 and 1,000,000, got {10**12}",
    ),
    (["run", "--dataset", "tiny", "--sample", "0"], "--sample must be between 1 and 10,000,000, got 0"),
    (["run", "--dataset", "tiny", "--repeats", "0"], "--repeats must be between 1 and 100, got 0"),
    (["run", "--dataset", "tiny", "-k", "-1"], "-k must be between 0 and 1,000, got -1"),
    (["run", "--dataset", "tiny", "--model", "openai:x@http://[::1"], "--model: bad base URL"),
    (["judge", "reference", "r1", "--temperature", "nan"], "--temperature must be between 0 and 2, got nan"),
    (["judge", "reference", "r1", "--max-tokens", "0"], "--max-tokens must be between 1 and 1,000,000, got 0"),
    (["judge", "reference", "r1", "--repeat", "0"], "--repeat must be between 1 and 100, got 0"),
    (["judge", "reference", "r1", "--timeout", "-3"], "--timeout must be more than 0"),
    (
        ["eval-retrieval", "--dataset", "tiny", "--retriever", "bm25", "--sample", "0"],
        "--sample must be between 1 and 10,000,000, got 0",
    ),
    (
        ["eval-retrieval", "--dataset", "tiny", "--retriever", "bm25", "-k", "0"],
        "-k must be between 1 and 1,000, got 0",
    ),
    (
        ["retrieve", "--dataset", "tiny", "--retriever", "bm25", "-k", "100000", "paris"],
        "-k must be between 1 and 1,000, got 100000",
    ),
    (["models", "try", "hi", "-n", "-5"], "-n must be between 1 and 100, got -5"),
    (["models", "try", "hi", "--max-tokens", "1e3"], "--max-tokens must be a whole number between 1 and 1,000,000"),
    (["data", "sample", "tiny", "--sample", "0"], "--sample must be between 1 and 10,000,000, got 0"),
    (["render", "rag-short-answer", "--dataset", "tiny", "--shots", "-2"], "--shots must be between 0 and 100"),
    (["trace", "r1", "q1", "--repeat-index", "-1"], "--repeat-index must be between 0 and 99, got -1"),
    (["demo", "--port", "70000"], "--port must be between 1 and 65,535, got 70000"),
    (["sweep", "--dataset", "tiny", "--sweep", "k=0..4999"], "a sweep has at most 1,000 points, got 5,000"),
    (["sweep", "--dataset", "tiny", "--sweep", "k=0..99999999999999"], "a sweep has at most 1,000 points"),
    (["sweep", "--dataset", "tiny", "--sweep", "k=5000"], "--sweep k must be between 0 and 1,000, got 5000"),
    (
        ["sweep", "--dataset", "tiny", "--sweep", "k=1,2", "--sweep", "shots=0,1"],
        "--sweep given 2 times (k=1,2, shots=0,1): a sweep varies one parameter",
    ),
    (
        ["optimize", "--dataset", "tiny", "--budget", "2", "--difference", "-0.1"],
        "--difference must be more than 0 and at most 1,000,000, got -0.1",
    ),
    (
        ["optimize", "--dataset", "tiny", "--budget", "2", "--metric", "em", "--difference", "5"],
        "--difference must be more than 0 and less than 1 for metric 'em' (right or wrong: a gain is a share of the "
        "questions), got 5",
    ),
    (
        ["sweep", "--dataset", "tiny", "--sweep", "k=0..60"],
        "a sweep of 61 points is long work (61 runs of every question of 'tiny' each",
    ),
]


@pytest.mark.parametrize("argv, message", REFUSED, ids=[" ".join(argv) for argv, _ in REFUSED])
def test_a_number_out_of_range_is_one_line_naming_the_range_and_nothing_is_stored(
    tiny_workspace, capsys, argv, message
):
    before = dump(tiny_workspace.path)
    code = main([*argv, "--db", str(tiny_workspace.path)])
    err = capsys.readouterr().err
    assert code == 1, err
    assert err.startswith("error: ") and err.count("\n") == 1, err
    assert message in err, err
    assert dump(tiny_workspace.path) == before


def test_a_long_sweep_names_how_to_go_ahead(tiny_workspace, capsys):
    assert main(["sweep", "--dataset", "tiny", "--sweep", "k=0..60", "--db", str(tiny_workspace.path)]) == 1
    assert "add --yes to start it" in capsys.readouterr().err
    assert tiny_workspace.db["runs"].count == 0


def test_power_from_a_stated_baseline_says_a_number_of_questions(capsys):
    assert main(["power", "--rate", "0.5", "--difference", "0.1"]) == 0
    out = capsys.readouterr().out
    assert "None" not in out and "needed" in out
