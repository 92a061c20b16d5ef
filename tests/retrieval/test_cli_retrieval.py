import json

import pytest

from playground.cli import main


@pytest.fixture
def db(tiny_workspace):
    return str(tiny_workspace.path)


def run_json(capsys, *argv):
    code = main(["--db", argv[0], *argv[1:], "--json"])
    out = capsys.readouterr().out
    assert code == 0, out
    return json.loads(out)


def test_index_build_then_up_to_date(db, capsys):
    built = run_json(capsys, db, "index", "build", "--dataset", "tiny", "--retriever", "bm25", "--param", "k1=1.2")
    assert built["built"] is True and built["params"]["k1"] == 1.2 and built["kind"] == "bm25"
    again = run_json(capsys, db, "index", "build", "--dataset", "tiny", "--retriever", "bm25", "--param", "k1=1.2")
    assert again["built"] is False and again["path"] == built["path"]


def test_retrieve_prints_hits_with_passage_fields(db, capsys):
    payload = run_json(
        capsys,
        db,
        "retrieve",
        "--dataset",
        "tiny",
        "--retriever",
        "bm25",
        "-k",
        "2",
        "Which river flows through Paris?",
    )
    hits = payload["hits"]
    assert [h["rank"] for h in hits] == [1, 2]
    assert hits[0]["id"] == "p4" and hits[0]["title"] == "Seine" and "English Channel" in hits[0]["text"]
    assert hits[0]["score"] >= hits[1]["score"]


def test_retrieve_text_output(db, capsys):
    assert (
        main(["--db", db, "retrieve", "--dataset", "tiny", "--retriever", "dense", "-k", "1", "Who created Python?"])
        == 0
    )
    assert "[p5] Python" in capsys.readouterr().out


@pytest.mark.slow
def test_eval_retrieval_json_has_exactly_the_issue_keys(db, capsys):
    result = run_json(
        capsys,
        db,
        "eval-retrieval",
        "--dataset",
        "tiny",
        "--retriever",
        "hybrid",
        "-k",
        "5",
        "--sample",
        "4",
        "--seed",
        "1",
    )
    assert set(result) == {
        "recall@k",
        "mrr@k",
        "ndcg@k",
        "p50_ms",
        "p95_ms",
        "n",  # the issue's keys, then
        "answer_recall@k",  # a top k holding an answer string, and the questions it counts
        "n_answers",
        "intervals",
        "interval",
        "run_id",
    }  # each mean's interval, its method, the stored run
    assert result["n"] == 4 and 0.5 <= result["recall@k"] <= 1.0


def test_user_errors_exit_1_with_a_message(db, capsys):
    assert main(["--db", db, "index", "build", "--dataset", "tiny", "--param", "kl=1"]) == 1
    assert "no parameter 'kl'" in capsys.readouterr().err
    assert main(["--db", db, "retrieve", "--dataset", "nope", "query"]) == 1
    assert "nope" in capsys.readouterr().err
    assert main(["--db", db, "index", "build", "--dataset", "tiny", "--param", "novalue"]) == 1
    assert "KEY=VALUE" in capsys.readouterr().err
