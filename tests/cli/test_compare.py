"""`playground compare` over runs stored in a real workspace."""

from __future__ import annotations

import json
import shutil

import pytest

from playground.cli import main
from playground.store import open_workspace
from playground.store.datasets import save_dataset
from playground.store.values import to_json
from playground.store.sessions import new_session
from tests.conftest import tiny_dataset
from tests.store.test_sessions import add_runs


@pytest.fixture(scope="module")
def two_runs_file(tmp_path_factory):
    """Run A and run B over `tiny` differing only in the prompt version; A failed on q6. Made once for the module.

    em per question: A = 0,1,0,1,0 (q1..q5), B = 1,0,1,0,1,0 (q1..q6).
    """
    path = tmp_path_factory.mktemp("two-runs") / "playground.db"
    ws = open_workspace(path)
    save_dataset(ws, "tiny", tiny_dataset())
    run_a, run_b = add_runs(ws, new_session(ws, "ab")["id"])
    ws.close()
    return path, run_a, run_b


@pytest.fixture
def two_runs(two_runs_file, tmp_path):
    """two_runs_file's workspace copied to this test's sessions/playground.db, and the two run ids."""
    built, run_a, run_b = two_runs_file
    path = tmp_path / "sessions" / "playground.db"
    path.parent.mkdir()
    shutil.copyfile(built, path)
    return str(path), run_a, run_b


def compare_json(capsys, db, *argv) -> dict:
    assert main(["compare", *argv, "--db", db, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_paired_statistics_over_common_error_free_questions(two_runs, capsys):
    db, run_a, run_b = two_runs
    report = compare_json(capsys, db, run_a, run_b[:8])
    assert report["run_b"]["id"] == run_b
    assert report["n"] == 5 and report["question_ids"] == ["q1", "q2", "q3", "q4", "q5"]
    assert report["excluded"]["errors_a"] == ["q6"] and report["excluded"]["only_b"] == ["q6"]
    em = report["metrics"]["em"]
    assert (em["mean_a"], em["mean_b"]) == (pytest.approx(0.4), pytest.approx(0.6))
    assert em["diff"] == pytest.approx(0.2)
    assert (em["wins"], em["ties"], em["losses"]) == (3, 0, 2)
    assert em["flipped"] == {"improved": ["q1", "q3", "q5"], "regressed": ["q2", "q4"]}
    assert em["test"] == "mcnemar-exact" and em["p_value"] == pytest.approx(1.0)  # 3 vs 2 discordant pairs
    lo, hi = em["ci95"]
    assert lo <= em["diff"] <= hi
    assert report["metrics"]["f1"]["test"].startswith("permutation")
    assert [d["setting"] for d in report["settings_diff"]] == ["template"]
    assert not any("settings" in w for w in report["warnings"])


def test_metric_filter_seed_and_unknown_metric(two_runs, capsys):
    db, run_a, run_b = two_runs
    first = compare_json(capsys, db, run_a, run_b, "--metric", "f1", "--seed", "7")
    assert list(first["metrics"]) == ["f1"]
    assert compare_json(capsys, db, run_a, run_b, "--metric", "f1", "--seed", "7")["metrics"] == first["metrics"]
    assert main(["compare", run_a, run_b, "--metric", "rougeL", "--db", db]) == 1
    assert "rougeL" in capsys.readouterr().err


def test_warns_when_more_than_one_setting_differs(two_runs, capsys):
    db, run_a, run_b = two_runs
    ws = open_workspace(db)
    config = json.loads(next(ws.db.query("SELECT config FROM runs WHERE id = ?", [run_b]))["config"])
    config.update(model="local:/other.gguf", k=3)
    ws.db.execute("UPDATE runs SET config = ? WHERE id = ?", [to_json(config), run_b])
    ws.close()
    report = compare_json(capsys, db, run_a, run_b)
    assert [d["setting"] for d in report["settings_diff"]] == ["template", "k", "model"]
    assert any("differ in 3 settings" in w for w in report["warnings"])
    assert main(["compare", run_a, run_b, "--db", db]) == 0
    captured = capsys.readouterr()
    assert "warning: the runs differ in 3 settings (template, k, model)" in captured.err
    assert "em " in captured.out and "mcnemar-exact" in captured.out and "3/0/2" in captured.out


def test_same_or_unknown_run_is_an_error(two_runs, capsys):
    db, run_a, _ = two_runs
    assert main(["compare", run_a, run_a, "--db", db]) == 1
    assert "same run" in capsys.readouterr().err
    assert main(["compare", run_a, "zzzz", "--db", db]) == 1
    assert "no run 'zzzz'" in capsys.readouterr().err
