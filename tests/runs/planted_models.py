"""A real local HTTP server speaking OpenAI chat completions that plays several models with planted answers: each
model name maps question ids to the answer it gives, so a test knows each model's accuracy question by question."""

from __future__ import annotations

import re
import threading
from http.server import BaseHTTPRequestHandler

from playground.data.records import Dataset, Question
from playground.store.datasets import save_dataset
from tests.openai_server import read_chat_request, send_chat_reply, serve_in_thread

QUESTION_ID = re.compile(r"pq\d{3}")


def gold(qid: str) -> str:
    return f"answer {qid}"


def planted_benchmark(workspace, n: int, name: str = "planted") -> list[str]:
    """A benchmark of `n` questions whose gold answer names the question; returns their ids."""
    ids = [f"pq{i:03d}" for i in range(n)]
    questions = [Question(qid, f"Planted question {qid}: what is its code?", [gold(qid)], []) for qid in ids]
    save_dataset(workspace, name, Dataset(format="jsonl", source="planted", passages=[], questions=questions))
    return ids


def answers(ids: list[str], wrong: set[str]) -> dict[str, str]:
    """A model that answers every question right except those in `wrong`."""
    return {qid: ("something else" if qid in wrong else gold(qid)) for qid in ids}


class PlantedModels:
    """`PlantedModels({"a": {qid: answer}, ...}).start()`; `.spec("a")` names model a; `.calls` counts requests."""

    def __init__(self, models: dict[str, dict[str, str]]):
        self.models = models
        self.calls = 0
        lock = threading.Lock()
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_POST(self):  # noqa: N802 - http.server naming
                body, prompt = read_chat_request(self)
                with lock:
                    server.calls += 1
                found = QUESTION_ID.findall(prompt)
                text = server.models.get(body.get("model"), {}).get(found[-1] if found else "", "no idea")
                send_chat_reply(self, body.get("model"), prompt, text, "chatcmpl-planted")

            def log_message(self, *args):
                pass

        self.httpd = serve_in_thread(Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"

    def start(self) -> "PlantedModels":
        return self

    def spec(self, model: str) -> str:
        return f"openai:{model}@{self.url}"

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
