"""Vector engines on the same embeddings: Milvus Lite (the `milvus` retriever) against Qdrant's local mode, LanceDB,
Chroma and the playground's FAISS HNSW, each scored against exact search (FAISS flat). Prints one markdown table.

Rows:
- squad: the SQuAD v1.1 dev paragraphs (1,733) embedded by the default embedder, queried with seeded questions'
  embeddings (the same query vectors for every engine; the query's embedding is not in the latency).
- clustered-20k: 20,000 384-d unit vectors from a seeded mixture of Gaussian clusters (bench/retrieval.py's),
  held-out queries from the same mixture: where an engine's per-query cost that grows with N shows. Not 100k:
  Milvus Lite's query cost grows with N (see below), so that size takes most of an hour on 2 shared cores; a server
  is the answer there (neither a Milvus standalone nor Qdrant's server can start on this machine). Qdrant's local
  mode is left out of this row: it stores every point through SQLite, and 20k points did not finish in 13 minutes.

Each engine runs in a child process of its own, so "memory MB" is that child's peak resident memory above what it
held with the vectors loaded (VmHWM - VmRSS before the engine was imported); "disk MB" is the engine's folder.
Settings: HNSW M=16, efConstruction=64, ef=128 wherever the engine takes them (the `faiss-hnsw` defaults).
Qdrant's server and a Milvus cluster are not measured here.
Milvus Lite 3.x answers a search after a pure-Python pass over every row's delete state (search/executor_indexed.py,
_build_local_mask): its latency grows linearly with the collection, while the FAISS HNSW search inside it does not.

Usage: .venv/bin/python bench/vector_engines.py [--quick] [--squad PATH] [--workdir DIR]
Needs the [bench] extra (qdrant-client, lancedb, chromadb); pymilvus and milvus-lite are dependencies.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

ENGINES = ("faiss-flat", "faiss-hnsw", "milvus-lite", "qdrant-local", "lancedb", "chroma")
NOTES = {
    "faiss-flat": "exact (the reference)",
    "faiss-hnsw": "the playground's faiss-hnsw",
    "milvus-lite": "in process; same client as a cluster",
    "qdrant-local": "local mode: brute force in numpy, no HNSW",
    "lancedb": "no index (flat scan; an IVF index needs a bigger table)",
    "chroma": "embedded (Rust core, hnswlib)",
}
SLOW_TO_FILL = {
    "qdrant-local": "not run: local mode writes every point through SQLite (20k points: over 13 min here, unfinished)"
}
COLUMNS = ("rows", "engine", "recall@10", "build s", "p50 ms", "p95 ms", "memory MB", "disk MB", "notes")
M, EF_CONSTRUCTION, EF_SEARCH = 16, 64, 128


def log(message: str) -> None:
    print(f"[bench] {message}", file=sys.stderr, flush=True)


def status_mb(field: str) -> float:
    for line in Path("/proc/self/status").read_text(encoding="ascii").splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1]) / 1024
    return float("nan")


def folder_mb(folder: Path) -> float:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file()) / 1e6


# ---------------------------------------------------------------- engines (each: build, then a search function)


def build_faiss(vectors: np.ndarray, folder: Path, hnsw: bool):
    import faiss

    if hnsw:
        index = faiss.IndexHNSWFlat(vectors.shape[1], M, faiss.METRIC_INNER_PRODUCT)
        index.hnsw.efConstruction = EF_CONSTRUCTION
    else:
        index = faiss.IndexFlatIP(vectors.shape[1])
    index.add(vectors)
    if hnsw:
        index.hnsw.efSearch = EF_SEARCH
    faiss.write_index(index, str(folder / "index.faiss"))
    return lambda query, k: index.search(query.reshape(1, -1), k)[1][0].tolist()


def build_milvus(vectors: np.ndarray, folder: Path):
    from playground.retrieval.milvus import connect, write_own_collection

    client = connect(str(folder / "collection.db"), "MILVUS_TOKEN")
    ids = [str(i) for i in range(len(vectors))]
    params = {"M": M, "ef_construction": EF_CONSTRUCTION, "uri": ""}
    write_own_collection(client, "passages", vectors, ids, params, None)
    search = {"metric_type": "IP", "params": {"ef": EF_SEARCH}}

    def run(query, k):
        found = client.search("passages", data=[query.tolist()], limit=k, output_fields=["id"], search_params=search)
        return [int(hit["id"]) for hit in found[0]]

    return run


def build_qdrant(vectors: np.ndarray, folder: Path):
    from qdrant_client import QdrantClient, models

    client = QdrantClient(path=str(folder / "qdrant"))
    client.create_collection(
        "passages",
        vectors_config=models.VectorParams(size=vectors.shape[1], distance=models.Distance.DOT),
        hnsw_config=models.HnswConfigDiff(m=M, ef_construct=EF_CONSTRUCTION),
    )
    for start in range(0, len(vectors), 1000):
        chunk = vectors[start : start + 1000]
        client.upsert("passages", models.Batch(ids=list(range(start, start + len(chunk))), vectors=chunk.tolist()))
    params = models.SearchParams(hnsw_ef=EF_SEARCH)
    return lambda query, k: [
        int(p.id) for p in client.query_points("passages", query=query.tolist(), limit=k, search_params=params).points
    ]


def build_lancedb(vectors: np.ndarray, folder: Path):
    import lancedb
    import pyarrow as pa

    db = lancedb.connect(str(folder / "lancedb"))
    table = db.create_table(
        "passages",
        pa.table(
            {
                "id": pa.array(np.arange(len(vectors), dtype=np.int64)),
                "vector": pa.FixedSizeListArray.from_arrays(pa.array(vectors.reshape(-1)), vectors.shape[1]),
            }
        ),
    )
    return lambda query, k: (
        table.search(query, vector_column_name="vector").metric("dot").limit(k).select(["id"]).to_arrow()["id"]
    ).to_pylist()


def build_chroma(vectors: np.ndarray, folder: Path):
    import chromadb

    client = chromadb.PersistentClient(
        path=str(folder / "chroma"), settings=chromadb.Settings(anonymized_telemetry=False)
    )
    collection = client.create_collection(
        "passages",
        metadata={
            "hnsw:space": "ip",
            "hnsw:M": M,
            "hnsw:construction_ef": EF_CONSTRUCTION,
            "hnsw:search_ef": EF_SEARCH,
        },
    )
    for start in range(0, len(vectors), 1000):
        chunk = vectors[start : start + 1000]
        collection.add(ids=[str(i) for i in range(start, start + len(chunk))], embeddings=chunk)
    return lambda query, k: [int(i) for i in collection.query(query_embeddings=[query], n_results=k)["ids"][0]]


def child(engine: str, data: Path, out: Path) -> None:
    """One engine over one data set, in this (fresh) process: build, search every query, write the figures."""
    vectors = np.load(data / "vectors.npy")
    queries = np.load(data / "queries.npy")
    truth = np.load(data / "truth.npy")
    before = status_mb("VmRSS")
    folder = Path(tempfile.mkdtemp(prefix=f"bench-{engine}-", dir=data))
    builders = {
        "faiss-flat": lambda: build_faiss(vectors, folder, hnsw=False),
        "faiss-hnsw": lambda: build_faiss(vectors, folder, hnsw=True),
        "milvus-lite": lambda: build_milvus(vectors, folder),
        "qdrant-local": lambda: build_qdrant(vectors, folder),
        "lancedb": lambda: build_lancedb(vectors, folder),
        "chroma": lambda: build_chroma(vectors, folder),
    }
    started = time.perf_counter()
    search = builders[engine]()
    build_s = time.perf_counter() - started
    search(queries[0], 10)  # warm-up, not timed
    latencies, recalls = [], []
    for query, expected in zip(queries, truth):
        t0 = time.perf_counter()
        found = search(query, 10)
        latencies.append((time.perf_counter() - t0) * 1000)
        recalls.append(len(set(found) & set(expected.tolist())) / 10)
    figures = {
        "recall@10": float(np.mean(recalls)),
        "build s": build_s,
        "p50 ms": float(np.percentile(latencies, 50)),
        "p95 ms": float(np.percentile(latencies, 95)),
        "memory MB": status_mb("VmHWM") - before,
        "disk MB": folder_mb(folder),
    }
    out.write_text(json.dumps(figures), encoding="utf-8")


# ---------------------------------------------------------------- data sets and the table


def squad_data(squad: Path, n_questions: int, workdir: Path, into: Path) -> None:
    from playground.data.importers import read_dataset
    from playground.data.sampling import sample_questions
    from playground.retrieval.embedders import get_embedder
    from playground.retrieval.embeddings import corpus_embeddings
    from playground.store import open_workspace
    from playground.store.datasets import save_dataset

    workspace = open_workspace(workdir / "sessions" / "bench.db")
    dataset = read_dataset("squad", squad)
    save_dataset(workspace, "squad", dataset, replace=True)  # same passages, same fingerprint: the cache is reused
    embeddings = corpus_embeddings(workspace, "squad")
    questions = sample_questions(list(dataset.questions), n_questions, seed=0)
    queries = get_embedder(embeddings.manifest.get("embedder")).encode_queries([q.text for q in questions])
    save_data(into, np.asarray(embeddings.vectors, dtype=np.float32), np.asarray(queries, dtype=np.float32))
    workspace.close()


def clustered_data(n: int, n_queries: int, into: Path) -> None:
    from retrieval import clustered_unit_vectors

    rng = np.random.default_rng(2024)
    centres = rng.standard_normal((1000, 384)).astype(np.float32)
    centres /= np.linalg.norm(centres, axis=1, keepdims=True)
    save_data(into, clustered_unit_vectors(n, 384, rng, centres), clustered_unit_vectors(n_queries, 384, rng, centres))


def save_data(into: Path, vectors: np.ndarray, queries: np.ndarray) -> None:
    from playground.retrieval.dense import exact_top_k

    into.mkdir(parents=True, exist_ok=True)
    np.save(into / "vectors.npy", np.ascontiguousarray(vectors))
    np.save(into / "queries.npy", np.ascontiguousarray(queries))
    np.save(into / "truth.npy", exact_top_k(vectors, queries, 10))


def measure(name: str, data: Path, engines) -> list[dict]:
    rows = []
    for engine in engines:
        log(f"{name}: {engine}")
        out = data / f"{engine}.json"
        done = subprocess.run(
            [sys.executable, __file__, "--child", engine, "--data", str(data), "--out", str(out)],
            capture_output=True,
            text=True,
            timeout=3600,
        )
        if done.returncode != 0:
            failure = (done.stderr.strip().splitlines() or ["no output"])[-1]
            rows.append({"rows": name, "engine": engine, "notes": f"failed: {failure[:120]}"})
            continue
        rows.append(
            {"rows": name, "engine": engine, **json.loads(out.read_text(encoding="utf-8")), "notes": NOTES[engine]}
        )
    return rows


def fmt(value) -> str:
    if value is None:
        return ""
    if isinstance(value, float):
        return f"{value:.3f}" if value < 10 else f"{value:.1f}"
    return str(value)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer queries, 5k clustered vectors")
    parser.add_argument("--squad", type=Path, default=None, help="SQuAD v1.1 dev JSON (default: ../shared/datasets)")
    parser.add_argument("--workdir", type=Path, default=None, help="keep the SQuAD workspace (its embeddings) here")
    parser.add_argument("--engines", default=",".join(ENGINES), help="comma-separated, of: " + ", ".join(ENGINES))
    parser.add_argument("--child", help=argparse.SUPPRESS)
    parser.add_argument("--data", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--out", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.child, args.data, args.out)
        return 0
    from retrieval import DEFAULT_SQUAD

    squad = args.squad or DEFAULT_SQUAD
    if not squad.exists():
        print(f"error: {squad} is absent (the SQuAD dev file from ../shared/datasets)", file=sys.stderr)
        return 1
    engines = [e for e in args.engines.split(",") if e]
    unknown = sorted(set(engines) - set(ENGINES))
    if unknown:
        print(f"error: --engines: unknown {', '.join(unknown)} (choose from {', '.join(ENGINES)})", file=sys.stderr)
        return 2
    started = time.perf_counter()
    n_clustered = 5_000 if args.quick else 20_000
    rows: list[dict] = []
    with tempfile.TemporaryDirectory(prefix="bench-vector-engines-") as folder:
        squad_data(squad, 100 if args.quick else 200, args.workdir or Path(folder), Path(folder) / "squad")
        rows += measure("squad", Path(folder) / "squad", engines)
        clustered_data(n_clustered, 100 if args.quick else 200, Path(folder) / "clustered")
        name = f"clustered-{n_clustered // 1000}k"
        rows += measure(name, Path(folder) / "clustered", [e for e in engines if e not in SLOW_TO_FILL])
        rows += [{"rows": name, "engine": e, "notes": SLOW_TO_FILL[e]} for e in engines if e in SLOW_TO_FILL]
    print("| " + " | ".join(COLUMNS) + " |")
    print("|" + "|".join("---" for _ in COLUMNS) + "|")
    for entry in rows:
        print("| " + " | ".join(fmt(entry.get(column)) for column in COLUMNS) + " |")
    log(f"done in {time.perf_counter() - started:.0f} s")
    return 0


if __name__ == "__main__":
    import figures

    sys.exit(figures.run("vector_engines", main))
