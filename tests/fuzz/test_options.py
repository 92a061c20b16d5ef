"""(a) Every command's options with hostile values, the commands and options read from the argparse parser: each
invocation exits 0, or refuses in one line that is not the last resort's `internal error:`, within the bounds."""

from __future__ import annotations

import argparse
import json
import os
import shutil
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from playground.cli import build_parser
from playground.retrieval.index import build_index, forget_open_retrievers
from playground.store import open_workspace
from playground.store.runs import list_runs
from tests.fuzz.outcome import assert_well_behaved, invoke
from tests.openai_server import OpenAIServer
from tests.store.test_integrity import make_workspace

# Commands that serve until stopped (the app): their options are the app's, driven by tests/e2e.
SERVES = {("app",), ("demo",)}
EXAMPLES_PER_COMMAND = {"fast": 5, "deep": 40}[os.environ.get("HYPOTHESIS_PROFILE", "fast")]

HOSTILE_TEXT = [
    "",
    " ",
    "-",
    "x" * 100_000,
    "\x1b[2J\x1b]0;title\x07",
    "a\nb",
    "\r",
    "\t",
    "\x7f\x9b",
    "\udcff",
    "caf\udce9",
    "../" * 8 + "x",
    ".",
    "..",
    "/",
    "sub/",
    "missing/dir/x.json",
    "x" * 300,
    "%s%n{0}{{x}}",
    "*",
    "q1\x00"[:-1] + "\u202e",
    "NaN",
    "-1",
    "1e999",
    "k=0..4999",
    "a=b=c",
]
HOSTILE_NUMBERS = [
    "nan",
    "NaN",
    "inf",
    "-inf",
    "0",
    "-0",
    "-1",
    "-5",
    str(10**30),
    "-" + str(10**30),
    "1e-300",
    "1e308",
    "0.5",
    "2000000000",
    "9223372036854775808",
    "",
    "x",
    "1_000",
]
# Text drawn freely: any character a command line can hold (argv cannot carry NUL; an undecodable byte arrives as a
# lone surrogate U+DC80..U+DCFF by Python's surrogateescape).
ARGV_TEXT = st.text(
    st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00")
    | st.characters(min_codepoint=0xDC80, max_codepoint=0xDCFF),
    max_size=40,
)


def commands(parser: argparse.ArgumentParser, path: tuple = ()) -> list[tuple[tuple, argparse.ArgumentParser]]:
    """(command words, its parser) for every runnable command, found by walking the subparsers."""
    subparsers = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    if not subparsers:
        return [(path, parser)]
    found = []
    for name, child in subparsers[0].choices.items():
        found += commands(child, path + (name,))
    return found


def valued(parser: argparse.ArgumentParser) -> list[argparse.Action]:
    """The options and arguments that take a value (flags and --help left out)."""
    return [a for a in parser._actions if a.nargs != 0 and not isinstance(a, argparse._SubParsersAction)]


def is_numeric(action: argparse.Action) -> bool:
    return action.type not in (None, str) and action.choices is None


ALL_COMMANDS = [(words, parser) for words, parser in commands(build_parser()) if words not in SERVES]


@pytest.fixture(scope="module")
def base(tmp_path_factory):
    """A workspace (dataset `tiny`, a session "study" with two runs, a bm25 index), the files commands read, and a
    real local OpenAI-compatible server as every command's model."""
    folder = tmp_path_factory.mktemp("fuzz-options")
    db = make_workspace(folder / "sessions" / "w.db", with_session=True)
    saved = {key: os.environ.get(key) for key in ("PLAYGROUND_DB", "PLAYGROUND_INDEXES")}
    os.environ.pop("PLAYGROUND_DB", None)
    os.environ["PLAYGROUND_INDEXES"] = str(folder / "indexes")
    workspace = open_workspace(db)
    build_index(workspace, "tiny", "bm25")
    run_ids = [run.id for run in list_runs(workspace)]
    workspace.close()
    forget_open_retrievers()
    session_file = folder / "study.json"
    assert invoke(["session", "export", "study", "-o", str(session_file), "--db", str(db)]).code == 0
    predictions = folder / "predictions.jsonl"
    predictions.write_text(json.dumps({"prediction": "Paris", "answers": ["Paris"]}) + "\n")
    server = OpenAIServer().start()
    model = f"openai:fuzz@{server.url}"
    fillers = {  # a usable value for each argument a command needs, by its dest
        "dataset": "tiny",
        "corpus": "tiny",
        "n": "2",
        "question": "q1",
        "question_id": "q1",
        "run": run_ids[0],
        "run_a": run_ids[0],
        "run_b": run_ids[1],
        "run_id": run_ids[0],
        "baseline": run_ids[0],
        "candidate": run_ids[1],
        "runs": run_ids[:2],
        "session": "study",
        "name": "fuzzed",
        "text": "a note",
        "prompt": "What is the capital of France?",
        "query": "capital of France",
        "format": "jsonl",
        "path": str(Path(__file__).resolve().parents[1] / "fixtures" / "datasets" / "jsonl" / "questions.jsonl"),
        "url": "http://127.0.0.1:8501/runs?session=study",
        "ref": "fuzzed",
        "sweep": "temperature=0,0.5",
        "output": "out.json",
        "model": model,
        "judge_model": model,
        "sample": "1",
        "template": "direct-short-answer",
        "program": "direct",
        "metric": "faithfulness",
        "value": "0.5",
        "label": "prod",
    }
    experiment = folder / "experiment.toml"
    experiment.write_text(
        f'benchmark = "tiny"\nsample = 2\n[variants.a]\nprogram = "direct"\nmodel = "{model}"\n', encoding="utf-8"
    )
    ratings = folder / "ratings.jsonl"
    ratings.write_text(json.dumps({"question_id": "q1", "value": 0.5}) + "\n")
    files = {
        ("session", "import"): {"file": str(session_file)},
        ("score",): {"file": str(predictions)},
        ("rate", "import"): {"file": str(ratings)},
        ("eval",): {"file": str(experiment)},
    }
    yield {"db": db, "fillers": fillers, "files": files}
    server.close()
    for key, value in saved.items():
        if value is None:
            os.environ.pop(key, None)
        else:
            os.environ[key] = value


def argv_for(
    words: tuple, parser: argparse.ArgumentParser, base: dict, target: argparse.Action, value: str, db: Path
) -> list[str]:
    """The command with `value` for `target`, a usable value for each other argument it needs (and for --model,
    --judge-model, --sample and --program, so that no example loads the local model), and --db."""
    fillers = {**base["fillers"], **base["files"].get(words, {})}
    argv = list(words)
    for action in valued(parser):
        if action.dest in ("db", "help"):
            continue
        if action is target:
            given_value = [value]
        elif (
            action.required
            or (not action.option_strings and action.nargs != "?")
            or action.dest in ("model", "judge_model", "sample", "program", "dataset")
            and action.dest in fillers
        ):
            if action.dest not in fillers:
                pytest.fail(f"`{' '.join(words)}` needs {action.dest}: add a usable value to the fillers")
            filler = fillers[action.dest]
            given_value = filler if isinstance(filler, list) else [filler]
        else:
            continue
        if action.option_strings:
            for item in given_value:
                argv += (
                    [action.option_strings[-1], item]
                    if not item.startswith("-") or not item[1:2].isalpha()
                    else [f"{action.option_strings[-1]}={item}"]
                )
        else:
            argv += ["--", *given_value] if value.startswith("-") and action is target else given_value
    if target.dest == "db":
        argv += [f"--db={value}"]
    else:
        argv += ["--db", str(db)]
    return argv


def _run_one(words, parser, base, target, value, tmp_path_factory) -> None:
    folder = tmp_path_factory.mktemp("example")
    db = folder / "sessions" / "w.db"
    db.parent.mkdir()
    shutil.copyfile(base["db"], db)
    cwd = os.getcwd()
    os.chdir(folder)  # relative path-like values land here
    try:
        outcome = invoke(argv_for(words, parser, base, target, value, db))
    finally:
        os.chdir(cwd)
        forget_open_retrievers()
    assert_well_behaved(outcome)
    shutil.rmtree(folder, ignore_errors=True)


TEXT_CASES = [(words, parser) for words, parser in ALL_COMMANDS if any(not is_numeric(a) for a in valued(parser))]
NUMERIC_CASES = [(words, parser) for words, parser in ALL_COMMANDS if any(is_numeric(a) for a in valued(parser))]


@pytest.mark.parametrize("words,parser", TEXT_CASES, ids=[" ".join(w) for w, _ in TEXT_CASES])
@settings(max_examples=EXAMPLES_PER_COMMAND)
@given(data=st.data())
def test_text_options_with_hostile_values(words, parser, base, tmp_path_factory, data):
    target = data.draw(st.sampled_from([a for a in valued(parser) if not is_numeric(a)]), label="option")
    value = data.draw(st.sampled_from(HOSTILE_TEXT) | ARGV_TEXT, label="value")
    _run_one(words, parser, base, target, value, tmp_path_factory)


@pytest.mark.parametrize("words,parser", NUMERIC_CASES, ids=[" ".join(w) for w, _ in NUMERIC_CASES])
@settings(max_examples=EXAMPLES_PER_COMMAND)
@given(data=st.data())
def test_numeric_options_with_hostile_values(words, parser, base, tmp_path_factory, data):
    target = data.draw(st.sampled_from([a for a in valued(parser) if is_numeric(a)]), label="option")
    value = data.draw(st.sampled_from(HOSTILE_NUMBERS), label="value")
    _run_one(words, parser, base, target, value, tmp_path_factory)
