"""`-o` as careful tools write it: a regular file or '-', never a folder, device or link to one; no folders made;
no file replaced without --force; a full disk or a read-only folder in one line; never a `.part` left behind; the
path checked before long work. Real workspaces, the real command, real device nodes (as root) and rlimits."""

from __future__ import annotations

import json
import os
import resource
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from playground.cli import main
from playground.store import open_workspace
from playground.store.datasets import save_dataset
from playground.store.sessions import add_note, new_session
from tests.conftest import copied_file, tiny_dataset

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def study_workspace_file(tmp_path_factory) -> Path:
    """A workspace with session `study`, made once for the module (each test gets a copy)."""
    path = tmp_path_factory.mktemp("study") / "playground.db"
    workspace = open_workspace(path)
    save_dataset(workspace, "tiny", tiny_dataset())
    new_session(workspace, "study")
    add_note(workspace, "study", "n" * 300_000)  # an export of ~300 KB, over the size limit set below
    workspace.close()
    return path


@pytest.fixture
def db_path(study_workspace_file, tmp_path):
    return copied_file(study_workspace_file, tmp_path / "ws" / "playground.db")


def _export(db_path, target, *extra) -> int:
    return main(["session", "export", "study", "-o", str(target), "--db", db_path, *extra])


def _one_error_line(err: str, *expected: str) -> None:
    assert err.count("\n") == 1 and err.startswith("error: "), err
    assert "Traceback" not in err and "internal error" not in err
    for text in expected:
        assert text in err, err


def _no_part_files(folder: Path) -> None:
    assert not [p.name for p in folder.iterdir() if p.name.endswith(".part")]


def test_a_regular_file_then_refused_without_force_then_replaced_with_it(db_path, tmp_path, capsys):
    target = tmp_path / "study.json"
    assert _export(db_path, target) == 0
    capsys.readouterr()
    target.write_text("keep me")
    assert _export(db_path, target) == 1
    _one_error_line(capsys.readouterr().err, str(target), "exists", "--force")
    assert target.read_text() == "keep me"
    assert _export(db_path, target, "--force") == 0
    assert json.loads(target.read_text())["session"]["name"] == "study"
    _no_part_files(tmp_path)


def test_dash_is_stdout(db_path, capsys):
    assert _export(db_path, "-") == 0
    assert json.loads(capsys.readouterr().out)["session"]["name"] == "study"


def test_a_folder_is_refused_and_left_clean(db_path, tmp_path, capsys):
    folder = tmp_path / "out"
    folder.mkdir()
    assert _export(db_path, folder) == 1
    _one_error_line(capsys.readouterr().err, str(folder), "is a folder")
    assert list(folder.iterdir()) == []
    _no_part_files(tmp_path)


def test_missing_folders_are_not_created(db_path, tmp_path, capsys):
    target = tmp_path / "missing" / "dir" / "x.json"
    assert _export(db_path, target) == 1
    _one_error_line(capsys.readouterr().err, "does not exist", "create it first")
    assert not (tmp_path / "missing").exists()


def test_dev_full_is_a_device_and_is_refused(db_path, tmp_path, capsys):
    full = Path("/dev/full")
    if os.geteuid() == 0:  # as root, code without the check replaces the machine's /dev/full: use a node of its own
        full = tmp_path / "full"
        os.mknod(full, 0o666 | stat.S_IFCHR, os.makedev(1, 7))
    assert _export(db_path, full) == 1
    _one_error_line(capsys.readouterr().err, f"{full} is a device")
    assert stat.S_ISCHR(os.lstat(full).st_mode)


@pytest.mark.skipif(os.geteuid() != 0, reason="making a device node needs root")
def test_a_device_node_stays_a_device_node(db_path, tmp_path, capsys):
    node = tmp_path / "null-copy"
    os.mknod(node, 0o666 | stat.S_IFCHR, os.makedev(1, 3))  # the same device as /dev/null
    for extra in ([], ["--force"]):
        assert _export(db_path, node, *extra) == 1
        _one_error_line(capsys.readouterr().err, "is a device")
        assert stat.S_ISCHR(os.lstat(node).st_mode)
    _no_part_files(tmp_path)


def test_a_link_to_a_special_file_is_refused_and_kept(db_path, tmp_path, capsys):
    link = tmp_path / "stdout-link"
    link.symlink_to("/dev/null")
    assert _export(db_path, link, "--force") == 1
    _one_error_line(capsys.readouterr().err, "is a link to a device")
    assert link.is_symlink() and os.readlink(link) == "/dev/null"


def test_a_link_to_a_regular_file_replaces_that_file_with_force(db_path, tmp_path, capsys):
    real = tmp_path / "real.json"
    real.write_text("old")
    link = tmp_path / "link.json"
    link.symlink_to(real)
    assert _export(db_path, link) == 1
    _one_error_line(capsys.readouterr().err, "exists")
    assert _export(db_path, link, "--force") == 0
    assert link.is_symlink() and json.loads(real.read_text())["session"]["name"] == "study"


def test_a_read_only_folder_is_one_line(db_path, tmp_path, capsys):
    if os.geteuid() == 0:
        folder = Path("/sys")  # sysfs: no file can be made in it, not even by root
    else:
        folder = tmp_path / "read-only"
        folder.mkdir()
        folder.chmod(0o555)
    assert _export(db_path, folder / "x.json") == 1
    _one_error_line(capsys.readouterr().err, "x.json", "permission denied")
    assert not (folder / "x.json").exists()


def test_a_full_disk_is_one_line_and_leaves_no_part_file(db_path, tmp_path):
    """The file-size limit (ulimit -f) stands in for a full disk: the write fails part-way with EFBIG."""
    target = tmp_path / "big.json"

    def limit_file_size() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (100_000, 100_000))

    env = {**os.environ, "PYTHONPATH": str(REPO)}
    done = subprocess.run(
        [sys.executable, "-m", "playground", "session", "export", "study", "-o", str(target), "--db", db_path],
        capture_output=True,
        text=True,
        env=env,
        preexec_fn=limit_file_size,
        timeout=120,
    )
    assert done.returncode == 1, done.stderr
    _one_error_line(done.stderr, str(target), "size limit")
    assert not target.exists()
    _no_part_files(tmp_path)


def test_sweep_checks_its_output_before_any_run(db_path, tmp_path, capsys):
    target = tmp_path / "missing" / "chart.html"
    assert main(["sweep", "--dataset", "tiny", "--sweep", "k=0,1", "-o", str(target), "--db", db_path]) == 1
    _one_error_line(capsys.readouterr().err, "does not exist")
    workspace = open_workspace(db_path, create=False)
    try:
        assert workspace.db["runs"].count == 0
    finally:
        workspace.close()
