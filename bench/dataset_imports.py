"""Import each real benchmark file in ../shared/datasets into a temporary workspace; print records and seconds.

Usage: .venv/bin/python bench/dataset_imports.py [--repeats 3] [--datasets DIR]
Each figure is the median of the repeats; "read" parses the file, "store" is the one-transaction save.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from playground.data.importers import read_dataset  # noqa: E402
from playground.store import open_workspace  # noqa: E402
from playground.store.datasets import save_dataset  # noqa: E402

DEFAULT_DATASETS = Path(__file__).resolve().parents[2] / "shared" / "datasets"

REAL_FILES = [
    ("hotpotqa", "hotpotqa/hotpot_dev_distractor_v1.first53.json"),
    ("hotpotqa", "hotpotqa/hotpot_dev_distractor_hf_layout.first100.json"),
    ("squad", "squad/dev-v1.1.json"),
    ("obqa", "openbookqa"),
    ("helps", "helps/helps.json"),
]


def measure(format: str, path: Path, repeats: int) -> dict:
    reads, stores = [], []
    for repeat in range(repeats):
        with tempfile.TemporaryDirectory() as folder:
            workspace = open_workspace(Path(folder) / "bench.db")
            try:
                started = time.perf_counter()
                dataset = read_dataset(format, path)
                read_done = time.perf_counter()
                save_dataset(workspace, "bench", dataset)
                reads.append(read_done - started)
                stores.append(time.perf_counter() - read_done)
            finally:
                workspace.close()
    return {
        "passages": len(dataset.passages),
        "questions": len(dataset.questions),
        "read": statistics.median(reads),
        "store": statistics.median(stores),
        "total": statistics.median(r + s for r, s in zip(reads, stores)),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--datasets", type=Path, default=DEFAULT_DATASETS)
    args = parser.parse_args()
    if not args.datasets.is_dir():
        print(f"{args.datasets} is absent: nothing to measure", file=sys.stderr)
        return 1
    header = f"{'format':<9} {'file':<56} {'passages':>9} {'questions':>10} {'read s':>8} {'store s':>8} {'total s':>8} {'records/s':>10}"
    print(f"median of {args.repeats} imports into a fresh temporary workspace")
    print(header)
    print("-" * len(header))
    for format, relative in REAL_FILES:
        path = args.datasets / relative
        if not path.exists():
            print(f"{format:<9} {relative:<56} (absent)")
            continue
        row = measure(format, path, args.repeats)
        records = row["passages"] + row["questions"]
        print(
            f"{format:<9} {relative:<56} {row['passages']:>9,} {row['questions']:>10,} {row['read']:>8.3f} "
            f"{row['store']:>8.3f} {row['total']:>8.3f} {records / row['total']:>10,.0f}"
        )
    return 0


if __name__ == "__main__":
    import figures

    sys.exit(figures.run("dataset_imports", main))
