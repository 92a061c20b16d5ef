"""No large file enters the repository: a submission over the size limit is refused whole, so models, fonts,
datasets, databases and screenshots made by tests stay out of git (they go to artifacts/ or a temporary folder)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
LARGEST_TRACKED_BYTES = 512 * 1024


def tracked_files() -> list[Path]:
    if not (ROOT / ".git").exists():
        pytest.skip("not a git checkout")
    listed = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True).stdout
    return [ROOT / name for name in listed.decode("utf-8", "surrogateescape").split("\0") if name]


def test_no_tracked_file_is_large():
    large = {
        str(path.relative_to(ROOT)): path.stat().st_size
        for path in tracked_files()
        if path.is_file() and path.stat().st_size > LARGEST_TRACKED_BYTES
    }
    assert not large, f"files over {LARGEST_TRACKED_BYTES} bytes tracked by git: {large}"
