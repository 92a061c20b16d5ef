"""CPU seconds of the in-process retrieval engines with $PLAYGROUND_THREADS unset (each engine's own thread count)
and set to 1, on a machine whose cores are busy with other work (as the test suite's workers, one per core, or a
shared server are): torch embedding passages with the default embedder, and FAISS training an IVF-PQ index.

    .venv/bin/python bench/engine_threads.py [--passages 64] [--vectors 2000] [--busy 1] [--repeats 3]

Each measure is a child process (its own user+sys from rusage, after the imports and the model load); `--busy` other
processes spin on a core each meanwhile. The median of the repeats is printed, one markdown table.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import statistics
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]

CHILD = """
import json, resource, sys, time
def cpu():
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime
what, size = sys.argv[1], int(sys.argv[2])
if what == "embed":
    from playground.retrieval.embedders import get_embedder
    embedder = get_embedder()
    words = "river city capital mountain museum language bridge castle forest harbour island library".split()
    texts = [" ".join(words[(i + j) % len(words)] for j in range(120)) + f" {i}" for i in range(size)]
    embedder.encode(texts[:4])
    started, wall = cpu(), time.perf_counter()
    embedder.encode(texts)
else:
    import numpy as np
    from playground.retrieval.faiss_ivfpq import FaissIVFPQRetriever
    from playground.retrieval.registry import default_params
    vectors = np.random.default_rng(11).standard_normal((size, 64)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    started, wall = cpu(), time.perf_counter()
    FaissIVFPQRetriever.from_vectors(vectors, [str(i) for i in range(size)], default_params("faiss-ivfpq"))
print(json.dumps({"cpu": cpu() - started, "wall": time.perf_counter() - wall}))
"""


def spin() -> None:
    while True:
        pass


def measure(what: str, size: int, threads: str) -> dict:
    env = {k: v for k, v in os.environ.items() if k != "PLAYGROUND_THREADS"}
    if threads:
        env["PLAYGROUND_THREADS"] = threads
    env["PYTHONPATH"] = str(REPO)
    out = subprocess.run(
        [sys.executable, "-c", CHILD, what, str(size)], env=env, capture_output=True, text=True, check=True
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--passages", type=int, default=64)
    parser.add_argument("--vectors", type=int, default=2000)
    parser.add_argument("--busy", type=int, default=1, help="processes spinning on a core each meanwhile")
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    spinners = [multiprocessing.Process(target=spin, daemon=True) for _ in range(args.busy)]
    for process in spinners:
        process.start()
    try:
        print(f"cores: {os.cpu_count()}, busy neighbours: {args.busy}, median of {args.repeats}\n")
        print("| work | $PLAYGROUND_THREADS | CPU s | wall s |")
        print("|---|---|---|---|")
        for what, size, label in (
            ("embed", args.passages, f"embed {args.passages} passages (torch)"),
            ("ivfpq", args.vectors, f"train IVF-PQ on {args.vectors} vectors (FAISS)"),
        ):
            for threads in ("", "1"):
                runs = [measure(what, size, threads) for _ in range(args.repeats)]
                cpu = statistics.median(r["cpu"] for r in runs)
                wall = statistics.median(r["wall"] for r in runs)
                print(f"| {label} | {threads or 'unset'} | {cpu:.2f} | {wall:.2f} |")
    finally:
        for process in spinners:
            process.terminate()
    return 0


if __name__ == "__main__":
    import figures

    sys.exit(figures.run("engine_threads", main))
