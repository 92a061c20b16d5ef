"""A real local HTTP server on 127.0.0.1 speaking the rerank wire formats: Cohere's POST /v2/rerank, Text Embeddings
Inference's POST /rerank and Jina's POST /v1/rerank. No real rerank API runs offline, so these shapes are what the
clients are tested against; `relevance(query, text)` plants each score. Requests are recorded."""

from __future__ import annotations

import json
from http.server import BaseHTTPRequestHandler
from typing import Callable

from tests.openai_server import send_payload, serve_in_thread


class RerankServer:
    def __init__(self, relevance: Callable[[str, str], float]):
        self.requests: list[dict] = []
        self.status = 200  # set to an error status to have every request refused
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_POST(self):  # noqa: N802 - http.server naming
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)) or b"{}")
                server.requests.append({"path": self.path, "headers": dict(self.headers), "json": body})
                if server.status != 200:
                    send_payload(self, server.status, json.dumps({"message": "planted refusal"}).encode())
                    return
                query = body.get("query", "")
                if self.path == "/rerank":  # TEI: a bare list of {index, score}
                    texts = body["texts"]
                    payload: object = sorted(
                        ({"index": i, "score": relevance(query, t)} for i, t in enumerate(texts)),
                        key=lambda r: -r["score"],
                    )
                elif self.path in ("/v2/rerank", "/v1/rerank"):  # Cohere, Jina: {results: [{index, relevance_score}]}
                    documents = [d if isinstance(d, str) else d.get("text", "") for d in body["documents"]]
                    results = sorted(
                        ({"index": i, "relevance_score": relevance(query, d)} for i, d in enumerate(documents)),
                        key=lambda r: -r["relevance_score"],
                    )
                    payload = {"id": "rerank-test", "results": results[: body.get("top_n") or len(results)]}
                    payload["meta" if self.path == "/v2/rerank" else "usage"] = (
                        {"billed_units": {"search_units": 1}} if self.path == "/v2/rerank" else {"total_tokens": 10}
                    )
                else:
                    send_payload(self, 404, json.dumps({"message": f"no route {self.path}"}).encode())
                    return
                send_payload(self, 200, json.dumps(payload).encode())

            def log_message(self, *args):
                pass

        self.httpd = serve_in_thread(Handler)
        self.httpd.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
