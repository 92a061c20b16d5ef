"""A real local HTTP server playing the answer-relevance judge with planted grades: an answer holding "grade N" is
graded N (score (N - 1) / 4), one holding "garbled" gets a prose reply the judge cannot read (a judge error). For
the prediction-powered estimate's tests, over runs whose answers carry their planted grade; GatedJudgeServer holds
its replies back until released, for the judge jobs' Stop and Resume."""

from __future__ import annotations

import json
import re
import threading
from http.server import BaseHTTPRequestHandler

from tests.openai_server import read_chat_request, send_chat_reply, send_payload, serve_in_thread


def judge_reply(prompt: str) -> str:
    answer = prompt.split("Answer: ", 1)[1].split("\n", 1)[0]
    if "garbled" in answer:
        return "Hard to say, it is somewhat related I suppose."
    return json.dumps({"grade": int(re.search(r"grade (\d)", answer).group(1)), "reason": "planted"})


class GradedJudgeServer:
    """`spec()` is the judge's model spec on this server; `close()` stops it."""

    def __init__(self):
        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_POST(self):  # noqa: N802 - http.server naming
                body, prompt = read_chat_request(self)
                text = judge_reply(prompt)
                send_chat_reply(self, body.get("model") or "graded", prompt, text, "chatcmpl-test")

            def log_message(self, *args):
                pass

        self.httpd = serve_in_thread(Handler)
        self.httpd.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"

    def spec(self, name: str = "judge") -> str:
        return f"openai:{name}@{self.url}"

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


class GatedJudgeServer:
    """Grades like graded_server; after `open_for` replies every request waits until `release()`. Counts the
    answers it was asked about."""

    def __init__(self, open_for: int):
        self.asked: list[str] = []
        self.gate = threading.Event()
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_POST(self):  # noqa: N802 - http.server naming
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)) or b"{}")
                prompt = "\n".join(str(m.get("content") or "") for m in body.get("messages") or [])
                server.asked.append(prompt.split("Answer: ", 1)[1].split("\n", 1)[0])
                if len(server.asked) > open_for:
                    server.gate.wait(30)
                text = judge_reply(prompt)
                completion = {
                    "id": "chatcmpl-test",
                    "object": "chat.completion",
                    "model": "graded",
                    "choices": [
                        {"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}
                    ],
                    "usage": {"prompt_tokens": 3, "completion_tokens": 3},
                }
                send_payload(self, 200, json.dumps(completion).encode())

            def log_message(self, *args):
                pass

        self.httpd = serve_in_thread(Handler)
        self.httpd.daemon_threads = True
        self.spec = f"openai:judge@http://127.0.0.1:{self.httpd.server_address[1]}/v1"

    def close(self) -> None:
        self.gate.set()
        self.httpd.shutdown()
        self.httpd.server_close()
