"""Benchmark figures with intervals for docs/results.md: HotpotQA, SQuAD and OpenBookQA samples from
../shared/datasets through the default local model, each metric by its benchmark's official definition, with
seeded bootstrap intervals, the retrieval runs behind them, and how many questions a difference would need.

    python bench/results.py                      # or: make results  (writes docs/results.md)
    python bench/results.py --sample 5 --out /tmp/results.md   # a quick smoke run

Everything is seeded (question sample, model seed, bootstrap), so a rerun on the same machine and package
versions prints the same scores; a rerun against the same --db is served from the response cache.
"""

from __future__ import annotations

import argparse
import platform
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

SHARED = ROOT.parent / "shared" / "datasets"
if not SHARED.exists():
    SHARED = Path("/work/shared/datasets")

# name, importer format, path, program, template, metrics to report (the benchmark's official ones first)
BENCHMARKS = [
    (
        "hotpotqa",
        "hotpotqa",
        "hotpotqa/hotpot_dev_distractor_v1.first53.json",
        "rag",
        "rag-short-answer",
        ["em", "f1", "retrieval_recall", "bleu", "chrf", "rougeL"],
    ),
    (
        "squad",
        "squad",
        "squad/dev-v1.1.json",
        "rag",
        "rag-short-answer",
        ["em", "f1", "retrieval_recall", "bleu", "chrf", "rougeL"],
    ),
    ("obqa", "obqa", "openbookqa", "rag", "multiple-choice", ["accuracy"]),
]
SEED, RESAMPLES = 0, 2000


def _interval(values: list[float]) -> str:
    from playground.evaluation.stats import mean_ci

    mean, low, high = mean_ci(values, seed=SEED, n_resamples=RESAMPLES)
    if mean is None:
        return "-"
    return f"{mean:.3f} [{low:.3f}, {high:.3f}]" if low is not None else f"{mean:.3f}"


def _metric_values(results: list[dict], metric: str) -> list[float]:
    from playground.evaluation.compare import question_scores

    scores, _, _ = question_scores(results)
    return [s[metric] for s in scores.values() if s.get(metric) is not None]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sample", type=int, default=20, help="questions per benchmark (default 20)")
    parser.add_argument("--max-tokens", type=int, default=16, help="answer length cap (default 16)")
    parser.add_argument("-k", type=int, default=3, help="passages retrieved (default 3)")
    parser.add_argument("--db", default=None, help="workspace file (default: a fresh temporary one)")
    parser.add_argument("--out", default=str(ROOT / "docs" / "results.md"), help="markdown file to write")
    args = parser.parse_args(argv)

    from playground.data.importers import read_dataset
    from playground.evaluation.compare import compare_runs
    from playground.evaluation.power import plan_from_baseline
    from playground.evaluation.text_metrics import metric_signatures
    from playground.models.registry import load_model
    from playground.evaluation.retrieval import evaluate_retriever
    from playground.runs.config import RunConfig, package_versions
    from playground.runs.execute import start_run
    from playground.store import open_workspace
    from playground.store.datasets import dataset_exists, load_questions, save_dataset
    from playground.store.retrieval_runs import get_retrieval_results
    from playground.store.runs import get_results

    if not SHARED.exists():
        print(f"no datasets at {SHARED}", file=sys.stderr)
        return 1
    db = Path(args.db) if args.db else Path(tempfile.mkdtemp(prefix="pg-results-")) / "results.db"
    workspace = open_workspace(db)
    model = load_model("local:smollm2")
    answer_rows, retrieval_rows, power_rows = [], [], []
    started_all = time.perf_counter()
    for name, fmt, relative, program, template, metrics in BENCHMARKS:
        if not dataset_exists(workspace, name):
            save_dataset(workspace, name, read_dataset(fmt, SHARED / relative))
        config = RunConfig(
            dataset=name,
            program=program,
            templates={"main": template},
            retriever="bm25",
            k=args.k,
            params={"max_tokens": args.max_tokens, "temperature": 0.0, "seed": 1},
            sample=args.sample,
            seed=1,
        )
        started = time.perf_counter()
        summary = start_run(
            workspace,
            config,
            model=model,
            label=f"results {name}",
            on_progress=lambda done, total, message="", name=name: print(f"\r{name}: {done}/{total}", end=""),
        )
        seconds = time.perf_counter() - started
        print(f"\r{name}: {summary.n} questions in {seconds:.0f} s")
        results = get_results(workspace, summary.run_id)
        cells = {metric: _interval(_metric_values(results, metric)) for metric in metrics}
        answer_rows.append((name, summary.n, summary.errors, template, cells, seconds, summary.run_id))
        main_metric = metrics[0]
        values = _metric_values(results, main_metric)
        rate = sum(values) / len(values) if values else 0.0
        for difference in (0.05, 0.10):
            if rate + difference <= 1:
                plan = plan_from_baseline(difference, rate=rate, n=len(values))
                power_rows.append(
                    (name, main_metric, rate, difference, plan["n_needed"], len(values), plan["detectable"])
                )

        if not any(q.gold_passage_ids for q in load_questions(workspace, name)):
            continue  # OpenBookQA names no gold fact per question: nothing to recall
        retrieval = evaluate_retriever(workspace, name, "bm25", args.k, 200, SEED, store=True)
        per_question = get_retrieval_results(workspace, retrieval["run_id"])
        retrieval_rows.append(
            (
                name,
                retrieval["n"],
                args.k,
                _interval([r["scores"]["recall@k"] for r in per_question]),
                _interval([r["scores"]["mrr@k"] for r in per_question]),
                _interval([r["scores"]["ndcg@k"] for r in per_question]),
                f"{retrieval['p50_ms']:.2f}",
                retrieval["run_id"],
            )
        )

    # two retrievers compared on HotpotQA's own sample: the comparison `playground compare` prints
    bm25 = evaluate_retriever(workspace, "hotpotqa", "bm25", args.k, None, SEED, store=True)
    dense = evaluate_retriever(workspace, "hotpotqa", "dense", args.k, None, SEED, store=True)
    retrievers = compare_runs(workspace, [bm25["run_id"], dense["run_id"]], seed=SEED, n_resamples=RESAMPLES)
    total = time.perf_counter() - started_all
    workspace.close()

    signatures = metric_signatures()
    versions = package_versions()
    lines = [
        "# Results on the bundled benchmark samples",
        "",
        "Produced by `make results` (`python bench/results.py --sample "
        f"{args.sample} --max-tokens {args.max_tokens} -k {args.k}`) on {platform.machine()} "
        f"({platform.python_version()}, playground {versions.get('playground')}, llama-cpp-python "
        f"{versions.get('llama-cpp-python', '?')}); {total / 60:.1f} minutes in all. The model is the default local "
        "SmolLM2-135M-Instruct on CPU: the point is the method and its uncertainty, not the scores.",
        "",
        f"Every run: program `rag`, retriever bm25 with k={args.k}, temperature 0, model seed 1, max_tokens "
        f"{args.max_tokens}, a seeded sample (seed 1) of {args.sample} questions. Every interval is a 95% "
        f"percentile bootstrap of the mean over questions, {RESAMPLES} resamples, seed {SEED}.",
        "",
        "## Answers",
        "",
        "Metrics by benchmark, each as its official definition: HotpotQA EM/F1 by `hotpot_evaluate_v1.py` (`yes`, "
        "`no` and `noanswer` get no partial F1), SQuAD EM/F1 by the v1.1 script, OpenBookQA accuracy (the chosen "
        "label equals the gold label). BLEU and chrF are sacrebleu's sentence scores /100, ROUGE-L rouge-score's "
        "F-measure; `retrieval_recall` is the share of gold passages among the passages the prompt used.",
        "",
    ]
    for name, n, errors, template, cells, seconds, run_id in answer_rows:
        lines += [
            f"**{name}** (template `{template}`, n = {n}, {errors} errors, {seconds:.0f} s, run `{run_id}`)",
            "",
            "| " + " | ".join(cells) + " |",
            "|" + "---|" * len(cells),
            "| " + " | ".join(cells.values()) + " |",
            "",
        ]
    lines += [
        "Metric signatures: " + "; ".join(f"{k} `{v}`" for k, v in signatures.items()),
        "",
        "## Retrieval (stored retrieval runs)",
        "",
        "bm25 over each benchmark's corpus, up to 200 seeded questions with gold passages "
        "(`playground eval-retrieval --dataset NAME --retriever bm25 -k 3 --sample 200`):",
        "",
        "(OpenBookQA names no gold fact per question, so it has no retrieval row.)",
        "",
        "| benchmark | n | k | recall@k | MRR@k | nDCG@k | p50 ms | run |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for row in retrieval_rows:
        lines.append("| " + " | ".join(str(cell) for cell in row[:-1]) + f" | `{row[-1]}` |")
    lines += [
        "",
        f"bm25 (A) against dense (B) on every HotpotQA question (`playground compare {bm25['run_id']} "
        f"{dense['run_id']}`), n = {retrievers['n']}:",
        "",
        "| metric | A | B | B - A | 95% interval | test | p | W/T/L |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for metric, row in retrievers["metrics"].items():
        ci = f"[{row['ci95'][0]:+.3f}, {row['ci95'][1]:+.3f}]" if row["ci95"] else "-"
        lines.append(
            f"| {metric} | {row['mean_a']:.3f} | {row['mean_b']:.3f} | {row['diff']:+.3f} | {ci} | "
            f"{row['test']} | {row['p_value']:.4f} | {row['wins']}/{row['ties']}/{row['losses']} |"
        )
    hit = retrievers["metrics"].get("hit@k")
    if hit:
        only_dense = ", ".join(hit["flipped"]["improved"]) or "none"
        lines += [
            "",
            f"Questions whose gold passage only dense finds: {only_dense}; "
            f"only bm25: {', '.join(hit['flipped']['regressed']) or 'none'}.",
        ]
    lines += [
        "",
        "## How many questions?",
        "",
        "Questions needed to detect an improvement of the main metric at 80% power (two-sided alpha 0.05, "
        "McNemar by Connor 1987, with the flip rate of independent answers: the cautious case), and the "
        "smallest difference the sample above can detect (`playground power --rate R --difference D -n N`):",
        "",
        "| benchmark | metric | baseline | to detect | questions needed | sample | detectable now |",
        "|---|---|---|---|---|---|---|",
    ]
    for name, metric, rate, difference, needed, n, detectable in power_rows:
        lines.append(
            f"| {name} | {metric} | {rate:.3f} | +{difference:.2f} | {needed} | {n} | "
            f"{'-' if detectable is None else f'{detectable:.3f}'} |"
        )
    lines += [
        "",
        '"-" under detectable now: at that sample size no difference the flip rate allows reaches 80% '
        "power. With samples this small, only large differences can be told from noise: compare variants on "
        "the number of questions the table asks for before drawing conclusions.",
        "",
    ]
    Path(args.out).write_text("\n".join(lines), encoding="utf-8")
    print(f"wrote {args.out} ({total:.0f} s)")
    return 0


if __name__ == "__main__":
    import figures

    sys.exit(figures.run("results", main))
