import json

import pytest

from playground.cli import main
from playground.store import open_workspace
from playground.store.datasets import load_passages, load_questions
from tests.data import FIXTURES


@pytest.fixture
def db(tmp_path, monkeypatch):
    monkeypatch.delenv("PLAYGROUND_DB", raising=False)
    monkeypatch.setenv("PLAYGROUND_INDEXES", str(tmp_path / "indexes"))
    return str(tmp_path / "sessions" / "playground.db")


def run(capsys, *argv):
    code = main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_import_every_format_then_list(db, capsys):
    sources = {
        "hotpotqa": FIXTURES / "hotpotqa" / "hotpot_dev_distractor_v1.json",
        "squad": FIXTURES / "squad" / "dev-v2.0.json",
        "obqa": FIXTURES / "obqa" / "tsv",
        "helps": FIXTURES / "helps" / "helps.json",
        "beir": FIXTURES / "beir",
        "jsonl": FIXTURES / "jsonl" / "questions.jsonl",
    }
    for name, path in sources.items():
        code, out, err = run(capsys, "--db", db, "data", "import", name, str(path), "--name", f"my-{name}", "--json")
        assert code == 0, err
        summary = json.loads(out)
        assert summary["name"] == f"my-{name}" and summary["format"] == name
    code, out, _ = run(capsys, "data", "list", "--db", db, "--json")
    assert code == 0
    listing = json.loads(out)
    questions = {b["name"]: b["n_questions"] for b in listing["benchmarks"]}
    passages = {c["name"]: c["n_passages"] for c in listing["corpora"]}
    assert questions == {"my-hotpotqa": 3, "my-squad": 2, "my-obqa": 3, "my-helps": 3, "my-beir": 3, "my-jsonl": 5}
    assert passages == {"my-hotpotqa": 6, "my-squad": 1, "my-obqa": 4, "my-beir": 4, "my-jsonl": 2}
    assert {b["name"]: b["corpus"] for b in listing["benchmarks"]}["my-helps"] is None

    code, out, _ = run(capsys, "--db", db, "data", "list")
    assert code == 0
    assert "corpora:" in out and "benchmarks:" in out
    helps_row = next(line for line in out.splitlines() if line.startswith("my-helps"))
    assert helps_row.split() == ["my-helps", "-", "helps", "en", "3"]


def test_text_output_of_import(db, capsys):
    code, out, _ = run(
        capsys, "--db", db, "data", "import", "squad", str(FIXTURES / "squad" / "dev-v1.1.json"), "--name", "sq"
    )
    assert code == 0
    assert "benchmark 'sq' with 5 questions and corpus 'sq' with 3 passages" in out


def test_reimport_needs_replace(db, capsys):
    path = str(FIXTURES / "jsonl" / "questions.jsonl")
    assert run(capsys, "--db", db, "data", "import", "jsonl", path, "--name", "qa")[0] == 0
    code, _, err = run(capsys, "--db", db, "data", "import", "jsonl", path, "--name", "qa")
    assert code == 1 and "--replace" in err
    code, out, _ = run(
        capsys,
        "--db",
        db,
        "data",
        "import",
        "squad",
        str(FIXTURES / "squad" / "dev-v1.1.json"),
        "--name",
        "qa",
        "--replace",
        "--json",
    )
    assert code == 0 and json.loads(out)["questions"] == 5
    workspace = open_workspace(db)
    try:
        assert [q.id for q in load_questions(workspace, "qa")][0] == "57296d571d04691400779413"
    finally:
        workspace.close()


def test_failed_reimport_leaves_the_workspace_as_it_was(db, capsys, tmp_path):
    good = FIXTURES / "hotpotqa" / "hotpot_dev_distractor_v1.json"
    assert run(capsys, "--db", db, "data", "import", "hotpotqa", str(good), "--name", "hp")[0] == 0
    workspace = open_workspace(db)
    before = ([vars(q) for q in load_questions(workspace, "hp")], [vars(p) for p in load_passages(workspace, "hp")])
    workspace.close()
    broken = tmp_path / "broken.json"
    items = json.loads(good.read_text())
    del items[2]["question"]
    broken.write_text(json.dumps(items))
    code, out, err = run(capsys, "--db", db, "data", "import", "hotpotqa", str(broken), "--name", "hp", "--replace")
    assert code == 1 and out == ""
    assert f"error: {broken}, record 3: missing field 'question'" in err
    workspace = open_workspace(db)
    try:
        after = ([vars(q) for q in load_questions(workspace, "hp")], [vars(p) for p in load_passages(workspace, "hp")])
    finally:
        workspace.close()
    assert after == before


def test_unknown_format_and_missing_path(db, capsys):
    code, _, err = run(capsys, "--db", db, "data", "import", "csv", "x.csv", "--name", "x")
    assert code == 1 and "unknown dataset format 'csv'" in err and "hotpotqa" in err
    code, _, err = run(capsys, "--db", db, "data", "import", "jsonl", str(FIXTURES / "absent.jsonl"), "--name", "x")
    assert code == 1 and "absent.jsonl: no such file" in err


def test_list_without_a_workspace_is_an_error(db, capsys):
    code, _, err = run(capsys, "--db", db, "data", "list")
    assert code == 1 and "no workspace" in err


@pytest.mark.slow
def test_sample_is_seeded(db, capsys):
    assert (
        run(capsys, "--db", db, "data", "import", "jsonl", str(FIXTURES / "jsonl" / "questions.jsonl"), "--name", "qa")[
            0
        ]
        == 0
    )
    picks = []
    for seed in (1, 1, 2, 3, 4, 5):
        code, out, _ = run(
            capsys, "--db", db, "data", "sample", "--dataset", "qa", "--sample", "3", "--seed", str(seed), "--json"
        )
        assert code == 0
        payload = json.loads(out)
        assert payload["n"] == 3 and payload["of"] == 5 and payload["seed"] == seed
        assert set(payload["question_ids"]) <= {"cap-fr", "2", "7", "q-letters", "open"}
        picks.append(tuple(payload["question_ids"]))
    assert picks[0] == picks[1]
    assert len(set(picks)) > 1
    code, out, _ = run(capsys, "--db", db, "data", "sample", "--dataset", "qa", "--sample", "3", "--seed", "1")
    assert tuple(out.split()) == picks[0]
    code, _, err = run(capsys, "--db", db, "data", "sample", "--dataset", "nope", "--sample", "3")
    assert code == 1 and "no benchmark named 'nope'" in err
