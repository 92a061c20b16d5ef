"""`make test` runs lint and typecheck beside the suite: either one failing still fails the target, after the suite
has run and with the checks' report printed. Planted commands stand in for the three (make's command-line
variables), and the install steps are taken as done (-o), so nothing is installed or linted for real here."""

from __future__ import annotations

import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def make_test(tmp_path: Path, lint: str, typecheck: str, suite: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [
            "make", "--no-print-directory", "-C", str(ROOT), "-o", "install", "-o", "browser", "-o", "phoenix", "test",
            f"LINT_COMMAND={lint}", f"TYPECHECK_COMMAND={typecheck}", f"PYTEST_SUITE={suite}",
            f"CHECKS_LOG={tmp_path / 'checks.log'}",
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )  # fmt: skip


def test_a_failing_lint_fails_make_test_after_the_suite_ran_and_says_so(tmp_path):
    done = make_test(tmp_path, "echo planted lint finding; false", "echo types checked", "--version")
    assert done.returncode != 0, done.stdout
    assert "pytest" in done.stdout + done.stderr, "the suite ran though lint failed"
    report = done.stdout.split("--- lint and typecheck ---", 1)[1]
    assert "planted lint finding" in report and "types checked" not in report
    assert "make test: lint or typecheck failed" in report


def test_a_failing_typecheck_fails_make_test_too(tmp_path):
    done = make_test(tmp_path, "true", "echo planted type error; false", "--version")
    assert done.returncode != 0 and "planted type error" in done.stdout, done.stdout


def test_passing_checks_and_suite_pass_and_a_failing_suite_fails(tmp_path):
    passing = make_test(tmp_path, "true", "true", "--version")
    assert passing.returncode == 0, passing.stdout + passing.stderr
    assert "lint or typecheck failed" not in passing.stdout
    failing = make_test(tmp_path, "true", "true", "--no-such-option")
    assert failing.returncode != 0 and "lint or typecheck failed" not in failing.stdout
