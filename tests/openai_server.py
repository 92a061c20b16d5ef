"""A small real HTTP server on 127.0.0.1 speaking the OpenAI chat-completions API, slow or misbehaving on purpose.

It answers after a fixed delay with a deterministic reply (a known answer when a keyword of the prompt matches,
else a word derived from the prompt). A mode misbehaves the way real servers and proxies do, for every request
(the model name is the mode: `openai:empty@URL`) or for prompts holding a trigger word (`triggers`):
empty (choices: []), null (content null), html (an HTML page with status 200), html502, badjson, reset (the
connection dropped mid-body), 429 (Too Many Requests with Retry-After, `rate_limited` times, then answers).
Some modes are hostile the way a broken gateway or a hostile endpoint can be, each bounded in time and never held
in the server's memory: trickle (the headers, then one byte of the answer every `trickle_every_s`, for at most
`trickle_for_s`), slowheaders (the same, a byte of the headers at a time), huge (a valid answer of `huge_bytes`,
streamed a megabyte at a time) and gzipbomb (about 1 MB of gzip that inflates to 1 GiB). gzip and deflate send
the usual answer compressed. nojson refuses a request carrying `response_format` (JSON mode) with a 400, as a
server without JSON mode does; jsonobject refuses `{"type": "json_schema"}` with a 422 but takes `json_object`
(with a schema), as llama-cpp-python's server does. deepjson answers 1,000 nested JSON objects; usagenan,
usageinf and usagehuge report a usage count of NaN, 1e309 or 10**30.

`python -m tests.openai_server --port PORT` serves until it is stopped (GET /health answers 200), so a test can
count its own threads and sockets apart from the server's.
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import json
import re
import socket
import struct
import threading
import time
import zlib
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

ANSWERS = {
    "France": "Paris",
    "Germany": "Berlin",
    "Seine": "Seine",
    "Paris?": "the Seine",
    "Python": "Guido van Rossum",
    "Rhine": "the North Sea",
    "Prado": "B",
}
MODES = (
    "ok",
    "empty",
    "null",
    "html",
    "html502",
    "badjson",
    "reset",
    "429",
    "trickle",
    "slowheaders",
    "huge",
    "gzipbomb",
    "gzip",
    "deflate",
    "nojson",
    "jsonobject",
    "deepjson",
    "usagenan",
    "usageinf",
    "usagehuge",
)
NESTED_OBJECTS = 1000  # deepjson's reply: that many objects, each inside the one before
MB = 1024 * 1024


def send_payload(
    handler, status: int, payload: bytes, content_type: str = "application/json", headers: dict | None = None
) -> None:
    """One whole HTTP answer from a BaseHTTPRequestHandler (status, type, length, extra headers, body)."""
    handler.send_response(status)
    handler.send_header("Content-Type", content_type)
    handler.send_header("Content-Length", str(len(payload)))
    for name, value in (headers or {}).items():
        handler.send_header(name, value)
    handler.end_headers()
    handler.wfile.write(payload)


def read_chat_request(handler) -> tuple[dict, str]:
    """The JSON body of a chat completion request and its messages' text joined, as a planted model reads it."""
    body = json.loads(handler.rfile.read(int(handler.headers.get("Content-Length") or 0)) or b"{}")
    return body, "\n".join(str(m.get("content") or "") for m in body.get("messages") or [])


def send_chat_reply(handler, model: str, prompt: str, text: str, completion_id: str = "chatcmpl-test") -> None:
    """One whole OpenAI chat completion answering `text`, with usage counted in words of the prompt and the reply."""
    completion = {
        "id": completion_id,
        "object": "chat.completion",
        "model": model,
        "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": len(prompt.split()), "completion_tokens": len(text.split())},
    }
    send_payload(handler, 200, json.dumps(completion).encode())


SHUTDOWN_POLL_S = 0.05  # how soon a served thread sees shutdown(): serve_forever's 0.5 s was a wait in every teardown


def serve_in_thread(handler_class):
    """A ThreadingHTTPServer for `handler_class` on a free 127.0.0.1 port, served by a daemon thread. It replies
    without Nagle's delay, as OpenAIServer and real servers do: the body written after the headers otherwise waits
    for the client's delayed acknowledgement, about 40 ms a request."""
    import threading
    from http.server import ThreadingHTTPServer

    handler_class.disable_nagle_algorithm = True
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler_class)
    threading.Thread(target=httpd.serve_forever, args=(SHUTDOWN_POLL_S,), daemon=True).start()
    return httpd


def reply_for(prompt: str) -> str:
    for keyword, answer in ANSWERS.items():
        if keyword in prompt:
            return answer
    return "w" + hashlib.sha256(prompt.encode()).hexdigest()[:6]


class OpenAIServer:
    """Start with `OpenAIServer(delay_s=0.3).start()`; `.url` is the base URL (…/v1); `.close()` stops it."""

    def __init__(
        self,
        delay_s: float = 0.0,
        triggers: dict[str, str] | None = None,
        retry_after: float = 1.0,
        rate_limited: int = 1,
        port: int = 0,
    ):
        self.delay_s = delay_s
        self.trickle_every_s = 2.0
        self.trickle_for_s = 60.0
        self.huge_bytes = 300 * MB
        self.triggers = dict(triggers or {})
        self.retry_after = retry_after
        self.rate_limited = rate_limited
        self.requests: list[dict] = []
        self.in_flight = 0
        self.max_in_flight = 0
        self.limited = 0
        self.limited_at: list[float] = []
        self.answered_at: list[float] = []
        self._lock = threading.Lock()
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            disable_nagle_algorithm = True  # as real servers do; else headers then body stall on delayed ACKs

            def do_POST(self):  # noqa: N802 - http.server naming
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)) or b"{}")
                server.handle(self, body)

            def do_GET(self):  # noqa: N802 - the readiness check of `python -m tests.openai_server`
                server._send(self, 200 if self.path == "/health" else 404, b"ok", "text/plain")

            def log_message(self, *args):
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", port), Handler)
        self.httpd.daemon_threads = True
        self.httpd.handle_error = lambda request, address: None  # a reset connection is the point, not news
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"
        self.thread = threading.Thread(target=self.httpd.serve_forever, args=(SHUTDOWN_POLL_S,), daemon=True)

    def start(self) -> "OpenAIServer":
        self.thread.start()
        return self

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()

    def spec(self, mode: str = "ok") -> str:
        return f"openai:{mode}@{self.url}"

    def _mode(self, body: dict, prompt: str) -> str:
        for word, mode in self.triggers.items():
            if word in prompt:
                return mode
        return body.get("model") if body.get("model") in MODES else "ok"

    def handle(self, handler: BaseHTTPRequestHandler, body: dict) -> None:
        prompt = "\n".join(str(m.get("content") or "") for m in body.get("messages") or [])
        with self._lock:
            self.requests.append(
                {
                    "model": body.get("model"),
                    "prompt": prompt,
                    "messages": body.get("messages"),
                    "response_format": body.get("response_format"),
                }
            )
            self.in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self.in_flight)
        try:
            mode = self._mode(body, prompt)
            if not (mode == "429" and self.limited < self.rate_limited):  # a rate limit answers at once
                time.sleep(self.delay_s)
            self._answer(handler, mode, body, prompt)
        finally:
            with self._lock:
                self.in_flight -= 1

    def _send(
        self, handler, status: int, payload: bytes, content_type: str = "application/json", headers: dict | None = None
    ) -> None:
        send_payload(handler, status, payload, content_type, headers)

    def _answer(self, handler, mode: str, body: dict, prompt: str) -> None:
        text = reply_for(prompt)
        completion = {
            "id": "chatcmpl-test",
            "object": "chat.completion",
            "model": body.get("model") or "ok",
            "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": len(prompt.split()), "completion_tokens": len(text.split())},
        }
        if mode == "429":
            with self._lock:
                limit = self.limited < self.rate_limited
                if limit:
                    self.limited += 1
                    self.limited_at.append(time.monotonic())
            if limit:
                self._send(
                    handler,
                    429,
                    json.dumps({"error": {"message": "Rate limit reached, slow down"}}).encode(),
                    headers={"Retry-After": f"{self.retry_after:g}"},
                )
                return
        if mode == "jsonobject" and (body.get("response_format") or {}).get("type") == "json_schema":
            refusal = {"detail": [{"type": "literal_error", "loc": ["body", "response_format", "type"]}]}
            self._send(handler, 422, json.dumps(refusal).encode())
            return
        if mode == "nojson" and body.get("response_format"):
            refusal = {"error": {"message": "response_format is not supported by this server", "code": 400}}
            self._send(handler, 400, json.dumps(refusal).encode())
            return
        if mode == "empty":
            completion["choices"] = []
        elif mode == "null":
            completion["choices"][0]["message"]["content"] = None
            completion["choices"][0]["finish_reason"] = "content_filter"
        elif mode in ("html", "html502"):
            page = (
                b"<!DOCTYPE html><html><head><title>502 Bad Gateway</title></head><body><h1>Bad Gateway</h1>"
                b"<p>The upstream server sent an invalid response.</p></body></html>"
            )
            self._send(handler, 200 if mode == "html" else 502, page, "text/html")
            return
        elif mode == "badjson":
            self._send(handler, 200, b'{"choices": [{"message": {"content": "Par', "application/json")
            return
        elif mode == "reset":
            payload = json.dumps(completion).encode()
            handler.send_response(200)
            handler.send_header("Content-Type", "application/json")
            handler.send_header("Content-Length", str(len(payload)))
            handler.end_headers()
            handler.wfile.write(payload[: len(payload) // 2])
            handler.wfile.flush()
            handler.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")
            handler.connection.close()
            handler.close_connection = True
            return
        elif mode in ("gzip", "deflate"):
            payload = json.dumps(completion).encode()
            packed = gzip.compress(payload) if mode == "gzip" else zlib.compress(payload)
            self._send(handler, 200, packed, headers={"Content-Encoding": mode})
            return
        elif mode in ("trickle", "slowheaders", "huge", "gzipbomb"):
            try:
                getattr(self, f"_{mode}")(handler, completion)
            except OSError:  # the client hung up, as it should
                pass
            handler.close_connection = True
            return
        elif mode == "deepjson":
            completion["choices"][0]["message"]["content"] = '{"a": ' * NESTED_OBJECTS + "1" + "}" * NESTED_OBJECTS
        with self._lock:
            self.answered_at.append(time.monotonic())
        self._send(handler, 200, self._usage_written(mode, json.dumps(completion)).encode())

    @staticmethod
    def _usage_written(mode: str, payload: str) -> str:
        """usagenan, usageinf and usagehuge: the reply's usage counts as a broken server writes them (NaN, 1e309 and
        10**30, none of them a token count)."""
        odd = {"usagenan": ("prompt_tokens", "NaN"), "usageinf": ("prompt_tokens", "1e309")}
        odd["usagehuge"] = ("completion_tokens", str(10**30))
        if mode not in odd:
            return payload
        field, written = odd[mode]
        return re.sub(rf'"{field}": \d+', f'"{field}": {written}', payload)

    def _trickle(self, handler, completion: dict, headers_too: bool = False) -> None:
        """A valid answer, one byte every `trickle_every_s` (the headers at once, or they too); the connection is
        dropped after `trickle_for_s`."""
        payload = json.dumps(completion).encode()
        head = (
            f"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {len(payload)}\r\n"
            "Connection: close\r\n\r\n"
        ).encode()
        if not headers_too:
            handler.wfile.write(head)
            handler.wfile.flush()
        until = time.monotonic() + self.trickle_for_s
        for byte in head + payload if headers_too else payload:
            if time.monotonic() > until:
                break
            time.sleep(self.trickle_every_s)
            handler.wfile.write(bytes([byte]))
            handler.wfile.flush()

    def _slowheaders(self, handler, completion: dict) -> None:
        self._trickle(handler, completion, headers_too=True)

    def _huge(self, handler, completion: dict) -> None:
        """A valid answer `huge_bytes` long: its text is padding, written a megabyte at a time."""
        head, tail = json.dumps(completion).encode().split(b'"content": "', 1)
        head += b'"content": "'
        padding = self.huge_bytes - len(head) - len(tail)
        handler.send_response(200)
        handler.send_header("Content-Type", "application/json")
        handler.send_header("Content-Length", str(self.huge_bytes))
        handler.send_header("Connection", "close")
        handler.end_headers()
        handler.wfile.write(head)
        block = b"a" * MB
        while padding > 0:
            handler.wfile.write(block[:padding])
            padding -= MB
        handler.wfile.write(tail)

    def _gzipbomb(self, handler, completion: dict) -> None:
        body = gzip_bomb()
        handler.send_response(200)
        handler.send_header("Content-Type", "application/json")
        handler.send_header("Content-Encoding", "gzip")
        handler.send_header("Content-Length", str(len(body)))
        handler.send_header("Connection", "close")
        handler.end_headers()
        for start in range(0, len(body), MB):
            handler.wfile.write(body[start : start + MB])


_bomb: list[bytes] = []


def gzip_bomb(megabytes: int = 1024) -> bytes:
    """About 1 MB of gzip inflating to `megabytes` MB of spaces, built in a fraction of a second: after a full
    flush the compressor starts afresh, so every megabyte of spaces compresses to the same bytes."""
    if not _bomb:
        compressor = zlib.compressobj(9, zlib.DEFLATED, -zlib.MAX_WBITS)
        block = b" " * MB
        repeated = compressor.compress(block) + compressor.flush(zlib.Z_FULL_FLUSH)
        end = compressor.flush()
        crc = 0
        for _ in range(megabytes):
            crc = zlib.crc32(block, crc)
        header = b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x02\xff"
        _bomb.append(header + repeated * megabytes + end + struct.pack("<II", crc, (megabytes * MB) & 0xFFFFFFFF))
    return _bomb[0]


def main() -> None:
    parser = argparse.ArgumentParser(description="serve the test chat-completions API on 127.0.0.1")
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--delay", type=float, default=0.0)
    parser.add_argument("--trickle-every", type=float, default=2.0, help="seconds between a trickle's bytes")
    args = parser.parse_args()
    server = OpenAIServer(delay_s=args.delay, port=args.port)
    server.trickle_every_s = args.trickle_every
    server.httpd.serve_forever()


if __name__ == "__main__":
    main()
