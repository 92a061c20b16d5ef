"""Chunking sweeps: one corpus version, index and stored retrieval run per value of chunk_size, overlap or chunker.

A benchmark made on a documents corpus has gold spans, which are found again in any chunking of the same documents
(playground.evaluation.spans), so its retrieval metrics are comparable across chunkings. `run_chunk_sweep` (the
CLI's `playground sweep --sweep chunk_size=64,128,254`, and the Experiments page's) builds or reuses each chunking
through `playground.documents.versions.chunked_corpus` (the other two settings stay those of the benchmark's own
corpus), then evaluates the same retriever on the same seeded sample of questions against each one and stores a
retrieval run per point, labelled "sweep PARAM=VALUE" with the sweep in its config; `chunk_sweeps` reads the
stored sweeps back, each point with its metrics and their 95% intervals, for app/charts/sweep.py's chart.
"""

from __future__ import annotations

import uuid
from typing import Optional, Sequence, Union

from playground import PlaygroundError
from playground.bounds import LONG_SWEEP_POINTS, MAX_SWEEP_POINTS, confirm_long_work
from playground.evaluation.retrieval import RETRIEVAL_METRICS
from playground.progress import ProgressCallback, report

CHUNK_PARAMETERS = {
    "chunk_size": "chunk size (tokens)",
    "overlap": "chunk overlap (tokens)",
    "chunker": "chunker",
}
Value = Union[int, str]


def is_chunk_sweep(spec: str) -> bool:
    """Whether a --sweep spec sweeps a chunking setting (else it is a run sweep, runs/sweeps.py)."""
    return (spec or "").partition("=")[0].strip() in CHUNK_PARAMETERS


def parse_chunk_sweep(spec: str) -> tuple[str, list[Value]]:
    """ "chunk_size=64,128,254", "overlap=0,16", "chunker=tokens,sentences" -> (parameter, values). Whole numbers
    for sizes and overlaps, names for chunkers; the chunking library checks each value's range before anything runs."""
    name, sep, raw = (spec or "").partition("=")
    name = name.strip()
    if not sep or name not in CHUNK_PARAMETERS:
        raise PlaygroundError(
            f"--sweep {spec!r}: write PARAM=VALUES with PARAM one of {', '.join(CHUNK_PARAMETERS)} "
            f"(e.g. chunk_size=64,128,254 or chunker=tokens,sentences,markdown)"
        )
    values: list[Value] = []
    for part in (p.strip() for p in raw.split(",")):
        if name == "chunker":
            if not part or not part.replace("-", "").replace("_", "").isalnum():
                raise PlaygroundError(f"--sweep {spec!r}: {part!r} is not a chunker name")
            values.append(part)
        elif part.isdigit():
            values.append(int(part))
        else:
            raise PlaygroundError(f"--sweep {spec!r}: {part!r} is not a whole number")
    if len(values) > MAX_SWEEP_POINTS:
        raise PlaygroundError(f"--sweep {spec!r}: a sweep has at most {MAX_SWEEP_POINTS:,} points, got {len(values):,}")
    if len(set(values)) != len(values):
        raise PlaygroundError(f"--sweep {spec!r}: a value is repeated")
    return name, values


def base_chunking(workspace, dataset: str) -> tuple[str, dict]:
    """(the benchmark's own corpus, its chunking settings); refused unless that corpus is a documents corpus."""
    from playground.evaluation.span_gold import chunking
    from playground.store.datasets import corpus_of

    corpus = corpus_of(workspace, dataset)
    settings = chunking(workspace, corpus) if corpus else None
    if not corpus or settings is None:
        raise PlaygroundError(
            f"sweeping a chunking setting needs a benchmark made on imported documents (`playground data import "
            f"docs`); {dataset!r} searches {'no corpus' if not corpus else f'corpus {corpus!r}'}, which is not one"
        )
    return corpus, settings


def point_chunking(settings: dict, parameter: str, value: Value) -> dict:
    """The chunking of one point: the benchmark's own, with the swept setting at `value`."""
    point = {key: settings.get(key) for key in ("chunker", "chunk_size", "overlap")}
    point[parameter] = value
    return point


def check_windows(
    retriever: str,
    params: Optional[dict],
    settings: dict,
    parameter: str,
    values: Sequence[Value],
    language: Optional[str] = None,
) -> None:
    """Every point's chunks must fit the window of each embedder the retriever reads them with over a corpus in
    `language` (BM25 reads none), refused before anything is chunked or stored."""
    from playground.retrieval.chunk_window import embedders_read, window_refusal

    embedders = embedders_read(retriever, params, language)
    for value in values:
        size = point_chunking(settings, parameter, value)["chunk_size"]
        for embedder in embedders:
            refusal = window_refusal(int(size), embedder)
            if refusal:
                raise PlaygroundError(f"--sweep {parameter}={value}: {refusal}")


def build_chunkings(
    workspace,
    corpus: str,
    settings: dict,
    parameter: str,
    values: Sequence[Value],
    on_progress: Optional[ProgressCallback] = None,
) -> list[str]:
    """Each point's corpus name, built (or reused, by digest) before any point is evaluated, so a value the chunking
    library refuses stops the sweep before a run is stored."""
    from playground.documents.versions import chunked_corpus

    names = []
    for done, value in enumerate(values, start=1):
        point = point_chunking(settings, parameter, value)
        try:
            names.append(chunked_corpus(workspace, corpus, point["chunker"], point["chunk_size"], point["overlap"]))
        except PlaygroundError as error:
            raise PlaygroundError(f"--sweep {parameter}={value}: {error}") from None
        report(on_progress, done, len(values), f"chunked {parameter}={value}")
    return names


def run_chunk_sweep(
    workspace,
    dataset: str,
    parameter: str,
    values: Sequence[Value],
    retriever: str = "bm25",
    params: Optional[dict] = None,
    k: int = 10,
    sample: Optional[int] = None,
    seed: int = 0,
    on_progress: Optional[ProgressCallback] = None,
    session_id: Optional[str] = None,
    confirmed: bool = False,
) -> list[dict]:
    """Evaluate `retriever` on each chunking of the benchmark's documents; returns the points in the order given,
    each {parameter, value, corpus, run_id, n, errors, status, metrics, intervals}. Every point's retrieval run goes
    to `session_id`, else to the session current when the sweep starts."""
    from playground.evaluation.retrieval import evaluate_retriever
    from playground.retrieval.language_defaults import corpus_language
    from playground.store.sessions import current_session

    if parameter not in CHUNK_PARAMETERS:
        raise PlaygroundError(f"cannot sweep {parameter!r} as a chunking (known: {', '.join(CHUNK_PARAMETERS)})")
    if not values:
        raise PlaygroundError("a sweep needs at least one value")
    corpus, settings = base_chunking(workspace, dataset)
    if len(values) > LONG_SWEEP_POINTS:
        confirm_long_work(
            f"a sweep of {len(values):,} points",
            f"{len(values):,} chunkings, each chunked, indexed and evaluated; more than {LONG_SWEEP_POINTS} asks first",
            confirmed,
        )
    check_windows(retriever, params, settings, parameter, values, corpus_language(workspace, corpus))
    names = build_chunkings(workspace, corpus, settings, parameter, values)
    session_id = session_id or current_session(workspace)["id"]
    sweep_id = uuid.uuid4().hex[:12]
    points = []
    report(on_progress, 0, len(values), "")
    for done, (value, name) in enumerate(zip(values, names), start=1):
        result = evaluate_retriever(
            workspace,
            dataset,
            retriever,
            k,
            sample,
            seed,
            params,
            store=True,
            session_id=session_id,
            corpus=name,
            label=f"sweep {parameter}={value}",
            sweep={"id": sweep_id, "parameter": parameter, "value": value},
            spans_only=True,
        )
        points.append(_point(parameter, value, name, result["run_id"], result))
        report(on_progress, done, len(values), f"{parameter}={value}")
    return points


def _point(parameter: str, value: Value, corpus: str, run_id: str, metrics: dict) -> dict:
    return {
        "parameter": parameter,
        "value": value,
        "corpus": corpus,
        "run_id": run_id,
        "n": metrics.get("n", 0),
        "errors": 0,
        "status": "done",
        "metrics": {name: metrics.get(name) for name in RETRIEVAL_METRICS},
        "intervals": dict(metrics.get("intervals") or {}),
    }


def chunk_sweeps(workspace, dataset: Optional[str] = None) -> list[dict]:
    """The stored chunking sweeps (of one benchmark when given), newest first: {id, parameter, dataset, retriever,
    k, created_at, points}, the points in the order they were run."""
    from playground.store.retrieval_runs import list_retrieval_runs

    sweeps: dict[str, dict] = {}
    for run in reversed(list_retrieval_runs(workspace, dataset)):  # oldest first: points in the order run
        config = run["config"]
        sweep = config.get("sweep")
        if not isinstance(sweep, dict) or sweep.get("parameter") not in CHUNK_PARAMETERS:
            continue
        found = sweeps.setdefault(
            str(sweep.get("id")),
            {
                "id": sweep.get("id"),
                "parameter": sweep["parameter"],
                "dataset": config.get("dataset"),
                "retriever": config.get("retriever"),
                "k": config.get("k"),
                "created_at": run["created_at"],
                "points": [],
            },
        )
        found["points"].append(
            _point(sweep["parameter"], sweep.get("value"), config["corpus"], run["id"], run["metrics"])
        )
    return sorted(sweeps.values(), key=lambda s: s["created_at"], reverse=True)
