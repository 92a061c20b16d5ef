"""docs/figures.md, section by section, written by the bench scripts themselves from what they print.

A bench script ends with `sys.exit(figures.run("NAME", main))`; given `--figures`, everything it prints is also
written into the section `<!-- figures: NAME -->` of docs/figures.md (replaced whole, or appended), so a figure in
the docs is what a bench printed on some machine, with the machine named, never a number typed by hand.
"""

from __future__ import annotations

import contextlib
import io
import os
import platform
import sys
import time
from pathlib import Path
from typing import Callable

FIGURES = Path(__file__).resolve().parents[1] / "docs" / "figures.md"
FLAG = "--figures"


def opening(name: str) -> str:
    return f"<!-- figures: {name} -->"


def closing(name: str) -> str:
    return f"<!-- /figures: {name} -->"


def machine() -> str:
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text(encoding="ascii", errors="replace").splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return f"{cpu}, {os.cpu_count()} cores, Python {platform.python_version()}"


def section(name: str, printed: str) -> str:
    stamp = time.strftime("%Y-%m-%d", time.gmtime())
    body = printed.rstrip("\n").replace("```", "'''")
    return (
        f"{opening(name)}\n## bench/{name}.py\n\nPrinted by `python bench/{name}.py {FLAG}` on {stamp} ({machine()}):\n\n"
        f"```text\n{body}\n```\n{closing(name)}"
    )


def write_section(name: str, printed: str, path: Path = FIGURES) -> None:
    """Replace the named section of `path` with `printed` (or add it at the end), keeping every other section."""
    text = path.read_text(encoding="utf-8") if path.exists() else "# Figures\n"
    new = section(name, printed)
    start, end = text.find(opening(name)), text.find(closing(name))
    if start >= 0 and end > start:
        text = text[:start] + new + text[end + len(closing(name)) :]
    else:
        text = text.rstrip("\n") + "\n\n" + new + "\n"
    staging = path.with_name(f".{path.name}.tmp-{os.getpid()}")
    staging.write_text(text, encoding="utf-8")
    os.replace(staging, path)


class Tee(io.TextIOBase):
    def __init__(self, *streams):
        self.streams = streams

    def write(self, text: str) -> int:
        for stream in self.streams:
            stream.write(text)
        return len(text)

    def flush(self) -> None:
        for stream in self.streams:
            stream.flush()


def run(name: str, main: Callable[[], int | None], path: Path = FIGURES) -> int:
    """Run a bench's main(); with --figures in argv (taken out before main parses it), record what it printed."""
    if FLAG not in sys.argv:
        return int(main() or 0)
    sys.argv = [arg for arg in sys.argv if arg != FLAG]
    printed = io.StringIO()
    with contextlib.redirect_stdout(Tee(sys.stdout, printed)):
        code = int(main() or 0)
    if code == 0:
        write_section(name, printed.getvalue(), path)
    return code
