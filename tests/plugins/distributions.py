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
