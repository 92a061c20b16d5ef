"""A small real HTTP server on 127.0.0.1 speaking OpenAI's /v1/embeddings, misbehaving on purpose.

Vectors are derived from each text's SHA-256 (the same text always gets the same vector), so rankings are fixed
without a model. `mode` picks a misbehaviour: stall_queries (a request with input_type "query", or a text
starting "query: ", is never answered until the server closes), badjson, wrongcount (one vector too few), status400
(a 400 with an OpenAI error body), zeros (a vector of zeros); `delay_s` holds each answer back, so requests
overlap (`max_in_flight` counts how many did). Every request body is kept in `requests`, and its
Authorization header in `keys`.
"""

from __future__ import annotations

import hashlib
import json
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import numpy as np
from tests.openai_server import SHUTDOWN_POLL_S

DIM = 16


def text_vector(text: str) -> list[float]:
    seed = int.from_bytes(hashlib.sha256(text.encode("utf-8")).digest()[:8], "little")
    return np.random.default_rng(seed).standard_normal(DIM).astype(np.float32).tolist()


class QuietServer(ThreadingHTTPServer):
    """Says nothing of a client that hung up (one cut off at its size cap or its deadline): that is the test."""

    def handle_error(self, request, client_address) -> None:
        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)


class EmbeddingServer:
    """`EmbeddingServer(mode).start()`; `.url` is the base URL (…/v1); `.close()` stops it (and any stalled reply)."""

    def __init__(self, mode: str = "ok", delay_s: float = 0.0):
        self.mode = mode
        self.delay_s = delay_s
        self.in_flight = 0
        self.max_in_flight = 0
        self._lock = threading.Lock()
        self.requests: list[dict] = []
        self.keys: list[str] = []
        self.closing = threading.Event()
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_POST(self):  # noqa: N802 - http.server naming
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)) or b"{}")
                server.requests.append(body)
                server.keys.append(self.headers.get("Authorization", ""))
                with server._lock:
                    server.in_flight += 1
                    server.max_in_flight = max(server.max_in_flight, server.in_flight)
                try:
                    server.answer(self, body)
                finally:
                    with server._lock:
                        server.in_flight -= 1

            def log_message(self, *args):
                pass

        self._httpd = QuietServer(("127.0.0.1", 0), Handler)
        self._httpd.daemon_threads = True

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._httpd.server_address[1]}/v1"

    def start(self) -> "EmbeddingServer":
        threading.Thread(target=self._httpd.serve_forever, args=(SHUTDOWN_POLL_S,), daemon=True).start()
        return self

    def close(self) -> None:
        self.closing.set()
        self._httpd.shutdown()
        self._httpd.server_close()

    def answer(self, handler, body: dict) -> None:
        texts = body["input"] if isinstance(body["input"], list) else [body["input"]]
        querying = body.get("input_type") == "query" or any(t.startswith("query: ") for t in texts)
        if self.mode == "stall_queries" and querying:
            self.closing.wait(120)
            return
        if self.delay_s:
            time.sleep(self.delay_s)
        data = [{"object": "embedding", "index": i, "embedding": text_vector(t)} for i, t in enumerate(texts)]
        status = 200
        if self.mode == "wrongcount":
            data = data[:-1]
        elif self.mode == "zeros":
            data[0]["embedding"] = [0.0] * DIM
        reply = json.dumps({"object": "list", "data": data, "model": body.get("model")}).encode()
        if self.mode == "badjson":
            reply = b'{"object": "list", "data": [ {"index": 0, '
        elif self.mode == "status400":
            status, reply = 400, json.dumps({"error": {"message": "model 'x' is not served here"}}).encode()
        handler.send_response(status)
        handler.send_header("Content-Type", "application/json")
        handler.send_header("Content-Length", str(len(reply)))
        handler.end_headers()
        handler.wfile.write(reply)
