"""Which library decodes and validates a session file: msgspec or pydantic (issue 25), on a large export.

Builds a real-looking export (the tiny workspace's session, its runs' results and spans repeated under new ids, with
prompt-sized text) of about SIZE_MB, and the same file plus an ignored key holding millions of empty lists. Each
contender runs in a fresh process (peak memory is its VmHWM) REPEATS times; medians and ratios are printed:

  stdlib    json.loads alone (the figures below also ran the shape checks the types replaced)
  msgspec   sessionfile.parse_session_bytes: the schema in playground/sessionfile/records.py, each record checked
  pydantic  TypeAdapter(...).validate_json(data), strict, extra keys ignored: models generated from the same structs

    PYTHONPATH=. python bench/session_schema.py [SIZE_MB] [REPEATS]

Figures (2-core shared dev machine, `100 3`):
  export, 88 MB:                stdlib 0.66 s / 373 MB   msgspec 0.38 s / 270 MB   pydantic 1.00 s (2.7x) / 424 MB
  export + ignored key, 188 MB: stdlib 10.99 s / 2861 MB msgspec 0.54 s / 366 MB   pydantic 2.04 s (3.8x) / 1536 MB
Chosen: msgspec. It is 2.7-3.8x faster, and it skips a key its types do not name without building it (1.9x the
file's size at peak), where pydantic builds the whole JSON tree first (8.2x the file: over the 5x bound).
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
import sys, time
which, path = sys.argv[1], sys.argv[2]
from bench.session_schema import contender
decode = contender(which)
data = open(path, "rb").read()
start = time.perf_counter()
decode(data)
seconds = time.perf_counter() - start
hwm = next(int(line.split()[1]) for line in open("/proc/self/status") if line.startswith("VmHWM:"))
print(seconds, hwm)
"""


def pydantic_type(tp):
    """A pydantic type for a sessionfile.records annotation (structs become models, UNSET becomes a None default)."""
    import typing

    import msgspec
    from pydantic import ConfigDict, Field, create_model

    from playground.sessionfile import FREE_FORM, SECTION_TYPES, file_type

    origin, args = typing.get_origin(tp), typing.get_args(tp)
    if isinstance(tp, type) and issubclass(tp, msgspec.Struct):
        fields = {}
        for f in msgspec.structs.fields(tp):
            required = f.required
            # a file's section is decoded as its records' bytes, each then checked against its record type
            section = tp is file_type(4) and f.name in SECTION_TYPES and f.name != "session"
            field_type = list[SECTION_TYPES[f.name]] if section else f.type
            fields[f.name] = (pydantic_type(field_type), ... if required else None)
        return create_model(
            tp.__name__, __config__=ConfigDict(extra="ignore", strict=True, allow_inf_nan=False), **fields
        )
    if origin is typing.Annotated:
        inner, metas = args[0], [m for m in tp.__metadata__ if isinstance(m, msgspec.Meta)]
        held = [m.extra[FREE_FORM] for m in metas if FREE_FORM in (m.extra or {})]
        if held:  # a free-form value msgspec keeps as bytes (msgspec.Raw): pydantic checks what it holds
            return pydantic_type(held[0])
        bounds = {k: getattr(m, k) for m in metas for k in ("ge", "le") if getattr(m, k) is not None}
        return typing.Annotated[pydantic_type(inner), Field(**bounds)] if bounds else pydantic_type(inner)
    if origin is typing.Union:
        kept = tuple(pydantic_type(a) for a in args if a is not msgspec.UnsetType)
        return typing.Union[kept] if len(kept) > 1 else kept[0]
    if origin in (list, dict):
        return origin[tuple(pydantic_type(a) for a in args)] if origin is dict else list[pydantic_type(args[0])]
    return tp


def contender(which: str):
    if which == "stdlib":
        return json.loads  # the parse alone: the shape checks it had then are gone (the types hold the rules)
    from playground.sessionfile import ImportLimits, file_type, parse_session_bytes

    if which == "msgspec":
        unlimited = ImportLimits(max_bytes=2**62)
        return lambda data: parse_session_bytes(data, unlimited)  # the file, then each record against its type
    from pydantic import TypeAdapter

    adapter = TypeAdapter(pydantic_type(file_type(4)))
    return adapter.validate_json


def build(size_mb: float, folder: Path) -> tuple[Path, Path]:
    """A large export built from the tiny workspace's real one, and the same with an ignored key of empty lists."""
    from playground.store import open_workspace
    from playground.store.datasets import save_dataset
    from playground.store.sessions import new_session
    from playground.sessionfile import export_session
    from tests.conftest import tiny_dataset
    from tests.store.test_sessions import add_runs

    workspace = open_workspace(folder / "source.db")
    save_dataset(workspace, "tiny", tiny_dataset())
    add_runs(workspace, new_session(workspace, "study")["id"])
    payload = json.loads(json.dumps(export_session(workspace, "study")))
    workspace.close()
    results, spans = payload["results"], payload["spans"]
    payload["results"], payload["spans"] = [], []
    filler = "Answer the question from the passages below. " * 20
    size = 0
    while size < size_mb * 1e6:
        suffix = uuid.uuid4().hex[:8]
        ids = {s["id"]: s["id"] + suffix for s in spans}
        for r in results:
            payload["results"].append({**r, "question_id": r["question_id"] + suffix, "output": filler})
        for s in spans:
            payload["spans"].append(
                {
                    **s,
                    "id": ids[s["id"]],
                    "question_id": s["question_id"] + suffix,
                    "parent_id": ids.get(s["parent_id"]) if s["parent_id"] else None,
                    "inputs": {**s["inputs"], "prompt": filler},
                }
            )
        size += len(filler) * (len(results) + len(spans)) + 600 * (len(results) + len(spans))
    payload["version"] = 4
    plain = folder / "large.json"
    text = json.dumps(payload)
    plain.write_text(text, encoding="utf-8")
    padded = folder / "ignored.json"
    with open(padded, "wb") as handle:
        handle.write(text[:-1].encode() + b', "ignored": [' + b"[]," * int(size_mb * 1e6 / 3) + b"[]]}")
    return plain, padded


def measure(which: str, path: Path, repeats: int) -> tuple[float, float]:
    environment = {**os.environ, "PYTHONPATH": str(ROOT)}
    seconds, peaks = [], []
    for _ in range(repeats):
        done = subprocess.run(
            [sys.executable, "-c", CHILD, which, str(path)],
            capture_output=True,
            text=True,
            cwd=ROOT,
            env=environment,
            timeout=1200,
        )
        if done.returncode != 0:
            raise SystemExit(f"{which}: {done.stderr[-1500:]}")
        s, kb = done.stdout.split()
        seconds.append(float(s))
        peaks.append(int(kb) / 1024)
    return statistics.median(seconds), statistics.median(peaks)


def main() -> None:
    size_mb = float(sys.argv[1]) if len(sys.argv) > 1 else 100
    repeats = int(sys.argv[2]) if len(sys.argv) > 2 else 3
    with tempfile.TemporaryDirectory() as folder:
        plain, padded = build(size_mb, Path(folder))
        for label, path in (("export", plain), ("export + ignored key", padded)):
            mb = path.stat().st_size / 1e6
            print(f"\n{label}: {mb:.0f} MB, median of {repeats} fresh processes")
            rows = {which: measure(which, path, repeats) for which in ("stdlib", "msgspec", "pydantic")}
            base_s, base_mb = rows["msgspec"]
            for which, (s, peak) in rows.items():
                print(
                    f"  {which:9} {s:7.2f} s  ({s / base_s:5.1f}x msgspec)  peak {peak:7.0f} MB "
                    f"({peak / base_mb:4.1f}x msgspec, {peak / mb:4.1f}x the file)"
                )


if __name__ == "__main__":
    import figures

    sys.exit(figures.run("session_schema", main))
