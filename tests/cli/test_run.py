"""`playground run`, `playground runs` and `playground trace`, in-process through playground.cli.main."""

from __future__ import annotations

import json

import pytest

from playground.cli import main
from playground.prompts.library import load_template
from playground.store.runs import get_run


def call(capsys, *argv) -> tuple[int, str, str]:
    code = main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.mark.slow
def test_run_then_runs_trace_repeat_and_resume(tiny_workspace, capsys):
    db = str(tiny_workspace.path)
    code, out, err = call(
        capsys,
        "run",
        "--db",
        db,
        "--dataset",
        "tiny",
        "--program",
        "rag",
        "--retriever",
        "bm25",
        "-k",
        "2",
        "--sample",
        "2",
        "--seed",
        "1",
        "--max-tokens",
        "4",
        "--stop",
        "\n",
        "--label",
        "cli test",
        "--json",
    )
    assert code == 0, err
    payload = json.loads(out)
    assert {"run_id", "n", "metrics", "errors", "tokens", "seconds"} <= set(payload)
    assert payload["n"] == 2 and payload["errors"] == 0 and payload["tokens"] > 0 and "f1" in payload["metrics"]
    run_id = payload["run_id"]
    config = get_run(tiny_workspace, run_id).config
    assert config["params"]["stop"] == ["\n"] and config["params"]["max_tokens"] == 4 and config["k"] == 2
    assert config["sample"] == 2 and config["seed"] == 1 and config["templates"] == {"main": "rag-short-answer"}

    code, out, _ = call(capsys, "runs", "--db", db, "--json")
    (listed,) = json.loads(out)
    assert listed["id"] == run_id and listed["label"] == "cli test" and listed["status"] == "done"
    assert listed["settings"]["program"] == "rag" and listed["settings"]["retriever"] == "bm25"
    assert listed["metrics"] == payload["metrics"]
    code, out, _ = call(capsys, "runs", "--db", db)
    assert code == 0 and run_id in out and "rag-short-answer" in out

    question_id = config["question_ids"][0]
    code, out, _ = call(capsys, "trace", run_id[:5], question_id, "--db", db, "--json")
    trace = json.loads(out)
    assert code == 0 and trace["result"]["question_id"] == question_id
    (root,) = trace["spans"]
    assert root["kind"] == "program" and [c["kind"] for c in root["children"]] == [
        "retrieve",
        "render",
        "generate",
        "parse",
    ]
    code, out, _ = call(capsys, "trace", run_id, question_id, "--db", db)
    lines = out.splitlines()
    assert lines[0].startswith(f"run {run_id} question {question_id}")
    assert [line.split()[0] for line in lines[1:]] == ["program", "retrieve", "render", "generate", "parse"]
    assert lines[2].startswith("  retrieve")  # nested under the program span

    code, out, err = call(capsys, "run", "--repeat", run_id, "--db", db, "--json")
    repeated = json.loads(out)
    assert code == 0, err
    assert repeated["run_id"] != run_id and repeated["n"] == 2
    assert repeated["cached"] == 2 and repeated["tokens"] == 0  # same prompts: served from the cache
    assert get_run(tiny_workspace, repeated["run_id"]).config["question_ids"] == config["question_ids"]

    code, out, _ = call(capsys, "run", "--resume", run_id, "--db", db, "--json")
    assert code == 0 and json.loads(out)["n"] == 2 and json.loads(out)["run_id"] == run_id


@pytest.mark.slow
def test_run_with_a_template_file_prints_a_text_summary(tiny_workspace, capsys, tmp_path):
    path = tmp_path / "terse.jinja"
    path.write_text(load_template("direct-short-answer").content.replace("name: direct-short-answer", "name: terse"))
    code, out, err = call(
        capsys,
        "run",
        "--db",
        str(tiny_workspace.path),
        "--dataset",
        "tiny",
        "--template-file",
        str(path),
        "--sample",
        "1",
        "--max-tokens",
        "3",
    )
    assert code == 0, err
    assert out.startswith("run ") and "1/1 answered" in out and "metrics: " in out and "em=" in out
    run_id = out.split()[1].rstrip(":")
    config = get_run(tiny_workspace, run_id).config
    assert config["template_names"] == {"main": "terse"} and config["templates"] == {"main": str(path)}


@pytest.mark.parametrize(
    "argv, message",
    [
        (["run"], "needs --dataset"),
        (["run", "--dataset", "nope"], "no benchmark named 'nope'"),
        (["run", "--dataset", "tiny", "--template", "x", "--template-file", "y.jinja"], "not both"),
        (["run", "--dataset", "tiny", "--program", "nope"], "unknown program 'nope'"),
        (["run", "--dataset", "tiny", "--template", "no-such-template"], "no template named 'no-such-template'"),
        (["run", "--dataset", "tiny", "--max-tokens", "0"], "--max-tokens must be between 1 and 1,000,000, got 0"),
        (["run", "--resume", "abc", "--repeat", "abc"], "not both"),
        (["run", "--resume", "ffffff"], "no run 'ffffff'"),
        (["trace", "ffffff", "q1"], "no run 'ffffff'"),
        (["run", "--dataset", "tiny", "--concurrency", "0"], "--concurrency must be between 1 and 256"),
        (
            ["run", "--dataset", "tiny", "--timeout", "0"],
            "--timeout must be more than 0 and at most 86,400 seconds, got 0",
        ),
        (["run", "--repeat", "abc", "--detach"], "--detach works with a new run or --resume"),
        (["stop", "ffffff"], "no run 'ffffff'"),
    ],
)
def test_bad_input_exits_1_with_a_one_line_error(tiny_workspace, capsys, argv, message):
    code, out, err = call(capsys, *argv, "--db", str(tiny_workspace.path))
    assert code == 1
    assert err.startswith("error: ") and message in err and "Traceback" not in err
    assert tiny_workspace.db["runs"].count == 0


def test_runs_on_an_empty_workspace_says_so(workspace, capsys):
    code, out, _ = call(capsys, "runs", "--db", str(workspace.path))
    assert code == 0 and "no runs yet" in out
    code, out, _ = call(capsys, "runs", "--db", str(workspace.path), "--json")
    assert json.loads(out) == []
