"""What `data import docs` costs, and what playground's chunking adds to the chunking library it calls.

    .venv/bin/python bench/docs_import.py [--min-files 1000] [--repeats 3] [--memory-mb 8] [--only memory]

The folder is built from what is installed: the Markdown, RST, text and HTML files in site-packages, each
distribution's METADATA (as .md) and the Python reference's topics (as .txt), copied into numbered subfolders
until it holds at least `--min-files` files. Printed:

- import: documents/s and MB/s of the whole `import_documents` (read, parse, chunk, store in one transaction).
- chunking: the same parsed texts cut by playground (`cut`: the chunker, whitespace trimmed, every span counted
  in tokens, oversized ones split) against the library called directly (sentences: chonkie's SentenceChunker;
  markdown: semchunk per section), and the ratio (the issue asks at most 1.2x); chonkie's RecursiveChunker beside
  them, the library not chosen for sections.
- headings: one Markdown file of `--headings` short headings, imported (issue 33: each passage's heading trail
  was found in time growing with the headings: 40k headings took 49 s, 200k more than 20 minutes).
- memory: one generated file of `--memory-mb` per parser (Markdown, RST, one-line text, HTML, PDF), imported with
  each chunker in a child process of its own: the process's peak resident memory, and what the import added to it
  (ru_maxrss after, less before: the libraries loaded and warmed by a 256 KB import of the same kind first), as a
  multiple of the file's size (issue 33: under 10x). A high-water mark: a file much smaller than the default shows
  little above the warm-up's.
  The text mixes accented and CJK characters with ASCII, so Python holds it at two bytes a character.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
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


WORDS = (
    "alpha beta gamma delta epsilon zeta theta kappa lambda omicron sigma tau upsilon omega déjà vu façade naïve "
    "Größe 東京 数据 river mountain"
).split()
PARSERS = {"markdown": "md", "rst": "rst", "text": "txt", "html": "html", "pdf": "pdf"}
CHUNKERS = ("tokens", "sentences", "markdown")


def _sentence(number: int) -> str:
    return " ".join(WORDS[(number * 7 + k * 3) % len(WORDS)] for k in range(6 + number % 17)).capitalize() + ". "


def write_large(parser: str, path: Path, n_bytes: int) -> None:
    """A file of about `n_bytes` for `parser`: a heading every 40 sentences, a paragraph every 5 (text: one line)."""
    if parser == "pdf":
        return _write_pdf(path, n_bytes)
    parts, size, number = [], 0, 0
    while size < n_bytes:
        heading, paragraph = number % 40 == 0, number % 5 == 4
        if parser == "markdown":
            piece = (
                (f"\n## Section {number}\n\n" if heading else "") + _sentence(number) + ("\n\n" if paragraph else "")
            )
        elif parser == "rst":
            title = f"Section {number}"
            piece = (f"\n{title}\n{'-' * len(title)}\n\n" if heading else "") + _sentence(number)
            piece += "\n\n" if paragraph else ""
        elif parser == "html":
            piece = (f"<h2>Section {number}</h2>\n" if heading else "") + f"<p class='s'>{_sentence(number)}</p>\n"
        else:
            piece = _sentence(number)
        parts.append(piece)
        size += len(piece.encode("utf-8"))
        number += 1
    text = "".join(parts)
    if parser == "html":
        text = f"<html><head><script>var x = 1;</script></head><body><nav>a | b</nav><main>{text}</main></body></html>"
    path.write_text(text, encoding="utf-8")


def _write_pdf(path: Path, n_bytes: int) -> None:
    """Pages of ASCII lines in Helvetica (a standard font reads no other), about `n_bytes` of content streams."""
    from pypdf import PageObject, PdfWriter
    from pypdf.generic import ContentStream, DictionaryObject, NameObject

    writer = PdfWriter()
    font = writer._add_object(
        DictionaryObject(
            {
                NameObject("/Type"): NameObject("/Font"),
                NameObject("/Subtype"): NameObject("/Type1"),
                NameObject("/BaseFont"): NameObject("/Helvetica"),
            }
        )
    )
    size, number = 0, 0
    while size < n_bytes:
        lines = [_sentence(number + k).encode("ascii", "ignore").decode() for k in range(40)]
        number += 40
        drawn = "".join(f"({line}) Tj 0 -16 Td " for line in lines)
        page = PageObject.create_blank_page(width=612, height=792)
        page[NameObject("/Resources")] = DictionaryObject(
            {NameObject("/Font"): DictionaryObject({NameObject("/F1"): font})}
        )
        content = ContentStream(None, None)
        content.set_data(f"BT /F1 9 Tf 36 760 Td {drawn}ET".encode("latin-1"))
        page.replace_contents(content)
        writer.add_page(page)
        size += len(drawn) + 200
    with open(path, "wb") as handle:
        writer.write(handle)


def memory_child(path: str, chunker: str) -> None:
    """Import `path` with `chunker` into a fresh workspace; print the peak resident memory before and after (KB)."""
    from playground.data.documents.chunking import Chunking as Cutting

    tokenizer = embedder_tokenizer()
    with tempfile.TemporaryDirectory() as scratch:
        workspace = open_workspace(Path(scratch) / "w.db")
        warm = Path(scratch) / f"warm{Path(path).suffix}"  # the libraries load, and take their working memory, here
        write_large(next(p for p, extension in PARSERS.items() if warm.suffix == f".{extension}"), warm, 256 * 1024)
        import_documents(workspace, warm, "warm", Cutting(chunker, SIZE, 0))
        tokenizer.encode("warm " * 20_000)
        before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        started = time.perf_counter()
        summary = import_documents(workspace, path, "large", Cutting(chunker, SIZE, 0))
        seconds = time.perf_counter() - started
        after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        workspace.close()
    print(json.dumps({"before_kb": before, "after_kb": after, "seconds": seconds, "passages": summary["passages"]}))


def time_memory(megabytes: float) -> None:
    print(f"\npeak memory of one import of a {megabytes:g} MB file, each case in a child process ({SIZE} tokens):")
    print(
        f"  {'parser':<9} {'chunker':<10} {'file MB':>8} {'peak MB':>8} {'added MB':>9} {'x file':>7} {'seconds':>8} "
        f"{'passages':>9}"
    )
    worst = 0.0
    with tempfile.TemporaryDirectory() as scratch:
        for parser, extension in PARSERS.items():
            path = Path(scratch) / f"large.{extension}"
            write_large(parser, path, int(megabytes * 1024**2))
            n_bytes = path.stat().st_size
            for chunker in CHUNKERS:
                done = subprocess.run(
                    [sys.executable, __file__, "--memory-child", str(path), chunker], capture_output=True, text=True
                )
                if done.returncode:
                    print(f"  {parser:<9} {chunker:<10} failed: {done.stderr.strip().splitlines()[-1:]}")
                    continue
                figures = json.loads(done.stdout.strip().splitlines()[-1])
                added = (figures["after_kb"] - figures["before_kb"]) * 1024
                worst = max(worst, added / n_bytes)
                print(
                    f"  {parser:<9} {chunker:<10} {n_bytes / 1024**2:>8.1f} {figures['after_kb'] / 1024:>8.0f} "
                    f"{added / 1024**2:>9.1f} "
                    f"{added / n_bytes:>6.1f}x {figures['seconds']:>8.1f} {figures['passages']:>9,}",
                    flush=True,
                )
    print(f"  the most any case added: {worst:.1f}x its file (the aim: under 10x)")


def time_headings(count: int) -> None:
    with tempfile.TemporaryDirectory() as scratch:
        path = Path(scratch) / "headings.md"
        path.write_text("".join(f"# h{n}\n" for n in range(count)), encoding="utf-8")
        workspace = open_workspace(Path(scratch) / "w.db")
        started = time.perf_counter()
        summary = import_documents(workspace, path, "headings", Chunking("markdown", SIZE, 0))
        seconds = time.perf_counter() - started
        workspace.close()
        megabytes = path.stat().st_size / 1024**2
    print(
        f"\nheadings: a Markdown file of {count:,} headings ({megabytes:.1f} MB, "
        f"{summary['passages']:,} passages) imported in {seconds:.1f} s"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--min-files", type=int, default=1000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--memory-mb", type=float, default=8.0, help="the size of each memory case's file (0: none)")
    parser.add_argument("--headings", type=int, default=40_000, help="headings of the headings case (0: none)")
    parser.add_argument("--only", choices=("throughput", "headings", "memory"), help="print one part only")
    parser.add_argument("--memory-child", nargs=2, metavar=("PATH", "CHUNKER"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.memory_child:
        return memory_child(*args.memory_child)
    if args.only in (None, "headings") and args.headings > 0:
        time_headings(args.headings)
    if args.only in (None, "memory") and args.memory_mb > 0:
        time_memory(args.memory_mb)
    if args.only in ("headings", "memory"):
        return
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
