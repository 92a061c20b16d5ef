"""`playground gate` against a real local HTTP server playing two models with planted answers: a planted drop beyond
noise fails (exit 1) and the JUnit file names the metric; equal models, and a small drop on few questions, pass and
say the smallest difference the sample could have detected."""

from __future__ import annotations

import random
import re
import xml.etree.ElementTree as ElementTree

import pytest

import playground.cli as cli
from tests.runs.planted_models import PlantedModels, answers, gold, planted_benchmark


def experiment(path, server: PlantedModels, seed: int = 3) -> str:
    path.write_text(
        f'benchmark = "planted"\nseed = {seed}\n\n[variants.baseline]\nmodel = "{server.spec("baseline")}"\n\n'
        f'[variants.candidate]\nmodel = "{server.spec("candidate")}"\n',
        encoding="utf-8",
    )
    return str(path)


def gate(capsys, db, file: str, *extra: str) -> tuple[int, str, str]:
    code = cli.main(
        ["gate", "--baseline", f"{file}:baseline", "--candidate", f"{file}:candidate", "--db", str(db), *extra]
    )
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def detectable(out: str, metric: str) -> float:
    found = re.search(rf"could have detected: .*?\b{metric} (\d+\.\d+)", out)
    assert found, out
    return float(found.group(1))


@pytest.mark.slow
def test_a_planted_15_point_drop_on_200_questions_fails_and_junit_names_the_metric(workspace, tmp_path, capsys):
    ids = planted_benchmark(workspace, 200)
    rng = random.Random(7)
    missed = set(rng.sample(ids, 40))
    dropped = missed | set(rng.sample([q for q in ids if q not in missed], 30))  # 80% -> 65%
    server = PlantedModels({"baseline": answers(ids, missed), "candidate": answers(ids, dropped)}).start()
    try:
        file = experiment(tmp_path / "drop.toml", server)
        junit, summary = tmp_path / "gate.xml", tmp_path / "gate.md"
        code, out, _ = gate(capsys, workspace.path, file, "--junit", str(junit), "--summary", str(summary))
    finally:
        server.close()
    assert code == 1, out
    assert "FAIL: regression" in out and "em is worse: -0.150" in out
    failures = ElementTree.parse(junit).getroot().findall(".//testcase/failure")
    assert len(failures) == 1 and failures[0].get("message", "").startswith("em is worse: difference -0.150")
    assert "excludes zero" in failures[0].get("message", "")
    assert "regression" in summary.read_text(encoding="utf-8") and "| em |" in summary.read_text(encoding="utf-8")


@pytest.mark.slow
def test_equal_models_pass_and_print_the_detectable_difference(workspace, tmp_path, capsys):
    ids = planted_benchmark(workspace, 200)
    rng = random.Random(8)
    shuffled = rng.sample(ids, len(ids))
    server = PlantedModels(  # both right on 160 of 200, wrong on different questions
        {"baseline": answers(ids, set(shuffled[:40])), "candidate": answers(ids, set(shuffled[20:60]))}
    ).start()
    try:
        code, out, _ = gate(capsys, workspace.path, experiment(tmp_path / "equal.toml", server))
    finally:
        server.close()
    assert code == 0, out
    assert "PASS: no significant regression" in out
    assert 0.0 < detectable(out, "em") < 0.15


@pytest.mark.slow
def test_a_2_point_drop_on_20_questions_passes_with_the_caveat(workspace, tmp_path, capsys):
    ids = planted_benchmark(workspace, 20)
    worse = {**answers(ids, set()), ids[5]: gold(ids[5]) + " and three more"}  # f1 1.0 -> 0.571 on one question
    server = PlantedModels({"baseline": answers(ids, set()), "candidate": worse}).start()
    try:
        code, out, _ = gate(capsys, workspace.path, experiment(tmp_path / "small.toml", server), "--metric", "f1")
    finally:
        server.close()
    assert code == 0, out
    assert re.search(r"diff -0\.02\d", out), out
    assert "no significant regression" in out
    assert detectable(out, "f1") > 0.021  # the drop is under what 20 questions can detect: the caveat says so


@pytest.mark.slow
def test_a_floor_fails_the_gate_and_a_spec_naming_nothing_is_a_usage_error(workspace, tmp_path, capsys):
    ids = planted_benchmark(workspace, 20)
    server = PlantedModels({"baseline": answers(ids, set()), "candidate": answers(ids, set(ids[:4]))}).start()
    try:
        file = experiment(tmp_path / "floor.toml", server)
        code, out, _ = gate(capsys, workspace.path, file, "--floor", "em=0.9")
        assert code == 1 and "em = 0.800 is under the floor 0.9" in out
        code, out, _ = gate(capsys, workspace.path, file, "--floor", "em=0.5")
        # 4 of 20 lost: the bootstrap interval excludes zero, exact McNemar does not (p = 0.125): no regression
        assert code == 0 and "the interval excludes zero, the paired test does not" in out, out
        assert (
            cli.main(
                ["gate", "--baseline", f"{file}:nope", "--candidate", f"{file}:baseline", "--db", str(workspace.path)]
            )
            == 2
        )
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "no variant 'nope'" in err
    finally:
        server.close()


@pytest.mark.slow
def test_a_version_spec_runs_with_the_other_sides_settings_on_the_same_sample(workspace, tmp_path, capsys):
    import json

    from playground.store.runs import list_runs

    ids = planted_benchmark(workspace, 30)
    server = PlantedModels({"baseline": answers(ids, set(ids[:3])), "candidate": answers(ids, set())}).start()
    try:
        file = experiment(tmp_path / "versions.toml", server)
        assert cli.main(["eval", file, "--db", str(workspace.path)]) == 0
        capsys.readouterr()
        calls = server.calls
        baseline = next(run for run in list_runs(workspace) if run.config["experiment"]["variant"] == "baseline")
        version = f"direct-short-answer@{baseline.config['prompt_versions']['main'][:8]}"
        code = cli.main(
            ["gate", "--baseline", baseline.id, "--candidate", version, "--db", str(workspace.path), "--json"]
        )
        result = json.loads(capsys.readouterr().out)
    finally:
        server.close()
    assert code == 0 and result["passed"]
    assert [side["kind"] for side in result["specs"]] == ["run", "version"]
    candidate = next(run for run in list_runs(workspace) if run.id == result["candidate"])
    assert candidate.config["model"] == baseline.config["model"]
    assert candidate.config["question_ids"] == baseline.config["question_ids"]
    assert server.calls == calls  # the same requests: answered by the response cache
    assert result["guarded"][0]["diff"] == 0.0


@pytest.mark.parametrize(
    "extra",
    [
        ["-k", "-1"],  # refused while the flags are read (playground.bounds): exit 2, not the 1 of a regression
        ["--floor", "em"],
        ["--alpha", "2"],
        ["--dataset", "caf\udce9"],  # bytes that are not UTF-8, refused before the handler
    ],
)
def test_a_refused_flag_exits_2_never_1(tmp_path, capsys, extra):
    try:
        code = cli.main(["gate", "--baseline", "a", "--candidate", "b", "--db", str(tmp_path / "w.db"), *extra])
    except SystemExit as exit_:  # argparse's own refusal: usage, then one `error:` line
        code = exit_.code
    err = capsys.readouterr().err
    assert code == 2, err
    assert "error" in err and "Traceback" not in err


@pytest.mark.slow
def test_under_the_minimum_sample_the_pass_says_not_enough_data(workspace, tmp_path, capsys):
    ids = planted_benchmark(workspace, 8)
    server = PlantedModels({"baseline": answers(ids, set(ids[:2])), "candidate": answers(ids, set(ids[1:3]))}).start()
    try:
        code, out, _ = gate(capsys, workspace.path, experiment(tmp_path / "few.toml", server))
    finally:
        server.close()
    assert code == 0, out
    assert "could have detected: em not enough data to estimate" in out
