"""Fixed costs: what a run, a detached run's worker and the app's first page pay before any work, against
`python -c "import playground.runs"`; and requests in flight, measured as whole commands.

    .venv/bin/python bench/imports.py [--repeats 5] [--questions 24] [--delay 0.3] [--concurrency-repeats 3]

Every figure is a new process (bytecode cached, as in an installed package), the measures interleaved, the median
of the repeats printed. A run is `playground run` of the `direct` program on one question (EM, F1, BLEU, chrF,
ROUGE-L scored) against a local OpenAI-compatible server (tests/openai_server.py) that answers at once; the
detached run is `playground run --detach` until its worker has stored the run as done; the first page is the app's
entry script under Streamlit's AppTest. Then the same command on --questions questions against a server that answers
in --delay seconds, at --concurrency 1 and 8. Last, what the run imports beyond `import playground.runs`
(-X importtime, by top-level package).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import re
import resource
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from contextlib import closing
from pathlib import Path
from typing import Callable

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from playground.data.records import Dataset, Passage, Question  # noqa: E402
from playground.store import open_workspace  # noqa: E402
from playground.store.datasets import save_dataset  # noqa: E402
from tests.openai_server import OpenAIServer  # noqa: E402

RUN_TARGET_S = 0.5  # a run's fixed cost above `import playground.runs`
CONCURRENCY_TARGET = 4.0  # --concurrency 8 against --concurrency 1
APP_FIRST_PAGE = """
from streamlit.testing.v1 import AppTest
page = AppTest.from_file({entry!r}, default_timeout=300).run()
assert not page.exception, [e.value for e in page.exception]
"""


def child_env(db: Path) -> dict:
    """The environment of every measured process: this checkout first, bytecode written and read, no network."""
    env = {key: value for key, value in os.environ.items() if key != "PYTHONDONTWRITEBYTECODE"}
    env.update(
        PYTHONPATH=os.pathsep.join([str(ROOT), *filter(None, [env.get("PYTHONPATH")])]),
        PLAYGROUND_DB=str(db),
        HF_HUB_OFFLINE="1",
    )
    return env


def bench_dataset(n: int) -> Dataset:
    passages = [Passage(f"p{i}", f"Topic {i}", f"Item {i} is described here; its code is C{i * 7}.") for i in range(n)]
    questions = [Question(f"q{i}", f"What is the code of item {i}?", [f"C{i * 7}"], [f"p{i}"]) for i in range(n)]
    return Dataset(format="jsonl", source="bench/imports.py", passages=passages, questions=questions)


def timed(command: list[str], env: dict) -> tuple[float, float]:
    """Wall and CPU (user + system) seconds of one command, run to its end."""
    cpu_before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    wall = time.perf_counter() - started
    cpu_after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(command)} failed ({done.returncode}): {done.stderr.strip()[-2000:]}")
    return wall, (cpu_after.ru_utime - cpu_before.ru_utime) + (cpu_after.ru_stime - cpu_before.ru_stime)


def playground(db: Path, *argv: str) -> list[str]:
    return [sys.executable, "-m", "playground", "--db", str(db), *argv]


def run_command(db: Path, spec: str, *extra: str) -> list[str]:
    return playground(
        db,
        "--json",
        "run",
        "--dataset",
        "bench",
        "--program",
        "direct",
        "--model",
        spec,
        "--no-cache",
        "--max-tokens",
        "8",
        *extra,
    )


def detached_until_done(db: Path, spec: str, env: dict) -> tuple[float, float]:
    """`run --detach` as a whole command, then the wait until its worker has stored the run as done (read-only
    polls of its status). CPU is not known: the worker is not this process's child."""
    started = time.perf_counter()
    done = subprocess.run(run_command(db, spec, "--sample", "1", "--detach"), env=env, capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"run --detach failed: {done.stderr.strip()[-2000:]}")
    run_id = json.loads(done.stdout)["run_id"]
    with closing(sqlite3.connect(f"{db.as_uri()}?mode=ro", uri=True)) as connection:
        while (
            status := connection.execute("SELECT status FROM runs WHERE id = ?", [run_id]).fetchone()[0]
        ) == "running":
            time.sleep(0.01)
    if status != "done":
        raise SystemExit(f"detached run {run_id} ended {status}")
    return time.perf_counter() - started, math.nan


def medians(measures: dict[str, Callable[[], tuple[float, float]]], repeats: int) -> dict[str, tuple[float, float]]:
    """Each measure once unmeasured (bytecode, page cache), then `repeats` rounds interleaved; median wall and CPU."""
    for measure in measures.values():
        measure()
    timings: dict[str, list[tuple[float, float]]] = {name: [] for name in measures}
    for _ in range(repeats):
        for name, measure in measures.items():
            timings[name].append(measure())
    return {
        name: (statistics.median(wall for wall, _ in values), statistics.median(cpu for _, cpu in values))
        for name, values in timings.items()
    }


def imported_beyond(reference: list[str], command: list[str], env: dict, top: int = 8) -> list[tuple[str, float]]:
    """Top-level packages `command` imports that `reference` does not, with their cumulative import ms."""

    def packages(argv: list[str]) -> dict[str, float]:
        done = subprocess.run([argv[0], "-X", "importtime", *argv[1:]], env=env, capture_output=True, text=True)
        found: dict[str, float] = {}
        for line in done.stderr.splitlines():
            match = re.match(r"import time:\s+\d+ \|\s+(\d+) \| *(\S+)", line)
            if match:
                name = match.group(2).split(".")[0]
                found[name] = max(found.get(name, 0.0), int(match.group(1)) / 1000)
        return found

    base, run = packages(reference), packages(command)
    extra = sorted(((name, ms) for name, ms in run.items() if name not in base), key=lambda item: -item[1])
    return extra[:top]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5, help="rounds of the fixed-cost measures (default 5)")
    parser.add_argument("--questions", type=int, default=24)
    parser.add_argument("--delay", type=float, default=0.3, help="the slow server's delay per request, seconds")
    parser.add_argument("--concurrency-repeats", type=int, default=3)
    args = parser.parse_args()
    instant, slow = OpenAIServer(delay_s=0.0).start(), OpenAIServer(delay_s=args.delay).start()
    try:
        with tempfile.TemporaryDirectory() as folder:
            db = Path(folder) / "sessions" / "bench.db"
            workspace = open_workspace(db)
            try:
                save_dataset(workspace, "bench", bench_dataset(args.questions))
            finally:
                workspace.close()
            env = child_env(db)
            reference = [sys.executable, "-c", "import playground.runs"]
            one_question = run_command(db, instant.spec(), "--sample", "1")
            app_page = [
                sys.executable,
                "-c",
                APP_FIRST_PAGE.format(entry=str(ROOT / "playground/app/streamlit_app.py")),
            ]
            fixed = medians(
                {
                    "reference": lambda: timed(reference, env),
                    "run": lambda: timed(one_question, env),
                    "detached": lambda: detached_until_done(db, instant.spec(), env),
                    "app": lambda: timed(app_page, env),
                },
                args.repeats,
            )
            levels = medians(
                {
                    level: (lambda level=level: timed(run_command(db, slow.spec(), "--concurrency", level), env))
                    for level in ("1", "8")
                },
                args.concurrency_repeats,
            )
            beyond = imported_beyond(reference, one_question, env)
    finally:
        instant.close()
        slow.close()

    base, base_cpu = fixed["reference"]
    print(
        f"fixed costs, median of {args.repeats} (a new process each, interleaved, bytecode cached; the server answers "
        f"at once); load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs"
    )
    print(f"{'measure':<62} {'wall s':>7} {'above ref':>9} {'x ref':>6} {'CPU s':>6} {'above ref':>9}")
    rows = [
        ("reference", 'python -c "import playground.runs"'),
        ("run", "playground run, direct, 1 question, EM/F1/BLEU/chrF/ROUGE-L"),
        ("detached", "playground run --detach, 1 question, until its worker is done"),
        ("app", "the app's first page (streamlit_app.py under AppTest)"),
    ]
    for key, label in rows:
        wall, cpu = fixed[key]
        cpu_text = "-" if math.isnan(cpu) else f"{cpu:.2f}"
        cpu_above = "-" if math.isnan(cpu) else f"{cpu - base_cpu:+.2f}"
        print(f"{label:<62} {wall:>7.2f} {wall - base:>+9.2f} {wall / base:>5.1f}x {cpu_text:>6} {cpu_above:>9}")
    one, eight = levels["1"][0], levels["8"][0]
    print(
        f"\n{args.questions} questions, server delay {args.delay * 1000:.0f} ms, whole `playground run` commands, "
        f"median of {args.concurrency_repeats}"
    )
    print(f"--concurrency 1  {one:6.2f} s\n--concurrency 8  {eight:6.2f} s  {one / eight:.1f}x faster")
    print(
        "\nimported by the run beyond `import playground.runs` (cumulative ms, -X importtime): "
        + ", ".join(f"{name} {ms:.0f}" for name, ms in beyond)
    )
    run_above = fixed["run"][0] - base
    print(
        f"\ntargets: run's fixed cost <= {RUN_TARGET_S} s above the reference: "
        f"{'met' if run_above <= RUN_TARGET_S else 'NOT met'} (+{run_above:.2f} s wall); "
        f"concurrency 8 >= {CONCURRENCY_TARGET:.0f}x concurrency 1: "
        f"{'met' if one / eight >= CONCURRENCY_TARGET else 'NOT met'} ({one / eight:.1f}x)"
    )
    return 0


if __name__ == "__main__":
    import figures

    sys.exit(figures.run("imports", main))
