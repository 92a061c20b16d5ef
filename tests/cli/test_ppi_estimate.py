"""`rate sample`, `rate import` and `judge estimate --json` in-process against a real local HTTP server playing the
answer-relevance judge with planted grades (too generous by one grade): the estimate equals ppi-python's on the same
numbers, ratings outside the drawn sample are excluded and counted, a judge error is left out and counted, and a bad
ratings file is refused in one line naming its line number with nothing stored."""

from __future__ import annotations

import json

import numpy as np
import pytest

import playground.cli as cli
from tests.evaluation.judges.graded_server import GradedJudgeServer
from tests.evaluation.judges.planted_runs import GARBLED, N_QUESTIONS, planted


@pytest.fixture
def server():
    running = GradedJudgeServer()
    yield running
    running.close()


def call(capsys, *argv) -> tuple[int, str, str]:
    code = cli.main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def write_lines(path, records) -> str:
    path.write_text("\n".join(r if isinstance(r, str) else json.dumps(r) for r in records) + "\n")
    return str(path)


def test_sample_import_and_estimate_match_ppi_python(tiny_workspace, server, capsys, tmp_path):
    import ppi_py  # the reference (scipy, statsmodels): imported where it is compared, not at collection

    db = str(tiny_workspace.path)
    run_id, people, judge = planted(tiny_workspace)
    code, out, _ = call(capsys, "judge", "answer-relevance", run_id, "--judge-model", server.spec(), "--db", db)
    assert code == 0

    code, out, _ = call(capsys, "rate", "sample", run_id, "--n", "30", "--seed", "7", "--db", db, "--json")
    sample = json.loads(out)["question_ids"]
    assert code == 0 and len(sample) == len(set(sample)) == 30 and GARBLED not in sample
    code, again, _ = call(capsys, "rate", "sample", run_id, "--n", "30", "--seed", "7", "--db", db, "--json")
    assert json.loads(again)["question_ids"] == sample  # the same seed draws the same sample

    outside = sorted(set(judge) - set(sample))[:2]
    records = [{"question_id": qid, "value": people[qid]} for qid in sample + outside]
    code, out, _ = call(capsys, "rate", "import", run_id, write_lines(tmp_path / "r.jsonl", records), "--db", db)
    assert code == 0 and "stored 32 rating(s) of answer_relevance" in out and "2 outside the drawn sample" in out

    code, out, _ = call(capsys, "judge", "estimate", run_id, "--db", db, "--json", "--target-half-width", "0.05")
    report = json.loads(out)
    unrated = [judge[q] for q in sorted(set(judge) - set(sample))]
    y, yhat = np.array([people[q] for q in sample]), np.array([judge[q] for q in sample])
    low, high = ppi_py.ppi_mean_ci(y, yhat, np.array(unrated), alpha=0.1)
    mean = ppi_py.ppi_mean_pointestimate(y, yhat, np.array(unrated))
    ppi = report["prediction_powered"]
    assert ppi["mean"] == pytest.approx(float(np.ravel(mean)[0]), abs=1e-9)
    assert (ppi["low"], ppi["high"]) == pytest.approx((float(np.ravel(low)[0]), float(np.ravel(high)[0])), abs=1e-9)
    assert (ppi["n_rated"], ppi["n_unrated"]) == (30, N_QUESTIONS - 1 - 30)
    assert report["judge_only"]["mean"] == pytest.approx(np.mean(list(judge.values())))
    assert (
        report["judge_only"]["n"] == N_QUESTIONS - 1 and report["judge_only"]["label"] == "assumes the judge is right"
    )
    assert report["human_only"]["mean"] == pytest.approx(y.mean()) and report["human_only"]["n"] == 30
    assert report["excluded_ratings"] == 2 and report["judge_errors"] == 1
    assert report["judge_only"]["mean"] > ppi["high"]  # the generous judge's mean lies above the corrected interval
    needed = report["ratings_needed"]
    assert needed["needed"] > 30 and needed["more"] == needed["needed"] - 30 and "Var(Y − λₙŶ)" in needed["formula"]

    code, out, _ = call(capsys, "judge", "estimate", run_id, "--db", db)
    assert "assumes the judge is right" in out and "2 rating(s) outside the sample excluded" in out
    assert "1 judge error(s) left out" in out


BAD_LINES = [
    ({"question_id": "pq01", "value": 7.5}, "line 2: value 7.5 is outside answer_relevance's range 0-1"),
    ({"question_id": "nope", "value": 0.5}, "line 2: question 'nope' is not in run"),
    ("{not json", "line 2: not a JSON object"),
    ({"question": "pq01", "value": 0.5}, 'line 2: expected {"question_id": ..., "value": ...}'),
    ('{"question_id": "pq01", "value": ' + "9" * 5000 + "}", "line 2: integer of 5000 digits is too large"),
    ("[" * 100_000 + "]" * 100_000, "line 2: JSON nested deeper than 64 levels"),
    ('{"question_id": "pq01", "value": NaN}', "line 2: NaN is not a number JSON allows"),
    ({"question_id": "x" * 50_000, "value": 0.5}, "characters) is not in run"),
]


def test_a_bad_line_is_refused_in_one_line_and_nothing_is_stored(tiny_workspace, server, capsys, tmp_path):
    db = str(tiny_workspace.path)
    run_id, _, _ = planted(tiny_workspace)
    code, out, err = call(capsys, "judge", "estimate", run_id, "--db", db)
    assert code != 0 and "has no judge scores" in err and len(err.strip().splitlines()) == 1
    assert call(capsys, "judge", "answer-relevance", run_id, "--judge-model", server.spec(), "--db", db)[0] == 0
    for bad_line, message in BAD_LINES:
        path = write_lines(tmp_path / "bad.jsonl", [{"question_id": "pq00", "value": 0.25}, bad_line])
        code, out, err = call(capsys, "rate", "import", run_id, path, "--db", db)
        assert code != 0 and message in err and "nothing was imported" in err, err
        assert len(err.strip().splitlines()) == 1
        assert tiny_workspace.db["ratings"].count == 0
    code, out, err = call(capsys, "judge", "estimate", run_id, "--db", db, "--judge", "faithfulness")
    assert code != 0 and "no judge scores for 'faithfulness' (it has: answer_relevance)" in err


def scalar(value) -> float:
    return float(np.ravel(value)[0])


def test_compare_gives_the_prediction_powered_difference_and_names_the_verdicts_interval(
    tiny_workspace, server, capsys, tmp_path
):
    import ppi_py

    db = str(tiny_workspace.path)
    run_a, people_a, judge_a = planted(tiny_workspace, 1)
    run_b, people_b, judge_b = planted(tiny_workspace, 2, lift=0.6, new_dataset=False)
    for run_id in (run_a, run_b):
        assert call(capsys, "judge", "answer-relevance", run_id, "--judge-model", server.spec(), "--db", db)[0] == 0
    code, out, _ = call(capsys, "compare", run_a, run_b, "--db", db, "--json")
    row = json.loads(out)["metrics"]["answer_relevance"]
    assert row["prediction_powered"]["prediction_powered"] is None and row["verdict"]["interval"] == "bootstrap"

    samples = []
    for run_id, people in ((run_a, people_a), (run_b, people_b)):
        code, out, _ = call(capsys, "rate", "sample", run_id, "--n", "40", "--seed", "3", "--db", db, "--json")
        samples.append(json.loads(out)["question_ids"])
        records = [{"question_id": qid, "value": people[qid]} for qid in samples[-1]]
        assert (
            call(capsys, "rate", "import", run_id, write_lines(tmp_path / f"{run_id}.jsonl", records), "--db", db)[0]
            == 0
        )
    code, out, _ = call(capsys, "compare", run_a, run_b, "--db", db, "--json")
    row = json.loads(out)["metrics"]["answer_relevance"]
    rated = sorted(set(samples[0]) & set(samples[1]))
    both = sorted(set(judge_a) & set(judge_b))
    y = np.array([people_b[q] - people_a[q] for q in rated])
    yhat = np.array([judge_b[q] - judge_a[q] for q in rated])
    rest = np.array([judge_b[q] - judge_a[q] for q in both if q not in set(rated)])
    low, high = ppi_py.ppi_mean_ci(y, yhat, rest, alpha=0.05)
    ppi = row["prediction_powered"]["prediction_powered"]
    assert ppi["n_rated"] == len(rated) >= 2 and ppi["n_unrated"] == len(rest)
    assert (ppi["low"], ppi["high"]) == pytest.approx((scalar(low), scalar(high)), abs=1e-9)
    assert row["prediction_powered"]["judge_only"]["mean"] == pytest.approx(
        np.mean([judge_b[q] - judge_a[q] for q in both])
    )
    assert row["verdict"]["interval"] == "prediction_powered"
    assert row["verdict"]["says"] == (
        "B better" if ppi["low"] > 0 else "A better" if ppi["high"] < 0 else "no clear difference"
    )
    code, out, _ = call(capsys, "compare", run_a, run_b, "--db", db)
    assert "answer_relevance B-A: judge only" in out and "verdict (prediction_powered interval)" in out


def test_ratings_are_read_as_the_importers_read_json_lines(tiny_workspace, server, capsys, tmp_path):
    """A byte-order mark is dropped and a U+2028 inside a value is no line break (JSON allows it raw)."""
    db = str(tiny_workspace.path)
    run_id, _, _ = planted(tiny_workspace)
    assert call(capsys, "judge", "answer-relevance", run_id, "--judge-model", server.spec(), "--db", db)[0] == 0
    lines = [{"question_id": "pq00", "value": 0.25, "note": "one\u2028two"}, {"question_id": "pq01", "value": 0.5}]
    path = tmp_path / "bom.jsonl"
    path.write_bytes(b"\xef\xbb\xbf" + "\n".join(json.dumps(r, ensure_ascii=False) for r in lines).encode())
    code, out, err = call(capsys, "rate", "import", run_id, str(path), "--db", db)
    assert code == 0 and "stored 2 rating(s)" in out, err
