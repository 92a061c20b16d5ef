"""How fast a run's traces leave and come back: `trace export` to an OTLP/JSON file and to an OTLP/HTTP receiver on
127.0.0.1 (protobuf, decoded as a collector would), and `data import traces` of the exported file.

    .venv/bin/python bench/traces.py [--questions 200 1000]

Each question's trace is what the rag program stores: program > retrieve (5 passages), render, generate, parse.
Prints spans per second for each direction on a fresh workspace file.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from playground.data.records import Dataset, Passage, Question  # noqa: E402
from playground.programs.tracing import Tracer  # noqa: E402
from playground.store import open_workspace  # noqa: E402
from playground.store.datasets import save_dataset  # noqa: E402
from playground.store.runs import create_run, finish_run, save_result  # noqa: E402
from playground.traces import import_traces, send_otlp, write_otlp_json  # noqa: E402

K = 5


def traced_run(workspace, n: int) -> str:
    passages = [
        Passage(f"p{i}", f"Title {i}", f"Passage number {i} says something about topic {i % 97}.") for i in range(n)
    ]
    questions = [Question(f"q{i}", f"What does passage {i} say?", [f"topic {i % 97}"]) for i in range(n)]
    save_dataset(workspace, "bench", Dataset("jsonl", "bench", passages, questions))
    run_id = create_run(workspace, {"dataset": "bench", "program": "rag", "model": "openai:m@http://x/v1"}, None, n)
    for position, question in enumerate(questions):
        tracer = Tracer()
        hits = [{"id": f"p{(position + j) % n}", "title": "", "score": 1.0 / (j + 1), "rank": j + 1} for j in range(K)]
        messages = [{"role": "system", "content": "Answer."}, {"role": "user", "content": question.text}]
        with tracer.span("program", "rag", {"question_id": question.id, "question": question.text}) as root:
            with tracer.span("retrieve", "retrieve", {"query": question.text, "k": K}) as span:
                span.outputs = {"hits": hits}
            with tracer.span("render", "render", {"template": "rag-short-answer", "variables": {}}) as span:
                span.outputs = {"messages": messages}
            with tracer.span("generate", "generate", {"model": "m", "messages": messages, "params": {}}) as span:
                span.prompt_tokens, span.completion_tokens = 120, 4
                span.outputs = {"text": question.answers[0], "model_id": "m"}
            with tracer.span("parse", "parse", {"text": question.answers[0]}) as span:
                span.outputs = {"answer": question.answers[0]}
            root.outputs = {"answer": question.answers[0]}
        result = {"run_id": run_id, "question_id": question.id, "repeat": 0, "position": position,
                  "prediction": question.answers[0], "scores": {"em": 1.0}, "error": None}  # fmt: skip
        save_result(workspace, result, tracer.rows(run_id, question.id))
    finish_run(workspace, run_id, "done", {})
    return run_id


class Receiver(BaseHTTPRequestHandler):
    """Decodes each OTLP/HTTP request as the protobuf ExportTraceServiceRequest a collector reads."""

    spans = 0

    def do_POST(self) -> None:  # noqa: N802 - the http.server protocol
        from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

        request = ExportTraceServiceRequest()
        request.ParseFromString(self.rfile.read(int(self.headers["Content-Length"])))
        Receiver.spans += sum(len(s.spans) for r in request.resource_spans for s in r.scope_spans)
        self.send_response(200)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *args) -> None:
        pass


def measure(n: int) -> tuple[int, float, float, float]:
    with tempfile.TemporaryDirectory() as folder:
        workspace = open_workspace(Path(folder) / "bench.db")
        run_id = traced_run(workspace, n)
        started = time.perf_counter()
        summary = write_otlp_json(workspace, run_id, str(Path(folder) / "spans.jsonl"))
        to_file = time.perf_counter() - started
        server = ThreadingHTTPServer(("127.0.0.1", 0), Receiver)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        try:
            started = time.perf_counter()
            send_otlp(workspace, run_id, f"http://127.0.0.1:{server.server_address[1]}")
            to_otlp = time.perf_counter() - started
        finally:
            server.shutdown()
            server.server_close()
        started = time.perf_counter()
        import_traces(workspace, "back", Path(folder) / "spans.jsonl")
        back = time.perf_counter() - started
        workspace.close()
    return summary.spans, to_file, to_otlp, back


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--questions", type=int, nargs="+", default=[200, 1000])
    args = parser.parse_args()
    print(f"traces out and in: each question 5 spans (program, retrieve of {K} passages, render, generate, parse)")
    print(f"{'questions':>9}  {'spans':>6}  {'to OTLP/JSON':>14}  {'to OTLP/HTTP':>14}  {'import traces':>14}")
    for n in args.questions:
        spans, to_file, to_otlp, back = measure(n)
        assert Receiver.spans >= spans, f"the receiver decoded {Receiver.spans} of {spans} spans"
        Receiver.spans = 0
        print(
            f"{n:>9}  {spans:>6}  {spans / to_file:>8,.0f} sp/s  {spans / to_otlp:>8,.0f} sp/s  "
            f"{spans / back:>8,.0f} sp/s"
        )
    return 0


if __name__ == "__main__":
    import figures

    sys.exit(figures.run("traces", main))
