"""CONTRIBUTING's worked example is executable (issue 32): its three files (a judge module, its template, its test)
are put where a built-in judge's go (the module on the judges package's path, the template among the starters),
and the judge then appears in the registry, `judge`, `run --judge`, the app's Judges tab and `runs`, with nothing
else changed; the example's own test passes."""

from __future__ import annotations

import re
import shutil
import sys
from pathlib import Path

import pytest

import playground.cli as cli
import playground.evaluation.judges as judges_package
from playground.plugins import reset
from tests.evaluation.judges.gold_free_server import JudgeServer

REPO = Path(__file__).resolve().parents[3]
BLOCK = re.compile(r"<!-- file: (?P<path>\S+) -->\n```[\w-]*\n(?P<body>.*?)\n```", re.S)


def example_files() -> dict[str, str]:
    text = (REPO / "CONTRIBUTING.md").read_text(encoding="utf-8")
    return {block["path"]: block["body"] + "\n" for block in BLOCK.finditer(text)}


@pytest.fixture
def brevity_built_in(tmp_path, monkeypatch):
    """The example's module and template installed as a built-in judge's are, for this test only."""
    from playground.prompts import library

    files = example_files()
    assert sorted(files) == [
        "playground/evaluation/judges/brevity.py",
        "playground/templates/judge-brevity.jinja",
        "tests/evaluation/judges/test_brevity.py",
    ], "three files: its module, its template, its test"
    modules = tmp_path / "judges"
    modules.mkdir()
    (modules / "brevity.py").write_text(files["playground/evaluation/judges/brevity.py"], encoding="utf-8")
    starters = tmp_path / "templates"
    shutil.copytree(library.starter_templates_dir(), starters)
    (starters / "judge-brevity.jinja").write_text(files["playground/templates/judge-brevity.jinja"], encoding="utf-8")
    monkeypatch.setattr(judges_package, "__path__", [*judges_package.__path__, str(modules)])
    monkeypatch.setattr(library, "starter_templates_dir", lambda: starters)
    reset()
    yield files["tests/evaluation/judges/test_brevity.py"]
    monkeypatch.undo()
    sys.modules.pop(f"{judges_package.__name__}.brevity", None)
    reset()


@pytest.mark.slow  # a real local HTTP server plays the judge
def test_the_worked_example_judge_appears_everywhere(brevity_built_in, tiny_workspace, capsys):
    from playground.app.screens.experiments.data import judge_kinds
    from playground.cli.runs import add_judge_options
    from playground.evaluation.judges.registry import answer_judge_metrics, judges
    from tests.evaluation.judges.conftest import make_run

    assert "brevity" in judges() and answer_judge_metrics()["brevity"] == "brevity"
    assert judge_kinds()["brevity"].startswith("brevity: is each answer as short")
    import argparse

    run_parser = argparse.ArgumentParser()
    add_judge_options(run_parser)
    assert run_parser.parse_args(["--judge", "brevity"]).judge == ["brevity"]

    server = JudgeServer(judge=lambda prompt: '{"brief": true, "reason": "a single word"}')
    try:
        run_id = make_run(tiny_workspace, {"q1": "Paris", "q2": "Berlin"})
        db = str(tiny_workspace.path)
        assert cli.main(["judge", "brevity", run_id, "--judge-model", server.spec("judge"), "--db", db]) == 0
        assert "brevity 1.000" in capsys.readouterr().out
    finally:
        server.close()
    assert cli.main(["runs", "--db", db]) == 0
    assert "brevity" in capsys.readouterr().out.splitlines()[0]

    namespace: dict = {}
    exec(compile(brevity_built_in, "test_brevity.py", "exec"), namespace)  # the example's own test
    namespace["test_brief_answers_score_one_and_padded_ones_zero"](tiny_workspace)
