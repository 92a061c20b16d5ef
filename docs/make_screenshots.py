"""Retake the README's screenshots: the end-to-end test that takes them from the demo workspace, in Debian's
Chromium, with each page settled (no spinner), copying them to docs/screenshots.

    .venv/bin/python docs/make_screenshots.py
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def main() -> int:
    env = dict(os.environ, PLAYGROUND_README_SCREENSHOTS="1", PYTHONPATH=str(ROOT))
    return subprocess.call([sys.executable, "-m", "pytest", "-q", "tests/e2e/test_readme_screenshots.py"],
                           cwd=ROOT, env=env)


if __name__ == "__main__":
    sys.exit(main())
