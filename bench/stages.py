"""What each retrieval stage costs and changes on the demo: BM25 alone, then with an LLM reranker and with
multi-query rewriting (the local model), per stage: recall/MRR at k, latency p50/p95, model calls and tokens.

    .venv/bin/python bench/stages.py [--questions 10] [--k 5] [--depth 10] [--model local:smollm2]

A fresh demo workspace in a temporary folder, the response cache empty (every call is made). The reranker reads
the top `depth` BM25 hits, one verdict call per passage; multi-query asks for 3 rewordings and fuses 4 rankings.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("HF_HUB_OFFLINE", "1")

from playground.models.registry import DEFAULT_MODEL_SPEC  # noqa: E402


def _line(label: str, row: dict, k: int) -> str:
    cells = "  ".join(f"{name}@{k} {row[f'{name}@k']:.3f}" for name in ("recall", "mrr") if f"{name}@k" in row)
    per = max(row["n"], 1)
    return (
        f"{label:<28} {cells:<30} p50 {row['p50_ms']:>9.1f} ms  p95 {row['p95_ms']:>9.1f} ms  "
        f"{row['model_calls'] / per:>5.1f} calls/q  {(row['prompt_tokens'] + row['completion_tokens']) / per:>6.0f} tok/q"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--questions", type=int, default=10)
    parser.add_argument("--k", type=int, default=5)
    parser.add_argument("--depth", type=int, default=10)
    parser.add_argument("--model", default=DEFAULT_MODEL_SPEC)
    args = parser.parse_args()

    from playground.demo_workspace import ensure_demo_workspace
    from playground.evaluation.retrieval import evaluate_retriever
    from playground.retrieval.stages import StageSettings

    chains = {
        "bm25 -> llm rerank": StageSettings(rerank="llm", rerank_depth=args.depth, rerank_model=args.model),
        "multi-query -> bm25": StageSettings(rewrite="multi-query", rewrite_model=args.model, rewrites=3),
    }
    with tempfile.TemporaryDirectory() as folder:
        workspace = ensure_demo_workspace(Path(folder) / "sessions" / "playground.db", build_indexes=False)
        try:
            plain = evaluate_retriever(workspace, "demo", "bm25", args.k, args.questions, 0)
            print(
                f"demo, {plain['n']} question(s), k={args.k}, rerank depth {args.depth}, model {args.model}, "
                "cache empty"
            )
            print(
                _line(
                    "bm25 alone",
                    {**plain, "n": plain["n"], "model_calls": 0, "prompt_tokens": 0, "completion_tokens": 0},
                    args.k,
                )
            )
            for label, settings in chains.items():
                result = evaluate_retriever(workspace, "demo", "bm25", args.k, args.questions, 0, stages=settings)
                for row in result["stages"]:
                    print(_line(f"{label}: {row['stage']}", row, args.k))
        finally:
            workspace.close()


if __name__ == "__main__":
    import figures

    sys.exit(figures.run("stages", main))
