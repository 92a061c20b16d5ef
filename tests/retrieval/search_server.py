"""A small real HTTP server on 127.0.0.1 playing a search service: DSP's ColBERTv2 server shape (`GET
PATH?query=...&k=...` -> `{"query", "topk": [{"text", "pid", "rank", "score", "prob"}]}`, pids as whole numbers)
and, at POST /search, an Elasticsearch-like JSON shape (`{"q", "size"}` -> `{"hits": {"hits": [{"_id", "_score",
"_source": {"title", "body"}}]}}`).

A stub, not ColBERT: no ColBERTv2 server (nor its index) runs offline here, so passages are ranked by the words they
share with the query (Unicode words, case folded), which is enough to check the wire format. `mode` misbehaves on
purpose: stall (never answers until closed), badjson, nolist (no topk), notext (an item without text), nanscore (a score of NaN, which JSON cannot
carry but Python's json writes), huge (a valid answer padded past 1 MB). `requests` keeps (method, path, query
parameters, JSON body) of each request.
"""

from __future__ import annotations

import json
import re
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit
from tests.openai_server import SHUTDOWN_POLL_S


def words(text: str) -> set[str]:
    return set(re.findall(r"\w+", text.casefold()))


def ranked(passages: list[tuple[str, str, str]], query: str, k: int) -> list[tuple[int, float]]:
    """(position, score) of the k passages sharing most words with the query; ties to the earlier passage."""
    scores = [(i, float(len(words(query) & words(f"{title} {text}")))) for i, (_, title, text) in enumerate(passages)]
    return sorted(scores, key=lambda pair: (-pair[1], pair[0]))[:k]


class QuietServer(ThreadingHTTPServer):
    """Says nothing of a client that hung up (one cut off at its size cap or its deadline): that is the test."""

    def handle_error(self, request, client_address) -> None:
        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)


class SearchServer:
    """`SearchServer(passages).start()` with passages [(id, title, text)]; `.url`; `.close()`."""

    def __init__(self, passages: list[tuple[str, str, str]], mode: str = "ok"):
        self.passages = list(passages)
        self.mode = mode
        self.requests: list[tuple[str, str, dict, object]] = []
        self.closing = threading.Event()
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_GET(self):  # noqa: N802 - http.server naming
                parts = urlsplit(self.path)
                asked = {key: values[0] for key, values in parse_qs(parts.query).items()}
                server.requests.append(("GET", parts.path, asked, None))
                server.send(self, server.colbert(asked["query"], int(asked["k"])))

            def do_POST(self):  # noqa: N802
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)) or b"{}")
                server.requests.append(("POST", self.path, {}, body))
                server.send(self, server.elastic(body["q"], int(body["size"])))

            def log_message(self, *args):
                pass

        self._httpd = QuietServer(("127.0.0.1", 0), Handler)
        self._httpd.daemon_threads = True

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._httpd.server_address[1]}"

    def start(self) -> "SearchServer":
        threading.Thread(target=self._httpd.serve_forever, args=(SHUTDOWN_POLL_S,), daemon=True).start()
        return self

    def close(self) -> None:
        self.closing.set()
        self._httpd.shutdown()
        self._httpd.server_close()

    def ranked(self, query: str, k: int) -> list[tuple[int, float]]:
        return ranked(self.passages, query, k)

    def colbert(self, query: str, k: int) -> dict:
        topk = [
            {
                "text": f"{self.passages[i][1]} | {self.passages[i][2]}",
                "pid": i,
                "rank": rank,
                "score": score,
                "prob": 0.1,
            }
            for rank, (i, score) in enumerate(self.ranked(query, k), 1)
        ]
        return {"query": query, "topk": topk}

    def elastic(self, query: str, k: int) -> dict:
        hits = [
            {
                "_id": self.passages[i][0],
                "_score": score,
                "_source": {"title": self.passages[i][1], "body": self.passages[i][2]},
            }
            for i, score in self.ranked(query, k)
        ]
        return {"took": 1, "hits": {"total": len(hits), "hits": hits}}

    def send(self, handler, answer: dict) -> None:
        if self.mode == "stall":
            self.closing.wait(120)
            return
        if self.mode == "nolist":
            answer = {"query": answer.get("query"), "results": []}
        elif self.mode == "notext" and answer.get("topk"):
            del answer["topk"][0]["text"]
        elif self.mode == "nanscore" and answer.get("topk"):
            answer["topk"][0]["score"] = float("nan")
        elif self.mode == "huge":
            answer["padding"] = "x" * (1024 * 1024 + 1)
        body = b'{"topk": [' if self.mode == "badjson" else json.dumps(answer).encode()
        handler.send_response(200)
        handler.send_header("Content-Type", "application/json")
        handler.send_header("Content-Length", str(len(body)))
        handler.end_headers()
        try:
            handler.wfile.write(body)
        except ConnectionError:  # a client that stopped reading at its size cap
            handler.close_connection = True
