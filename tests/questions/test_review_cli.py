"""`playground questions review`: the CLI twin of the Workspace page's review (lists the questions, or saves the
decisions given as flags as NAME.reviewed-N), with bad input refused in one line."""

from __future__ import annotations

import json

import pytest

import playground.cli as cli
from playground.store.datasets import get_benchmark, load_questions
from tests.questions.generated import add_generated


@pytest.fixture
def db(workspace):
    add_generated(workspace)
    return str(workspace.path)


def call(capsys, *argv) -> tuple[int, str, str]:
    code = cli.main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_with_no_decision_the_questions_are_listed(db, capsys):
    code, out, err = call(capsys, "questions", "review", "guide-qs", "--db", db, "--json")
    assert code == 0, err
    listing = json.loads(out)
    assert [q["id"] for q in listing] == ["gen-0001", "gen-0002", "gen-0003", "gen-0004"]
    assert listing[3]["source_passage_ids"] == ["guide/mines.md#1", "guide/mines.md#2"]


def test_decisions_as_flags_save_the_reviewed_set(db, workspace, capsys):
    code, out, err = call(
        capsys, "questions", "review", "guide-qs", "--db", db, "--reject", "gen-0003=wrong answer",
        "--edit", "gen-0002", "What did the keepers ring?", "fog bell", "--accept-rest",
    )  # fmt: skip
    assert code == 0, err
    assert out.strip() == (
        "stored 3 question(s) as benchmark 'guide-qs.reviewed-1' (2 accepted, 1 edited; 1 rejected); "
        "'guide-qs' is unchanged"
    )
    questions = {q.id: q for q in load_questions(workspace, "guide-qs.reviewed-1")}
    assert questions["gen-0002"].answers == ["fog bell"] and "gen-0003" not in questions
    review = json.loads(get_benchmark(workspace, "guide-qs.reviewed-1")["metadata"])["review"]
    assert {r["question_id"]: r.get("reason") for r in review["decisions"]}["gen-0003"] == "wrong answer"


@pytest.mark.parametrize(
    "flags, message",
    [
        (["--reject", "gen-0003"], "error: --reject 'gen-0003': give the reason as ID=REASON"),
        (
            ["--accept", "gen-0001", "--reject", "gen-0001=other"],
            "error: question 'gen-0001' has more than one decision",
        ),
        (
            ["--edit", "gen-0001", "Who?", "Brunel", "--accept-rest"],
            "error: question gen-0001: the answer 'Brunel' is not in its source chunk(s) guide/lighthouse.md#1",
        ),
        (["--accept", "gen-0001"], "error: 3 question(s) of 'guide-qs' have no decision yet"),
    ],
)
def test_bad_decisions_are_refused_in_one_line_and_store_nothing(db, workspace, capsys, flags, message):
    code, out, err = call(capsys, "questions", "review", "guide-qs", "--db", db, *flags)
    errors = [line for line in err.splitlines() if line.startswith("error:")]
    assert code == 1 and len(errors) == 1 and errors[0].startswith(message), err
    assert "guide-qs.reviewed-1" not in {b["name"] for b in workspace.db.query("SELECT name FROM benchmarks")}
