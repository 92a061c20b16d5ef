"""Peak memory and time of `playground session import` of a large, real-looking export (issue 25).

Builds an export of about SIZE_MB from the tiny workspace's real one: its two runs repeated under new ids (many runs),
each with its results and its retrieve/render/generate spans, prompts and outputs of prompt-sized text; the file is
a valid version-5 export (digest included). Each import runs in a fresh process into a new workspace; its peak
memory is the process's VmHWM. The baseline is a fresh process that does everything but read the file (the
interpreter, the CLI's imports, an open workspace), so "over the baseline" is what the file itself costs.

    PYTHONPATH=. python bench/session_import.py [SIZE_MB] [REPEATS]

Figures (2-core shared dev machine, `35 3`), a 35.2 MB export of 1,200 runs, 7,200 results, 21,600 spans:
  before: typed records decoded, turned into dicts, converted and checked again, the whole file dumped for the digest:
          2.49 s, peak 213 MB (6.0x the file); over the 42 MB baseline 171 MB (4.9x)
  after:  the typed records are what is checked and written (a row built at a time, the digest hashed a record at a
          time): 1.83 s, peak 146 MB (4.1x); over the baseline 104 MB (3.0x): the file's bytes (1x) and its typed
          records (1.8x) at the end of the decode.
  now:    the file's bytes are the one copy (re-measured before: 3.11 s, 146 MB, 104 MB over): free-form JSON
          (configs, span inputs and outputs, metadata) kept as msgspec.Raw gave 2.83 s, 113 MB (3.2x), 71 MB over
          (2.0x: the records' ids, names and texts were 0.7x); with each section's records kept as their bytes too,
          decoded when read (sessionfile.records.LazyRecords): 2.03 s, peak 91 MB (2.6x); over the baseline 49 MB (1.4x).
          About 8 MB of "over" is the modules `session import` loads (a 2.9 MB export: 13 MB over), the rest the
          file's bytes (1x) and the checks' indexes of ids.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

CHILD = r"""
import json, sys, time
from playground.cli import main
from playground.store import open_workspace
path, db = sys.argv[1], sys.argv[2]
open_workspace(db).close()
start = time.perf_counter()
code = main(["session", "import", path, "--db", db, "--json"]) if path != "-" else 0
seconds = time.perf_counter() - start
hwm = next(int(line.split()[1]) for line in open("/proc/self/status") if line.startswith("VmHWM:"))
print(json.dumps({"code": code, "seconds": seconds, "peak_kb": hwm}))
"""


def build(size_mb: float, folder: Path) -> tuple[Path, dict]:
    """A valid export of about `size_mb`: the tiny workspace's two runs repeated with their results and spans."""
    from playground.store import open_workspace
    from playground.store.datasets import save_dataset
    from playground.sessionfile import export_session, with_digest
    from playground.store.sessions import new_session
    from tests.conftest import tiny_dataset
    from tests.store.test_sessions import add_runs

    workspace = open_workspace(folder / "source.db")
    save_dataset(workspace, "tiny", tiny_dataset())
    add_runs(workspace, new_session(workspace, "study")["id"])
    payload = json.loads(json.dumps(export_session(workspace, "study")))
    workspace.close()
    runs, results, spans = payload["runs"], payload["results"], payload["spans"]
    payload["runs"], payload["results"], payload["spans"], payload["ratings"] = [], [], [], []
    prompt = "Answer the question from the passages below. " * 20
    while len(json.dumps(payload)) < size_mb * 1e6:
        for _ in range(50):
            _add_block(payload, runs, results, spans, prompt)
    path = folder / "large.json"
    path.write_text(json.dumps(with_digest(payload)), encoding="utf-8")
    counts = {name: len(payload[name]) for name in ("runs", "results", "spans")}
    return path, counts


def _add_block(payload: dict, runs: list, results: list, spans: list, prompt: str) -> None:
    """The two runs again under new ids, with their results and spans (prompts of prompt-sized text)."""
    run_ids = {run["id"]: uuid.uuid4().hex[:12] for run in runs}
    span_ids = {span["id"]: uuid.uuid4().hex for span in spans}
    payload["runs"] += [{**run, "id": run_ids[run["id"]], "label": f"run {len(payload['runs'])}"} for run in runs]
    payload["results"] += [{**r, "run_id": run_ids[r["run_id"]], "output": prompt[:400]} for r in results]
    payload["spans"] += [
        {
            **s,
            "id": span_ids[s["id"]],
            "run_id": run_ids[s["run_id"]],
            "parent_id": span_ids.get(s["parent_id"]) if s["parent_id"] else None,
            "inputs": {**s["inputs"], "prompt": prompt},
        }
        for s in spans
    ]


def measure(path: str, folder: Path, repeats: int) -> tuple[float, float]:
    environment = {**os.environ, "PYTHONPATH": str(ROOT)}
    environment.pop("PLAYGROUND_IMPORT_MAX_MB", None)
    seconds, peaks = [], []
    for _ in range(repeats):
        db = folder / f"target-{uuid.uuid4().hex[:8]}.db"
        done = subprocess.run(
            [sys.executable, "-c", CHILD, path, str(db)],
            capture_output=True,
            text=True,
            cwd=ROOT,
            env=environment,
            timeout=1200,
        )
        report = json.loads(done.stdout.strip().splitlines()[-1]) if done.returncode == 0 else {}
        if report.get("code") != 0:
            raise SystemExit(f"import failed: {done.stdout[-1500:]}{done.stderr[-1500:]}")
        seconds.append(report["seconds"])
        peaks.append(report["peak_kb"] / 1024)
    return statistics.median(seconds), statistics.median(peaks)


def main() -> None:
    size_mb = float(sys.argv[1]) if len(sys.argv) > 1 else 35
    repeats = int(sys.argv[2]) if len(sys.argv) > 2 else 3
    with tempfile.TemporaryDirectory() as name:
        folder = Path(name)
        path, counts = build(size_mb, folder)
        mb = path.stat().st_size / 1e6
        _, baseline = measure("-", folder, repeats)
        seconds, peak = measure(str(path), folder, repeats)
        print(
            f"session import of a {mb:.1f} MB export ({counts['runs']:,} runs, {counts['results']:,} results, "
            f"{counts['spans']:,} spans), median of {repeats} fresh processes:\n"
            f"  {seconds:.2f} s, peak {peak:.0f} MB ({peak / mb:.1f}x the file); baseline without the file "
            f"{baseline:.0f} MB; over the baseline {peak - baseline:.0f} MB ({(peak - baseline) / mb:.1f}x the file)"
        )


if __name__ == "__main__":
    import figures

    sys.exit(figures.run("session_import", main))
