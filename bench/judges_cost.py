"""What each gold-free judge costs per question with the local model on the demo: judge calls and tokens.

    .venv/bin/python bench/judges_cost.py [--questions 5] [--max-tokens 256] [--model local:smollm2]

A fresh demo workspace in a temporary folder; one rag run (bm25, k=3, rag-citations, so the citations judge has
[n] markers to check) over a seeded sample of the demo's questions, then each judge over that run with the response
cache bypassed. Per judge and per answer judged: model calls, prompt and completion tokens (from the judge's stored
spans), seconds, and the judgments that failed (errors, never scores). Faithfulness makes 1 + one call per claim,
context precision and citations one per passage or sentence, answer relevance one.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("HF_HUB_OFFLINE", "1")

from playground.models.base import GenerationParams  # noqa: E402
from playground.models.registry import DEFAULT_MODEL_SPEC  # noqa: E402


def judge_costs(workspace, run_id: str, kind: str) -> dict:
    """Calls and tokens of the judge's model, summed over the judgments of `kind` on the run (from stored spans)."""
    from playground.store.judgments import get_judge_spans, list_judgments

    judgments = [j for j in list_judgments(workspace, run_id=run_id, kind=kind) if j["run_id"] == run_id]
    calls = prompt = completion = 0
    for judgment in judgments:
        for span in get_judge_spans(workspace, judgment["id"]):
            if span["kind"] == "generate":
                calls += 1
                prompt += span["prompt_tokens"] or 0
                completion += span["completion_tokens"] or 0
    return {
        "answers": len(judgments),
        "errors": sum(bool(j["error"]) for j in judgments),
        "first_error": next((j["error"] for j in judgments if j["error"]), None),
        "calls": calls,
        "prompt": prompt,
        "completion": completion,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--questions", type=int, default=5)
    parser.add_argument("--max-tokens", type=int, default=256, help="the judge's reply limit (as the CLI's)")
    parser.add_argument("--model", default=DEFAULT_MODEL_SPEC, help="answering and judge model")
    args = parser.parse_args()

    from playground.demo_workspace import ensure_demo_workspace
    from playground.evaluation.judges.answers import judge_answers
    from playground.evaluation.judges.registry import answer_judges
    from playground.evaluation.judges.judge_config import JudgeConfig
    from playground.models.registry import load_model
    from playground.runs import RunConfig, start_run

    with tempfile.TemporaryDirectory() as folder:
        workspace = ensure_demo_workspace(Path(folder) / "sessions" / "playground.db", build_indexes=False)
        try:
            model = load_model(args.model)
            config = RunConfig(
                dataset="demo",
                program="rag",
                templates={"main": "rag-citations"},
                retriever="bm25",
                k=3,
                model=model.spec,
                params=GenerationParams(max_tokens=96),
                sample=args.questions,
                seed=0,
            )
            run = start_run(workspace, config, model=model, use_cache=False)
            print(
                f"{args.model} on the demo: rag run {run.run_id}, {run.n} question(s), bm25 k=3, rag-citations; "
                f"judge replies up to {args.max_tokens} tokens, cache bypassed"
            )
            print(
                f"{'judge':<18} {'answers':>7} {'errors':>6} {'calls/q':>8} {'prompt tok/q':>13} "
                f"{'completion tok/q':>17} {'s/q':>7}"
            )
            judge = JudgeConfig(model=model.spec, params=GenerationParams(temperature=0.0, max_tokens=args.max_tokens))
            for kind in answer_judges():
                started = time.perf_counter()
                judge_answers(workspace, kind, run.run_id, judge, model=model, use_cache=False)
                seconds = time.perf_counter() - started
                cost = judge_costs(workspace, run.run_id, kind)
                per = max(cost["answers"], 1)
                print(
                    f"{kind:<18} {cost['answers']:>7} {cost['errors']:>6} {cost['calls'] / per:>8.1f} "
                    f"{cost['prompt'] / per:>13.0f} {cost['completion'] / per:>17.0f} {seconds / per:>7.1f}"
                )
                if cost["first_error"]:
                    print(f"{'':<18} e.g. {' '.join(cost['first_error'].split())[:150]}")
        finally:
            workspace.close()


if __name__ == "__main__":
    import figures

    sys.exit(figures.run("judges_cost", main))
