"""One CLI invocation under the fuzzing suite's bounds, and the property every invocation must have: exit 0 with a
usable answer, or a non-zero exit with ONE line that is not the last resort's `internal error:`; never a traceback."""

from __future__ import annotations

import io
import re
import resource
import signal
import sqlite3
from contextlib import contextmanager, redirect_stderr, redirect_stdout
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator, Sequence

from playground.cli import main

TIME_LIMIT_S = 30
MEMORY_HEADROOM = 4 * 1024**3  # address space one command may add to what the test process already holds
TIMED_OUT = 124
USAGE_ERROR = re.compile(r"^playground[\w -]*: error: ", re.MULTILINE)


class TookTooLong(BaseException):
    """Raised by the alarm; a BaseException so that the CLI's last resort cannot turn it into a line."""


@dataclass
class Outcome:
    argv: list[str]
    code: int
    out: str
    err: str

    def describe(self) -> str:
        shown = [a if len(a) < 80 else f"{a[:40]!r}...({len(a)} chars)" for a in self.argv]
        return f"argv={shown!r} exit={self.code} stderr={self.err[:2000]!r}"


@contextmanager
def bounded(seconds: int = TIME_LIMIT_S, headroom: int = MEMORY_HEADROOM) -> Iterator[None]:
    """SIGALRM after `seconds`, and RLIMIT_AS at the current address space plus `headroom` (a MemoryError past it)."""

    def alarm(signum, frame):
        raise TookTooLong(f"still running after {seconds} s")

    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    previous = signal.signal(signal.SIGALRM, alarm)
    signal.alarm(seconds)
    resource.setrlimit(resource.RLIMIT_AS, (_address_space() + headroom, hard))
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))


def _address_space() -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmSize:"):
            return int(line.split()[1]) * 1024
    raise RuntimeError("no VmSize in /proc/self/status")


def invoke(argv: Sequence[str]) -> Outcome:
    """`playground ARGV` in this process (main() catches as the console script does), stdout and stderr captured."""
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err), bounded():
        try:
            code = main(list(argv))
        except SystemExit as exit:  # argparse's own refusals (usage, then one `error:` line) exit 2
            code = exit.code if isinstance(exit.code, int) else 1
        except TookTooLong as late:  # an ordinary failure of the property, so that Hypothesis shrinks it
            code = TIMED_OUT
            print(f"[fuzz] {late}", file=err)
    return Outcome(list(argv), code, out.getvalue(), err.getvalue())


def assert_well_behaved(outcome: Outcome) -> None:
    """Exit 0, or a refusal in one line (argparse's usage lines before its one `error:` line are its standard form)."""
    assert outcome.code != TIMED_OUT, f"past the time limit: {outcome.describe()}"
    err = "\n".join(shown_lines(outcome.err))
    assert "Traceback" not in err and "Traceback" not in outcome.out, outcome.describe()
    assert not err.startswith("internal error:") and "\ninternal error:" not in err, outcome.describe()
    if outcome.code == 0:
        return
    if not err and outcome.out.strip():  # an answer that is a report of what is wrong (`workspace check`, `open`)
        return
    if outcome.code == 2 and USAGE_ERROR.search(err):  # argparse: `usage: ...` lines, then its one error line
        last = err.rstrip("\n").splitlines()[-1]
        assert USAGE_ERROR.match(last), outcome.describe()
        return
    lines = shown_lines(err)
    assert len(lines) == 1 and lines[0].strip(), f"not one line: {outcome.describe()}"


def shown_lines(text: str) -> list[str]:
    """The lines a terminal is left showing: a progress bar that rewrote itself with \\r and was erased is not a line."""
    shown = [line.rsplit("\r", 1)[-1].rstrip() for line in text.split("\n")]
    return [line for line in shown if line]


def dump(path: Path | str) -> list[str]:
    """The database's SQL dump (sqlite3's iterdump), read without writing: what "unchanged" compares."""
    connection = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        return list(connection.iterdump())
    finally:
        connection.close()
