"""A real Phoenix server on 127.0.0.1 for the trace tests, in a temporary working directory on free ports.

Phoenix runs from its own virtual environment (`make phoenix` builds .venv-phoenix; $PLAYGROUND_PHOENIX_PYTHON
names another interpreter that has arize-phoenix): its dependencies pin versions the playground's cannot share.
The tests talk to it over HTTP only: OTLP/HTTP in, its REST API out.
"""

from __future__ import annotations

import os
import socket
import subprocess
import time
from pathlib import Path
from typing import Optional

import httpx

REPO = Path(__file__).resolve().parents[2]
START_TIMEOUT_S = 240.0  # first start runs its database migrations; slow on two shared cores


def phoenix_python() -> Path:
    """The interpreter that has arize-phoenix installed; a missing one fails the test that needs it."""
    given = os.environ.get("PLAYGROUND_PHOENIX_PYTHON")
    path = Path(given) if given else REPO / ".venv-phoenix" / "bin" / "python"
    if not path.exists():
        raise AssertionError(f"no Phoenix interpreter at {path}: run `make phoenix` or set PLAYGROUND_PHOENIX_PYTHON")
    return path


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class PhoenixServer:
    """`PhoenixServer(tmp_path).start()`; `.url` is its base URL; `.close()` stops it and says what it logged."""

    def __init__(self, working_dir: Path) -> None:
        self.working_dir = working_dir
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.log = working_dir / "phoenix.log"
        self.process: Optional[subprocess.Popen] = None

    def start(self) -> "PhoenixServer":
        environment = {
            **os.environ,
            "PHOENIX_WORKING_DIR": str(self.working_dir),
            "PHOENIX_HOST": "127.0.0.1",
            "PHOENIX_PORT": str(self.port),
            "PHOENIX_GRPC_PORT": str(free_port()),
            "PHOENIX_TELEMETRY_ENABLED": "false",
        }
        with self.log.open("wb") as log:
            self.process = subprocess.Popen(
                [str(phoenix_python()), "-m", "phoenix.server.main", "serve"],
                cwd=self.working_dir,
                env=environment,
                stdout=log,
                stderr=subprocess.STDOUT,
            )
        deadline = time.monotonic() + START_TIMEOUT_S
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise AssertionError(f"Phoenix exited with {self.process.returncode}: {self.tail()}")
            try:
                if httpx.get(f"{self.url}/healthz", timeout=2).status_code == 200:
                    return self
            except httpx.HTTPError:
                pass
            time.sleep(0.1)
        self.close()
        raise AssertionError(f"Phoenix did not answer within {START_TIMEOUT_S:.0f} s: {self.tail()}")

    def tail(self) -> str:
        return self.log.read_text(encoding="utf-8", errors="replace")[-2000:]

    def spans(self, project: str) -> list[dict]:
        """Every span of the project through Phoenix's REST API (what its client's `get_spans` returns)."""
        spans: list[dict] = []
        cursor = None
        while True:
            params = {"limit": 1000, **({"cursor": cursor} if cursor else {})}
            reply = httpx.get(f"{self.url}/v1/projects/{project}/spans", params=params, timeout=30)
            reply.raise_for_status()
            body = reply.json()
            spans.extend(body["data"])
            cursor = body.get("next_cursor")
            if not cursor:
                return spans

    def wait_for_spans(self, project: str, count: int, timeout_s: float = 60.0) -> list[dict]:
        """The project's spans once `count` are stored (Phoenix inserts what it receives in batches, a moment later)."""
        deadline = time.monotonic() + timeout_s
        while True:
            try:
                spans = self.spans(project)
            except httpx.HTTPStatusError:  # the project appears with its first stored span
                spans = []
            if len(spans) >= count or time.monotonic() > deadline:
                return spans
            time.sleep(0.1)  # Phoenix stores what it received every 0.1 s

    def dataframe_export(self, project: str, target: Path) -> None:
        """Phoenix's client writes its spans dataframe as parquet (in Phoenix's own interpreter).

        The client is a distribution of its own (arize-phoenix-client) in the `phoenix` namespace: it is imported as
        it is where installed alone, without the server's `phoenix/__init__.py`, which loads the whole server app
        (measured: 9 s of CPU against 1 s)."""
        script = (
            "import importlib.util, sys, types\n"
            "namespace = types.ModuleType('phoenix')\n"
            "namespace.__path__ = list(importlib.util.find_spec('phoenix').submodule_search_locations)\n"
            "sys.modules['phoenix'] = namespace\n"
            "from phoenix.client import Client\n"
            "frame = Client(base_url=sys.argv[1]).spans.get_spans_dataframe(project_identifier=sys.argv[2])\n"
            "frame.to_parquet(sys.argv[3])\n"
        )
        subprocess.run([str(phoenix_python()), "-c", script, self.url, project, str(target)], check=True, timeout=300)

    def close(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=30)
