"""What a user gets from `pip install .` (not editable): the package with its templates and data, the console script,
and the demo built from them. The wheel is installed into a fresh venv whose dependencies come from this one."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig
import tomllib
from pathlib import Path

import pytest

from tests.conftest import built_demo

ROOT = Path(__file__).resolve().parent.parent


def _run(argv: list, cwd: Path, env: dict) -> str:
    done = subprocess.run([str(a) for a in argv], cwd=cwd, env=env, capture_output=True, text=True, timeout=1200)
    assert done.returncode == 0, f"{argv} failed:\n{done.stdout[-2000:]}\n{done.stderr[-4000:]}"
    return done.stdout


def _index_manifests(indexes: Path) -> list[dict]:
    """The manifests of the built indexes under an indexes folder (not of the embeddings they were made from)."""
    found = [path.parent for path in indexes.glob("*/*/manifest.json")]
    folders = [folder for folder in found if not folder.name.startswith((".", "embeddings-"))]
    return [json.loads((folder / "manifest.json").read_text(encoding="utf-8")) for folder in folders]


@pytest.mark.slow
def test_a_non_editable_install_finds_its_templates_and_builds_the_demo(tmp_path, tmp_path_factory):
    """The demo is set up on a copy of the run's one demo build (tests.conftest.built_demo, made from this tree):
    the installed copy reads its own shipped data, recognises the indexes as built from exactly that data (it would
    rebuild them otherwise) and answers from them; embedding the demo's chunks again would prove nothing more."""
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    site = venv / "lib" / f"python{sys.version_info[0]}.{sys.version_info[1]}" / "site-packages"
    (site / "zz-dependencies.pth").write_text(sysconfig.get_paths()["purelib"] + "\n", encoding="utf-8")
    env = {
        key: value
        for key, value in os.environ.items()
        if key not in ("PYTHONPATH", "PLAYGROUND_DB", "PLAYGROUND_INDEXES", "PLAYGROUND_TEMPLATES")
    }
    dist = tmp_path / "dist"
    _run(
        [sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--no-build-isolation", "-w", dist, ROOT],
        tmp_path,
        env,
    )
    wheel = next(dist.glob("playground-*.whl"))
    _run(
        [sys.executable, "-m", "pip", "--python", venv / "bin" / "python", "install", "--quiet", "--no-deps", wheel],
        tmp_path,
        env,
    )

    python, playground = venv / "bin" / "python", venv / "bin" / "playground"
    where = _run(
        [python, "-c", "import playground.config as c; print(c.__file__); print(c.TEMPLATES_DIR)"], tmp_path, env
    ).split()
    assert all(Path(path).is_relative_to(site) for path in where), where  # the installed copy, not this tree
    shipped = {path.stem for path in (ROOT / "playground" / "templates").glob("*.jinja")}
    listed = json.loads(_run([playground, "templates", "list", "--json"], tmp_path, env))
    assert {template["name"] for template in listed} == shipped

    work = tmp_path / "work"
    shutil.copytree(built_demo(tmp_path_factory), work)
    prebuilt = {(index["kind"], index["built_at"]) for index in _index_manifests(work / "indexes")}
    db = work / "sessions" / "playground.db"
    summary = json.loads(_run([playground, "demo", "--no-app", "--db", db, "--json"], tmp_path, env))
    assert summary["dataset"] == "demo" and {index["kind"] for index in summary["indexes"]} == {"bm25", "dense"}
    assert {(index["kind"], index["built_at"]) for index in summary["indexes"]} == prebuilt  # recognised, not rebuilt
    rendered = json.loads(
        _run(
            [
                playground,
                "render",
                "--db",
                db,
                "--template",
                "rag-short-answer",
                "--dataset",
                "demo",
                "--question",
                "demo-001",
                "--retriever",
                "bm25",
                "-k",
                "2",
                "--json",
            ],
            tmp_path,
            env,
        )
    )
    assert rendered["template"] == "rag-short-answer" and "passages" in rendered["variables_needed"]
    assert rendered["messages"] and rendered["messages"][-1]["content"].strip()


def test_the_package_data_globs_cover_every_template_and_data_file():
    package_data = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"][
        "package-data"
    ]["playground"]
    package = ROOT / "playground"
    for folder in ("templates", "data"):
        files = [p for p in (package / folder).iterdir() if p.is_file() and p.suffix not in (".py", ".pyc")]
        assert files, folder
        for path in files:
            assert any(path.relative_to(package).match(pattern) for pattern in package_data), path
