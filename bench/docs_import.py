"""What `data import docs` costs, and what playground's chunking adds to the chunking library it calls.

    .venv/bin/python bench/docs_import.py [--min-files 1000] [--repeats 3]

The folder is built from what is installed: the Markdown, RST, text and HTML files in site-packages, each
distribution's METADATA (as .md) and the Python reference's topics (as .txt), copied into numbered subfolders
until it holds at least `--min-files` files. Printed:

- import: documents/s and MB/s of the whole `import_documents` (read, parse, chunk, store in one transaction).
- chunking: the same parsed texts cut by playground (`cut`: the chunker, whitespace trimmed, every span counted
  in tokens, oversized ones split) against the library called directly (sentences: chonkie's SentenceChunker;
  markdown: semchunk per section), and the ratio (the issue asks at most 1.2x); chonkie's RecursiveChunker beside
  them, the library not chosen for sections.
"""

from __future__ import annotations

import argparse
import os
import shutil
import site
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("HF_HUB_OFFLINE", "1")

from playground.data.documents.chunkers import _semchunker, _sentence_chunker  # noqa: E402
from playground.data.documents.chunking import Chunking, cut  # noqa: E402
from playground.data.documents.folder import read_documents  # noqa: E402
from playground.data.documents.tokens import embedder_tokenizer  # noqa: E402
from playground.documents.importing import import_documents  # noqa: E402
from playground.store import open_workspace  # noqa: E402

SIZE = 200


def _sources() -> list[tuple[str, bytes]]:
    found: list[tuple[str, bytes]] = []
    for packages in site.getsitepackages():
        root = Path(packages)
        for extension in ("md", "rst", "txt", "html"):
            for path in sorted(root.rglob(f"*.{extension}")):
                if path.is_file() and path.stat().st_size > 200:
                    found.append((path.relative_to(root).as_posix(), path.read_bytes()))
        for path in sorted(root.glob("*.dist-info/METADATA")):
            found.append((path.parent.name + ".md", path.read_bytes()))
    from pydoc_data.topics import topics

    found += [(f"python-reference/{key}.txt", text.encode("utf-8")) for key, text in sorted(topics.items())]
    return found


def build_folder(target: Path, min_files: int) -> tuple[int, int]:
    sources = _sources()
    copies = -(-min_files // len(sources))
    for copy in range(copies):
        for relative, data in sources:
            path = target / f"copy-{copy}" / relative
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(data)
    return len(sources), copies


def time_import(folder: Path, repeats: int) -> dict:
    seconds = []
    for _ in range(repeats):
        with tempfile.TemporaryDirectory() as scratch:
            workspace = open_workspace(Path(scratch) / "w.db")
            started = time.perf_counter()
            summary = import_documents(workspace, folder, "bench", Chunking("markdown", SIZE, 0))
            seconds.append(time.perf_counter() - started)
            workspace.close()
    best = statistics.median(seconds)
    return {**summary, "seconds": best}


def _median(function, repeats: int) -> float:
    """Median seconds of `repeats` calls, each with cold chunkers (semchunk memoises token counts per instance)."""
    times = []
    for _ in range(repeats):
        _semchunker.cache_clear()
        _sentence_chunker.cache_clear()
        started = time.perf_counter()
        function()
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def time_chunking(parsed: list, repeats: int) -> None:
    from chonkie import RecursiveChunker

    tokenizer = embedder_tokenizer()
    total_mb = sum(len(p.text.encode("utf-8")) for p in parsed) / 1024**2
    recursive = RecursiveChunker(tokenizer=tokenizer, chunk_size=SIZE)

    def direct_sentences():
        sentence = _sentence_chunker(tokenizer, SIZE, 0)
        for p in parsed:
            sentence.chunk(p.text)

    def direct_sections():
        sections = _semchunker(tokenizer, SIZE)
        for p in parsed:
            for start, end in p.section_spans():
                if p.text[start:end].strip():
                    sections(p.text[start:end], offsets=True)

    def recursive_sections():
        for p in parsed:
            for start, end in p.section_spans():
                if p.text[start:end].strip():
                    recursive.chunk(p.text[start:end])

    def ours(chunker: str):
        return lambda: [cut(p, Chunking(chunker, SIZE, 0)) for p in parsed]

    print(
        f"\nchunking {len(parsed):,} parsed documents ({total_mb:.1f} MB of text), {SIZE} tokens, median of {repeats}:"
    )
    print(f"  {'chunker':<11} {'library':<30} {'direct':>11} {'playground':>11} {'ratio':>6}")
    for name, library_name, direct in (
        ("sentences", "chonkie SentenceChunker", direct_sentences),
        ("markdown", "semchunk, per section", direct_sections),
    ):
        library = _median(direct, repeats)
        playground = _median(ours(name), repeats)
        print(
            f"  {name:<11} {library_name:<30} {total_mb / library:>6.2f} MB/s {total_mb / playground:>6.2f} MB/s "
            f"{playground / library:>5.2f}x"
        )
    tokens = _median(ours("tokens"), repeats)
    print(f"  {'tokens':<11} {'(the tokenizer only)':<30} {'':>11} {total_mb / tokens:>6.2f} MB/s")
    other = _median(recursive_sections, repeats)
    print(f"  not chosen: chonkie RecursiveChunker per section, {total_mb / other:.2f} MB/s (chunks not always slices)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--min-files", type=int, default=1000)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    scratch = Path(tempfile.mkdtemp(prefix="docs-bench-"))
    try:
        folder = scratch / "docs"
        distinct, copies = build_folder(folder, args.min_files)
        files = sum(1 for _ in folder.rglob("*") if _.is_file())
        print(f"folder: {files:,} files ({distinct:,} distinct installed documents x {copies} copies)")
        result = time_import(folder, args.repeats)
        mb = result["bytes"] / 1024**2
        print(
            f"import (read, parse, chunk, store; median of {args.repeats}): {result['documents']:,} documents, "
            f"{mb:.1f} MB, {result['passages']:,} passages, {len(result['skipped']):,} skipped in "
            f"{result['seconds']:.2f} s: {result['documents'] / result['seconds']:,.0f} documents/s, "
            f"{mb / result['seconds']:.2f} MB/s"
        )
        parsed = [d.parsed for d in read_documents(folder / "copy-0").documents]
        time_chunking(parsed, args.repeats)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    import figures

    sys.exit(figures.run("docs_import", main))
