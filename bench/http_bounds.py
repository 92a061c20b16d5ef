"""What the bounded HTTP client costs: one chat completion from a local server, through the client before issue 21
(requests, one Session), through plain httpx, and through playground's bounded transport (httpx over httpcore with
the deadline checked before every socket operation and the body counted and inflated in bounded steps).

    .venv/bin/python bench/http_bounds.py [--requests 200] [--repeats 5]

A real HTTP server on 127.0.0.1 (tests/openai_server.py) answers at once: a small answer, a 1 MB answer and the
small answer gzipped. Each client posts `--requests` times in a row inside a question deadline, `--repeats` times;
printed: the median milliseconds per request of the repeats, and each client's ratio to requests. Then the CPU
milliseconds of making one bounded client, with the process's shared SSL context (bounded_http.default_ssl_context)
and with a context of its own as every client had before.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("HF_HUB_OFFLINE", "1")

from playground.models import bounded_http  # noqa: E402
from playground.models.bounded_http import bounded_client  # noqa: E402
from playground.models.retry import question_deadline  # noqa: E402
from tests.openai_server import OpenAIServer  # noqa: E402

PAYLOAD = {"messages": [{"role": "user", "content": "What is the capital of France?"}], "max_tokens": 8}
CASES = {"small": "ok", "1 MB": "huge", "gzip": "gzip"}


def with_requests():
    import requests

    session = requests.Session()
    return lambda url, body: json.loads(session.post(url, json=body, timeout=(10, 60)).text)


def with_httpx():
    import httpx

    client = httpx.Client()
    return lambda url, body: json.loads(client.post(url, json=body, timeout=httpx.Timeout(60, connect=10)).text)


def with_bounded():
    import httpx

    client = bounded_client(follow_redirects=True)
    return lambda url, body: json.loads(client.post(url, json=body, timeout=httpx.Timeout(60, connect=10)).text)


CLIENTS = {"requests (before)": with_requests, "httpx": with_httpx, "bounded (now)": with_bounded}


def per_request_ms(post, url: str, mode: str, n: int) -> float:
    body = dict(PAYLOAD, model=mode)
    post(url, body)  # a connection in the pool, as in a run
    started = time.perf_counter()
    with question_deadline(600):
        for _ in range(n):
            post(url, body)
    return (time.perf_counter() - started) / n * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=200)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    server = OpenAIServer().start()
    server.huge_bytes = 1024 * 1024
    url = f"{server.url}/chat/completions"
    try:
        print(f"{'answer':<8} {'client':<18} {'ms/request':>11} {'ratio':>7}")
        for case, mode in CASES.items():
            baseline = None
            for name, make in CLIENTS.items():
                post = make()
                n = args.requests if mode != "huge" else max(10, args.requests // 10)
                median = statistics.median(per_request_ms(post, url, mode, n) for _ in range(args.repeats))
                baseline = baseline or median
                print(f"{case:<8} {name:<18} {median:>11.3f} {median / baseline:>7.2f}")
    finally:
        server.close()
    print()
    print(f"{'bounded client made':<32} {'CPU ms':>7} {'ratio':>7}")
    own = client_cpu_ms(args.repeats, own_context=True)
    for name, median in (
        ("with its own SSL context", own),
        ("with the shared SSL context", client_cpu_ms(args.repeats)),
    ):
        print(f"{name:<32} {median:>7.2f} {median / own:>7.2f}")


def client_cpu_ms(repeats: int, own_context: bool = False, per_repeat: int = 20) -> float:
    """Median CPU milliseconds of making (and closing) one bounded client."""
    samples = []
    for _ in range(repeats):
        started = time.process_time()
        for _ in range(per_repeat):
            if own_context:
                bounded_http._ssl_contexts.clear()
            bounded_client().close()
        samples.append((time.process_time() - started) / per_repeat * 1000)
    return statistics.median(samples)


if __name__ == "__main__":
    import figures

    sys.exit(figures.run("http_bounds", main))
