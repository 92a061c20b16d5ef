"""Retrieval benchmark: prints one markdown table (progress goes to stderr).

Rows:
- squad: open retrieval over the SQuAD v1.1 dev paragraphs (1,733) with 1,000 seeded questions, every retriever:
  recall@1/5/10, MRR@10, build time, index size, single-query p50/p95 (query embedding included).
- zipf-10k / zipf-100k: synthetic corpora (Zipf word ranks, seeded) for bm25 (bm25s) against bm25-rank (rank-bm25).
- vectors-100k: 384-d unit vectors for faiss-hnsw, faiss-ivfpq, annoy against exact search. The vectors are drawn
  from a seeded mixture of 1,000 Gaussian clusters on the sphere: i.i.d. uniform vectors have no neighbourhood
  structure (every point is about as far as every other), so no index beats brute force on them, while real
  sentence embeddings are clustered. recall@10 is measured against exact top-10 on held-out queries.
- cached rebuild: a forced second build of dense indexes over SQuAD, the embeddings read back from the disk cache.
- embedding: the engine's embedder against sentence-transformers called directly on the same texts.

Usage: .venv/bin/python bench/retrieval.py [--quick] [--squad PATH]
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from playground.retrieval.registry import default_params, retriever_kinds  # noqa: E402

DEFAULT_SQUAD = (
    next(
        (parent / "shared" / "datasets" for parent in REPO.parents if (parent / "shared" / "datasets").is_dir()),
        REPO.parent / "shared" / "datasets",
    )
    / "squad"
    / "dev-v1.1.json"
)
COLUMNS = [
    "rows",
    "retriever",
    "recall@1",
    "recall@5",
    "recall@10",
    "MRR@10",
    "build s",
    "size MB",
    "p50 ms",
    "p95 ms",
    "notes",
]


def log(message: str) -> None:
    print(f"[bench] {message}", file=sys.stderr, flush=True)


def row(section, retriever, notes="", **values) -> dict:
    return {"rows": section, "retriever": retriever, "notes": notes, **values}


def fmt(value) -> str:
    if value is None:
        return ""
    if isinstance(value, float):
        return f"{value:.3f}" if value < 10 else f"{value:.1f}"
    return str(value)


def percentiles(latencies_s: list[float]) -> tuple[float, float]:
    ms = np.array(latencies_s) * 1000
    return float(np.percentile(ms, 50)), float(np.percentile(ms, 95))


# ---------------------------------------------------------------- SQuAD quality


def squad_rows(squad_path: Path, n_questions: int, workdir: Path) -> tuple[list[dict], object]:
    from playground.data.importers import read_dataset
    from playground.data.sampling import sample_questions
    from playground.retrieval.embeddings import corpus_embeddings
    from playground.evaluation.retrieval import ranking_metrics
    from playground.retrieval.index import build_index, open_retriever
    from playground.store import open_workspace
    from playground.store.datasets import save_dataset

    workspace = open_workspace(workdir / "sessions" / "bench.db")
    dataset = read_dataset("squad", squad_path)
    save_dataset(workspace, "squad", dataset, replace=True)  # same passages -> same fingerprint -> caches reused
    questions = sample_questions([q for q in dataset.questions if q.gold_passage_ids], n_questions, seed=0)
    log(f"squad: {len(dataset.passages)} paragraphs, {len(questions)} questions")

    started = time.perf_counter()
    embeddings = corpus_embeddings(workspace, "squad")
    seconds = time.perf_counter() - started
    computed = embeddings.manifest["seconds"]
    origin = "computed now" if seconds >= computed else f"from the --workdir cache ({seconds:.2f} s to read)"
    rows = [
        row(
            "squad",
            "(embeddings, shared)",
            build_s=computed,
            size_mb=embeddings.vectors.nbytes / 1e6,
            notes=f"{len(dataset.passages)} passages embedded once for all dense kinds; {origin}",
        )
    ]
    results = {}
    for kind in retriever_kinds():
        if kind == "http-search":  # a remote service's, not built here: it has no default to measure
            continue
        log(f"squad: {kind}")
        manifest = build_index(workspace, "squad", kind)
        retriever = open_retriever(workspace, "squad", kind)
        sums = {"recall@1": 0.0, "recall@5": 0.0, "recall@10": 0.0, "mrr@10": 0.0}
        latencies = []
        for question in questions:
            t0 = time.perf_counter()
            hits = retriever.search(question.text, 10)
            latencies.append(time.perf_counter() - t0)
            ranked = [h.passage_id for h in hits]
            for k in (1, 5, 10):
                sums[f"recall@{k}"] += ranking_metrics(ranked, question.gold_passage_ids, k)[f"recall@{k}"]
            sums["mrr@10"] += ranking_metrics(ranked, question.gold_passage_ids, 10)["mrr@10"]
        means = {key: value / len(questions) for key, value in sums.items()}
        results[kind] = means
        p50, p95 = percentiles(latencies)
        notes = ""
        if kind == "faiss-ivfpq":
            notes = "effective " + ", ".join(f"{k}={v}" for k, v in manifest["effective"].items())
        if kind == "hybrid":
            notes = "RRF bm25 + dense, c=60"
        rows.append(
            row(
                "squad",
                kind,
                recall_1=means["recall@1"],
                recall_5=means["recall@5"],
                recall_10=means["recall@10"],
                mrr_10=means["mrr@10"],
                build_s=manifest["build_seconds"],
                size_mb=manifest["size_bytes"] / 1e6,
                p50_ms=p50,
                p95_ms=p95,
                notes=notes,
            )
        )
    best = max(results["bm25"]["recall@10"], results["dense"]["recall@10"])
    done = (
        results["bm25"]["recall@10"] > 0.85
        and results["dense"]["recall@10"] > 0.85
        and results["hybrid"]["recall@10"] >= best
    )
    rows.append(
        row(
            "squad",
            "done-when check",
            notes=(
                f"bm25 {results['bm25']['recall@10']:.3f} and dense {results['dense']['recall@10']:.3f} > 0.85, "
                f"hybrid {results['hybrid']['recall@10']:.3f} >= {best:.3f}: {'PASS' if done else 'FAIL'}"
            ),
        )
    )
    return rows, workspace


def cached_rebuild_rows(workspace) -> list[dict]:
    from playground.retrieval import embeddings as embeddings_module
    from playground.retrieval.index import build_index, forget_open_retrievers

    rows = []
    for kind, params in (("dense", None), ("faiss-hnsw", None), ("faiss-hnsw", {"M": 16}), ("annoy", {"n_trees": 50})):
        embeddings_module._cached_embeddings.clear()  # read the cache from disk, as a new process would
        forget_open_retrievers()
        before = embeddings_module.corpus_embeddings(workspace, "squad").manifest["built_at"]
        embeddings_module._cached_embeddings.clear()
        started = time.perf_counter()
        build_index(workspace, "squad", kind, params, force=True)
        seconds = time.perf_counter() - started
        reused = embeddings_module.corpus_embeddings(workspace, "squad").manifest["built_at"] == before
        label = kind + (" " + ",".join(f"{k}={v}" for k, v in params.items()) if params else "")
        rows.append(
            row(
                "cached rebuild (squad)",
                label,
                build_s=seconds,
                notes=f"embeddings reused: {reused}; target < 10 s: {'PASS' if seconds < 10 and reused else 'FAIL'}",
            )
        )
    return rows


# ---------------------------------------------------------------- BM25 at scale


def zipf_corpus(n: int, seed: int, vocab: int = 50_000, mean_len: int = 60) -> list[str]:
    rng = np.random.default_rng(seed)
    words = np.array([f"w{i}x" for i in range(vocab)])
    ranks = np.arange(1, vocab + 1)
    probs = 1.0 / ranks**1.07
    probs /= probs.sum()
    lengths = rng.integers(mean_len // 2, mean_len * 3 // 2, n)
    tokens = rng.choice(vocab, size=int(lengths.sum()), p=probs)
    texts, at = [], 0
    for length in lengths:
        texts.append(" ".join(words[tokens[at : at + length]]))
        at += length
    return texts


def zipf_queries(texts: list[str], n: int, seed: int) -> list[str]:
    """Queries of 3-5 words taken from random passages, so each has at least one matching passage."""
    rng = random.Random(seed)
    queries = []
    for _ in range(n):
        words = rng.choice(texts).split()
        queries.append(" ".join(rng.sample(words, min(len(words), rng.randint(3, 5)))))
    return queries


def bm25_scale_rows(sizes: list[int], n_fast: int, n_slow: int) -> list[dict]:
    from playground.retrieval.bm25 import BM25Retriever
    from playground.retrieval.bm25_rank import RankBM25Retriever

    rows = []
    for size in sizes:
        label = f"zipf-{size // 1000}k"
        log(f"{label}: generating")
        texts = zipf_corpus(size, seed=size)
        ids = [f"d{i}" for i in range(size)]
        queries = zipf_queries(texts, n_fast, seed=1)
        timings = {}
        for kind, cls, n_queries in (("bm25", BM25Retriever, n_fast), ("bm25-rank", RankBM25Retriever, n_slow)):
            log(f"{label}: {kind}")
            started = time.perf_counter()
            retriever = cls.from_texts(texts, ids, default_params(kind))
            build = time.perf_counter() - started
            retriever.search(queries[0], 10)
            latencies = []
            for query in queries[:n_queries]:
                t0 = time.perf_counter()
                retriever.search(query, 10)
                latencies.append(time.perf_counter() - t0)
            timings[kind] = (build, *percentiles(latencies), n_queries)
            del retriever
        ratio = timings["bm25-rank"][1] / timings["bm25"][1]
        for kind in ("bm25", "bm25-rank"):
            build, p50, p95, n_queries = timings[kind]
            notes = f"{n_queries} queries"
            if kind == "bm25":
                notes += f"; {ratio:.0f}x faster per query (p50) than bm25-rank"
                if size >= 100_000:
                    notes += f"; target >= 50x: {'PASS' if ratio >= 50 else 'FAIL'}"
            rows.append(row(label, kind, build_s=build, p50_ms=p50, p95_ms=p95, notes=notes))
    return rows


# ---------------------------------------------------------------- vectors at scale


def clustered_unit_vectors(n: int, dim: int, rng, centres: np.ndarray) -> np.ndarray:
    labels = rng.integers(0, len(centres), n)
    vectors = centres[labels] + rng.standard_normal((n, dim)).astype(np.float32) / np.sqrt(dim)
    return (vectors / np.linalg.norm(vectors, axis=1, keepdims=True)).astype(np.float32)


def vector_rows(n: int, dim: int, n_queries: int) -> list[dict]:
    from playground.retrieval.annoy_index import AnnoyRetriever
    from playground.retrieval.dense import DenseRetriever, exact_top_k
    from playground.retrieval.faiss_hnsw import FaissHNSWRetriever
    from playground.retrieval.faiss_ivfpq import FaissIVFPQRetriever

    rng = np.random.default_rng(2024)
    centres = rng.standard_normal((1000, dim)).astype(np.float32)
    centres /= np.linalg.norm(centres, axis=1, keepdims=True)
    vectors = clustered_unit_vectors(n, dim, rng, centres)
    queries = clustered_unit_vectors(n_queries, dim, rng, centres)
    truth = exact_top_k(vectors, queries, 10)
    ids = [str(i) for i in range(n)]
    label = f"vectors-{n // 1000}k"
    rows = []
    for kind, cls in (
        ("dense", DenseRetriever),
        ("faiss-hnsw", FaissHNSWRetriever),
        ("faiss-ivfpq", FaissIVFPQRetriever),
        ("annoy", AnnoyRetriever),
    ):
        log(f"{label}: {kind}")
        params = default_params(kind)
        started = time.perf_counter()
        retriever = cls.from_vectors(vectors, ids, params)
        build = time.perf_counter() - started
        with tempfile.TemporaryDirectory() as folder:
            retriever.save(Path(folder))
            size = sum(f.stat().st_size for f in Path(folder).iterdir()) or vectors.nbytes
        latencies, recalls = [], []
        for query, expected in zip(queries, truth):
            t0 = time.perf_counter()
            rows_found, _ = retriever.search_vectors(query, 10)
            latencies.append(time.perf_counter() - t0)
            recalls.append(len(set(rows_found.tolist()) & set(expected.tolist())) / 10)
        p50, p95 = percentiles(latencies)
        recall = float(np.mean(recalls))
        shown = {k: v for k, v in params.items() if k != "embedder"}
        notes = (
            "exact (numpy)"
            if kind == "dense"
            else "recall@10 vs exact; " + ", ".join(f"{k}={v}" for k, v in shown.items())
        )
        if kind == "faiss-hnsw":
            notes += f"; target recall >= 0.95 and p50 < 2 ms: {'PASS' if recall >= 0.95 and p50 < 2 else 'FAIL'}"
        if kind == "faiss-ivfpq":
            notes += "; effective " + ", ".join(f"{k}={v}" for k, v in retriever.build_info["effective"].items())
        rows.append(
            row(label, kind, recall_10=recall, build_s=build, size_mb=size / 1e6, p50_ms=p50, p95_ms=p95, notes=notes)
        )
        del retriever
    return rows


# ---------------------------------------------------------------- embedding throughput


def embedding_rows(texts: list[str], repeats: int) -> list[dict]:
    from sentence_transformers import SentenceTransformer

    from playground.embedder_files import model_location
    from playground.retrieval.embedders import get_embedder
    from playground.embedder_files import DEFAULT_EMBEDDER

    embedder = get_embedder()
    model = SentenceTransformer(model_location(DEFAULT_EMBEDDER), device=embedder.device)
    embedder.encode(texts[:64])
    engine, direct = [], []

    def run_engine():
        embedder.encode(texts, on_progress=lambda *a: None)

    def run_direct():
        model.encode(
            texts,
            batch_size=embedder.batch_size,
            normalize_embeddings=True,
            convert_to_numpy=True,
            show_progress_bar=False,
        )

    for repeat in range(repeats):  # interleaved, alternating who goes first, so outside load hits both alike
        for name in ("engine", "direct") if repeat % 2 == 0 else ("direct", "engine"):
            t0 = time.perf_counter()
            run_engine() if name == "engine" else run_direct()
            (engine if name == "engine" else direct).append(time.perf_counter() - t0)
    ratio = min(direct) / min(engine)
    median_ratio = float(np.median(direct)) / float(np.median(engine))
    return [
        row(
            "embedding",
            f"engine (get_embedder().encode, {embedder.backend})",
            build_s=min(engine),
            notes=f"{len(texts) / min(engine):.1f} texts/s; throughput {ratio:.3f} of direct (best of {repeats}; "
            f"medians {median_ratio:.3f}); target within 5%: {'PASS' if ratio >= 0.95 else 'FAIL'}",
        ),
        row(
            "embedding",
            "sentence-transformers direct",
            build_s=min(direct),
            notes=f"{len(texts) / min(direct):.1f} texts/s; the same {len(texts)} SQuAD paragraphs, same batch size",
        ),
    ]


def print_table(rows: list[dict]) -> None:
    keys = [
        "rows",
        "retriever",
        "recall_1",
        "recall_5",
        "recall_10",
        "mrr_10",
        "build_s",
        "size_mb",
        "p50_ms",
        "p95_ms",
        "notes",
    ]
    print("| " + " | ".join(COLUMNS) + " |")
    print("|" + "|".join("---" for _ in COLUMNS) + "|")
    for entry in rows:
        print("| " + " | ".join(fmt(entry.get(key)) for key in keys) + " |")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer questions and queries, 10k-scale only")
    parser.add_argument("--squad", type=Path, default=DEFAULT_SQUAD, help="SQuAD v1.1 dev JSON")
    parser.add_argument(
        "--workdir",
        type=Path,
        default=None,
        help="keep the SQuAD workspace and indexes here and reuse them (default: a temporary folder)",
    )
    args = parser.parse_args()
    if not args.squad.exists():
        print(f"error: {args.squad} is absent (the SQuAD dev file from ../shared/datasets)", file=sys.stderr)
        return 1
    started = time.perf_counter()
    rows = []
    with tempfile.TemporaryDirectory(prefix="bench-retrieval-") as folder:
        squad, workspace = squad_rows(args.squad, 200 if args.quick else 1000, args.workdir or Path(folder))
        rows += squad
        rows += cached_rebuild_rows(workspace)
        from playground.store.datasets import load_passages

        paragraphs = [p.text for p in load_passages(workspace, "squad")]
        workspace.close()
    rows += bm25_scale_rows(
        [10_000] if args.quick else [10_000, 100_000], 200 if args.quick else 500, 20 if args.quick else 50
    )
    rows += vector_rows(20_000 if args.quick else 100_000, 384, 200 if args.quick else 300)
    rows += embedding_rows(random.Random(0).sample(paragraphs, 128), 3 if args.quick else 5)
    print_table(rows)
    log(f"done in {time.perf_counter() - started:.0f} s")
    return 0


if __name__ == "__main__":
    import figures

    sys.exit(figures.run("retrieval", main))
