"""What an application pays for `playground.prompts`: the import (goal: under 0.3 s), `load` of a labelled version
from a workspace file, and the first and later renders, in fresh processes (median of --repeats), against the
interpreter's own start.

    .venv/bin/python bench/prompt_api.py [--repeats 7]

The first render starts the render worker (the sandbox's process, as a run's first render does); with
PLAYGROUND_RENDER_ISOLATION=inline it renders in the process with the sandbox's checked operations only.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

HEAVY = ("streamlit", "torch", "llama_cpp", "sentence_transformers", "faiss")
PROBE = """
import json, sys, time
started = time.perf_counter()
import playground.prompts
imported = time.perf_counter()
prompt = playground.prompts.load("rag-short-answer", label="prod", db=sys.argv[1])
loaded = time.perf_counter()
passages = [{"title": "Madrid", "text": "The Prado museum is in Madrid."}, "Paris is the capital of France."]
prompt.render(question="Where is the Prado?", passages=passages)
first = time.perf_counter()
prompt.render(question="Where is the Louvre?", passages=passages)
second = time.perf_counter()
print(json.dumps({
    "import": imported - started, "load": loaded - imported, "first render": first - loaded,
    "later render": second - first, "heavy": sorted({m.split(".")[0] for m in sys.modules} & set(sys.argv[2:])),
}))
"""


def workspace_with_label(folder: Path) -> Path:
    from playground.prompts.library import load_template
    from playground.store import open_workspace
    from playground.store.prompt_labels import move_label
    from playground.store.prompts import save_prompt_version

    path = folder / "playground.db"
    workspace = open_workspace(path)
    version = save_prompt_version(workspace, load_template("rag-short-answer"))
    move_label(workspace, "rag-short-answer", "prod", version, "bench")
    workspace.close()
    return path


def probe(db: Path, isolation: str) -> dict:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PLAYGROUND_RENDER_ISOLATION": isolation}
    done = subprocess.run(
        [sys.executable, "-c", PROBE, str(db), *HEAVY], capture_output=True, text=True, check=True, env=env, cwd=ROOT
    )
    return json.loads(done.stdout.strip().splitlines()[-1])


def interpreter_start() -> float:
    import time

    started = time.perf_counter()
    subprocess.run([sys.executable, "-c", "pass"], check=True)
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=7)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        db = workspace_with_label(Path(folder))
        start = statistics.median(interpreter_start() for _ in range(args.repeats))
        print(f"median of {args.repeats} fresh processes; the interpreter itself starts in {start:.3f} s")
        print(f"load average at the start: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores (shared machine)")
        for isolation in ("worker", "inline"):
            probes = [probe(db, isolation) for _ in range(args.repeats)]
            heavy = sorted({name for p in probes for name in p["heavy"]})
            print(f"\nrender isolation: {isolation}")
            for key in ("import", "load", "first render", "later render"):
                value = statistics.median(p[key] for p in probes)
                goal = f"  (goal < 0.300 s: {'met' if value < 0.3 else 'NOT met'})" if key == "import" else ""
                print(f"  {key:<14} {value:7.3f} s{goal}")
            print(f"  heavy modules imported: {', '.join(heavy) or 'none'} (of {', '.join(HEAVY)})")


if __name__ == "__main__":
    import figures

    sys.exit(figures.run("prompt_api", main))
