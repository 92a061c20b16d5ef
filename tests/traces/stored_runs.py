"""A run stored as a real run stores itself (create_run, then each result with its Tracer's spans), with no model:
the spans are what the rag program records (program > retrieve, render, generate, parse)."""

from __future__ import annotations

from playground.programs.tracing import Tracer
from playground.store.datasets import save_dataset
from playground.store.db import Workspace
from playground.store.runs import create_run, finish_run, save_result
from playground.store.sessions import current_session
from tests.conftest import TINY_PASSAGES, tiny_dataset

MODEL = "openai:small@http://127.0.0.1:9/v1"
# question id -> (passages retrieved, production's answer); p1 is shown to two questions (the corpus keeps it once)
ANSWERS = {"q1": (["p1", "p4"], "Paris"), "q3": (["p4", "p1"], "the Seine"), "q4": (["p5"], "Guido")}


def stored_rag_run(workspace: Workspace, secret: str = "") -> str:
    """Benchmark `tiny` and a finished rag run over q1, q3 and q4; `secret` is written into one generate span."""
    save_dataset(workspace, "tiny", tiny_dataset())
    config = {"dataset": "tiny", "program": "rag", "templates": {"main": "rag-short-answer"}, "model": MODEL, "k": 2}
    run_id = create_run(workspace, config, current_session(workspace)["id"], n_planned=len(ANSWERS))
    questions = {q.id: q for q in tiny_dataset().questions}
    titles = {p.id: p.title for p in TINY_PASSAGES}
    for position, (question_id, (hits, answer)) in enumerate(ANSWERS.items()):
        text = questions[question_id].text
        tracer = Tracer()
        messages = [{"role": "system", "content": "Answer briefly."}, {"role": "user", "content": f"{text} {secret}"}]
        with tracer.span("program", "rag", {"question_id": question_id, "question": text}) as root:
            with tracer.span("retrieve", "retrieve", {"query": text, "k": 2, "retriever": "bm25"}) as span:
                span.outputs = {
                    "hits": [
                        {"id": pid, "title": titles[pid], "score": 2.0 - rank, "rank": rank}
                        for rank, pid in enumerate(hits, start=1)
                    ]
                }
            inputs = {"template": "rag-short-answer", "role": "main", "prompt_version": "v-1", "variables": {"q": text}}
            with tracer.span("render", "render", inputs) as span:
                span.outputs = {"messages": messages}
            with tracer.span("generate", "generate", {"model": MODEL, "messages": messages, "params": {}}) as span:
                span.prompt_tokens, span.completion_tokens = 30 + position, 2
                span.outputs = {"text": answer, "model_id": "small", "finish_reason": "stop"}
            with tracer.span("parse", "parse", {"text": answer, "answer_format": "short"}) as span:
                span.outputs = {"answer": answer}
            root.outputs = {"answer": answer, "used_passage_ids": hits}
        result = {
            "run_id": run_id,
            "question_id": question_id,
            "repeat": 0,
            "position": position,
            "prediction": answer,
            "output": answer,
            "scores": {"em": float(answer in questions[question_id].answers)},
            "error": None,
            "prompt_tokens": 30 + position,
            "completion_tokens": 2,
            "latency_s": 0.5,
            "cached": 0,
        }
        save_result(workspace, result, tracer.rows(run_id, question_id))
    finish_run(workspace, run_id, "done", {})
    return run_id
