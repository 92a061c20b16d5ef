"""docs/labels.md runs as written: its commands against a real workspace (VERSION standing for a stored version's
id), then its Python block in a fresh process, which must print the labelled version's id and its messages."""

from __future__ import annotations

import json
import re
import shlex
import subprocess
import sys
from pathlib import Path

from playground.cli import main
from playground.prompts.library import load_template
from playground.store.prompts import save_prompt_version
from tests.test_documented_commands import command_lines

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "labels.md"


def test_the_labels_page_runs_as_written(workspace, tmp_path, capsys, monkeypatch):
    version = save_prompt_version(workspace, load_template("rag-short-answer"))
    text = DOC.read_text(encoding="utf-8")
    monkeypatch.chdir(workspace.path.parent.parent)  # the doc's paths: sessions/playground.db, prompt.json
    lines = command_lines(text)
    assert len(lines) >= 6
    for line in lines:
        argv = [word.replace("VERSION", version[:8]) for word in shlex.split(line)[1:]]
        code = main([*argv, "--db", str(workspace.path)])
        assert code == 0, f"`{line}` exited {code}: {capsys.readouterr().err}"
    out = capsys.readouterr().out
    assert "prod" in out and "staging" in out
    exported = json.loads(Path("prompt.json").read_text(encoding="utf-8"))
    assert exported["version_id"] == version and exported["label"] == "prod"

    [block] = re.findall(r"```python\n(.*?)```", text, re.S)
    ran = subprocess.run(
        [sys.executable, "-c", block],
        cwd=workspace.path.parent.parent,
        env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert ran.returncode == 0, ran.stderr
    assert ran.stdout.startswith(version) and "Question: Where is the Prado museum?" in ran.stdout
    assert "[2] : Paris is the capital of France." in ran.stdout
