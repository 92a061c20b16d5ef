"""Whether llama.cpp can decode a GGUF file on this CPU, asked once in a child process.

A llama.cpp build whose kernels do not suit the CPU (issue 33: a native build on a Xeon with AVX-512 FP16
segfaulted decoding the bundled Q4_1 file) kills the process that loads the model, taking a run, the app or
pytest with it. The first load of a file by a given library build on a given CPU decodes one token in a child
instead; the answer is remembered in the models folder, so later loads cost a file read.
"""

from __future__ import annotations

import hashlib
import json
import os
import platform
import signal
import subprocess
import sys
import threading
from pathlib import Path

from playground.models.errors import ModelError

PROBE_TIMEOUT_S = 300
PROBES_FILE = "decode-probes.json"
_lock = threading.Lock()

PROBE_SCRIPT = """
import sys
import llama_cpp
llama = llama_cpp.Llama(sys.argv[1], n_ctx=64, n_threads=1, n_threads_batch=1, verbose=False)
llama.create_completion("The", max_tokens=1, temperature=0.0)
"""


def library_build() -> str:
    """The llama.cpp shared library's identity: the package version, the library file's size and mtime."""
    import llama_cpp

    folder = Path(llama_cpp.__file__).parent
    libraries = sorted(folder.glob("lib/*llama*")) or sorted(folder.glob("*llama*.so"))
    stamps = [f"{p.name}:{p.stat().st_size}:{p.stat().st_mtime_ns}" for p in libraries if p.is_file()]
    return f"{llama_cpp.__version__}|{'|'.join(stamps)}"


def cpu_identity() -> str:
    """The CPU model and feature flags (the same build may run on one CPU and fault on another)."""
    model, flags = "", ""
    try:
        for line in Path("/proc/cpuinfo").read_text(encoding="ascii", errors="replace").splitlines():
            key, _, value = line.partition(":")
            if key.strip() == "model name" and not model:
                model = value.strip()
            elif key.strip() in ("flags", "Features") and not flags:
                flags = " ".join(sorted(value.split()))
    except OSError:
        pass
    return f"{platform.machine()}|{model}|{hashlib.sha256(flags.encode()).hexdigest()[:16]}"


def probe_key(sha256: str) -> str:
    return hashlib.sha256(f"{sha256}|{library_build()}|{cpu_identity()}".encode()).hexdigest()


def signal_name(returncode: int) -> str:
    try:
        return signal.Signals(-returncode).name
    except ValueError:
        return f"signal {-returncode}"


def run_probe(path: Path) -> str | None:
    """Decode one token of `path` in a child process: None when it worked, else why not (one line)."""
    try:
        done = subprocess.run(
            [sys.executable, "-c", PROBE_SCRIPT, str(path)],
            capture_output=True,
            timeout=PROBE_TIMEOUT_S,
            env={**os.environ, "OMP_NUM_THREADS": "1"},
        )
    except subprocess.TimeoutExpired:
        return f"llama.cpp did not decode one token of {path.name} within {PROBE_TIMEOUT_S} s in a test process"
    if done.returncode < 0:
        return (
            f"llama.cpp crashed ({signal_name(done.returncode)}) decoding {path.name} on this CPU: its build does "
            "not suit this processor; rebuild llama-cpp-python with portable kernels (`make install` does: "
            "scripts/llama_cmake_args.py) or use another format (local:smollm2, the F16 default)"
        )
    if done.returncode != 0:
        last = (done.stderr or b"").decode("utf-8", "replace").strip().splitlines()[-1:] or [""]
        return f"llama.cpp could not load {path.name} in a test process (exit {done.returncode}): {last[0][:200]}"
    return None


def check_decodes(path: Path, sha256: str, folder: Path) -> None:
    """Raise ModelError naming the cause when `path` cannot be decoded here; remembered per file, build and CPU."""
    key = probe_key(sha256)
    record_file = folder / PROBES_FILE
    with _lock:
        probes = read_probes(record_file)
        if key not in probes:
            probes = read_probes(record_file) | {key: {"file": path.name, "error": run_probe(path)}}
            write_probes(record_file, probes)
    error = probes[key].get("error")
    if error:
        raise ModelError(error)


def read_probes(record_file: Path) -> dict:
    try:
        data = json.loads(record_file.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def write_probes(record_file: Path, probes: dict) -> None:
    """Swapped in whole, so two processes probing at once leave one valid file."""
    try:
        record_file.parent.mkdir(parents=True, exist_ok=True)
        staging = record_file.parent / f".{record_file.name}.tmp-{os.getpid()}-{threading.get_ident()}"
        staging.write_text(json.dumps(probes, indent=1), encoding="utf-8")
        os.replace(staging, record_file)
    except OSError:
        pass  # an unwritable cache only means probing again next time
