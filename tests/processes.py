"""How the tests start a real server process: a free 127.0.0.1 port, the process logging to a file, a wait until
its readiness URL answers 200 (or a clear failure with the log's tail), and a clean stop."""

from __future__ import annotations

import socket
import subprocess
import time
import urllib.error
import urllib.request
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator, Optional


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def wait_ready(
    name: str, process: subprocess.Popen, ready_url: str, log: Path, timeout_s: float, headers: Optional[dict] = None
) -> None:
    """Return once `ready_url` answers 200; raise with the log's tail if the process exits or time runs out."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"{name} exited with {process.returncode}:\n{log.read_text()[-3000:]}")
        try:
            request = urllib.request.Request(ready_url, headers=headers or {})
            with urllib.request.urlopen(request, timeout=2) as response:
                if response.status == 200:
                    return
        except (urllib.error.URLError, ConnectionError, TimeoutError):
            pass
        time.sleep(0.25)
    raise RuntimeError(f"{name} did not answer {ready_url} within {timeout_s:.0f} s:\n{log.read_text()[-3000:]}")


@contextmanager
def served(
    name: str,
    command: list[str],
    ready_url: str,
    log: Path,
    timeout_s: float,
    *,
    headers: Optional[dict] = None,
    env: Optional[dict] = None,
    cwd: Optional[Path] = None,
) -> Iterator[None]:
    """Run `command` until the block ends, once `ready_url` answers; stop it (terminate, then kill) afterwards."""
    with open(log, "wb") as out:
        process = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT, env=env, cwd=cwd)
    try:
        wait_ready(name, process, ready_url, log, timeout_s, headers)
        yield
    finally:
        process.terminate()
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
