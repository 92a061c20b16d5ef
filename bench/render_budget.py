"""What the render budget costs: rendering rag-short-answer with 10 passages in the render worker (the default:
the hard memory and time guard) against in-process rendering with the checked sandbox only, and against the plain
Jinja2 sandbox without the checks; then how fast each hostile template is stopped.

    .venv/bin/python bench/render_budget.py [--repeats 2000]

Medians and p99 in milliseconds, and ratios against the unchecked sandbox measured in the same process.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from playground.prompts.errors import TemplateError  # noqa: E402
from playground.prompts.library import load_template  # noqa: E402
from playground.prompts.limits import RenderBudget  # noqa: E402
from playground.prompts.render import question_variables, render_messages  # noqa: E402


def passages(n: int) -> list[dict]:
    text = (
        "The Seine is a river in northern France that flows through Paris to the English Channel; it is "
        "about 777 kilometres long and its basin holds about 30 percent of the country's population. "
    ) * 3
    return [
        {"id": f"p{i}", "title": f"Passage {i}", "text": text, "score": 1.0 / (i + 1), "rank": i + 1} for i in range(n)
    ]


def timed(call, repeats: int) -> list[float]:
    call()
    samples = []
    for _ in range(repeats):
        started = time.perf_counter()
        call()
        samples.append((time.perf_counter() - started) * 1000)
    return samples


def summary(samples: list[float]) -> tuple[float, float]:
    ordered = sorted(samples)
    return statistics.median(ordered), ordered[min(len(ordered) - 1, round(0.99 * (len(ordered) - 1)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeats", type=int, default=2000)
    args = parser.parse_args()
    template = load_template("rag-short-answer")
    variables = {**question_variables("Which river flows through Paris?"), "passages": passages(10)}

    from jinja2 import StrictUndefined
    from jinja2.sandbox import ImmutableSandboxedEnvironment

    plain_env = ImmutableSandboxedEnvironment(undefined=StrictUndefined, trim_blocks=True, lstrip_blocks=True)
    plain = [plain_env.from_string(template.system), plain_env.from_string(template.user)]

    def unchecked():
        return [part.render(variables) for part in plain]

    os.environ["PLAYGROUND_RENDER_ISOLATION"] = "inline"
    inline = timed(lambda: render_messages(template, variables), args.repeats)
    os.environ["PLAYGROUND_RENDER_ISOLATION"] = "worker"
    started = time.perf_counter()
    render_messages(template, variables)
    first = time.perf_counter() - started
    worker = timed(lambda: render_messages(template, variables), args.repeats)
    base = timed(unchecked, args.repeats)
    base_p50 = summary(base)[0]
    print(f"rag-short-answer, 10 passages, {args.repeats} renders each (ms):")
    for name, samples in (("unchecked sandbox", base), ("checked, in-process", inline), ("checked, in worker", worker)):
        p50, p99 = summary(samples)
        print(f"  {name:<22} p50 {p50:7.3f}  p99 {p99:7.3f}  ({p50 / base_p50:5.2f}x unchecked p50)")
    print(f"  worker start (first render, once per process): {first * 1000:.0f} ms")

    from tests.prompts.test_render_budget import HOSTILE

    budget = RenderBudget()
    print(f"hostile templates (budget {budget.seconds:g} s, worker memory {budget.memory_mb} MB):")
    for name, source in HOSTILE.items():
        hostile = template.with_changes(user=source)
        started = time.perf_counter()
        try:
            render_messages(hostile, {}, budget)
            outcome = "rendered"
        except TemplateError as error:
            outcome = error.problem[:70]
        print(f"  {name:<20} {time.perf_counter() - started:6.3f} s  {outcome}")


if __name__ == "__main__":
    import figures

    sys.exit(figures.run("render_budget", main))
