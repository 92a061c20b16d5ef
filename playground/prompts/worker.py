"""The render worker: a persistent child process that renders templates under a hard memory limit and a timeout.

The sandbox's checked operations stop the hostile templates we know of with a line and column; this process is the
guard for the rest. It runs with RLIMIT_AS (RenderBudget.memory_mb), and the parent waits at most the budget's
seconds plus a grace period: a worker that runs over, dies or exhausts its memory is killed and replaced on the
next render, and the caller gets one TemplateError. Requests and replies are one line of JSON each over pipes
(never pickle); the worker is started once and reused, so a render costs a round trip, not a process.
"""

from __future__ import annotations

import atexit
import dataclasses
import json
import os
import selectors
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any, Mapping, Optional

from playground.prompts.errors import RenderBudgetError, TemplateError
from playground.prompts.limits import RenderBudget

GRACE_SECONDS = 1.0
START_TIMEOUT_S = 60.0
_ROOT = str(Path(__file__).resolve().parents[2])
_BOOT = (
    "import sys; sys.path.insert(0, sys.argv[1]); from playground.prompts.worker import serve; serve(int(sys.argv[2]))"
)


def _jsonable(value: Any) -> Any:
    """Variables as JSON: records become dicts (templates read fields the same way), anything else its text."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return dataclasses.asdict(value)
    if isinstance(value, Mapping):
        return dict(value)
    if isinstance(value, (set, frozenset, tuple)):
        return list(value)
    return str(value)


class WorkerFailed(Exception):
    pass


class RenderWorker:
    """One child process, used by one request at a time (a lock), restarted after any failure."""

    def __init__(self) -> None:
        self._process: Optional[subprocess.Popen] = None
        self._memory_mb = 0
        self._pid = os.getpid()
        self._lock = threading.Lock()

    def _start(self, memory_mb: int) -> subprocess.Popen:
        process = subprocess.Popen(
            [sys.executable, "-c", _BOOT, _ROOT, str(memory_mb)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            close_fds=True,
        )
        self._process, self._memory_mb = process, memory_mb
        if self._read_line(START_TIMEOUT_S) != b"ready":
            self.stop()
            raise WorkerFailed("the render worker did not start")
        return process

    def stop(self) -> None:
        process, self._process = self._process, None
        if process is not None and process.poll() is None:
            process.kill()
            process.wait()
        if process is not None:
            for stream in (process.stdin, process.stdout):
                try:
                    stream.close()
                except OSError:
                    pass

    def _read_line(self, timeout: float) -> Optional[bytes]:
        """One reply line, or None when the worker exits or `timeout` passes first."""
        stdout = self._process.stdout
        buffer = bytearray()
        deadline = time.monotonic() + timeout
        with selectors.DefaultSelector() as selector:
            selector.register(stdout, selectors.EVENT_READ)
            while True:
                left = deadline - time.monotonic()
                if left <= 0 or not selector.select(left):
                    raise TimeoutError
                chunk = os.read(stdout.fileno(), 1 << 20)
                if not chunk:
                    return None
                buffer += chunk
                if buffer.endswith(b"\n"):
                    return bytes(buffer[:-1])

    def request(self, message: dict, budget: RenderBudget) -> dict:
        with self._lock:
            if self._pid != os.getpid():  # a forked child must not share its parent's pipes
                self._process, self._pid = None, os.getpid()
            if self._process is None or self._process.poll() is not None or self._memory_mb != budget.memory_mb:
                self.stop()
                self._start(budget.memory_mb)
            line = json.dumps(message, ensure_ascii=False, default=_jsonable).encode("utf-8") + b"\n"
            try:
                self._process.stdin.write(line)
                self._process.stdin.flush()
                reply = self._read_line(budget.seconds + GRACE_SECONDS)
            except TimeoutError:
                self.stop()
                raise WorkerFailed(
                    f"the render took longer than {budget.seconds:g} s (the render budget); it was stopped"
                ) from None
            except OSError:
                reply = None
            if reply is None:
                self.stop()
                raise WorkerFailed(
                    f"the render used more than {budget.memory_mb} MB of memory (the render budget); it was stopped"
                )
            return json.loads(reply)


_worker = RenderWorker()
atexit.register(_worker.stop)


def render_in_worker(
    sources: list, variables: Mapping[str, Any], budget: RenderBudget, template: Optional[str]
) -> dict[str, str]:
    """Render (part, source, first_line) triples in the worker; raises TemplateError on any failure."""
    message = {"sources": sources, "variables": dict(variables), "budget": budget.to_dict(), "template": template}
    try:
        reply = _worker.request(message, budget)
    except WorkerFailed as failure:
        part = sources[-1][0] if len(sources) == 1 else None
        raise RenderBudgetError(str(failure), part=part, template=template) from None
    if reply.get("ok"):
        return reply["parts"]
    error = reply.get("error") or {}
    kind = RenderBudgetError if error.get("over_budget") else TemplateError
    raise kind(
        error.get("problem") or "the render failed",
        part=error.get("part"),
        line=error.get("line"),
        column=error.get("column"),
        template=error.get("template"),
        file_line=error.get("file_line"),
    )


# ---------------------------------------------------------------------------------------------------------------
# The child's side.


def _limit_memory(memory_mb: int) -> None:
    import resource

    limit = int(memory_mb) * 1024 * 1024
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))


def _handle(message: dict) -> dict:
    from playground.prompts.compiled import render_source

    budget = RenderBudget(**message["budget"])
    parts = {}
    try:
        for part, source, first_line in message["sources"]:
            parts[part] = render_source(source, part, message["variables"], budget, message.get("template"), first_line)
    except TemplateError as error:
        return {"ok": False, "error": error.to_dict()}
    return {"ok": True, "parts": parts}


def serve(memory_mb: int) -> None:
    """The worker's loop: one JSON request per line on stdin, one JSON reply per line on stdout."""
    import playground.prompts.compiled  # noqa: F401 - import everything before the memory limit applies

    out = sys.stdout.buffer
    sys.stdout = sys.stderr  # nothing but replies goes to the parent's pipe
    try:
        _limit_memory(memory_mb)
    except (ImportError, ValueError, OSError):
        pass  # no RLIMIT_AS on this platform: the timeout still applies
    out.write(b"ready\n")
    out.flush()
    for line in sys.stdin.buffer:
        try:
            reply = _handle(json.loads(line))
        except MemoryError:
            reply = {
                "ok": False,
                "error": {
                    "problem": f"the render used more than {memory_mb} MB of memory (the render budget)",
                    "over_budget": True,
                },
            }
        out.write(json.dumps(reply, ensure_ascii=False).encode("utf-8") + b"\n")
        out.flush()
