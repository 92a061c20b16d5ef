"""A real local HTTP server playing both the answering model and the judge model of the gold-free judges, each
reply decided by the prompt: planted answers for the rag run, and a judge that knows which claims the tiny
corpus supports, contradicts or does not hold. A trigger word makes it reply prose, or answer late."""

from __future__ import annotations

import json
import re
import time
from http.server import BaseHTTPRequestHandler
from typing import Callable

from tests.openai_server import send_payload, serve_in_thread

# question -> the answer the "answerer" gives (with citations as rag-citations asks)
PLANTED = {
    "What is the capital of France?": "Paris is the capital of France [1]. Paris has ten million people.",
    "What is the capital of Germany?": "Berlin is the capital of Germany [1]. Berlin is the smallest city of Germany [1].",
    "Which river flows through Paris?": "The Seine flows through Paris [7].",
    "Who created the Python programming language?": "I don't know.",
}
# claim -> (verdict, title of the deciding passage)
FACTS = {
    "Paris is the capital of France.": ("supported", "Paris"),
    "Paris has ten million people.": ("not found", None),
    "Berlin is the capital of Germany.": ("supported", "Berlin"),
    "Berlin is the smallest city of Germany.": ("contradicted", "Berlin"),
    "The Seine flows through Paris.": ("supported", "Seine"),
}
# question -> the passage titles the judge calls relevant
RELEVANT = {
    "What is the capital of France?": {"Paris"},
    "What is the capital of Germany?": {"Berlin"},
    "Which river flows through Paris?": {"Seine", "Paris"},
    "Who created the Python programming language?": {"Python"},
}
_MARKERS = re.compile(r"\s*\[\d+(?:\s*[,;-]\s*\d+)*\]")


def _shown(prompt: str) -> dict[str, int]:
    """Title -> passage number, from the "[n] title: text" lines of a prompt."""
    return {title: int(n) for n, title in re.findall(r"^\[(\d+)\] ([^:\n]*):", prompt, re.M)}


def _line(prompt: str, label: str) -> str:
    return prompt.split(f"{label}: ", 1)[1].split("\n", 1)[0].strip()


def judge_reply(prompt: str) -> str:
    if "List each factual claim" in prompt:
        answer = _MARKERS.sub("", _line(prompt, "Answer"))
        pieces = [] if "don't know" in answer else re.split(r"(?<=\.)\s+", answer)
        claims = [piece.strip().rstrip(".") + "." for piece in pieces if piece.strip()]
        return json.dumps({"claims": claims})
    if "Claim: " in prompt:
        verdict, title = FACTS[_line(prompt, "Claim")]
        number = _shown(prompt).get(title) if title else None
        if number is None:
            verdict = "not found"
        return json.dumps({"verdict": verdict, "passage": number, "reason": f"passage {number}"})
    if "Does this passage hold" in prompt:
        title = re.search(r"^Passage \[\d+\] ([^:\n]*):", prompt, re.M).group(1)
        relevant = title in RELEVANT.get(_line(prompt, "Question"), set())
        return json.dumps({"relevant": relevant, "reason": f"{title} {'is' if relevant else 'is not'} about it"})
    if "Sentence: " in prompt:
        verdict, title = FACTS.get(_MARKERS.sub("", _line(prompt, "Sentence")), ("not found", None))
        return json.dumps({"supported": verdict == "supported" and title in _shown(prompt), "reason": "checked"})
    if "Grade how directly" in prompt:
        answer = _line(prompt, "Answer")
        return json.dumps({"grade": 1 if "don't know" in answer else 5, "reason": "graded"})
    raise AssertionError(f"unexpected judge prompt: {prompt[:200]}")


def reply_for(prompt: str) -> str:
    if "Answer with citations:" in prompt:
        return PLANTED.get(_line(prompt, "Question"), "I don't know.")
    return judge_reply(prompt)


class JudgeServer:
    """`spec(name)` is a model spec on this server; prompts holding a `prose` word get prose, `slow` ones wait
    `delay_s` before answering; `judge(prompt)`, when given, replies to the judge's prompts instead (a judge model
    replaying what a real one answered)."""

    def __init__(
        self,
        prose: tuple[str, ...] = (),
        slow: tuple[str, ...] = (),
        delay_s: float = 3.0,
        judge: Callable[[str], str] | None = None,
    ):
        self.prompts: list[str] = []
        self.prose = tuple(prose)  # may be changed between judgings, as may `judge`
        self.judge = judge
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_POST(self):  # noqa: N802 - http.server naming
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)) or b"{}")
                prompt = "\n".join(str(m.get("content") or "") for m in body.get("messages") or [])
                server.prompts.append(prompt)
                judging = "Answer with citations:" not in prompt
                if judging and any(word in prompt for word in slow):
                    time.sleep(delay_s)
                if judging and any(word in prompt for word in server.prose):
                    text = "I think this answer is mostly fine, though one part is doubtful."
                elif judging and server.judge is not None:
                    text = server.judge(prompt)
                else:
                    text = reply_for(prompt)
                completion = {
                    "id": "chatcmpl-test",
                    "object": "chat.completion",
                    "model": body.get("model") or "scripted",
                    "choices": [
                        {"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}
                    ],
                    "usage": {"prompt_tokens": len(prompt.split()), "completion_tokens": len(text.split())},
                }
                try:
                    send_payload(self, 200, json.dumps(completion).encode())
                except OSError:  # the judge gave up waiting, as it should
                    pass

            def log_message(self, *args):
                pass

        self.httpd = serve_in_thread(Handler)
        self.httpd.daemon_threads = True
        self.httpd.handle_error = lambda request, address: None
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"

    def spec(self, name: str) -> str:
        return f"openai:{name}@{self.url}"

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
