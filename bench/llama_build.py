"""Decode speed of the default local model (SmolLM2 in F16) under two llama.cpp builds, interleaved in one run.

`make install` builds llama-cpp-python with portable x86-64 kernels (scripts/llama_cmake_args.py) because a native
build crashed on CPUs with AVX-512 FP16 (issue 33). This measures what that costs against another build of the
same version, e.g. a native one made with
`CMAKE_ARGS="-DGGML_NATIVE=ON" pip install --no-cache-dir --no-binary llama-cpp-python --no-deps --target DIR
llama-cpp-python==VERSION`, passed as `--other DIR`. Each round runs each build in its own process, alternating.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

CHILD = r"""
import json, sys, time
import llama_cpp
from playground.models.local_files import DEFAULT_DERIVED_FORMAT, derive, smollm2_path
path = derive(smollm2_path(), DEFAULT_DERIVED_FORMAT)
llama = llama_cpp.Llama(str(path), n_ctx=512, n_threads=int(sys.argv[1]), n_threads_batch=int(sys.argv[1]), verbose=False)
text = "Write a short paragraph about the river Seine and the bridges of Paris. " * 8
tokens = llama.tokenize(text.encode())[: int(sys.argv[2])]
llama.eval(tokens[:4])
rates = []
for _ in range(3):
    llama.reset()
    started = time.perf_counter()
    for token in tokens:  # one decode step a token, as generation does
        llama.eval([token])
    rates.append(len(tokens) / (time.perf_counter() - started))
print(json.dumps({"rate": sorted(rates)[1], "file": path.name, "module": llama_cpp.__file__}))
"""


def measure(extra_path: str | None, threads: int, tokens: int) -> dict:
    env = dict(os.environ)
    if extra_path:
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [extra_path, env.get("PYTHONPATH", "")]))
    done = subprocess.run(
        [sys.executable, "-c", CHILD, str(threads), str(tokens)], capture_output=True, text=True, env=env, timeout=900
    )
    if done.returncode != 0:
        return {"rate": None, "error": f"exit {done.returncode}: {done.stderr.strip()[-300:]}"}
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--other", required=True, help="a folder holding another llama_cpp build (pip --target)")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--tokens", type=int, default=64)
    args = parser.parse_args()
    if not (Path(args.other) / "llama_cpp").is_dir():
        print(f"--other: no llama_cpp package in {args.other}", file=sys.stderr)
        return 2
    installed = Path(sys.prefix) / ".llama-cmake-args"
    flags = installed.read_text(encoding="utf-8").strip() if installed.exists() else "(not recorded)"
    rates: dict[str, list[float]] = {"installed": [], "other": []}
    for _ in range(args.rounds):
        for name, extra in (("installed", None), ("other", args.other)):
            result = measure(extra, args.threads, args.tokens)
            if result["rate"] is None:
                print(f"{name}: {result['error']}")
                continue
            rates[name].append(result["rate"])
    print(f"installed build's CMAKE_ARGS: {flags}")
    print(f"other build: {args.other}")
    print(f"decode, {args.tokens} tokens, {args.threads} threads, median of {args.rounds} rounds (tokens/s):")
    for name, values in rates.items():
        shown = f"{statistics.median(values):.1f}" if values else "crashed"
        print(f"  {name:<10} {shown}  ({', '.join(f'{v:.1f}' for v in values)})")
    if rates["installed"] and rates["other"] and statistics.median(rates["other"]) > 0:
        ratio = statistics.median(rates["installed"]) / statistics.median(rates["other"])
        print(f"  installed / other: {ratio:.2f}x")
    return 0


if __name__ == "__main__":
    import figures

    sys.exit(figures.run("llama_build", main))
