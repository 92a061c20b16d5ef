"""Plugin distributions for real: written to a folder, built and installed by pip (offline, no dependencies) into a
target folder, then loaded through the `playground.plugins` entry point by the CLI in a child process that has the
target on its path, as an installed plugin would be (the shared virtualenv is never changed)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]

PYPROJECT = """\
[build-system]
requires = ["setuptools>=77"]
build-backend = "setuptools.build_meta"

[project]
name = "{name}"
version = "{version}"
dependencies = ["playground"]

[project.entry-points."playground.plugins"]
{entry_point} = "{module}"
"""


def write_distribution(
    root: Path,
    name: str,
    files: dict[str, str],
    pyproject: str | None = None,
    entry_point: str | None = None,
    version: str = "0.1.0",
) -> Path:
    """A distribution folder holding `files` (relative path -> text) and a pyproject naming its one module."""
    folder = root / name
    for relative, text in files.items():
        path = folder / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    module = next(Path(relative).parts[0].removesuffix(".py") for relative in files if relative.endswith(".py"))
    if pyproject is None:
        pyproject = PYPROJECT.format(
            name=name, version=version, module=module, entry_point=entry_point or name.removeprefix("playground-")
        )
    if (folder / module).is_dir() and "package-data" not in pyproject:
        pyproject += f'\n[tool.setuptools.package-data]\n{module} = ["*.jinja"]\n'
    (folder / "pyproject.toml").write_text(pyproject, encoding="utf-8")
    return folder


def install(folders: list[Path], target: Path) -> None:
    """pip-install the distributions into `target` (offline, without dependencies: playground is already there)."""
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "install",
            "--quiet",
            "--no-deps",
            "--no-build-isolation",
            "--no-index",
            "--no-cache-dir",
            "--target",
            str(target),
            *map(str, folders),
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr


def cli(target: Path, *argv: str, env: dict | None = None, timeout: int = 180) -> subprocess.CompletedProcess:
    """`python -m playground ARGV` with this checkout first on the path, then the installed plugins."""
    environment = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(REPO), str(target)]),
        "HF_HUB_OFFLINE": "1",
        **(env or {}),
    }
    return subprocess.run(
        [sys.executable, "-m", "playground", *argv], capture_output=True, text=True, env=environment, timeout=timeout
    )


def cli_json(target: Path, *argv: str, env: dict | None = None) -> dict:
    done = cli(target, *argv, "--json", env=env)
    assert done.returncode == 0, f"playground {' '.join(argv)} failed: {done.stderr}"
    return json.loads(done.stdout)


def registered(report: dict, kind: str, name: str) -> dict:
    """The `playground plugins --json` row of `name` among `kind`, or a failure listing what is there."""
    rows = {row["name"]: row for row in report[kind]}
    assert name in rows, f"{kind} has no {name!r}: {sorted(rows)}; problems: {report['problems']}"
    return rows[name]


# The child of a CliSession: runs `playground.cli.main` for each JSON argv line on stdin, as the console script
# does (SystemExit read as its code, an escaped exception as a traceback and exit 1), and answers one JSON line after
# a mark (a library writing to the file descriptor itself cannot be taken for an answer).
_ANSWER = "playground-cli-session: "
_SESSION_CHILD = (
    r"""
import io, json, sys, traceback
from contextlib import redirect_stderr, redirect_stdout

from playground.cli import main

ANSWER = "%s"
channel = sys.stdout
for line in sys.stdin:
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        try:
            code = main(json.loads(line))
        except SystemExit as exit:
            code = exit.code if isinstance(exit.code, int) else (0 if exit.code is None else 1)
        except BaseException:
            traceback.print_exc()
            code = 1
    channel.write(ANSWER + json.dumps({"code": code, "out": out.getvalue(), "err": err.getvalue()}) + "\n")
    channel.flush()
"""
    % _ANSWER
)


class CliSession:
    """One child process with this checkout and the installed plugins on its path (as `cli` starts per command)
    that runs many `playground` commands in turn: the plugins load through the entry point as for `cli`, and the
    interpreter's start and imports (~1 s a command) are paid once. For tests about what the commands do, not about
    a cold start; close() ends the child."""

    def __init__(self, target: Path, env: dict | None = None):
        environment = {
            **os.environ,
            "PYTHONPATH": os.pathsep.join([str(REPO), str(target)]),
            "HF_HUB_OFFLINE": "1",
            **(env or {}),
        }
        self.child = subprocess.Popen(
            [sys.executable, "-c", _SESSION_CHILD],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            env=environment,
        )

    def __call__(self, *argv: str) -> subprocess.CompletedProcess:
        """`playground ARGV` in the child: its exit code, stdout and stderr, as `cli` returns them."""
        assert self.child.stdin is not None and self.child.stdout is not None
        self.child.stdin.write(json.dumps(list(argv)) + "\n")
        self.child.stdin.flush()
        answer = self.child.stdout.readline()
        while answer and not answer.startswith(_ANSWER):
            answer = self.child.stdout.readline()
        assert answer, f"the CLI session's child ended (exit {self.child.wait()}) during `playground {' '.join(argv)}`"
        done = json.loads(answer[len(_ANSWER) :])
        return subprocess.CompletedProcess(["playground", *argv], done["code"], done["out"], done["err"])

    def json(self, *argv: str) -> dict:
        done = self(*argv, "--json")
        assert done.returncode == 0, f"playground {' '.join(argv)} failed: {done.stderr}"
        return json.loads(done.stdout)

    def close(self) -> None:
        if self.child.stdin is not None:
            self.child.stdin.close()
        try:
            self.child.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.child.kill()
            self.child.wait()
