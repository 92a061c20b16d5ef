"""Model fixtures: the real SmolLM2 GGUF in-process, a real llama.cpp OpenAI-compatible server, a Cohere v2 stub."""

from __future__ import annotations

import json
import sys
import threading
import time
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from playground.models.local_files import smollm2_path
from tests.openai_server import SHUTDOWN_POLL_S
from tests.processes import free_port, served

SERVER_START_TIMEOUT_S = 120


@pytest.fixture(scope="session")
def llama_server(tmp_path_factory):
    """`python -m llama_cpp.server` on 127.0.0.1 serving SmolLM2, requiring a throwaway API key.

    Yields {"url": "http://127.0.0.1:PORT/v1", "key": KEY}; the process is killed at the end of the session.
    """
    port = free_port()
    key = f"sk-test-{uuid.uuid4().hex}"
    log = tmp_path_factory.mktemp("llama_server") / "server.log"
    command = [
        sys.executable,
        "-m",
        "llama_cpp.server",
        "--model",
        str(smollm2_path()),
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
        "--n_ctx",
        "2048",
        "--api_key",
        key,
        "--model_alias",
        "smollm2",
        "--n_threads",
        "1",
        "--n_threads_batch",
        "1",
    ]  # idle OpenMP threads spin on a busy 2-core machine
    url = f"http://127.0.0.1:{port}/v1"
    try:
        with served(
            "llama_cpp.server",
            command,
            f"{url}/models",
            log,
            SERVER_START_TIMEOUT_S,
            headers={"Authorization": f"Bearer {key}"},
        ):
            yield {"url": url, "key": key, "port": port}
    except RuntimeError as error:
        pytest.fail(str(error))


def cohere_reply(text: str, input_tokens: int = 11, output_tokens: int = 3, finish_reason: str = "COMPLETE") -> dict:
    """A body in Cohere's v2 chat response format."""
    return {
        "id": f"resp-{uuid.uuid4().hex[:8]}",
        "finish_reason": finish_reason,
        "message": {"role": "assistant", "content": [{"type": "text", "text": text}]},
        "usage": {
            "billed_units": {"input_tokens": input_tokens, "output_tokens": output_tokens},
            "tokens": {"input_tokens": input_tokens + 200, "output_tokens": output_tokens},
        },
    }


class CohereStub:
    """A loopback HTTP server for POST /v2/chat that plays a script of (status, body, headers) replies.

    When the script runs out, the last reply repeats (so [(500, ...)] means 500 forever). Requests are recorded.
    With `trickle_every_s` set, the body goes out one byte at a time, that far apart.
    """

    def __init__(self):
        self.script: list[tuple[int, dict, dict]] = [(200, cohere_reply("Paris"), {})]
        self.requests: list[dict] = []
        self.trickle_every_s: float | None = None
        stub = self

        class Handler(BaseHTTPRequestHandler):
            disable_nagle_algorithm = True  # as real servers do (tests/openai_server.py says why)

            def do_POST(self):  # noqa: N802 - http.server naming
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                stub.requests.append(
                    {"path": self.path, "headers": dict(self.headers), "json": json.loads(body or b"{}")}
                )
                if self.path != "/v2/chat":
                    status, payload, headers = 404, {"message": f"no route {self.path}"}, {}
                else:
                    index = min(len(stub.requests) - 1, len(stub.script) - 1)
                    status, payload, headers = stub.script[index]
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                for name, value in headers.items():
                    self.send_header(name, value)
                self.end_headers()
                if stub.trickle_every_s is None:
                    self.wfile.write(data)
                    return
                try:
                    for byte in data[:30]:  # bounded: 30 bytes, then the connection closes
                        time.sleep(stub.trickle_every_s)
                        self.wfile.write(bytes([byte]))
                        self.wfile.flush()
                except OSError:
                    pass
                self.close_connection = True

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, args=(SHUTDOWN_POLL_S,), daemon=True)
        self.thread.start()

    def close(self):
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def cohere_stub(monkeypatch):
    stub = CohereStub()
    monkeypatch.setenv("CO_API_URL", stub.url)
    monkeypatch.setenv("CO_API_KEY", f"co-test-{uuid.uuid4().hex}")
    yield stub
    stub.close()
