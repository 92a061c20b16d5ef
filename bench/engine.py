"""Engine speed on the demo workspace: generation overhead, template rendering, and a rag run cold vs cached.

    .venv/bin/python bench/engine.py [--db sessions/playground.db] [--questions 50] [--max-tokens 32]

The workspace is copied to a temporary folder first, so the benchmark's runs never land in yours. Figures:
1. the local model's tokens/s through the engine (StepContext.generate: cache write, tracing) against raw
   llama-cpp-python create_chat_completion on the same prompts and params, alternating, in this process
   (target: engine within 5% of raw);
2. rendering the rag template with 10 passages, p50/p99 (target p99 < 5 ms), plus the whole render step
   (fit_passages token counting + span);
3. a rag + bm25 run over N questions: questions/s cold (cache bypassed) and cached (target >= 20x).
"""

from __future__ import annotations

import argparse
import os
import sqlite3
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("HF_HUB_OFFLINE", "1")

from playground.models.base import GenerationParams  # noqa: E402
from playground.store import open_workspace  # noqa: E402


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, round(q / 100 * (len(ordered) - 1))))
    return ordered[index]


def demo_copy(source: Path, folder: Path) -> tuple[object, str, str]:
    """A private copy of the demo workspace (made first if absent); falls back to the tests' tiny dataset."""
    note = f"demo workspace {source}"
    has_demo = False
    if source.exists():
        probe = open_workspace(source, create=False)
        has_demo = probe.db["benchmarks"].count_where("name = ?", ["demo"]) > 0
        probe.close()
    if not has_demo:
        try:
            from playground.demo_workspace import ensure_demo_workspace

            ensure_demo_workspace(source, build_indexes=False).close()
            has_demo = True
            note = f"demo workspace {source} (created now)"
        except ImportError as error:
            note = f"tiny test dataset (demo unavailable: {error})"
    target = folder / "sessions" / "playground.db"
    target.parent.mkdir(parents=True)
    if has_demo:
        src, dst = sqlite3.connect(source), sqlite3.connect(target)
        try:
            src.backup(dst)
        finally:
            src.close()
            dst.close()
        return open_workspace(target), "demo", note
    from playground.store.datasets import save_dataset
    from tests.conftest import tiny_dataset

    workspace = open_workspace(target)
    save_dataset(workspace, "tiny", tiny_dataset())
    return workspace, "tiny", note


def bench_generation(workspace, dataset: str, model, n_prompts: int, max_tokens: int, rounds: int) -> dict:
    """Tokens/s through the engine vs raw llama.cpp on the same prompts, alternating order each round."""
    from playground.programs.base import StepContext
    from playground.prompts.render import question_variables
    from playground.prompts.library import load_template
    from playground.prompts.render import render_messages
    from playground.store.datasets import load_questions

    template = load_template("direct-short-answer")
    prompts = [render_messages(template, question_variables(q)) for q in load_questions(workspace, dataset)[:n_prompts]]
    params = GenerationParams(max_tokens=max_tokens, temperature=0.0, seed=0)
    context = StepContext(
        workspace=workspace, model=model, params=params, templates={"main": template}, use_cache=False
    )

    def raw(messages):
        model.llama.reset()  # no KV-cache prefix reuse from the previous call, for either path
        started = time.perf_counter()
        response = model.llama.create_chat_completion(
            messages=list(messages), temperature=0.0, top_p=1.0, max_tokens=max_tokens, stop=None, seed=0
        )
        return (
            response["usage"]["completion_tokens"],
            time.perf_counter() - started,
            response["choices"][0]["message"]["content"] or "",
        )

    def engine(messages):
        model.llama.reset()
        step = context.for_question()
        started = time.perf_counter()
        completion = step.generate(messages)
        return completion.completion_tokens, time.perf_counter() - started, completion.text

    raw(prompts[0])  # warm-up
    totals = {"raw": [0, 0.0], "engine": [0, 0.0]}
    ratios, same = [], 0
    for round_index in range(rounds):
        round_tokens = {"raw": [0, 0.0], "engine": [0, 0.0]}
        for i, messages in enumerate(prompts):
            order = [("raw", raw), ("engine", engine)]
            if (i + round_index) % 2:
                order.reverse()
            texts = {}
            for name, call in order:
                tokens, seconds, text = call(messages)
                texts[name] = text
                round_tokens[name][0] += tokens
                round_tokens[name][1] += seconds
            same += texts["raw"] == texts["engine"]
        for name in totals:
            totals[name][0] += round_tokens[name][0]
            totals[name][1] += round_tokens[name][1]
        ratios.append(
            (round_tokens["engine"][0] / round_tokens["engine"][1]) / (round_tokens["raw"][0] / round_tokens["raw"][1])
        )
    return {
        "raw_tps": totals["raw"][0] / totals["raw"][1],
        "engine_tps": totals["engine"][0] / totals["engine"][1],
        "median_round_ratio": statistics.median(ratios),
        "prompts": len(prompts),
        "rounds": rounds,
        "identical_outputs": f"{same}/{len(prompts) * rounds}",
    }


def bench_render(workspace, dataset: str, model, repeats: int) -> dict:
    """render_messages of rag-short-answer with 10 real passages, and the whole traced render step."""
    from playground.programs.base import StepContext
    from playground.prompts.render import question_variables
    from playground.prompts.library import load_template
    from playground.prompts.render import render_messages
    from playground.retrieval.index import open_retriever
    from playground.store.datasets import corpus_of, load_questions

    template = load_template("rag-short-answer")
    corpus = corpus_of(workspace, dataset)
    question = load_questions(workspace, dataset)[0]
    retriever = open_retriever(workspace, corpus, "bm25")
    context = StepContext(
        workspace=workspace,
        model=model,
        params=GenerationParams(max_tokens=32),
        templates={"main": template},
        retriever=retriever,
        corpus=corpus,
        k=10,
    )
    passages = context.retrieve(question.text, 10)
    variables = question_variables(question)
    render_messages(template, {**variables, "passages": passages})
    plain, step = [], []
    for _ in range(repeats):
        started = time.perf_counter()
        render_messages(template, {**variables, "passages": passages})
        plain.append(time.perf_counter() - started)
    for _ in range(max(1, repeats // 10)):
        fresh = context.for_question()
        started = time.perf_counter()
        fresh.render_with_passages(variables, passages)
        step.append(time.perf_counter() - started)
    chars = sum(len(p["text"]) for p in passages)
    return {
        "passages": len(passages),
        "chars": chars,
        "p50_ms": percentile(plain, 50) * 1000,
        "p99_ms": percentile(plain, 99) * 1000,
        "step_p50_ms": percentile(step, 50) * 1000,
        "step_p99_ms": percentile(step, 99) * 1000,
        "repeats": repeats,
    }


def bench_run(workspace, dataset: str, model, n_questions: int, max_tokens: int, k: int) -> dict:
    """A rag + bm25 run cold (cache bypassed), then the same run again from the cache."""
    from playground.runs import RunConfig, repeat_run, start_run

    config = RunConfig(
        dataset=dataset,
        program="rag",
        templates={"main": "rag-short-answer"},
        retriever="bm25",
        k=k,
        params=GenerationParams(max_tokens=max_tokens),
        sample=n_questions,
        seed=0,
    )
    started = time.perf_counter()
    cold = start_run(workspace, config, use_cache=False, model=model, label="bench cold")
    cold_wall = time.perf_counter() - started
    started = time.perf_counter()
    cached = repeat_run(workspace, cold.run_id, model=model, label="bench cached")
    cached_wall = time.perf_counter() - started
    return {
        "n": cold.n,
        "cold_qps": cold.n / cold_wall,
        "cached_qps": cached.n / cached_wall,
        "speedup": cold_wall / cached_wall,
        "cached_results": cached.cached,
        "cold_errors": cold.errors,
        "cold_wall_s": cold_wall,
        "cached_wall_s": cached_wall,
        "cold_tokens": cold.tokens,
        "cached_tokens": cached.tokens,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", default=str(ROOT / "sessions" / "playground.db"))
    parser.add_argument("--questions", type=int, default=50)
    parser.add_argument("--max-tokens", type=int, default=32)
    parser.add_argument("-k", type=int, default=3)
    parser.add_argument("--prompts", type=int, default=8)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--render-repeats", type=int, default=2000)
    args = parser.parse_args()

    from playground.models.registry import load_model

    with tempfile.TemporaryDirectory(prefix="bench-engine-") as folder:
        workspace, dataset, note = demo_copy(Path(args.db), Path(folder))
        try:
            model = load_model("local:smollm2")
            print(
                f"data: {note}; dataset {dataset!r}; model {model.spec} ({model.info.get('model_id')}); "
                f"cpus {os.cpu_count()}, load average {os.getloadavg()[0]:.1f}",
                flush=True,
            )
            gen = bench_generation(workspace, dataset, model, args.prompts, args.max_tokens, args.rounds)
            render = bench_render(workspace, dataset, model, args.render_repeats)
            run = bench_run(workspace, dataset, model, args.questions, args.max_tokens, args.k)
        finally:
            workspace.close()

    rows = [
        ("generation: raw llama-cpp-python", f"{gen['raw_tps']:.1f} tok/s", ""),
        (
            "generation: engine (cache write + trace)",
            f"{gen['engine_tps']:.1f} tok/s",
            f"engine/raw {gen['engine_tps'] / gen['raw_tps']:.3f} (median per round {gen['median_round_ratio']:.3f}); "
            f"target >= 0.95; {gen['prompts']} prompts x {gen['rounds']} rounds, identical outputs {gen['identical_outputs']}",
        ),
        (
            f"render rag-short-answer, {render['passages']} passages ({render['chars']} chars)",
            f"p50 {render['p50_ms']:.3f} ms  p99 {render['p99_ms']:.3f} ms",
            "target p99 < 5 ms",
        ),
        (
            "render step (fit_passages + span)",
            f"p50 {render['step_p50_ms']:.3f} ms  p99 {render['step_p99_ms']:.3f} ms",
            "exact token counting of the prompt",
        ),
        (
            f"rag+bm25 run, {run['n']} questions, cold",
            f"{run['cold_qps']:.3f} q/s",
            f"{run['cold_wall_s']:.1f} s, {run['cold_tokens']} tokens, {run['cold_errors']} errors",
        ),
        (
            f"rag+bm25 run, {run['n']} questions, cached",
            f"{run['cached_qps']:.2f} q/s",
            f"{run['speedup']:.0f}x faster (target >= 20x); {run['cached_results']} results from cache, "
            f"{run['cached_tokens']} tokens counted",
        ),
    ]
    widths = [max(len(row[i]) for row in rows) for i in range(2)]
    print()
    for name, value, comment in rows:
        print(f"{name.ljust(widths[0])}  {value.ljust(widths[1])}  {comment}")
    return 0


if __name__ == "__main__":
    import figures

    sys.exit(figures.run("engine", main))
